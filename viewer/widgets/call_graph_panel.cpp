#include "viewer/widgets/call_graph_panel.h"

#include <QLabel>
#include <QVBoxLayout>

#include "viewer/models/roles.h"
#include "viewer/widgets/ranked_table.h"

namespace quartz::viewer {

CallGraphPanel::CallGraphPanel(CallGraphModel::Direction direction, QWidget* parent)
    : QWidget(parent),
      direction_(direction),
      title_(new QLabel(this)),
      table_(new RankedTable(CallGraphModel::kName, CallGraphModel::kNormalized,
                             CallGraphModel::kShare, this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 4, 0, 0);
  layout->addWidget(title_);
  layout->addWidget(table_);
  title_->setTextFormat(Qt::PlainText);
  QFont bold = title_->font();
  bold.setBold(true);
  title_->setFont(bold);
  connect(table_, &RankedTable::row_activated, this, [this](const QModelIndex& index) {
    if (index.isValid())
      emit activated(index.data(KeyRole).toULongLong(), index.data(KindRole).toUInt());
  });
  set_run(nullptr);
}

void CallGraphPanel::set_run(std::shared_ptr<const RunData> run) {
  auto model = std::make_unique<CallGraphModel>(std::move(run), direction_);
  table_->set_source(model.get());
  model_ = std::move(model);
  title_->setText(direction_ == CallGraphModel::kCallers ? tr("Callers") : tr("Callees"));
}

void CallGraphPanel::show_for(uint64_t address, bool object, const QString& name) {
  model_->show(address, object);
  if (direction_ == CallGraphModel::kCallers) {
    title_->setText(object ? tr("Taken in: %1").arg(name) : tr("Callers of %1").arg(name));
  } else {
    title_->setText(tr("Callees of %1 (where its time goes)").arg(name));
  }
}

}  // namespace quartz::viewer

#include "viewer/widgets/run_picker.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include "viewer/models/roles.h"
#include "viewer/models/run_list_model.h"

namespace quartz::viewer {

RunPicker::RunPicker(const QString& store, std::vector<profile::RunSummary> runs, QWidget* parent)
    : QDialog(parent),
      model_(new RunListModel(std::move(runs), this)),
      table_(new QTableView(this)) {
  setWindowTitle(tr("Open a run of %1").arg(store));
  table_->setModel(model_);
  table_->verticalHeader()->hide();
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setWordWrap(false);
  table_->resizeColumnsToContents();
  table_->setCurrentIndex(model_->index(model_->rowCount() - 1, 0));  // the latest run
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(table_, &QAbstractItemView::activated, this, &QDialog::accept);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel(tr("Runs in %1:").arg(store), this));
  layout->addWidget(table_);
  layout->addWidget(buttons);
  resize(760, 380);
}

RunPicker::~RunPicker() = default;

std::optional<int64_t> RunPicker::chosen() const {
  const QModelIndex current = table_->currentIndex();
  if (!current.isValid()) return std::nullopt;
  return current.data(KeyRole).toLongLong();
}

}  // namespace quartz::viewer

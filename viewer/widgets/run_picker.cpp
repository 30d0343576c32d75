#include "viewer/widgets/run_picker.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "viewer/models/roles.h"
#include "viewer/models/run_list_model.h"

namespace quartz::viewer {

namespace {

// Rows whose host or labels hold every word of the filter ("branch=main ci-3").
class HostAndLabelFilter : public QSortFilterProxyModel {
 public:
  using QSortFilterProxyModel::QSortFilterProxyModel;
  void set_words(const QString& text) {
    words_ = text.split(' ', Qt::SkipEmptyParts);
    invalidateFilter();
  }

 protected:
  bool filterAcceptsRow(int row, const QModelIndex& parent) const override {
    const QString text = sourceModel()->index(row, RunListModel::kHost, parent).data().toString() +
                         " " +
                         sourceModel()->index(row, RunListModel::kLabels, parent).data().toString();
    return std::all_of(words_.begin(), words_.end(),
                       [&](const QString& word) { return text.contains(word); });
  }

 private:
  QStringList words_;
};

}  // namespace

RunPicker::RunPicker(const QString& store, std::vector<profile::RunSummary> runs, QWidget* parent)
    : QDialog(parent),
      model_(new RunListModel(std::move(runs), this)),
      shown_(new HostAndLabelFilter(this)),
      filter_(new QLineEdit(this)),
      table_(new QTableView(this)) {
  setWindowTitle(tr("Open a run of %1").arg(store));
  shown_->setSourceModel(model_);
  filter_->setPlaceholderText(tr("Filter by host or label (branch=main)"));
  filter_->setClearButtonEnabled(true);
  connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
    static_cast<HostAndLabelFilter*>(shown_)->set_words(text);
    table_->setCurrentIndex(shown_->index(shown_->rowCount() - 1, 0));  // the latest shown
  });
  table_->setModel(shown_);
  table_->verticalHeader()->hide();
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setWordWrap(false);
  table_->resizeColumnsToContents();
  table_->setCurrentIndex(shown_->index(shown_->rowCount() - 1, 0));  // the latest run
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(table_, &QAbstractItemView::activated, this, &QDialog::accept);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel(tr("Runs in %1:").arg(store), this));
  layout->addWidget(filter_);
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

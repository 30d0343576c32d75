#include "viewer/widgets/findings_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "viewer/models/finding_subject.h"
#include "viewer/models/format.h"
#include "viewer/widgets/share_bar_delegate.h"
#include "viewer/widgets/view_parts.h"

namespace quartz::viewer {

FindingsView::FindingsView(QWidget* parent)
    : ProfileTab(parent),
      summary_(sentence_label(this)),
      splitter_(new QSplitter(Qt::Vertical)),
      table_(new QTableView),
      detail_(sentence_label(this)) {
  style_table(table_);
  table_->setTextElideMode(Qt::ElideRight);
  table_->setItemDelegateForColumn(FindingTableModel::kSeverity, new ShareBarDelegate(this));
  table_->setToolTip(tr("Enter opens the finding's procedure, object or thread"));
  summary_->setContentsMargins(2, 4, 2, 4);
  detail_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  detail_->setMargin(8);
  auto* scroll = new QScrollArea;
  scroll->setWidget(detail_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  splitter_->addWidget(table_);
  splitter_->addWidget(scroll);
  splitter_->setChildrenCollapsible(false);
  splitter_->setStretchFactor(0, 0);
  splitter_->setStretchFactor(1, 1);
  auto* body = new QWidget;
  auto* layout = new QVBoxLayout(body);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(summary_);
  layout->addWidget(splitter_, 1);
  set_body(body);
  connect(table_, &QAbstractItemView::activated, this,
          [this](const QModelIndex& index) { open_subject(index.row()); });
  set_run(nullptr);
}

FindingsView::~FindingsView() = default;

void FindingsView::set_run(std::shared_ptr<const RunData> run) {
  run_ = std::move(run);
  auto model = std::make_unique<FindingTableModel>(run_);
  table_->setModel(model.get());
  model_ = std::move(model);  // the old one after the table has let go of it
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
    show_detail();
    emit selection_changed();
  });
  // Evidence and advice are long: they are read in full below the table.
  table_->resizeColumnsToContents();
  for (int column :
       {FindingTableModel::kSubject, FindingTableModel::kEvidence, FindingTableModel::kAdvice}) {
    table_->setColumnWidth(column, std::min(table_->columnWidth(column), 360));
  }
  const int program = static_cast<int>(std::count_if(
      model_->findings().begin(), model_->findings().end(),
      [](const analysis::Finding& f) { return !analysis::about_measurement(f.property); }));
  if (!run_) {
    summary_->clear();
  } else if (program == 0) {
    summary_->setText(tr("No finding about the program above 1% of the elapsed time (%1): "
                         "nothing stands out.")
                          .arg(format_seconds(run_->view.elapsed_s)));
  } else {
    summary_->setText(tr("%1 about the program, by the share of the elapsed time (%2) each "
                         "explains, then those about the measurement (grey). Enter opens the "
                         "procedure, object or thread.")
                          .arg(program == 1 ? tr("One finding") : tr("%1 findings").arg(program),
                               format_seconds(run_->view.elapsed_s)));
  }
  // The table as high as its rows (four to twelve); the rest for the finding in full.
  const int rows = std::clamp(model_->rowCount(), 4, 12);
  const int height = table_->horizontalHeader()->sizeHint().height() +
                     rows * table_->verticalHeader()->defaultSectionSize() +
                     2 * table_->frameWidth() + 24;
  splitter_->setSizes({height, std::max(200, splitter_->height() - height)});
  if (model_->rowCount() > 0) table_->setCurrentIndex(model_->index(0, 0));
  show_detail();
}

void FindingsView::show_detail() {
  const QModelIndex current = table_->currentIndex();
  if (!current.isValid()) {
    detail_->setText(run_ && model_->rowCount() == 0
                         ? tr("No finding above 1% of the elapsed time.")
                         : QString());
    return;
  }
  const analysis::Finding& f = model_->findings()[size_t(current.row())];
  const QString location = f.location.empty()
                               ? QString()
                               : QStringLiteral("  [%1]").arg(QString::fromStdString(f.location));
  detail_->setText(
      tr("%1: %2%3\nSeverity %4 of the elapsed time, confidence %5%6\n\nEvidence: %7\n\nAdvice: %8")
          .arg(QString::fromStdString(analysis::property_name(f.property)),
               QString::fromStdString(f.subject), location, format_percent(f.severity),
               QString::asprintf("%.2f", f.confidence),
               analysis::about_measurement(f.property) ? tr(" (about the measurement)") : QString(),
               QString::fromStdString(f.evidence), QString::fromStdString(f.advice)));
}

bool FindingsView::open_subject(int row) {
  if (!run_ || row < 0 || row >= model_->rowCount()) return false;
  const FindingSubject subject = subject_of(run_->view, model_->findings()[size_t(row)]);
  switch (subject.kind) {
    case FindingSubject::kProcedure:
      emit open_procedure(subject.key);
      return true;
    case FindingSubject::kLock:
      emit open_lock(subject.key);
      return true;
    case FindingSubject::kThread:
      emit open_thread(static_cast<uint32_t>(subject.key));
      return true;
    default:
      return false;
  }
}

bool FindingsView::select_subject(const QString& name) {
  for (int row = 0; row < model_->rowCount(); ++row) {
    if (model_->findings()[size_t(row)].subject == name.toStdString()) {
      table_->setCurrentIndex(model_->index(row, 0));
      return true;
    }
  }
  return false;
}

std::optional<Selection> FindingsView::selection() const {
  if (!run_) return std::nullopt;
  const QModelIndex current = table_->currentIndex();
  if (!current.isValid()) return program_selection(*run_);
  const analysis::ProfileView& v = run_->view;
  const FindingSubject subject = subject_of(v, model_->findings()[size_t(current.row())]);
  switch (subject.kind) {
    case FindingSubject::kProcedure:
      for (const analysis::ProcedureRow& p : v.procedures) {
        if (p.address == subject.key) return procedure_selection(*run_, p);
      }
      break;
    case FindingSubject::kLock:
      for (const analysis::LockRow& l : v.locks) {
        if (l.address == subject.key) return lock_selection(*run_, l);
      }
      break;
    case FindingSubject::kThread:
      for (const analysis::ThreadRow& t : v.threads) {
        if (t.index == subject.key) return thread_selection(*run_, t);
      }
      break;
    default:
      break;
  }
  return program_selection(*run_);
}

QVariant FindingsView::current_key() const {
  const QModelIndex current = table_->currentIndex();
  return current.isValid() ? QVariant(current.row()) : QVariant();
}

bool FindingsView::select_key(const QVariant& key) {
  if (!key.isValid() || key.toInt() < 0 || key.toInt() >= model_->rowCount()) return false;
  table_->setCurrentIndex(model_->index(key.toInt(), 0));
  return true;
}

const QAbstractItemModel* FindingsView::export_model() const {
  return model_.get();
}

QWidget* FindingsView::main_widget() const {
  return table_;
}

QString FindingsView::summary() const {
  return summary_->text();
}

QString FindingsView::detail() const {
  return detail_->text();
}

void FindingsView::save_state(QSettings& settings) const {
  settings.setValue(QStringLiteral("splitter"), splitter_->saveState());
}

void FindingsView::restore_state(const QSettings& settings) {
  splitter_->restoreState(settings.value(QStringLiteral("splitter")).toByteArray());
}

}  // namespace quartz::viewer

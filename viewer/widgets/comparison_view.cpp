#include "viewer/widgets/comparison_view.h"

#include <QApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "viewer/charts/comparison_chart.h"
#include "viewer/loading/command_line.h"
#include "viewer/models/comparison_text.h"
#include "viewer/widgets/run_picker.h"
#include "viewer/widgets/view_parts.h"

namespace quartz::viewer {

namespace {

// A table under its title, as one part of a splitter.
QWidget* titled(QLabel* title, QTableView* table) {
  auto* part = new QWidget;
  auto* layout = new QVBoxLayout(part);
  layout->setContentsMargins(0, 4, 0, 0);
  layout->setSpacing(2);
  QFont bold = title->font();
  bold.setBold(true);
  title->setFont(bold);
  layout->addWidget(title);
  layout->addWidget(table, 1);
  style_table(table);
  table->setTextElideMode(Qt::ElideRight);
  return part;
}

// The findings' property, subject and severity: their evidence is in the Findings view.
void show_finding_columns(QTableView* table) {
  for (int column = FindingTableModel::kConfidence; column < FindingTableModel::kColumnCount;
       ++column) {
    table->setColumnHidden(column, true);
  }
  table->resizeColumnsToContents();
}

void fit_change_columns(QTableView* table) {
  table->resizeColumnsToContents();
  table->setColumnWidth(ChangeTableModel::kName,
                        std::clamp(table->columnWidth(ChangeTableModel::kName), 160, 420));
}

QString change_title(const QString& what, const ChangeTableModel& model) {
  return model.rowCount() == 0
             ? QObject::tr("%1 whose normalized time changed beyond noise: none").arg(what)
             : QObject::tr("%1 whose normalized time changed beyond noise (%2)")
                   .arg(what)
                   .arg(model.rowCount());
}

}  // namespace

ComparisonView::ComparisonView(QWidget* parent)
    : ProfileTab(parent),
      runs_(sentence_label(this)),
      choose_(new QPushButton(tr("Compare &with…"), this)),
      pages_(new QStackedWidget(this)),
      message_(sentence_label(this)),
      elapsed_(sentence_label(this)),
      noise_(sentence_label(this)),
      beside_(new QSplitter(Qt::Horizontal)),
      splitter_(new QSplitter(Qt::Vertical)),
      procedures_title_(new QLabel),
      procedures_(new QTableView),
      locks_title_(new QLabel),
      locks_(new QTableView),
      appeared_title_(new QLabel(tr("Findings that appeared in B"))),
      appeared_(new QTableView),
      went_away_title_(new QLabel(tr("Findings that went away"))),
      went_away_(new QTableView),
      chart_(new ComparisonChart) {
  message_->setAlignment(Qt::AlignCenter);
  message_->setMargin(24);
  choose_->setToolTip(tr("Choose the run (A) to compare this run (B) with"));
  connect(choose_, &QPushButton::clicked, this, &ComparisonView::choose_run);
  QFont larger = elapsed_->font();
  larger.setPointSizeF(larger.pointSizeF() * 1.15);
  larger.setBold(true);
  elapsed_->setFont(larger);

  auto* findings = new QSplitter(Qt::Horizontal);
  findings->addWidget(titled(appeared_title_, appeared_));
  findings->addWidget(titled(went_away_title_, went_away_));
  findings->setChildrenCollapsible(false);
  splitter_->addWidget(titled(procedures_title_, procedures_));
  splitter_->addWidget(titled(locks_title_, locks_));
  splitter_->addWidget(findings);
  splitter_->setChildrenCollapsible(false);
  splitter_->setStretchFactor(0, 3);
  splitter_->setStretchFactor(1, 2);
  splitter_->setStretchFactor(2, 1);
  beside_->addWidget(splitter_);
  beside_->addWidget(chart_);
  beside_->setChildrenCollapsible(false);
  beside_->setStretchFactor(0, 3);
  beside_->setStretchFactor(1, 2);
  for (QTableView* table : {procedures_, locks_})
    table->setToolTip(tr("Enter opens it in its view (this run's)"));
  connect(procedures_, &QAbstractItemView::activated, this,
          [this](const QModelIndex& index) { open_change(procedure_model_.get(), index, false); });
  connect(locks_, &QAbstractItemView::activated, this,
          [this](const QModelIndex& index) { open_change(lock_model_.get(), index, true); });

  auto* comparison = new QWidget;
  auto* body = new QVBoxLayout(comparison);
  body->setContentsMargins(0, 0, 0, 0);
  body->addWidget(elapsed_);
  body->addWidget(noise_);
  body->addWidget(beside_, 1);
  pages_->addWidget(message_);
  pages_->addWidget(comparison);

  auto* top = new QWidget;
  auto* bar = new QHBoxLayout(top);
  bar->setContentsMargins(2, 2, 2, 2);
  bar->addWidget(runs_, 1);
  bar->addWidget(choose_);
  auto* all = new QWidget;
  auto* layout = new QVBoxLayout(all);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(top);
  layout->addWidget(pages_, 1);
  set_body(all);
  set_run(nullptr);
}

ComparisonView::~ComparisonView() = default;

void ComparisonView::set_run(std::shared_ptr<const RunData> run) {
  run_ = std::move(run);
  comparison_.reset();
  // Another run of the same store is compared with the same A.
  if (a_ && (!run_ || !run_->id || a_->source != run_->source)) a_.reset();
  choose_->setEnabled(run_ && run_->id);
  if (a_) return compare_with(a_);
  show_comparison();
}

void ComparisonView::choose_run() {
  if (!run_ || !run_->id) return;
  std::vector<profile::RunSummary> runs;
  try {
    runs = list_runs(run_->source);
  } catch (const LoadError& e) {
    return show_message(QString::fromStdString(e.what()));
  }
  RunPicker picker(QString::fromStdString(profile::Store::display_name(run_->source)),
                   std::move(runs), this);
  picker.setWindowTitle(tr("Compare %1 with").arg(QString::fromStdString(run_->label)));
  if (picker.exec() == QDialog::Accepted && picker.chosen()) compare_with(*picker.chosen());
}

bool ComparisonView::compare_with(int64_t id) {
  if (!run_ || !run_->id) return false;
  QApplication::setOverrideCursor(Qt::WaitCursor);
  try {
    std::shared_ptr<const RunData> a = load_run(std::to_string(id), run_->source);
    QApplication::restoreOverrideCursor();
    compare_with(std::move(a));
    return true;
  } catch (const LoadError& e) {
    QApplication::restoreOverrideCursor();
    show_message(QString::fromStdString(e.what()));
    return false;
  }
}

void ComparisonView::compare_with(std::shared_ptr<const RunData> a) {
  a_ = std::move(a);
  if (run_ && a_) comparison_ = compare_runs(a_, run_);
  show_comparison();
}

void ComparisonView::show_message(const QString& text) {
  message_->setText(text);
  pages_->setCurrentIndex(0);
}

void ComparisonView::show_comparison() {
  const analysis::Comparison empty;
  const analysis::Comparison& c = comparison_ ? comparison_->comparison : empty;
  auto procedures = std::make_unique<ChangeTableModel>(c.procedures);
  auto locks = std::make_unique<ChangeTableModel>(c.locks);
  auto appeared = std::make_unique<FindingTableModel>(c.appeared);
  auto went_away = std::make_unique<FindingTableModel>(c.went_away);
  procedures_->setModel(procedures.get());
  locks_->setModel(locks.get());
  appeared_->setModel(appeared.get());
  went_away_->setModel(went_away.get());
  // The old models after the tables have let go of them.
  procedure_model_ = std::move(procedures);
  lock_model_ = std::move(locks);
  appeared_model_ = std::move(appeared);
  went_away_model_ = std::move(went_away);
  connect(procedures_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &ComparisonView::selection_changed);
  connect(locks_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &ComparisonView::selection_changed);
  fit_change_columns(procedures_);
  fit_change_columns(locks_);
  show_finding_columns(appeared_);
  show_finding_columns(went_away_);
  procedures_title_->setText(change_title(tr("Procedures"), *procedure_model_));
  locks_title_->setText(change_title(tr("Synchronization objects"), *lock_model_));
  appeared_title_->setText(appeared_model_->rowCount() == 0
                               ? tr("Findings that appeared in B: none")
                               : tr("Findings that appeared in B"));
  went_away_title_->setText(went_away_model_->rowCount() == 0 ? tr("Findings that went away: none")
                                                              : tr("Findings that went away"));

  if (!run_) {
    runs_->clear();
    return show_message(QString());
  }
  const QString b = QString::fromStdString(run_->label);
  if (!run_->id) {
    runs_->setText(tr("B: %1").arg(b));
    return show_message(
        tr("A capture file is compared once imported into a store ('quartz import %1'), "
           "with the store's other runs; or on the command line: 'quartz compare A B'.")
            .arg(b));
  }
  if (!comparison_) {
    runs_->setText(tr("B: %1").arg(b));
    return show_message(tr("Compare this run (B) with another run of %1 (A): Compare with… "
                           "(as 'quartz compare A B').")
                            .arg(QString::fromStdString(run_->source)));
  }
  const std::string& program_a = a_->view.program;
  const std::string& program_b = run_->view.program;
  runs_->setText(tr("A: %1 · B: %2 (this run) · %3%4")
                     .arg(QString::fromStdString(a_->label), b, QString::fromStdString(program_b),
                          program_a == program_b
                              ? QString()
                              : tr(" (A: %1)").arg(QString::fromStdString(program_a))));
  chart_->show_changes(c);
  elapsed_->setText(elapsed_sentence(c));
  noise_->setText(noise_sentence(c));
  pages_->setCurrentIndex(1);
}

void ComparisonView::open_change(const ChangeTableModel* model, const QModelIndex& index,
                                 bool lock) {
  if (!run_ || !index.isValid()) return;
  const std::string& name = model->changes()[size_t(index.row())].name;
  if (lock) {
    for (const analysis::LockRow& l : run_->view.locks) {
      if (l.name == name) return emit open_lock(l.address);
    }
  } else {
    for (const analysis::ProcedureRow& p : run_->view.procedures) {
      if (p.name == name) return emit open_procedure(p.address);
    }
  }
}

std::optional<Selection> ComparisonView::selection() const {
  if (!run_) return std::nullopt;
  if (comparison_) {
    const QTableView* focused = locks_->hasFocus() ? locks_ : procedures_;
    const QModelIndex current = focused->currentIndex();
    if (current.isValid()) {
      const bool lock = focused == locks_;
      const std::string& name =
          (lock ? lock_model_ : procedure_model_)->changes()[size_t(current.row())].name;
      if (lock) {
        for (const analysis::LockRow& l : run_->view.locks) {
          if (l.name == name) return lock_selection(*run_, l);
        }
      } else {
        for (const analysis::ProcedureRow& p : run_->view.procedures) {
          if (p.name == name) return procedure_selection(*run_, p);
        }
      }
    }
  }
  return program_selection(*run_);
}

QVariant ComparisonView::current_key() const {
  return a_ && a_->id ? QVariant(qlonglong(*a_->id)) : QVariant();
}

bool ComparisonView::select_key(const QVariant& key) {
  if (!key.isValid()) return false;
  if (a_ && a_->id && qlonglong(*a_->id) == key.toLongLong()) return true;
  return compare_with(key.toLongLong());
}

const QAbstractItemModel* ComparisonView::export_model() const {
  return procedure_model_.get();
}

QWidget* ComparisonView::main_widget() const {
  return pages_->currentIndex() == 1 ? static_cast<QWidget*>(procedures_) : choose_;
}

QString ComparisonView::message() const {
  return pages_->currentIndex() == 0 ? message_->text() : QString();
}

QString ComparisonView::elapsed() const {
  return elapsed_->text();
}

QString ComparisonView::noise() const {
  return noise_->text();
}

void ComparisonView::save_state(QSettings& settings) const {
  settings.setValue(QStringLiteral("splitter"), splitter_->saveState());
  settings.setValue(QStringLiteral("beside"), beside_->saveState());
}

void ComparisonView::restore_state(const QSettings& settings) {
  splitter_->restoreState(settings.value(QStringLiteral("splitter")).toByteArray());
  beside_->restoreState(settings.value(QStringLiteral("beside")).toByteArray());
}

}  // namespace quartz::viewer

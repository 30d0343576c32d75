#include "viewer/widgets/what_if_view.h"

#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QMenu>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>

#include "viewer/charts/what_if_chart.h"
#include "viewer/models/filter_proxy.h"
#include "viewer/models/roles.h"
#include "viewer/models/what_if_text.h"
#include "viewer/widgets/view_parts.h"

namespace quartz::viewer {

namespace {

// The thread of a critical-path entry "3 worker" (index, then name).
const analysis::ThreadRow* thread_named(const RunData& run, const QString& entry) {
  bool ok = false;
  const uint32_t index = entry.section(' ', 0, 0).toUInt(&ok);
  if (!ok) return nullptr;
  for (const analysis::ThreadRow& t : run.view.threads) {
    if (t.index == index) return &t;
  }
  return nullptr;
}

}  // namespace

WhatIfView::WhatIfView(QWidget* parent)
    : ProfileTab(parent),
      answer_model_(new WhatIfAnswerModel(this)),
      answer_proxy_(new ProfileFilterProxy(WhatIfAnswerModel::kQuestion,
                                           WhatIfAnswerModel::kPredicted, this)),
      details_model_(new WhatIfDetailsModel(this)),
      pages_(new QStackedWidget(this)),
      message_(sentence_label(this)),
      splitter_(new QSplitter(Qt::Vertical)),
      entries_(new QTableView),
      entry_pages_(new QStackedWidget),
      entry_message_(sentence_label(this)),
      banner_(sentence_label(this)),
      warning_(sentence_label(this)),
      parts_(new QSplitter(Qt::Vertical)),
      body_(new QSplitter(Qt::Horizontal)),
      answer_pages_(new QStackedWidget),
      no_answers_(sentence_label(this)),
      answers_(new QTableView),
      chart_(new WhatIfChart),
      details_(new QTreeView) {
  message_->setAlignment(Qt::AlignCenter);
  message_->setMargin(24);
  entry_message_->setAlignment(Qt::AlignCenter);
  entry_message_->setMargin(24);
  no_answers_->setAlignment(Qt::AlignCenter);
  no_answers_->setMargin(12);
  no_answers_->setText(
      tr("This prediction asked no question: only the model's check and the "
         "critical path (ask with --group, --cores, --zero, --speedup or "
         "--migrate)."));
  QPalette red = warning_->palette();
  red.setColor(QPalette::WindowText, palette::kBlocked);
  warning_->setPalette(red);
  entry_message_->setPalette(red);
  banner_->setContentsMargins(2, 4, 2, 2);

  style_table(entries_);
  entries_->horizontalHeader()->setStretchLastSection(false);
  entries_->setToolTip(tr("Predictions stored with this run by 'quartz predict', newest first"));

  style_table(answers_);
  answer_proxy_->setSourceModel(answer_model_);
  answers_->setModel(answer_proxy_);
  answers_->horizontalHeader()->setSectionsMovable(true);
  answers_->horizontalHeader()->setSortIndicatorClearable(true);
  answers_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);  // as asked
  answers_->setSortingEnabled(true);
  answers_->setContextMenuPolicy(Qt::CustomContextMenu);
  answers_->installEventFilter(this);
  connect(answers_, &QWidget::customContextMenuRequested, this, &WhatIfView::answers_menu);

  details_->setModel(details_model_);
  details_->setUniformRowHeights(true);
  details_->setAlternatingRowColors(true);
  details_->setTextElideMode(Qt::ElideMiddle);
  details_->header()->setStretchLastSection(false);
  details_->header()->setSectionResizeMode(WhatIfDetailsModel::kName, QHeaderView::Stretch);
  details_->setToolTip(tr("Enter on a procedure, lock or thread opens it in its view"));
  connect(details_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &WhatIfView::selection_changed);

  answer_pages_->addWidget(answers_);
  answer_pages_->addWidget(no_answers_);
  // The answers across the width; below them the chart beside the check and critical path.
  body_->addWidget(chart_);
  body_->addWidget(details_);
  body_->setChildrenCollapsible(false);
  body_->setStretchFactor(0, 1);
  body_->setStretchFactor(1, 1);
  body_->setSizes({1000, 800});
  parts_->addWidget(answer_pages_);
  parts_->addWidget(body_);
  parts_->setChildrenCollapsible(false);
  parts_->setStretchFactor(0, 2);
  parts_->setStretchFactor(1, 3);

  auto* entry = new QWidget;
  auto* entry_layout = new QVBoxLayout(entry);
  entry_layout->setContentsMargins(0, 0, 0, 0);
  entry_layout->setSpacing(2);
  entry_layout->addWidget(banner_);
  entry_layout->addWidget(warning_);
  entry_layout->addWidget(parts_, 1);
  entry_pages_->addWidget(entry);
  entry_pages_->addWidget(entry_message_);

  splitter_->addWidget(entries_);
  splitter_->addWidget(entry_pages_);
  splitter_->setChildrenCollapsible(false);
  splitter_->setStretchFactor(0, 0);
  splitter_->setStretchFactor(1, 1);
  splitter_->setSizes({100, 700});

  pages_->addWidget(message_);
  pages_->addWidget(splitter_);
  set_body(pages_);

  connect(details_, &QAbstractItemView::activated, this, [this](const QModelIndex& index) {
    if (!run_ || !index.isValid()) return;
    const QString name = index.siblingAtColumn(WhatIfDetailsModel::kName).data().toString();
    const std::string wanted = name.toStdString();
    switch (index.data(KindRole).toInt()) {
      case WhatIfDetailsModel::kProcedure:
        for (const analysis::ProcedureRow& p : run_->view.procedures) {
          if (p.name == wanted) return emit open_procedure(p.address);
        }
        return;
      case WhatIfDetailsModel::kLock:
        for (const analysis::LockRow& l : run_->view.locks) {
          if (l.name == wanted) return emit open_lock(l.address);
        }
        return;
      case WhatIfDetailsModel::kThread:
        if (const analysis::ThreadRow* t = thread_named(*run_, name)) {
          for (const profile::ThreadInfo& info : run_->run.threads) {
            if (info.index != t->index) continue;
            return emit show_in_hierarchy(
                t->index != 0 && t->routine_address ? t->routine_address : info.start_routine,
                false);
          }
        }
        return;
      default:
        return;
    }
  });
  set_run(nullptr);
}

WhatIfView::~WhatIfView() = default;

void WhatIfView::set_run(std::shared_ptr<const RunData> run) {
  run_ = std::move(run);
  auto list = std::make_unique<WhatIfListModel>(run_);
  entries_->setModel(list.get());
  list_ = std::move(list);
  connect(entries_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            show_entry(current.isValid() ? current.data(KeyRole).toInt() : -1);
          });
  entries_->resizeColumnsToContents();
  entries_->horizontalHeader()->setSectionResizeMode(WhatIfListModel::kQuestion,
                                                     QHeaderView::Stretch);
  // The list as high as its rows, two to six of them; the rest for the selected entry.
  const int rows = std::clamp(list_->rowCount(), 2, 6);
  const int height = entries_->horizontalHeader()->sizeHint().height() +
                     rows * entries_->verticalHeader()->defaultSectionSize() +
                     2 * entries_->frameWidth() + 2;
  splitter_->setSizes({height, std::max(300, splitter_->height() - height)});
  const QString missing = what_ifs_missing(run_.get());
  message_->setText(missing);
  pages_->setCurrentIndex(missing.isEmpty() ? 1 : 0);
  shown_ = -2;  // nothing shown yet: show_entry() must fill the parts
  show_entry(-1);
  if (list_->rowCount() > 0) {  // the newest
    const QModelIndex newest = list_->index(0, 0);
    entries_->setCurrentIndex(newest);
    // The table may have made it current already (on focus), before show_entry(-1) above.
    show_entry(newest.data(KeyRole).toInt());
  }
}

void WhatIfView::show_entry(int entry) {
  if (entry == shown_) return;
  shown_ = entry;
  const WhatIf* w = run_ && entry >= 0 && size_t(entry) < run_->what_ifs.size()
                        ? &run_->what_ifs[size_t(entry)]
                        : nullptr;
  const analysis::Predictions* p = w && w->predictions ? &*w->predictions : nullptr;
  answer_model_->set_predictions(p);
  details_model_->set_predictions(p);
  if (p) {
    banner_->setText(check_sentence(*p) + "\n" + critical_path_sentence(*p));
    const QString warning = trace_warning(*p);
    warning_->setText(warning.isEmpty() ? QString() : tr("Warning: %1.").arg(warning));
    warning_->setVisible(!warning.isEmpty());
    answer_pages_->setCurrentIndex(answer_model_->rowCount() > 0 ? 0 : 1);
    chart_->show_answers(*p, answer_model_->answers());
    for (const QModelIndex& group : details_model_->open_groups()) details_->expand(group);
    details_->resizeColumnToContents(WhatIfDetailsModel::kValue);
    details_->resizeColumnToContents(WhatIfDetailsModel::kShare);
    if (!columns_fitted_ && answer_model_->rowCount() > 0) {  // once: then the user's widths
      columns_fitted_ = true;
      answers_->resizeColumnsToContents();
      answers_->setColumnWidth(
          WhatIfAnswerModel::kAnswer,
          std::clamp(answers_->columnWidth(WhatIfAnswerModel::kAnswer), 160, 360));
      answers_->setColumnWidth(WhatIfAnswerModel::kQuestion,
                               std::min(answers_->columnWidth(WhatIfAnswerModel::kQuestion), 240));
    }
    entry_pages_->setCurrentIndex(0);
    entry_message_->clear();
  } else {
    banner_->clear();
    warning_->hide();
    chart_->clear_answers();
    entry_message_->setText(
        w ? tr("This stored prediction could not be read: %1").arg(QString::fromStdString(w->error))
          : QString());
    entry_pages_->setCurrentIndex(w ? 1 : 0);
  }
  emit selection_changed();
}

std::optional<Selection> WhatIfView::selection() const {
  if (!run_) return std::nullopt;
  const QModelIndex current = details_->currentIndex();
  if (current.isValid() && pages_->currentIndex() == 1) {
    const QString name = current.siblingAtColumn(WhatIfDetailsModel::kName).data().toString();
    const std::string wanted = name.toStdString();
    switch (current.data(KindRole).toInt()) {
      case WhatIfDetailsModel::kProcedure:
        for (const analysis::ProcedureRow& p : run_->view.procedures) {
          if (p.name == wanted) return procedure_selection(*run_, p);
        }
        break;
      case WhatIfDetailsModel::kLock:
        for (const analysis::LockRow& l : run_->view.locks) {
          if (l.name == wanted) return lock_selection(*run_, l);
        }
        break;
      case WhatIfDetailsModel::kThread:
        if (const analysis::ThreadRow* t = thread_named(*run_, name))
          return thread_selection(*run_, *t);
        break;
      default:
        break;
    }
  }
  return program_selection(*run_);
}

QVariant WhatIfView::current_key() const {
  return shown_ >= 0 ? QVariant(shown_) : QVariant();
}

bool WhatIfView::select_key(const QVariant& key) {
  if (!key.isValid() || !list_) return false;
  for (int row = 0; row < list_->rowCount(); ++row) {
    if (list_->index(row, 0).data(KeyRole) == key) {
      entries_->setCurrentIndex(list_->index(row, 0));
      return true;
    }
  }
  return false;
}

const QAbstractItemModel* WhatIfView::export_model() const {
  return answer_proxy_;
}

QWidget* WhatIfView::main_widget() const {
  return pages_->currentIndex() == 1 ? static_cast<QWidget*>(entries_) : message_;
}

QString WhatIfView::message() const {
  return pages_->currentIndex() == 0 ? message_->text() : QString();
}

QString WhatIfView::entry_message() const {
  return entry_message_->text();
}

QString WhatIfView::banner() const {
  return banner_->text();
}

bool WhatIfView::select_on_path(const QString& name) {
  const QModelIndex index = details_model_->find_on_path(name);
  if (!index.isValid()) return false;
  details_->setCurrentIndex(index);
  details_->scrollTo(index);
  return true;
}

QString WhatIfView::placement_option() const {
  const QModelIndex current = answers_->currentIndex();
  if (!current.isValid()) return {};
  const QString spec = current.siblingAtColumn(WhatIfAnswerModel::kPlacement).data().toString();
  return spec.isEmpty() ? QString() : QStringLiteral("--placement \"%1\"").arg(spec);
}

bool WhatIfView::copy_placement() {
  const QString option = placement_option();
  if (option.isEmpty()) return false;
  QApplication::clipboard()->setText(option);
  return true;
}

bool WhatIfView::eventFilter(QObject* watched, QEvent* event) {
  if (watched == answers_ && event->type() == QEvent::KeyPress &&
      static_cast<QKeyEvent*>(event)->matches(QKeySequence::Copy) && copy_placement()) {
    return true;  // else the table copies the current cell, as every table does
  }
  return ProfileTab::eventFilter(watched, event);
}

void WhatIfView::answers_menu(const QPoint& position) {
  const QModelIndex index = answers_->indexAt(position);
  if (!index.isValid()) return;
  answers_->setCurrentIndex(index);
  QMenu menu(this);
  const QString option = placement_option();
  QAction* placement = menu.addAction(option.isEmpty() ? tr("Copy --placement (not a grouping)")
                                                       : tr("Copy %1").arg(option));
  placement->setEnabled(!option.isEmpty());
  placement->setShortcut(QKeySequence::Copy);
  QAction* row = menu.addAction(tr("Copy the row"));
  QAction* chosen = menu.exec(answers_->viewport()->mapToGlobal(position));
  if (chosen == placement) {
    copy_placement();
  } else if (chosen == row) {
    QStringList cells;
    for (int column = 0; column < answer_proxy_->columnCount(); ++column)
      cells << index.siblingAtColumn(column).data().toString();
    QApplication::clipboard()->setText(cells.join('\t'));
  }
}

void WhatIfView::save_state(QSettings& settings) const {
  settings.setValue(QStringLiteral("answers"), answers_->horizontalHeader()->saveState());
  settings.setValue(QStringLiteral("splitter"), splitter_->saveState());
  settings.setValue(QStringLiteral("body"), body_->saveState());
  settings.setValue(QStringLiteral("left"), parts_->saveState());
}

void WhatIfView::restore_state(const QSettings& settings) {
  columns_fitted_ = answers_->horizontalHeader()->restoreState(
      settings.value(QStringLiteral("answers")).toByteArray());
  splitter_->restoreState(settings.value(QStringLiteral("splitter")).toByteArray());
  body_->restoreState(settings.value(QStringLiteral("body")).toByteArray());
  parts_->restoreState(settings.value(QStringLiteral("left")).toByteArray());
}

}  // namespace quartz::viewer

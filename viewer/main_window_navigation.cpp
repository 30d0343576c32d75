// Moving between the views: by name (the command line's --view and --select), and by
// jumps from a row to its procedure, object, thread or contexts, retraced back and forward.
#include <QStatusBar>
#include <QTabWidget>

#include "viewer/loading/command_line.h"
#include "viewer/main_window.h"
#include "viewer/widgets/comparison_view.h"
#include "viewer/widgets/findings_view.h"
#include "viewer/widgets/hierarchy_view.h"
#include "viewer/widgets/lock_view.h"
#include "viewer/widgets/procedure_view.h"
#include "viewer/widgets/scaling_view.h"
#include "viewer/widgets/thread_view.h"
#include "viewer/widgets/what_if_view.h"

namespace quartz::viewer {

MainWindow::View MainWindow::view_named(const QString& name) {
  for (int i = 0; i < kViewCount; ++i) {
    if (name == QLatin1String(kViewNames[i])) return View(i);
  }
  return kHierarchy;
}

bool MainWindow::select_named(View view, const QString& name) {
  if (!run_) return false;
  const analysis::ProfileView& v = run_->view;
  const std::string wanted = name.toStdString();
  switch (view) {
    case kHierarchy: {
      int best = -1;
      for (size_t i = 0; i < v.contexts.size(); ++i) {
        if (v.name_of(v.contexts[i]) == wanted &&
            (best < 0 || v.contexts[i].normalized_s > v.contexts[size_t(best)].normalized_s)) {
          best = int(i);
        }
      }
      return best >= 0 && hierarchy_->select_node(best);
    }
    case kProcedures:
      for (const analysis::ProcedureRow& p : v.procedures) {
        if (p.name == wanted) return procedures_->select_procedure(p.address);
      }
      return false;
    case kLocks:
      for (const analysis::LockRow& l : v.locks) {
        if (l.name == wanted) return locks_->select_lock(l.address);
      }
      return false;
    case kThreads:
      for (const analysis::ThreadRow& t : v.threads) {
        if (t.name == wanted) return threads_->select_key(t.index);
      }
      return false;
    case kWhatIfs:
      return what_ifs_->select_on_path(name);
    case kFindings:
      return findings_->select_subject(name);
    case kScaling:
      return scaling_->select_region(name);
    case kComparison: {
      bool number = false;
      const qlonglong id = name.toLongLong(&number);
      return number && comparison_->compare_with(id);
    }
    default:
      return false;
  }
}

Place MainWindow::here() const {
  return {tabs_->currentIndex(), current_tab()->current_key()};
}

void MainWindow::remember_place() {
  history_.jump_from(here());
}

void MainWindow::go_to(const Place& place) {
  tabs_->setCurrentIndex(place.view);
  views_[size_t(place.view)]->select_key(place.key);
  views_[size_t(place.view)]->main_widget()->setFocus();
}

void MainWindow::go_back() {
  if (const std::optional<Place> place = history_.back(here())) go_to(*place);
}

void MainWindow::go_forward() {
  if (const std::optional<Place> place = history_.forward(here())) go_to(*place);
}

void MainWindow::open_in_hierarchy(uint64_t address, bool object) {
  remember_place();
  show_view(kHierarchy);
  const bool found = address == 0 && !object ? hierarchy_->select_node(-1)
                                             : hierarchy_->show_contexts_of(address, object);
  if (!found) statusBar()->showMessage(tr("No calling context recorded for it"), 5000);
}

void MainWindow::open_procedure(uint64_t address) {
  remember_place();
  show_view(kProcedures);
  procedures_->select_procedure(address);
}

void MainWindow::open_lock(uint64_t address) {
  remember_place();
  show_view(kLocks);
  locks_->select_lock(address);
}

void MainWindow::open_thread(uint32_t index) {
  remember_place();
  show_view(kThreads);
  threads_->select_key(index);
}

}  // namespace quartz::viewer

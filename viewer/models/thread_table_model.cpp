#include "viewer/models/thread_table_model.h"

namespace quartz::viewer {

ThreadTableModel::ThreadTableModel(std::shared_ptr<const RunData> run, QObject* parent)
    : ColumnTableModel(parent), run_(std::move(run)) {
  if (!run_) return;
  const analysis::ProfileView& v = run_->view;
  auto t = [&v](int row) -> const analysis::ThreadRow& { return v.threads[size_t(row)]; };
  set_columns({
      {"#", "The thread's index (0: the main thread)", Format::Count,
       [=](int row) { return t(row).index; }},
      {"Thread", "Its name (pthread_setname_np or quartz_name_thread)", Format::Text,
       [=](int row) { return QString::fromStdString(t(row).label); }},
      {"Parent", "The thread that created it", Format::Count,
       [=](int row) {
         return t(row).parent == capture::kNoParent ? QVariant() : QVariant(t(row).parent);
       },
       [=](int row) {
         return t(row).parent == capture::kNoParent ? QString()
                                                    : "#" + QString::number(t(row).parent);
       }},
      {"Normalized", "Normalized processor time of the thread's work", Format::Seconds,
       [=](int row) { return t(row).totals.normalized_s; }},
      {"% elapsed", "Normalized time as a share of the run's elapsed time", Format::Percent,
       [=, &v](int row) { return share_cell(v.share_of_elapsed(t(row).totals.normalized_s)); }},
      {"Busy", "Thread-seconds running program code", Format::Seconds,
       [=](int row) { return t(row).busy_s; }},
      {"Spinning", "Thread-seconds busy-waiting", Format::Seconds,
       [=](int row) { return t(row).spinning_s; }},
      {"Blocked",
       "Thread-seconds waiting on a lock, condition, barrier, semaphore or join, or in the kernel",
       Format::Seconds, [=](int row) { return t(row).blocked_s; }},
      {"Ready", "Thread-seconds runnable, but with no processor free", Format::Seconds,
       [=](int row) { return t(row).ready_s; }},
      {"CPU", "The thread's CPU clock", Format::Seconds, [=](int row) { return t(row).cpu_s; }},
      {"Calls", "Procedure calls the thread made", Format::Count,
       [=](int row) { return static_cast<qulonglong>(t(row).calls); }},
  });
  set_key([=](int row) { return t(row).index; });
  reset_rows(static_cast<int>(v.threads.size()));
}

}  // namespace quartz::viewer

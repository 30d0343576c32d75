#include "viewer/models/lock_table_model.h"

#include <QBrush>
#include <QColor>

#include "viewer/palette.h"

namespace quartz::viewer {

LockTableModel::LockTableModel(std::shared_ptr<const RunData> run, QObject* parent)
    : ColumnTableModel(parent), run_(std::move(run)) {
  if (!run_) return;
  const analysis::ProfileView& v = run_->view;
  auto l = [&v](int row) -> const analysis::LockRow& { return v.locks[size_t(row)]; };
  set_columns({
      {"Object",
       "Named with quartz_name_object, or by the program's procedure and line that first took "
       "it (#id added where objects share that name); its kind in parentheses (mutex, rwlock, "
       "spinlock, condition, barrier, semaphore or join)",
       Format::Text, [=](int row) { return QString::fromStdString(l(row).name); },
       [=](int row) {
         return QString::fromStdString(l(row).name + " (" + analysis::kind_name(l(row).kind) + ")");
       }},
      {"Normalized", "Normalized processor time of the work done holding the object",
       Format::Seconds, [=](int row) { return l(row).totals.normalized_s; }},
      {"% elapsed", "Normalized time as a share of the run's elapsed time", Format::Percent,
       [=, &v](int row) { return share_cell(v.share_of_elapsed(l(row).totals.normalized_s)); }},
      {"Wait", "Thread-time spent waiting for it (spinning or blocked)", Format::Seconds,
       [=](int row) { return l(row).wait_s; }},
      {"Hold", "Thread-time spent holding it", Format::Seconds,
       [=](int row) { return l(row).hold_s; }},
      {"Acquired", "Acquisitions (exact)", Format::Count,
       [=](int row) { return static_cast<qulonglong>(l(row).acquisitions); }},
      {"Contended", "Acquisitions that found it taken (exact)", Format::Count,
       [=](int row) { return static_cast<qulonglong>(l(row).contended); }},
      {"Mean wait", "Wait per contended acquisition", Format::Seconds,
       [=](int row) { return l(row).mean_wait_s; }},
      {"Mean queue", "Threads waiting, on average, while it was in use", Format::Decimal,
       [=](int row) { return l(row).mean_queue; }},
      {"Id",
       "The object's number in the run, in the order first used: the id of text reports "
       "(#id), JSON (id) and the store (locks.object_id)",
       Format::Count, [=](int row) { return static_cast<qulonglong>(l(row).id); }},
  });
  set_key([=](int row) { return static_cast<qulonglong>(l(row).address); });
  set_kind([=](int row) { return l(row).kind; });
  set_row_role([](int, int role) {
    return role == Qt::ForegroundRole ? QVariant(QBrush(palette::kObject)) : QVariant();
  });
  reset_rows(static_cast<int>(v.locks.size()));
}

int LockTableModel::row_of(uint64_t address) const {
  if (!run_) return -1;
  const auto& locks = run_->view.locks;
  for (size_t i = 0; i < locks.size(); ++i) {
    if (locks[i].address == address) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace quartz::viewer

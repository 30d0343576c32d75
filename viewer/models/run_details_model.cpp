#include "viewer/models/run_details_model.h"

#include <QDateTime>
#include <QStringList>

#include "viewer/models/format.h"

namespace quartz::viewer {

RunDetailsModel::RunDetailsModel(std::shared_ptr<const RunData> run, QObject* parent)
    : ColumnTableModel(parent), run_(std::move(run)) {
  set_columns({
      {"Property", "", Format::Text, [this](int row) { return entries_[size_t(row)].property; }},
      {"Value", "", Format::Text, [this](int row) { return entries_[size_t(row)].value; },
       [this](int row) { return entries_[size_t(row)].text; }},
  });
  set_row_role([this](int row, int role) {
    return role == Qt::ToolTipRole ? QVariant(entries_[size_t(row)].tooltip) : QVariant();
  });
  if (!run_) return;
  const analysis::ProfileView& v = run_->view;
  const analysis::Quality& q = v.quality;
  auto text = [](const std::string& s) { return QString::fromStdString(s); };
  auto add = [this](QString property, QVariant value, QString shown, QString tooltip = {}) {
    entries_.push_back(
        {std::move(property), std::move(value), std::move(shown), std::move(tooltip)});
  };
  auto seconds = [&](QString property, double s, QString tooltip = {}) {
    add(std::move(property), s, format_seconds(s), std::move(tooltip));
  };
  auto count = [&](QString property, uint64_t n, QString tooltip = {}) {
    add(std::move(property), static_cast<qulonglong>(n), format_count(n), std::move(tooltip));
  };

  QStringList command;
  for (const std::string& a : v.arguments) command << text(a);
  const QString shown_command = command.isEmpty() ? text(v.program) : command.join(' ');
  add("Run", text(run_->label), text(run_->label));
  add("Command", shown_command, shown_command);
  const std::string host = run_->run.text(capture::run_keys::kHost);
  add("Host", text(host), text(host));
  const double start_ns = run_->run.number(capture::run_keys::kStartRealtimeNs);
  const QString started = start_ns > 0
                              ? QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(start_ns / 1e6))
                                    .toString("yyyy-MM-dd HH:mm:ss")
                              : QString();
  add("Started", started, started);
  const std::string topology = run_->run.text(capture::run_keys::kTopology);
  add("Machine topology", text(topology), text(topology), "hwloc's view of the machine");
  add("Processors (P)", v.processors, QString::number(v.processors),
      "Processors available to the program (its cpuset, minus a core reserved for the sampler)");
  seconds("Elapsed", v.elapsed_s);
  if (const std::optional<analysis::Baseline>& b = q.baseline) {
    const QString how = "Measured by one run of the program without Quartz (quartz run --baseline)";
    seconds("Unprofiled elapsed", b->elapsed_s, how);
    seconds("Unprofiled processor time", b->cpu_s, how + ", all its threads");
    add("Dilation", v.elapsed_s / b->elapsed_s,
        QString::asprintf("x%.2f elapsed, x%.2f processor time", v.elapsed_s / b->elapsed_s,
                          b->profiled_cpu_s / b->cpu_s),
        "What profiling cost the program: this run against the unprofiled one");
  }
  seconds("Normalized time of the program", v.program_totals.normalized_s,
          "Equals the elapsed time to within one sampling interval");
  count("Samples", q.samples, "Snapshots the sampler took");
  count("Thread samples", q.thread_samples, "Threads read, over all snapshots");
  seconds("Period", q.period_s, "Time between snapshots");
  add("Torn rate", q.torn_rate, QString::asprintf("%.3f%%", 100 * q.torn_rate),
      "Stack copies torn by the thread changing its stack while read, per thread sample");
  seconds("Dilation removed", q.dilation_removed_s,
          "Processor time taken out as the instrumentation's own cost");
  add("Procedures seen through", QString::fromStdString(q.seen_through()),
      QString::fromStdString(q.seen_through()),
      "How the program was built (quartz-cc's QUARTZ_INSTRUMENT, quartz_instrument's MODE)");
  add("Cost per call", q.hook_pair_ns, QString::asprintf("%.1f ns", q.hook_pair_ns),
      "Calibrated cost of one call through a patched entry, or of one enter/exit hook pair");
  if (q.patched_entries) {
    add("Overhead budget", q.budget_percent,
        q.budget_percent ? QString::number(q.budget_percent) + "%" : QString("none"),
        "quartz run --budget: what patched entries may cost, of the program's own time");
    QString off;
    for (const analysis::UnpatchedProcedure& u : q.unpatched) {
      if (!off.isEmpty()) off += ", ";
      off += QString::fromStdString(u.name);
      if (u.call_ns > 0) off += QString::asprintf(" (%.0f ns a call, measured)", u.call_ns);
    }
    add("Entries turned off", static_cast<qulonglong>(q.unpatched.size()),
        off.isEmpty() ? QString("none") : off,
        "Procedures the budget stopped measuring: calls counted until then, their time since "
        "is their callers'");
  }
  seconds("Sampler CPU", q.sampler_cpu_s);
  add("Sampler core", q.reserved_core, q.reserved_core ? "reserved" : "shared with the program");
  add("CPU shares", text(q.cpu_measurement),
      q.cpu_measurement == "schedstat" ? "measured (schedstat)" : "modelled");
  count("Stack overflows", q.stack_overflows, "Calls deeper than the profile stack's capacity");
  count("Unmatched exits", q.unmatched_exits);
  count("Entries dropped", q.dropped,
        "Objects, calls or contexts that found no room in the tables");
  add("Ended normally", q.final, q.final ? "yes" : "no: this is the run's last checkpoint");
  add("Traced", q.traced,
      q.traced ? (run_->id && !run_->has_trace ? "yes (no trace stored with the run)" : "yes")
               : "no (record with 'quartz run --trace' to ask 'quartz predict')",
      "Whether synchronization events were recorded for 'quartz predict' (the What-ifs view)");
  if (q.traced) {
    count("Trace events", q.trace_events, "Synchronization events the trace recorded");
    count("Trace events dropped", q.trace_dropped,
          "Lost when a thread's queue was full (raise --trace-capacity); 'quartz predict' then "
          "refuses the trace unless --allow-drops");
    count("Trace bytes", q.trace_bytes, "The trace's size on disk");
  }
  if (run_->id) {
    count("Stored predictions", run_->what_ifs.size(),
          "'quartz predict' answers (What-ifs, Ctrl+6)");
  }
  reset_rows(static_cast<int>(entries_.size()));
}

int RunDetailsModel::row_of(const QString& property) const {
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].property == property) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace quartz::viewer

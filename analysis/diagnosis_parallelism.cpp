// The properties of the program's parallelism: how its work spread over the processors.
// A serial bottleneck did not spread, a team's load imbalance spread unevenly, starvation
// had too few threads at work to spread over (start-up, wind-down).
#include <map>

#include "analysis/diagnosis_properties.h"
#include "analysis/text_format.h"

namespace quartz::analysis::diagnosis {

using text::seconds;

// Serial bottleneck: a procedure's own time t1 with exactly one processor busy, outside any
// lock (time under a held object is the object's contention), and with the idle processors
// waiting for it: not without a thread to run (starvation's), nor while the program's other
// threads were ready for them (the ready time's findings), nor while they waited for it at
// their team's barrier (load imbalance's). Spread over P processors it would
// take 1/P of it: severity = t1 (1 - 1/P) / elapsed, less the share of the idle capacity
// that blocking in the kernel explains (then the waits are the problem, not the work).
void serial_bottlenecks(const ProfileView& view, double overhead, std::vector<Finding>& out) {
  const uint32_t p = view.processors;
  if (p < 2) return;
  const double idle_s = idle_capacity_s(view);
  const double kernel_share = idle_s > 0 ? clamp01(kernel_blocked_idle_s(view) / idle_s) : 0.0;
  for (const ProcedureRow& row : view.procedures) {
    const double t1 = row.one_busy.serial_s;
    const double starved = row.one_busy.starved_s;
    const double taken = row.one_busy.taken_s;
    const double waited = row.one_busy.waited_s;
    Finding f;
    f.property = Property::serial_bottleneck;
    f.severity = clamp01(t1 * (1 - 1.0 / p) * (1 - kernel_share) / view.elapsed_s);
    f.confidence = confidence(view, t1, overhead);
    f.subject = row.name;
    f.location = row.location;
    f.evidence = seconds(t1) + " of its own time with one processor busy and " +
                 std::to_string(p - 1) + " idle (" + text::percent(t1, view.elapsed_s) +
                 " of elapsed); " + seconds(row.totals.processor_self_s) + " of processor time" +
                 (starved > 0 ? "; " + seconds(starved) +
                                    " more alone for want of other threads at work (starvation)"
                              : "") +
                 (taken > 0 ? "; " + seconds(taken) +
                                  " more alone while its other threads were ready for processors"
                                  " (taken by other processes, or being woken)"
                            : "") +
                 (waited > 0 ? "; " + seconds(waited) +
                                   " more alone while its team's other threads waited for it "
                                   "(load imbalance)"
                             : "");
    f.advice = "parallelize it, or overlap it with other work: spread over " + std::to_string(p) +
               " processors it would take " + seconds(t1 / p);
    out.push_back(f);
  }
}

// Load imbalance (JavaPSL): threads of one team, busy for their mean against their
// maximum; the slowest sets the end: severity = (max - mean) / elapsed.
void load_imbalance(const ProfileView& view, double overhead, std::vector<Finding>& out) {
  for (const Team& team : teams_of(view)) {
    if (team.threads.size() < 2) continue;
    double max = 0, mean = 0;
    for (const ThreadRow* t : team.threads) {
      max = std::max(max, t->busy_s);
      mean += t->busy_s;
    }
    mean /= static_cast<double>(team.threads.size());
    if (!(max > 0)) continue;
    Finding f;
    f.property = Property::load_imbalance;
    f.severity = clamp01((max - mean) / view.elapsed_s);
    f.confidence = confidence(view, max - mean, overhead);
    f.subject = team.name;
    f.evidence = "busy " + seconds(mean) + " on average, " + seconds(max) + " at most (mean/max " +
                 text::format("%.2f", mean / max) + ")";
    f.advice =
        "repartition the work: smaller pieces handed out as threads finish (dynamic "
        "scheduling), or sizes weighed by cost";
    out.push_back(f);
  }
  // OpenMP: a team's threads that finished their share wait at the region's end or at a
  // barrier for the slowest. Over an instance with n threads, (max - mean) busy is the
  // threads' total wait / n; the runtime counts instances as posts and arrivals as
  // acquisitions, so n = acquisitions / posts.
  for (const LockRow& lock : view.locks) {
    if (lock.kind != capture::kOmpRegionEnd && lock.kind != capture::kOmpBarrier) continue;
    if (lock.posts == 0 || lock.acquisitions < 2 * lock.posts || !(lock.wait_s > 0)) continue;
    const double threads = static_cast<double>(lock.acquisitions) / lock.posts;
    const double lost_s = lock.wait_s / threads;
    Finding f;
    f.property = Property::load_imbalance;
    f.severity = clamp01(lost_s / view.elapsed_s);
    f.confidence = confidence(view, lost_s, overhead);
    f.subject = lock.name;
    f.evidence = text::format("%.1f", threads) + " threads, " + std::to_string(lock.posts) +
                 (lock.posts == 1 ? " time" : " times") + ": " + seconds(lock.wait_s) +
                 " of thread-time waiting for the slowest (" + seconds(lock.wait_spinning_s) +
                 " spinning)";
    f.advice =
        "repartition the work: schedule(dynamic) or (guided), or sizes weighed by cost; "
        "nowait where the next work does not depend on the others'";
    out.push_back(f);
  }
}

// Start-up and wind-down starvation (Quartz §3; Harris's "starvation due to a small
// problem size"): processors idle because fewer threads were at work than processors,
// while the program ran threads besides its first: threads not yet created, already ended,
// or waiting to join others. severity = that processor time / (P E), less what threads of
// one routine ending apart explain: that is the routine's imbalance, whatever made their
// times differ (more work: the load imbalance finding; a smaller share of the processors:
// the ready time's findings). Of what its threads were charged after the program first had
// P threads at work (they ran while others had ended), up to P (max - mean lifetime); and
// of what is left to a routine's threads, up to P - 1 times a thread's ready time is other
// processes' (it would have ended sooner), within what they took.
void starvation(const ProfileView& view, double overhead, std::vector<Finding>& out) {
  const Starvation& s = view.starvation;
  const uint32_t p = view.processors;
  if (!s.measured || p < 2) return;
  std::map<uint32_t, double> charged_s;  // what is left, by thread
  for (const ThreadRow& t : view.threads) {
    charged_s[t.index] = t.starved_startup_s + t.starved_later_s;
  }
  double imbalance_s = 0;
  std::string imbalanced;  // the team whose threads' ends took the most
  double imbalanced_s = 0;
  for (const Team& team : teams_of(view)) {
    const std::vector<const ThreadRow*>& threads = team.threads;
    if (threads.size() < 2) continue;
    double later = 0, max = 0, mean = 0;
    for (const ThreadRow* t : threads) {
      later += t->starved_later_s;
      max = std::max(max, t->lifetime_s);
      mean += t->lifetime_s;
    }
    mean /= static_cast<double>(threads.size());
    const double taken = std::clamp(p * (max - mean), 0.0, later);
    if (!(taken > 0)) continue;
    imbalance_s += taken;
    if (taken > imbalanced_s) {
      imbalanced_s = taken;
      imbalanced = team.name;
    }
    for (const ThreadRow* t : threads) charged_s[t->index] -= t->starved_later_s * taken / later;
  }
  // A thread of a routine that ran on alone after the routine's other threads ended would
  // have ended sooner by the time it was ready for a processor other processes took: P - 1
  // processors that much of what it was charged later are theirs, up to what they took
  // (taken_capacity_s; the profiler's own threads and wake-ups are not other processes).
  // Threads of different routines ending apart (a pipeline's stages) stay starvation.
  std::map<std::string, int> of_routine;
  for (const ThreadRow& t : view.threads) ++of_routine[routine_of(t.name)];
  double delayed_s = 0, taken_left_s = taken_capacity_s(view);
  for (const ThreadRow& t : view.threads) {
    if (of_routine[routine_of(t.name)] < 2) continue;
    const double ready = std::clamp((p - 1) * t.ready_s, 0.0, std::max(0.0, charged_s[t.index]));
    const double later_left = std::min({ready, t.starved_later_s, (p - 1) * taken_left_s});
    delayed_s += later_left;
    taken_left_s -= later_left / (p - 1);
    charged_s[t.index] -= later_left;
  }
  const double starved = starved_capacity_s(view);
  const double scale = s.total_s() > 0 ? starved / s.total_s() : 0;  // within unused capacity
  const double startup = s.startup_s * scale;
  const double later =
      std::max(0.0, (s.between_s + s.winddown_s) * scale - imbalance_s - delayed_s);
  const double total = startup + later;
  const ThreadRow* ran = nullptr;  // the thread that was running for most of it
  for (const ThreadRow& t : view.threads) {
    if (charged_s[t.index] > 0 && (!ran || charged_s[t.index] > charged_s[ran->index])) ran = &t;
  }
  Finding f;
  f.property = Property::starvation;
  f.severity = clamp01(total / (p * view.elapsed_s));
  f.confidence = confidence(view, total / (p - 1), overhead);
  f.subject = ran ? ran->name : "the program";
  const std::string at_work = std::to_string(p) + " threads at work";
  std::string when;
  if (!s.first_full_s) {
    when = "never " + at_work + " at once";
  } else {
    when =
        seconds(startup) + " at start-up (" + at_work + " from " + seconds(*s.first_full_s) + ")";
    const double winddown = std::max(0.0, s.winddown_s * scale - imbalance_s - delayed_s);
    when += ", " + seconds(winddown) + " at wind-down (from " + seconds(*s.last_full_s) + ")";
    if (later - winddown > 0) when += ", " + seconds(later - winddown) + " in between";
  }
  f.evidence = seconds(total) + " of processor time idle for want of threads at work (" +
               text::percent(total, p * view.elapsed_s) + " of the processors' time): " + when;
  if (ran) {
    f.evidence +=
        "; " + ran->name + " was running for " + seconds(charged_s[ran->index]) + " of it";
  }
  if (imbalance_s > 0) {
    f.evidence += "; " + seconds(imbalance_s) + " more at the end is the " + imbalanced +
                  " ending apart (their imbalance)";
  }
  if (delayed_s > 0) {
    f.evidence += "; " + seconds(delayed_s) +
                  " more is the time the threads running then had been ready for a processor "
                  "other processes took";
  }
  const std::string start_advice =
      "create the threads sooner: overlap the set-up with their work, or start each on a "
      "smaller first piece";
  const std::string end_advice =
      "split the last work into smaller pieces so that the threads finish together, or give "
      "the threads that finish early other work";
  f.advice = startup >= later ? start_advice + "; " + end_advice : end_advice + "; " + start_advice;
  out.push_back(f);
}

}  // namespace quartz::analysis::diagnosis

#include "analysis/diagnosis.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <unordered_map>

#include "analysis/text_format.h"

namespace quartz::analysis {
namespace {

using text::seconds;

double clamp01(double v) {
  return std::isfinite(v) ? std::clamp(v, 0.0, 1.0) : 0.0;
}

// How far to trust a finding: the sampling periods behind it (n / (n + 10): 10 periods give
// 0.5, 100 give 0.91), less the share of torn stack copies, halved when the profiler's own
// cost is large, and lower for a run that did not end normally.
double confidence(const ProfileView& view, double evidence_s, double intrusion) {
  const double period = view.quality.period_s > 0 ? view.quality.period_s : 1e-3;
  const double periods = std::max(0.0, evidence_s) / period;
  double c = periods / (periods + 10) * (1 - clamp01(view.quality.torn_rate));
  if (intrusion > 0.1) c *= 0.5;
  if (!view.quality.final) c *= 0.8;
  return clamp01(c);
}

// The profiler's own share of the processors: the hooks' cost taken out of the threads'
// times, and the sampler's processor time when it shares the program's processors.
double intrusion(const ProfileView& view) {
  const double capacity = view.elapsed_s * std::max(1u, view.processors);
  if (!(capacity > 0)) return 0;
  const double sampler = view.quality.reserved_core ? 0 : view.quality.sampler_cpu_s;
  return clamp01((view.quality.dilation_removed_s + sampler) / capacity);
}

// Of the thread-time blocked, the share blocked in the kernel (I/O, sleep) rather than
// waiting for a synchronization object: why the processors the program left idle were.
double kernel_share_of_blocking(const ProfileView& view) {
  double on_objects = 0;
  for (const LockRow& lock : view.locks) on_objects += lock.wait_blocked_s;
  const double blocked = view.program_totals.state_s[capture::kBlocked];
  if (!(blocked > 0)) return 0;
  return clamp01((blocked - on_objects) / blocked);
}

// Ready thread-time while more of the program's threads were runnable than processors.
double oversubscribed_ready_s(const ProfileView& view) {
  double ready_s = 0;
  if (capture::kReady < view.program_totals.runnable_s.size()) {
    const std::vector<double>& by_runnable = view.program_totals.runnable_s[capture::kReady];
    for (size_t k = view.processors + 1; k < by_runnable.size(); ++k) ready_s += by_runnable[k];
  }
  return ready_s;
}

// Processor-seconds other processes took while the program's threads were ready for them:
// what they took (measured), up to the threads' ready time. What they ran on processors
// the program left idle anyway took nothing from it (stages: 90 ms of `quartz run`'s own
// and the kernel's, during its starvation). Ready time with more threads runnable than
// processors counts too: a process that holds one of two processors leaves the program
// one, and its four threads then wait beyond two.
double taken_capacity_s(const ProfileView& view) {
  if (!view.quality.other_cpu_s) return 0;
  const double ready_s = view.program_totals.state_s[capture::kReady];
  return std::clamp(*view.quality.other_cpu_s, 0.0, std::max(0.0, ready_s));
}

// Processor-seconds the program left unused: neither working nor spinning, nor taken by
// other processes while its threads were ready for them (the ready time's findings).
double unused_capacity_s(const ProfileView& view) {
  const double used = view.program_totals.processor_s +
                      view.program_totals.state_s[capture::kSpinning] + taken_capacity_s(view);
  return std::max(0.0, view.processors * view.elapsed_s - used);
}

// Of it, the processor-seconds with no thread at work to run: start-up and wind-down
// starvation (profile_view.h Starvation).
double starved_capacity_s(const ProfileView& view) {
  return std::min(view.starvation.total_s(), unused_capacity_s(view));
}

// The rest: processors idle while the program's threads at work were blocked or ready.
// Blocking and oversubscription can only explain these; the others had no thread to run.
double idle_capacity_s(const ProfileView& view) {
  return std::max(0.0, unused_capacity_s(view) - starved_capacity_s(view));
}

bool is_lock(uint32_t kind) {
  return kind == capture::kMutex || kind == capture::kRwlockRead || kind == capture::kRwlockWrite ||
         kind == capture::kSpinlock || kind == capture::kOmpCritical || kind == capture::kOmpLock;
}

// Serial bottleneck: a procedure's own time with exactly one processor busy, outside any
// lock (time under a held object is the object's contention), and with the idle processors
// waiting for it: not without a thread to run (that part is start-up or wind-down
// starvation), nor while the program's other threads were ready for them (taken by other
// processes, or being woken: the ready time's findings). Spread over P processors it would take 1/P
// of it: severity = t1 (1 - 1/P) / elapsed, less the share of the others' idleness that was
// blocking in the kernel (then the waits are the problem, not the work).
void serial_bottlenecks(const ProfileView& view, double overhead, std::vector<Finding>& out) {
  const uint32_t p = view.processors;
  if (p < 2) return;
  const double kernel_share = kernel_share_of_blocking(view);
  for (const ProcedureRow& row : view.procedures) {
    const double t1 = row.one_busy.serial_s;
    const double starved = row.one_busy.starved_s;
    const double taken = row.one_busy.taken_s;
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
                            : "");
    f.advice = "parallelize it, or overlap it with other work: spread over " + std::to_string(p) +
               " processors it would take " + seconds(t1 / p);
    out.push_back(f);
  }
}

// Lock contention: the object's normalized time (its holders' work and what ran on its
// behalf) weighted by the share of acquisitions that had to wait.
void lock_contention(const ProfileView& view, double overhead, std::vector<Finding>& out) {
  for (const LockRow& lock : view.locks) {
    if (!is_lock(lock.kind) || lock.acquisitions == 0 || lock.contended == 0) continue;
    const double contended = static_cast<double>(lock.contended) / lock.acquisitions;
    Finding f;
    f.property = Property::lock_contention;
    f.severity = clamp01(lock.totals.normalized_s * contended / view.elapsed_s);
    f.confidence = confidence(view, lock.totals.normalized_s, overhead);
    f.subject = lock.name;
    f.evidence = text::format("%.0f%%", 100 * contended) + " of " +
                 std::to_string(lock.acquisitions) + " acquisitions waited; " +
                 seconds(lock.wait_s) + " waiting, " + seconds(lock.hold_s) + " held; " +
                 text::format("%.2f", lock.mean_queue) + " threads waiting on average" +
                 (lock.mean_queue >= 1.5 ? " (a convoy)" : "");
    f.advice = lock.kind == capture::kSpinlock
                   ? "shorten the critical section, or split the lock"
                   : "shorten the critical section (move work out of it), or split the data "
                     "it protects under several locks";
    out.push_back(f);
  }
}

// Spin waste: thread-time spinning while more threads were runnable than processors, time
// a runnable thread could have used: severity = that / (P elapsed).
void spin_waste(const ProfileView& view, double overhead, std::vector<Finding>& out) {
  const auto& bins = view.program_totals.runnable_s;
  if (bins.size() <= capture::kSpinning) return;
  double over_s = 0;
  for (size_t k = view.processors + 1; k < bins[capture::kSpinning].size(); ++k) {
    over_s += bins[capture::kSpinning][k];
  }
  const LockRow* spun = nullptr;
  for (const LockRow& lock : view.locks) {
    if (lock.wait_spinning_s > 0 && (!spun || lock.wait_spinning_s > spun->wait_spinning_s)) {
      spun = &lock;
    }
  }
  Finding f;
  f.property = Property::spin_waste;
  f.severity = clamp01(over_s / (view.processors * view.elapsed_s));
  f.confidence = confidence(view, over_s, overhead);
  f.subject = spun ? spun->name : "the program";
  f.evidence = seconds(over_s) + " of thread-time spinning while more threads were runnable " +
               "than the " + std::to_string(view.processors) + " processors";
  f.advice =
      "block instead of spinning (a mutex or condition variable), or run no more "
      "threads than processors";
  out.push_back(f);
}

// Threads of one routine and role (ThreadRow::role) that lived at the same time, as a team
// does: the threads of a routine by creation, a team ending where the next thread starts
// after all of them ended (a program that makes a team per phase, as minimap2's kt_for
// does, has several; their imbalance is each team's, never one phase's threads against
// another's, nor a worker's against the I/O thread its routine also started).
struct Team {
  // "N threads ROUTINE", with its role when the routine had several, and its start when
  // another team's would read the same.
  std::string name;
  std::vector<const ThreadRow*> threads;
};

// `threads` (one routine and role) split into teams, appended to `teams`.
void add_teams(const std::string& routine, std::vector<const ThreadRow*>& threads,
               std::vector<Team>& teams) {
  std::stable_sort(threads.begin(), threads.end(),
                   [](const ThreadRow* a, const ThreadRow* b) { return a->start_s < b->start_s; });
  const size_t first = teams.size();
  double end_s = 0;
  for (const ThreadRow* t : threads) {
    if (teams.size() == first || t->start_s >= end_s) teams.push_back(Team{routine, {}});
    teams.back().threads.push_back(t);
    end_s = std::max(end_s, t->start_s + t->lifetime_s);
  }
  for (size_t i = first; i < teams.size(); ++i) {
    teams[i].name = std::to_string(teams[i].threads.size()) + " threads " + routine;
  }
}

std::vector<Team> teams_of(const ProfileView& view) {
  std::map<std::string, std::map<uint64_t, std::vector<const ThreadRow*>>> routines;
  for (const ThreadRow& t : view.threads) {
    if (t.index != 0) routines[routine_of(t.name)][t.role_address].push_back(&t);
  }
  std::vector<Team> teams;
  for (auto& [routine_name, roles] : routines) {
    for (auto& [role, threads] : roles) {
      const std::string routine = roles.size() > 1 && !threads[0]->role.empty()
                                      ? routine_name + " (" + threads[0]->role + ")"
                                      : routine_name;
      add_teams(routine, threads, teams);
    }
  }
  // Teams that would read alike (one routine's per phase; two static functions of one
  // name) say when they started.
  std::map<std::string, int> named;
  for (const Team& team : teams) ++named[team.name];
  for (Team& team : teams) {
    if (named[team.name] > 1) team.name += " from " + seconds(team.threads[0]->start_s);
  }
  return teams;
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
// P threads at work (they ran while others had ended), up to P (max - mean lifetime).
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
  const double starved = starved_capacity_s(view);
  const double scale = s.total_s() > 0 ? starved / s.total_s() : 0;  // within unused capacity
  const double startup = s.startup_s * scale;
  const double later = std::max(0.0, (s.between_s + s.winddown_s) * scale - imbalance_s);
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
    const double winddown = std::max(0.0, s.winddown_s * scale - imbalance_s);
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
  const std::string start_advice =
      "create the threads sooner: overlap the set-up with their work, or start each on a "
      "smaller first piece";
  const std::string end_advice =
      "split the last work into smaller pieces so that the threads finish together, or give "
      "the threads that finish early other work";
  f.advice = startup >= later ? start_advice + "; " + end_advice : end_advice + "; " + start_advice;
  out.push_back(f);
}

// Ready time: runnable but not running. Oversubscription is the ready time while more of
// the program's threads were runnable than there are processors: it costs elapsed time
// only through the processors it leaves idle at other moments (a preempted holder stalls
// its waiters), so its severity is at most the idle share. Ready with no more runnable
// than processors is a processor being woken or taken by other processes: capacity lost
// to the program, a finding about the measurement.
void ready_time(const ProfileView& view, double overhead, std::vector<Finding>& out) {
  const double ready_s = view.program_totals.state_s[capture::kReady];
  if (!(ready_s > 0)) return;
  const double oversubscribed_s = oversubscribed_ready_s(view);
  const double capacity = view.processors * view.elapsed_s;
  const double runnable = view.program_totals.mean_runnable[capture::kReady];
  const std::string evidence =
      " of thread-time ready (runnable, not running), with " + text::format("%.1f", runnable) +
      " of its threads runnable on average on " + std::to_string(view.processors) + " processors";
  if (oversubscribed_s > 0) {
    Finding f;
    f.property = Property::oversubscription;
    f.severity = clamp01(std::min(oversubscribed_s, idle_capacity_s(view)) / capacity);
    f.confidence = confidence(view, oversubscribed_s, overhead);
    f.subject = "the program";
    f.evidence = seconds(oversubscribed_s) + " (of " + seconds(ready_s) + ")" + evidence +
                 ", more than processors";
    f.advice = "run no more busy threads than processors (a pool sized to them)";
    out.push_back(f);
  }
  const double taken_s = ready_s - oversubscribed_s;
  if (taken_s > 0) {
    Finding f;
    f.property = Property::other_processes;
    f.severity = clamp01(taken_s / capacity);
    f.confidence = confidence(view, taken_s, overhead);
    f.subject = "the program";
    f.evidence = seconds(taken_s) + evidence +
                 ", no more than processors: processors being "
                 "woken, or taken by other processes";
    if (view.quality.other_cpu_s) {
      f.evidence += "; other processes took " + seconds(*view.quality.other_cpu_s) + " (" +
                    text::percent(*view.quality.other_cpu_s, capacity) + " of its processors)";
    }
    f.advice =
        "if other processes took processors: profile on a quieter machine, or reserve "
        "processors for the program";
    out.push_back(f);
  }
}

// Blocking in the kernel not overlapped with work: the processor capacity the program
// left idle, in the share its blocked threads were blocked in the kernel (I/O, sleep)
// rather than waiting for one another.
void kernel_blocking(const ProfileView& view, double overhead, std::vector<Finding>& out) {
  if (view.parallelism_s.empty()) return;
  const double idle_s = idle_capacity_s(view) * kernel_share_of_blocking(view);
  const LongestWait& most = view.longest_wait;  // the procedure that waited longest
  Finding f;
  f.property = Property::kernel_blocking;
  f.severity = clamp01(idle_s / (view.processors * view.elapsed_s));
  f.confidence = confidence(view, idle_s, overhead);
  f.subject = most.wait_s > 0 ? most.name : "the program";
  f.evidence =
      seconds(idle_s) + " of processor time left idle while threads were blocked in " +
      "the kernel (" + text::percent(view.parallelism_s[0], view.elapsed_s) +
      " of elapsed with no processor busy)" +
      (most.wait_s > 0 ? "; " + seconds(most.wait_s) + " of thread-time blocked in it" : "");
  f.advice =
      "overlap the waits (I/O, sleeps) with work: asynchronous I/O, or more threads "
      "to wait while others compute";
  out.push_back(f);
}

void profiler_intrusion(const ProfileView& view, double overhead, std::vector<Finding>& out) {
  Finding f;
  f.property = Property::profiler_intrusion;
  f.severity = overhead;
  f.confidence = 1;
  f.subject = "the profiler";
  f.evidence = seconds(view.quality.dilation_removed_s) + " of hook cost taken out, " +
               seconds(view.quality.sampler_cpu_s) + " of sampler time, over " +
               seconds(view.elapsed_s * view.processors) + " of processor capacity";
  // Patched entries: what the run's own options change. The compiler's hooks: the build.
  f.advice = view.quality.patched_entries > 0
                 ? "the other figures are less exact: a smaller --budget turns off more of the "
                   "entries that cost the most, or --procedures patches only those named"
                 : "the other figures are less exact: build with clang (hooks after inlining), "
                   "or leave small hot functions uninstrumented";
  out.push_back(f);
}

// Contention on a spin lock whose spinning is the spin waste is one problem, and blocking
// instead cures both: one finding, spin waste, with the larger severity and both evidences.
void merge_spinning_contention(const ProfileView& view, std::vector<Finding>& all) {
  auto spin = std::find_if(all.begin(), all.end(),
                           [](const Finding& f) { return f.property == Property::spin_waste; });
  if (spin == all.end()) return;
  for (auto f = all.begin(); f != all.end(); ++f) {
    if (f->property != Property::lock_contention || f->subject != spin->subject) continue;
    const bool spin_lock = std::any_of(view.locks.begin(), view.locks.end(), [&](const LockRow& l) {
      return l.name == f->subject && l.kind == capture::kSpinlock;
    });
    if (!spin_lock || spin->severity <= 0) continue;
    spin->severity = std::max(spin->severity, f->severity);
    spin->confidence = std::max(spin->confidence, f->confidence);
    spin->evidence += "; " + f->evidence;
    all.erase(f);
    return;
  }
}

}  // namespace

std::string routine_of(const std::string& thread_name) {
  std::string name = thread_name;
  while (!name.empty() &&
         (std::isdigit(static_cast<unsigned char>(name.back())) || name.back() == '_' ||
          name.back() == '-' || name.back() == '#' || name.back() == ' ')) {
    name.pop_back();
  }
  return name.empty() ? thread_name : name;
}

std::string property_name(Property property) {
  switch (property) {
    case Property::serial_bottleneck:
      return "serial bottleneck";
    case Property::lock_contention:
      return "lock contention";
    case Property::spin_waste:
      return "spin waste";
    case Property::load_imbalance:
      return "load imbalance";
    case Property::starvation:
      return "start-up and wind-down starvation";
    case Property::oversubscription:
      return "oversubscription";
    case Property::other_processes:
      return "processors taken by other processes";
    case Property::kernel_blocking:
      return "blocking not overlapped";
    case Property::profiler_intrusion:
      return "profiler intrusion";
  }
  return "?";
}

bool about_measurement(Property property) {
  return property == Property::other_processes || property == Property::profiler_intrusion;
}

std::vector<Finding> diagnose(const ProfileView& view, double min_severity) {
  std::vector<Finding> all;
  if (!(view.elapsed_s > 0)) return all;
  const double overhead = intrusion(view);
  serial_bottlenecks(view, overhead, all);
  lock_contention(view, overhead, all);
  spin_waste(view, overhead, all);
  load_imbalance(view, overhead, all);
  starvation(view, overhead, all);
  ready_time(view, overhead, all);
  kernel_blocking(view, overhead, all);
  profiler_intrusion(view, overhead, all);
  merge_spinning_contention(view, all);
  std::vector<Finding> found;
  for (Finding& f : all) {
    if (f.severity >= min_severity) found.push_back(std::move(f));
  }
  // The program's findings first, then the measurement's; each most severe first.
  std::stable_sort(found.begin(), found.end(), [](const Finding& a, const Finding& b) {
    const bool a_measurement = about_measurement(a.property);
    if (a_measurement != about_measurement(b.property)) return !a_measurement;
    return a.severity > b.severity;
  });
  return found;
}

}  // namespace quartz::analysis

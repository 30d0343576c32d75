#include "sampler/attribution.h"

#include <algorithm>
#include <cmath>

#include "sampler/contribution.h"

namespace quartz::sampler {

using capture::kBlocked;
using capture::kBusy;
using capture::kReady;
using capture::kSpinning;
using capture::kStateCount;

namespace {

// Shares of the interval a thread spends running and ready: from the sample's own CPU
// clock reading, else the window's measurement, else the model f = min(1, P / r).
// `*processor` is the processor time credited to the sample as a share of the interval:
// the running share, except that a sample credited with time run just before a wait keeps
// all of it (processor time adds up exactly; the share of the interval cannot exceed 1).
// Every share is of the whole interval; running and ready never exceed the sample's
// presence (the share of the interval the thread existed). `*busy` is its state time
// running, the hooks' cost included (the thread was on a processor, not asleep), plus
// what the window's clock says its capped samples ran (`fill`, reconcile_states);
// normalized time and processors busy stay with `*run`, the hooks' cost taken out.
QUARTZ_ALWAYS_INLINE void shares(const ThreadSample& s, const WindowThread& w, double model_run,
                                 double* run, double* ready, double* processor, double* busy) {
  const double present = s.present;
  if (s.run >= 0) {
    *processor = s.run * w.run_scale;
    *run = std::fmin(present, *processor);
    const double on_cpu = std::fmin(present, static_cast<double>(s.run));
    *busy = on_cpu + (present - on_cpu) * w.fill;
    *ready = (present - *busy) * w.ready_ratio;
  } else if (w.measured && w.active_ns > 0) {
    *processor = *run = w.run * present;
    *busy = w.on_cpu * present;
    *ready = w.ready * present;
  } else {
    *processor = *run = *busy = model_run * present;
    *ready = (1.0 - model_run) * present;
  }
}

// The share of the interval a blocked sample's thread ran before its wait (at its
// `ran_context`), capped at its presence; 0 for the others.
QUARTZ_ALWAYS_INLINE double ran_before_wait(const ThreadSample& s, const WindowThread& w) {
  return s.state == kBlocked && s.run > 0 ? std::fmin(s.present, s.run * w.run_scale) : 0.0;
}

// The same share as state time: on a processor, the hooks' cost included.
QUARTZ_ALWAYS_INLINE double on_cpu_before_wait(const ThreadSample& s) {
  return s.state == kBlocked && s.run > 0 ? std::fmin(s.present, static_cast<double>(s.run)) : 0.0;
}

// A clocked sample's running share is capped at its presence, so a sampler woken late (a
// busy machine) can leave a thread running less in its samples than its clock says, and
// the rest would count as blocked. Over the window, a thread's clocked samples run what
// its clock says (taken from their room below presence, `fill`), and of the rest what the
// kernel counted on the run queue is ready (`ready_ratio`): blocked is only what neither
// explains, the time the kernel had it asleep. State time, so the hooks' cost counts as
// running: taken out, it would read as sleep.
QUARTZ_NOINSTR void reconcile_states(Window& window, uint32_t snapshots) {
  const uint32_t threads = window.thread_count();
  for (uint32_t i = 0; i < threads; ++i) {
    WindowThread& w = window.thread_at(i);
    w.capped_run_ns = w.room_ns = w.ready_used_ns = 0;
  }
  for (uint32_t k = 0; k < snapshots; ++k) {
    const SnapshotRecord& snap = window.snapshot(k);
    const double duration = static_cast<double>(snap.duration_ns);
    for (uint32_t i = snap.first; i < snap.first + snap.count; ++i) {
      const ThreadSample& s = window.sample(i);
      WindowThread& w = window.thread_at(s.window_thread);
      if (s.state == kBlocked) {
        w.capped_run_ns += on_cpu_before_wait(s) * duration;  // no room: it waited after
        continue;
      }
      if (s.run < 0) continue;
      const double run = std::fmin(s.present, static_cast<double>(s.run));
      w.capped_run_ns += run * duration;
      w.room_ns += (s.present - run) * duration;
    }
  }
  for (uint32_t i = 0; i < threads; ++i) {
    WindowThread& w = window.thread_at(i);
    if (!w.measured) continue;
    const double lost = w.clocked_run_ns - w.capped_run_ns;
    w.fill = lost > 0 && w.room_ns > 0 ? std::fmin(1.0, lost / w.room_ns) : 0.0;
    const double shortfall = w.room_ns * (1 - w.fill);
    const double runqueue = static_cast<double>(w.runqueue_ns);
    w.ready_ratio = shortfall > 0 ? std::fmin(1.0, runqueue / shortfall) : 0.0;
  }
}

QUARTZ_NOINSTR void measure_threads(Window& window, const AttributionConfig& config,
                                    AttributionTotals& totals, uint32_t snapshots) {
  for (uint32_t i = 0; i < window.thread_count(); ++i) {
    WindowThread& w = window.thread_at(i);
    w.active_ns = 0;
    w.clocked_ns = w.clocked_run_ns = 0;
  }
  for (uint32_t k = 0; k < snapshots; ++k) {
    const SnapshotRecord& snap = window.snapshot(k);
    const double duration = static_cast<double>(snap.duration_ns);
    for (uint32_t i = snap.first; i < snap.first + snap.count; ++i) {
      const ThreadSample& s = window.sample(i);
      WindowThread& w = window.thread_at(s.window_thread);
      if (s.state == kBlocked) {
        if (s.run > 0) w.clocked_run_ns += s.run * duration;  // before its wait
        continue;
      }
      w.active_ns += s.present * duration;
      if (s.run >= 0) {
        w.clocked_ns += s.present * duration;
        w.clocked_run_ns += s.run * duration;
      }
    }
  }
  for (uint32_t i = 0; i < window.thread_count(); ++i) {
    WindowThread& w = window.thread_at(i);
    const double active = w.active_ns;
    // Processor time: the window's measurement, else what the clock readings add up to.
    const double cpu = w.measured ? static_cast<double>(w.cpu_ns) : w.clocked_run_ns;
    const double hooks = std::fmin(cpu, static_cast<double>(w.hook_events) * config.hook_event_ns);
    totals.dilation_removed_s += hooks * 1e-9;
    w.run_scale = w.clocked_run_ns > 0 ? std::fmax(0.0, 1.0 - hooks / w.clocked_run_ns) : 1.0;
    w.fill = 0;
    // Samples without a clock reading share what the readings did not account for.
    w.run = w.on_cpu = w.ready = 0;
    w.ready_ratio = 0;
    const double runqueue = static_cast<double>(w.runqueue_ns);
    const double unclocked = active - w.clocked_ns;
    if (w.measured && unclocked > 0) {
      const double rest = std::fmax(0.0, cpu - w.clocked_run_ns);
      w.on_cpu = std::fmin(1.0, rest / unclocked);
      w.run = std::fmin(1.0, rest * (cpu > 0 ? 1 - hooks / cpu : 1) / unclocked);
      w.ready = std::fmin(1.0 - w.on_cpu, runqueue / active);
    }
    // A clocked sample's reading spans its interval, and the first of a window's (carried
    // from the last) reaches back into the window before, whose measurement had that part:
    // the readings may add up to more than this window measured, and less than the one
    // before. What is measured and not placed goes to the next window (carried in cpu_ns);
    // the readings never charge more than was measured. Without it, windows of a snapshot
    // or two (a thousand threads, a late sampler) charged their threads twice their time.
    w.cpu_unplaced_ns = 0;
    if (w.measured) {
      if (w.clocked_run_ns > cpu) w.run_scale *= cpu / w.clocked_run_ns;
      const double placed = std::fmin(cpu, w.clocked_run_ns) + w.on_cpu * std::fmax(0.0, unclocked);
      w.cpu_unplaced_ns = std::fmax(0.0, cpu - placed);
    }
  }
  reconcile_states(window, snapshots);
}

// Charges one thread's contribution along its stack: the leaf context, each distinct
// procedure and object (the leaf's as self, the others on behalf), the thread, the program.
// `duration_s`: the time the objects on the stack are held or awaited, the interval's; 0
// for a contribution that only adds time (the snapshot's own samples time the objects).
QUARTZ_NOINSTR void charge(ProfileTables& tables, const ThreadSample& sample, const Contribution& c,
                           double duration_s, uint64_t stamp, uint64_t snapshot_id) {
  const RecordShape& shape = tables.shape();
  add_full(shape, tables.program_record(), false, c);
  const uint32_t thread = tables.thread(sample.thread);
  if (thread != kNone) add_full(shape, tables.thread_record(thread), false, c);
  if (sample.context == kNone) return;
  add_context(shape, tables.context_record(sample.context), c);

  for (uint32_t id = sample.context; id != kNone; id = tables.context_node(id).parent) {
    const ContextNode& node = tables.context_node(id);
    const bool self = id == sample.context;
    if (node.kind == capture::kProcedure) {
      ProcedureEntry& p = tables.procedure_entry(node.entity);
      if (p.stamp == stamp) continue;  // a recursive procedure counts once
      p.stamp = stamp;
      add_full(shape, tables.procedure_record(node.entity), !self, c);
      continue;
    }
    ObjectEntry& o = tables.object_entry(node.entity);
    if (o.stamp == stamp) continue;
    o.stamp = stamp;
    add_full(shape, tables.object_record(node.entity), !self, c);
    if (!(duration_s > 0)) continue;
    if (o.snapshot != snapshot_id) {
      o.snapshot = snapshot_id;
      o.waiters = o.holders = 0;
    }
    if (self && sample.top_role == kRoleWaiting) {
      ++o.waiters;
      // A thread that spins to wait (a spin lock, libgomp's waits) may sleep too: its CPU
      // clock says how much of the wait it spun (runnable: running or ready), as for its
      // states; the rest it was blocked.
      const double spun = sample.state == kSpinning
                              ? std::fmin(duration_s, c.state[kSpinning] + c.state[kReady])
                              : 0.0;
      o.wait_spinning_s += spun;
      o.wait_blocked_s += duration_s - spun;
    } else if (id != sample.released) {  // a condition wait's mutex is not held
      o.hold_s += duration_s;
      ++o.holders;
    }
  }
}

// What a blocked sample's thread ran before its wait, `on_cpu` of the interval, charged where
// it was last seen running (as a stamp of its own: the two stacks share procedures, and
// each has its part of the interval). The objects on that stack get the time, not a hold
// or a wait: the snapshot's samples time those. `at_snapshot`: the snapshot's bins.
QUARTZ_NOINSTR void charge_ran_before_wait(ProfileTables& tables, const ThreadSample& s,
                                           const WindowThread& w, const Contribution& at_snapshot,
                                           double on_cpu, double e, double delta, uint64_t stamp,
                                           uint64_t snapshot_id) {
  ThreadSample before = s;
  before.context = s.ran_context;
  before.state = s.ran_state;
  before.top_role = s.ran_role;
  Contribution c{};
  c.busy = at_snapshot.busy;
  c.runnable_bin = at_snapshot.runnable_bin;
  c.runnable = at_snapshot.runnable;
  c.state[before.state] = on_cpu * delta;
  if (before.state == kBusy) {
    c.processor = s.run * w.run_scale * delta;
    c.normalized = ran_before_wait(s, w) * delta / std::fmax(1.0, e);
  }
  charge(tables, before, c, 0, stamp, snapshot_id);
}

// The contexts a busy sample read in `context` stands for, each with its weight: when it
// was read with entries off and the windows found procedures hidden under it, those they
// found; else the context itself, whole. Calls fn(context, weight) for each.
template <typename Fn>
QUARTZ_ALWAYS_INLINE void for_each_part(ProfileTables& tables, uint32_t context, bool entries_off,
                                        const HiddenParts& hidden, Fn fn) {
  uint32_t n = 0;
  const HiddenPart* parts = entries_off && hidden.count != 0 && context != kNone &&
                                    tables.context_node(context).kind == capture::kProcedure
                                ? hidden.of(context, &n)
                                : nullptr;
  if (!parts) {
    fn(context, 1.0);
    return;
  }
  for (uint32_t i = 0; i < n; ++i) fn(parts[i].context, parts[i].weight);
}

// Charges a sample (charge), or each context it stands for its share of it (for_each_part).
QUARTZ_NOINSTR void charge_sample(ProfileTables& tables, const ThreadSample& s,
                                  const Contribution& c, double duration_s, bool entries_off,
                                  const HiddenParts& hidden, AttributionTotals& totals,
                                  uint64_t snapshot_id) {
  for_each_part(tables, s.context, entries_off, hidden, [&](uint32_t context, double w) {
    ThreadSample part = s;
    part.context = context;
    Contribution share = c;
    share.processor *= w;
    share.normalized *= w;
    share.normalized_idle *= w;
    for (double& state : share.state) state *= w;
    charge(tables, part, share, duration_s * w, ++totals.stamps, snapshot_id);
  });
}

// A thread waiting for another's end is not at work: it waits for the wind-down.
QUARTZ_ALWAYS_INLINE bool joining(ProfileTables& tables, const ThreadSample& s) {
  return s.context != kNone && s.top_role == kRoleWaiting &&
         tables.context_node(s.context).kind == capture::kJoin;
}

// How much of the interval a thread waited for the slowest of its team (a barrier, a
// region's end: capture::waits_for_team), spinning or asleep.
QUARTZ_ALWAYS_INLINE double team_wait(ProfileTables& tables, const ThreadSample& s) {
  if (s.context == kNone || s.top_role != kRoleWaiting ||
      !capture::waits_for_team(tables.context_node(s.context).kind)) {
    return 0;
  }
  return s.state == kBlocked ? s.present - on_cpu_before_wait(s) : s.present;
}

// Start-up and wind-down starvation at one snapshot (Starvation, attribution.h), and with
// one processor busy, the parts of the others that were not waiting for it, after the first
// pass has found e. `start_s`: the snapshot's start since the run's.
QUARTZ_NOINSTR void starvation(Window& window, ProfileTables& tables, const SnapshotRecord& snap,
                               const HiddenParts& hidden, double processors, double model_run,
                               double e, const ProcessorsBusy& busy_bins, double delta,
                               double start_s, Starvation& totals) {
  double at_work = 0, spinning = 0, ready_all = 0, team_waiting = 0;
  bool section = false;  // a thread other than the first is at work and has worked
  for (uint32_t i = snap.first; i < snap.first + snap.count; ++i) {
    const ThreadSample& s = window.sample(i);
    double run = 0, ready = 0, busy = 0;
    if (s.state != kBlocked) {
      double processor;
      shares(s, window.thread_at(s.window_thread), model_run, &run, &ready, &processor, &busy);
      ready_all += ready;
    } else if (s.ran_state == kSpinning) {
      spinning += ran_before_wait(s, window.thread_at(s.window_thread));
    }
    if (s.state == kSpinning) spinning += run;
    team_waiting += team_wait(tables, s);
    const uint32_t t = tables.thread(s.thread);
    if (t == kNone) continue;
    ThreadEntry& entry = tables.thread_entry(t);
    // Busy (running, or ready: other threads or processes may hold the processors) half
    // the sample, not merely busy when sampled: a new thread is often caught running for
    // the microseconds before its first wait, which is not yet its work.
    if (s.state == kBusy && s.present > 0 && busy + ready >= 0.5 * s.present) entry.worked = 1;
    if (joining(tables, s)) continue;
    at_work += s.present;
    section |= s.thread != 0 && s.present > 0 && entry.worked;
  }
  const double idle = std::fmax(0.0, processors - e - spinning);
  double starved = 0;
  if (section && at_work >= processors) {
    if (!totals.full_seen) totals.first_full_s = start_s;
    totals.full_seen = true;
    totals.last_full_s = start_s + delta;
    totals.between_s += totals.winddown_s;
    totals.winddown_s = 0;
  } else if (section) {
    starved = std::fmin(idle, processors - at_work);
  }
  const bool startup = !totals.full_seen;
  if (starved > 0) (startup ? totals.startup_s : totals.winddown_s) += starved * delta;
  const bool alone = busy_bins.bin == 1 && processors > 1;
  if (!(e > 0) || !(starved > 0 || (alone && (ready_all > 0 || team_waiting > 0)))) return;
  for (uint32_t i = snap.first; i < snap.first + snap.count; ++i) {
    const ThreadSample& s = window.sample(i);
    double run = 0, ready = 0, processor, busy;
    uint32_t context = s.context;
    if (s.state == kBusy) {
      shares(s, window.thread_at(s.window_thread), model_run, &run, &ready, &processor, &busy);
    } else if (s.state == kBlocked && s.ran_state == kBusy) {
      run = ran_before_wait(s, window.thread_at(s.window_thread));
      context = s.ran_context;
    }
    if (!(run > 0)) continue;
    const uint32_t t = tables.thread(s.thread);
    if (t != kNone && starved > 0) {
      ThreadEntry& entry = tables.thread_entry(t);
      (startup ? entry.starved_startup_s : entry.starved_later_s) += starved * delta * run / e;
    }
    // With one processor busy, a serial bottleneck would claim the other P - 1: those
    // without a thread are this starvation's, those the program's other threads were
    // ready for were taken (by other processes, or while being woken), and those whose
    // threads waited for the slowest of their team are its imbalance, for the share of the
    // interval in bin 1.
    // Each is a count of processors over the whole interval, all of it in the part in bin
    // 1 (with both bins, the other is P busy: none idle), whichever thread ran alone then:
    // while a thread waits or is ready, another runs alone. With e < 1, none runs for the
    // rest of the interval, where this thread's own ready time is.
    if (!alone || context == kNone) continue;
    const double others = (processors - 1) * (1 - busy_bins.upper);
    const double starved_share = std::fmin(1.0, starved / others);
    const double taken = std::fmin(idle - starved, e < 1 ? ready_all - ready : ready_all);
    const double taken_share = taken > 0 ? std::fmin(1.0 - starved_share, taken / others) : 0.0;
    const double waited_share =
        team_waiting > 0 ? std::fmin(1.0 - starved_share - taken_share, team_waiting / others)
                         : 0.0;
    const double alone_s = run * delta / std::fmax(1.0, e) * (1 - busy_bins.upper);
    // Where the sample's normalized time went (charge_sample; a wait's run before it goes
    // whole to where it ran): its parts are parts of that.
    for_each_part(tables, context, snap.entries_off && s.state == kBusy, hidden,
                  [&](uint32_t part, double w) {
                    OneBusyApart& apart = tables.context_apart(part);
                    apart.starved += alone_s * starved_share * w;
                    apart.taken += alone_s * taken_share * w;
                    apart.waited += alone_s * waited_share * w;
                  });
  }
}

}  // namespace

void attribute_window(Window& window, ProfileTables& tables, const AttributionConfig& config,
                      AttributionTotals& totals, uint32_t snapshots) {
  const uint32_t count = snapshots < window.snapshot_count() ? snapshots : window.snapshot_count();
  measure_threads(window, config, totals, count);
  const RecordShape& shape = tables.shape();
  const double processors = config.processors;
  for (uint32_t k = 0; k < count; ++k) {
    const SnapshotRecord& snap = window.snapshot(k);
    const double delta = static_cast<double>(snap.duration_ns) * 1e-9;
    const uint64_t snapshot_id = totals.snapshots++;
    totals.elapsed_s += delta;
    totals.thread_samples += snap.count;

    // First pass: the model's share, e and r.
    uint32_t active = 0;
    double present = 0;
    for (uint32_t i = snap.first; i < snap.first + snap.count; ++i) {
      const uint8_t state = window.sample(i).state;
      active += state == kBusy || state == kSpinning;
      present += window.sample(i).present;
    }
    const double model_run = active > processors ? processors / active : 1.0;
    double e = 0, r = 0;
    for (uint32_t i = snap.first; i < snap.first + snap.count; ++i) {
      const ThreadSample& s = window.sample(i);
      if (s.state == kBlocked) {
        if (s.ran_state == kBusy) e += ran_before_wait(s, window.thread_at(s.window_thread));
        r += on_cpu_before_wait(s);
        continue;
      }
      double run, ready, processor, busy;
      shares(s, window.thread_at(s.window_thread), model_run, &run, &ready, &processor, &busy);
      if (s.state == kBusy) e += run;
      r += std::fmin(1.0, busy + ready);  // a first sample may carry time before the interval
    }
    const ProcessorsBusy busy_bins =
        processors_busy(e, processors, delta, &totals.busy_beyond_processors_s);
    const uint32_t runnable_bin =
        static_cast<uint32_t>(std::fmin(shape.runnable_bins - 1.0, std::round(r)));
    tables.note_runnable_bin(runnable_bin);
    starvation(window, tables, snap, config.hidden, processors, model_run, e, busy_bins, delta,
               totals.elapsed_s - delta, totals.starvation);

    // Second pass: charge each thread.
    for (uint32_t i = snap.first; i < snap.first + snap.count; ++i) {
      const ThreadSample& s = window.sample(i);
      Contribution c{};
      c.busy = busy_bins;
      c.runnable_bin = runnable_bin;
      c.runnable = r;
      if (s.state == kBlocked) {
        const double on_cpu = on_cpu_before_wait(s);
        c.state[kBlocked] = (s.present - on_cpu) * delta;
        if (on_cpu > 0) {
          charge_ran_before_wait(tables, s, window.thread_at(s.window_thread), c, on_cpu, e, delta,
                                 ++totals.stamps, snapshot_id);
        }
      } else {
        double run, ready, processor, busy;
        shares(s, window.thread_at(s.window_thread), model_run, &run, &ready, &processor, &busy);
        c.state[s.state] = busy * delta;
        c.state[kReady] = ready * delta;
        window.thread_at(s.window_thread).ready_used_ns += ready * delta * 1e9;
        c.state[kBlocked] = std::fmax(0.0, s.present - busy - ready) * delta;
        if (s.state == kBusy) {
          c.processor = processor * delta;
          // Less than one processor's worth busy: each its own time (normalized never
          // exceeds processor time); the rest of the interval nobody was busy.
          if (e > 0) c.normalized = run * delta / std::fmax(1.0, e);
        }
      }
      // The time nobody was busy (all of it when e = 0): shared by the time each thread
      // was there, bin 0.
      if (e < 1) {
        const double share = present > 0 ? s.present / present : 1.0 / snap.count;
        c.normalized_idle = (1 - e) * delta * share;
      }
      charge_sample(tables, s, c, delta, snap.entries_off, config.hidden, totals, snapshot_id);
    }

    // Queue lengths of the objects in use at this snapshot. At most all threads but one
    // wait for an object: when every thread is seen in one (a barrier's last arrival, a
    // lock handed over), one of them is releasing it or being handed it. So for a lock
    // none holds: one of its waiters is being handed it (a rwlock of 4 threads read "4
    // waiting" while a fifth thread ran). A barrier's parties released but not yet run
    // still look waiting: at most all its parties but one wait (3 of 3 read waiting).
    const uint32_t can_wait = snap.count > 1 ? snap.count - 1 : 1;
    for (uint32_t i = snap.first; i < snap.first + snap.count; ++i) {
      const ThreadSample& s = window.sample(i);
      for (uint32_t id = s.context; id != kNone; id = tables.context_node(id).parent) {
        const ContextNode& node = tables.context_node(id);
        if (node.kind == capture::kProcedure) continue;
        ObjectEntry& o = tables.object_entry(node.entity);
        if (o.snapshot != snapshot_id) continue;
        uint32_t waiters = std::min(o.waiters, can_wait);
        if (waiters > 1 && o.holders == 0 && capture::is_lock(o.kind)) --waiters;
        if (o.kind == capture::kBarrier && o.parties) waiters = std::min(waiters, o.parties - 1);
        tables.object_queue(node.entity)[std::min(waiters, kQueueBins - 1)] += delta;
        o.snapshot = ~uint64_t{0};  // counted once per snapshot
      }
    }
  }
}

float share_processor_time(double used_ns, ThreadSample* earlier, uint64_t earlier_duration_ns,
                           bool active, uint64_t duration_ns) {
  if (earlier && active) {
    double part = used_ns / 2;
    if (earlier->run >= 0 && earlier_duration_ns) {
      // Not past the earlier sample's presence: a thread born late in that interval ran
      // there only while it existed, and what it could not have run there stays here.
      // Pushed past it, the time left the processors busy (500 threads of 1 ms, one at a
      // time: 60 ms of 511 missing from the histogram).
      const double earlier_ns = static_cast<double>(earlier_duration_ns);
      part = std::fmin(part, std::fmax(0.0, earlier->present - earlier->run) * earlier_ns);
      earlier->run += static_cast<float>(part / earlier_ns);
    }
    used_ns -= part;
  }
  if (duration_ns == 0) return -1;
  return static_cast<float>(used_ns / static_cast<double>(duration_ns));
}

}  // namespace quartz::sampler

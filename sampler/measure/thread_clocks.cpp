#include "sampler/measure/thread_clocks.h"

#include <algorithm>

namespace quartz::sampler {
namespace {

// The CPU clock a thread left at its end (0: none), never behind `last_ns`, the sampler's
// last reading of it while it still ran (its end may have been read before). The reading
// is taken as it is, our read included: taking a calibrated cost back out undercounts
// short threads wherever the calibration runs slower than the reads at their ends.
QUARTZ_NOINSTR uint64_t end_cpu_ns(const rt::ThreadBlock& ended, uint64_t last_ns) {
  const uint64_t read = ended.exit_cpu_ns.load(std::memory_order_relaxed);
  if (read == 0) return 0;
  return read > last_ns ? read : last_ns;
}

// A live reading of a thread's CPU clock, held to its end reading once it has one: a thread
// in its exit path (its slot still live) has used what that reading says; the rest is its
// exit, ours included, not the program's time. Checked after the read: a reading taken
// before the end's is below it.
QUARTZ_NOINSTR uint64_t held_to_end(const rt::ThreadBlock& block, uint64_t reading,
                                    uint64_t last_ns) {
  const uint64_t end = end_cpu_ns(block, last_ns);
  return end != 0 && end < reading ? end : reading;
}

}  // namespace

void start_track(Track& track, const rt::ThreadBlock& block, uint32_t index,
                 rt::SlotStatus status) {
  track = Track{};
  track.thread_index = index;
  track.valid = 1;
  track.tid = block.tid.load(std::memory_order_relaxed);
  track.block = &block;
  track.last_sequence = block.stack.sequence();
  track.last_yields = block.yields.load(std::memory_order_relaxed);
  track.active_sample = kNone;
  track.active_context = kNone;
  track.seen_context = kNone;
  track.last_clock_ns = block.start_cpu_ns;
  track.has_clock = 1;
  if (block.clocks_from_birth) {
    track.last_cpu_ns = 0;
    track.last_runqueue_ns = 0;
    track.has_cpu = 1;
    return;
  }
  // Not seen created (the main thread): its run-queue time is known from now on.
  support::ThreadCpu cpu;
  if (status == rt::SlotStatus::live && support::read_thread_cpu(track.tid, &cpu)) {
    track.last_cpu_ns = block.start_cpu_ns <= cpu.cpu_ns ? block.start_cpu_ns : cpu.cpu_ns;
    track.last_runqueue_ns = cpu.runqueue_ns;
    track.has_cpu = 1;
  }
}

bool measure_cpu(Track& track, WindowThread& w, const rt::ThreadBlock* ended, ProfileTables& tables,
                 support::ThreadCpu* live) {
  support::ThreadCpu cpu{};
  bool ok;
  if (ended) {
    // Its own clock at its end; its run-queue time when it lived long enough to read it,
    // else as last read.
    cpu.cpu_ns = end_cpu_ns(*ended, track.has_cpu ? track.last_cpu_ns : 0);
    cpu.runqueue_ns = ended->exit_runqueue_ns.load(std::memory_order_relaxed);
    ok = cpu.cpu_ns != 0;
    if (cpu.runqueue_ns == rt::kExitRunqueueUnknown) cpu.runqueue_ns = track.last_runqueue_ns;
  } else {
    ok = support::read_thread_cpu(track.tid, &cpu);
    if (ok) {
      cpu.cpu_ns = held_to_end(*track.block, cpu.cpu_ns, track.has_cpu ? track.last_cpu_ns : 0);
      *live = cpu;
    }
  }
  const bool read_live = ok && !ended;
  if (!ok || !track.has_cpu || cpu.cpu_ns < track.last_cpu_ns) {
    if (ok) {
      track.last_cpu_ns = cpu.cpu_ns;
      track.last_runqueue_ns = cpu.runqueue_ns;
      track.has_cpu = 1;
    }
    return read_live;
  }
  const uint64_t d_cpu = cpu.cpu_ns - track.last_cpu_ns;
  const uint64_t d_queue =
      cpu.runqueue_ns >= track.last_runqueue_ns ? cpu.runqueue_ns - track.last_runqueue_ns : 0;
  w.cpu_ns += d_cpu + track.cpu_carry_ns;
  track.cpu_carried_in_ns += track.cpu_carry_ns;
  track.cpu_carry_ns = 0;
  w.runqueue_ns += d_queue + track.runqueue_carry_ns;
  track.runqueue_carried_in_ns += track.runqueue_carry_ns;
  track.runqueue_carry_ns = 0;
  w.measured = 1;
  if (tables.has_thread(w.thread)) {
    tables.thread_entry(w.thread).cpu_ns += d_cpu;
    tables.thread_entry(w.thread).runqueue_ns += d_queue;
  }
  track.last_cpu_ns = cpu.cpu_ns;
  track.last_runqueue_ns = cpu.runqueue_ns;
  return read_live;
}

float clock_share(Track& track, const rt::ThreadBlock& block, bool active, bool ended,
                  bool may_read, uint64_t duration_ns, Window& window) {
  const bool was_active = track.active_sample != kNone;
  // Seen waiting at both ends of the interval, it ran in between only if its profile stack
  // moved (it left its wait): read its clock then, and only then.
  if (!active && !was_active && block.stack.sequence() == track.last_sequence) return -1;
  if (!may_read && !ended) {
    track.clock_gap = 1;
    return -1;
  }
  uint64_t clock_ns = ~uint64_t{0};
  if (!ended) support::read_thread_clock(track.tid, &clock_ns);
  // One gone since its slot was read has only its end reading (held_to_end of no reading).
  clock_ns = held_to_end(block, clock_ns, track.has_clock ? track.last_clock_ns : 0);
  if (clock_ns == ~uint64_t{0}) return -1;
  const bool known = track.has_clock && !track.clock_gap && clock_ns >= track.last_clock_ns;
  track.clock_gap = 0;
  const double used_ns = known ? static_cast<double>(clock_ns - track.last_clock_ns) : 0;
  track.last_clock_ns = clock_ns;
  track.has_clock = 1;
  track.clock_fresh = 1;
  if (!known) return -1;
  return share_processor_time(used_ns, was_active ? &window.sample(track.active_sample) : nullptr,
                              track.active_duration_ns, active, duration_ns);
}

float presence(const rt::Runtime& runtime, Track& track, uint64_t start_ns, uint64_t now) {
  const rt::ThreadRecord* record = runtime.history.find(track.thread_index);
  if (!record) return 1;
  const uint64_t created = record->created_ns.load(std::memory_order_relaxed);
  // Read even while the slot is live: a thread stores its end before its slot says so, and
  // may be preempted in between.
  const uint64_t exited = record->exited_ns.load(std::memory_order_relaxed);
  // A thread created before the run's clock started (by an earlier constructor) began
  // with the run.
  const uint64_t born = created ? std::max(created, runtime.clock.start_ns) : 0;
  return track.life.share(born, exited, start_ns, now);
}

void count_hook_events(Track& track, WindowThread& w, const rt::ThreadBlock& block) {
  const uint32_t sequence = block.stack.sequence();
  w.hook_events += static_cast<uint32_t>(sequence - track.last_sequence) / 2;
  track.last_sequence = sequence;
}

void carry_unplaced_time(Window& window, support::MappedVector<Track>& tracks) {
  for (uint32_t i = 0; i < window.thread_count(); ++i) {
    const WindowThread& w = window.thread_at(i);
    if (w.track == kNone) continue;
    Track& track = tracks[w.track];
    if (!track.valid || track.thread_index != w.thread) continue;
    const double unplaced = static_cast<double>(w.runqueue_ns) - w.ready_used_ns;
    const uint64_t in = track.runqueue_carried_in_ns;
    const uint64_t own = w.runqueue_ns > in ? w.runqueue_ns - in : 0;
    const uint64_t carry = unplaced > 0 ? static_cast<uint64_t>(unplaced) : 0;
    track.runqueue_carry_ns = carry < own ? carry : own;
    track.runqueue_carried_in_ns = 0;
    const uint64_t cpu_own =
        w.cpu_ns > track.cpu_carried_in_ns ? w.cpu_ns - track.cpu_carried_in_ns : 0;
    track.cpu_carry_ns = std::min(static_cast<uint64_t>(w.cpu_unplaced_ns), cpu_own);
    track.cpu_carried_in_ns = 0;
  }
}

}  // namespace quartz::sampler

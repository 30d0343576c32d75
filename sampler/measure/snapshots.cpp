#include "sampler/measure/snapshots.h"

#include <time.h>

#include <algorithm>

#include "support/clock.h"

namespace quartz::sampler {
namespace {

// A thread that gave up its processor this many times since the last snapshot polls (a
// loop around sched_yield): it is spinning, not busy, whatever it polls for.
constexpr uint32_t kPollingYields = 2;

QUARTZ_NOINSTR bool polled(Track& track, const rt::ThreadBlock& block) {
  const uint32_t yields = block.yields.load(std::memory_order_relaxed);
  const bool polling = static_cast<uint32_t>(yields - track.last_yields) >= kPollingYields;
  track.last_yields = yields;
  return polling;
}

// Clock reads take at most this share of the period asked for: all of 25-130 threads'
// (1.5 us to 0.3 us a read), beyond that a rotating part of them (clock_turn).
constexpr double kClockReadShare = 0.02;

constexpr uint64_t kMinWindowNs = 10'000'000;           // CPU measurement at most every 10 ms
constexpr uint64_t kCpuReadBudgetNs = 1'100'000;        // window per thread: ~1% of a core
constexpr size_t kTraceChunkBytes = size_t{256} << 10;  // trace appended to its file past this

// The innermost procedure of a calling context (above the objects a thread holds or waits
// for); 0 for none.
QUARTZ_NOINSTR uint64_t innermost_procedure(const ProfileTables& tables, uint32_t context) {
  while (context != kNone && context < tables.context_count()) {
    const ContextNode& node = tables.context_node(context);
    if (node.kind == capture::kProcedure) return node.address;
    context = node.parent;
  }
  return 0;
}

// True for a thread created after `time`: created while the walk went on, it belongs to the
// next snapshot's interval.
QUARTZ_NOINSTR bool created_after(const rt::Runtime& runtime, uint32_t index, uint64_t time) {
  const rt::ThreadRecord* record = runtime.history.find(index);
  return record && record->created_ns.load(std::memory_order_relaxed) > time;
}

}  // namespace

bool Snapshots::init_tables(uint32_t processors) {
  config.processors = processors;
  return tables.init(RecordShape{processors, kRunnableBins}, ProfileTables::Limits{});
}

bool Snapshots::init(rt::Runtime& runtime, RunInfo& info, OverheadControl& overhead,
                     TraceWriter& trace, uint32_t processors) {
  runtime_ = &runtime;
  info_ = &info;
  overhead_ = &overhead;
  trace_ = &trace;
  window_ns_ = kMinWindowNs;
  // A CPU-clock read, as the overhead control calibrates it (0 without one: a read then
  // counts as 1 us).
  clock_read_ns_ = overhead.calibrate_cpu_read_ns();
  if (!(clock_read_ns_ > 0)) clock_read_ns_ = 1000;
  info.window_snapshots = static_cast<uint32_t>(kMinWindowNs / info.period_ns + 1);
  return init_tables(processors) && window.init(kMaxSnapshots, kMaxSnapshots * 64, kMaxSlots) &&
         reader_.init(runtime.options.geometry.stack_capacity, kMaxSlots, &runtime.objects) &&
         tracks_.reserve(kMaxSlots) && tracks_.resize_at_least(kMaxSlots) &&
         retire_later_.reserve(kMaxSlots);
}

void Snapshots::begin(uint64_t run_start_ns, uint64_t now) {
  last_ns_ = run_start_ns;
  window_start_ns_ = now;
}

void Snapshots::measure(Track& track, WindowThread& w, const rt::ThreadBlock* ended) {
  support::ThreadCpu live;
  if (measure_cpu(track, w, ended, tables, &live) && trace_->is_open()) {
    trace_->sample(w.thread, last_ns_ - runtime_->clock.start_ns, live.cpu_ns, live.runqueue_ns,
                   ~0u);
  }
}

void Snapshots::close_window(bool last) {
  for (uint32_t i = 0; i < window.thread_count(); ++i) {
    WindowThread& w = window.thread_at(i);
    if (w.track == kNone) continue;  // ended: measured when it ended
    Track& track = tracks_[w.track];
    if (!track.valid || track.thread_index != w.thread) continue;
    measure(track, w, nullptr);
  }
  const uint32_t snapshots = window.snapshot_count();
  attribute_window(window, tables, config, totals,
                   last || snapshots == 0 ? snapshots : snapshots - 1);
  carry_unplaced_time(window, tracks_);
  if (last) {
    window.clear();
  } else {
    window.carry_last_snapshot();
    // The carried samples are the window's first: point their threads' tracks at them.
    for (uint32_t i = 0; i < window.thread_count(); ++i) {
      const WindowThread& w = window.thread_at(i);
      if (w.track == kNone) continue;
      Track& track = tracks_[w.track];
      if (!track.valid || track.thread_index != w.thread) continue;
      track.window_position = i;
      const ThreadSample& sample = window.sample(i);
      track.active_sample = sample.state != capture::kBlocked ? i : kNone;
    }
  }
  window_ns_ = live_threads_ * kCpuReadBudgetNs > kMinWindowNs ? live_threads_ * kCpuReadBudgetNs
                                                               : kMinWindowNs;
  if (slot_span_ > clock_reads_) clock_cursor_ = (clock_cursor_ + clock_reads_) % slot_span_;
}

bool Snapshots::clock_turn(uint32_t ordinal) const {
  if (slot_span_ <= clock_reads_) return true;
  return (ordinal + slot_span_ - clock_cursor_) % slot_span_ < clock_reads_;
}

// Moves the thread's trace events to the trace file's chunk, with the sampler's reading of
// it: its CPU clock (when read this snapshot) and calling context, or what it left at exit.
void Snapshots::trace_thread(const Track& track, rt::ThreadBlock& block, const StackRead& read,
                             rt::SlotStatus status, uint64_t now) {
  trace_->drain(track.thread_index, block);
  const uint64_t at = now - runtime_->clock.start_ns;
  if (status == rt::SlotStatus::exited) {
    // Always written: it tells readers the thread's trace is complete (cpu 0: not known).
    const uint64_t cpu = block.exit_cpu_ns.load(std::memory_order_relaxed);
    trace_->sample(track.thread_index, at, cpu,
                   cpu ? block.exit_runqueue_ns.load(std::memory_order_relaxed) : ~0ull, ~0u);
  } else if (track.clock_fresh) {
    trace_->sample(track.thread_index, at, track.last_clock_ns, ~0ull,
                   read.context == kNone ? ~0u : read.context);
  }
  trace_->flush(kTraceChunkBytes);
}

uint64_t Snapshots::snapshot_time(uint64_t now) const {
  const uint64_t ended = runtime_->end_ns.load(std::memory_order_relaxed);
  const uint64_t end = ended && ended < now ? ended : now;
  return end > last_ns_ ? end : last_ns_;
}

bool Snapshots::open_entry_window(uint64_t next_ns) {
  if (!overhead_->window_due(count_)) return false;
  support::sleep_until_ns(next_ns - OverheadControl::kWindowLeadNs);
  overhead_->open_window();
  // A read pulls the lines of the thread's stack to this core, and its next push waits for
  // them: reads close together would find the thread waiting to push. Each read comes a
  // full gap after the last (a relative sleep), the snapshot a gap after the last read.
  const timespec gap{0, static_cast<long>(OverheadControl::kWindowReadGapNs)};
  for (uint32_t r = 0; r < OverheadControl::kWindowReads; ++r) {
    clock_nanosleep(CLOCK_MONOTONIC, 0, &gap, nullptr);
    if (support::monotonic_ns() + OverheadControl::kWindowReadGapNs > next_ns) break;
    runtime_->threads.for_each([&](rt::ThreadSlot& slot, rt::SlotStatus status) {
      rt::ThreadBlock* block = slot.block.load(std::memory_order_acquire);
      if (!block || slot.ordinal >= kMaxSlots || status == rt::SlotStatus::exited) return;
      const Track& track = tracks_[slot.ordinal];
      if (!track.valid || track.thread_index != block->index) return;
      const StackRead read = reader_.read(tables, slot.ordinal, false, *block);
      overhead_->note_window_read(read.state, read.context, tables);
    });
  }
  return true;
}

void Snapshots::take(uint64_t now, bool last, bool window_open, bool retire_now) {
  if (window.full()) close_window();
  const uint64_t duration_ns = now - last_ns_;
  window.begin_snapshot(duration_ns, !window_open && overhead_->entries_off());
  ++count_;
  last_ns_ = now;
  uint32_t live = 0;
  const uintptr_t hidden = overhead_->trial_hides();
  const bool counting = overhead_->counting();
  // Of the period asked for, not of one the schedule lengthened: a share of that would grow
  // with it and never let it shorten again (period.h).
  clock_reads_ = static_cast<uint32_t>(
      std::max(1.0, kClockReadShare * static_cast<double>(info_->period_ns) / clock_read_ns_));
  uint32_t reads_left = clock_reads_;
  runtime_->threads.for_each([&](rt::ThreadSlot& slot, rt::SlotStatus status) {
    rt::ThreadBlock* block = slot.block.load(std::memory_order_acquire);
    if (!block || slot.ordinal >= kMaxSlots) return;
    if (slot.ordinal >= slot_span_) slot_span_ = slot.ordinal + 1;
    Track& track = tracks_[slot.ordinal];
    if (track.retiring) return;
    const uint32_t index = block->index;
    const bool fresh = !track.valid || track.thread_index != index;
    if (fresh && !last && created_after(*runtime_, index, now)) return;
    if (fresh) start_track(track, *block, index, status);
    StackRead read = reader_.read(tables, slot.ordinal, fresh, *block);
    if (polled(track, *block) && read.state == capture::kBusy) read.state = capture::kSpinning;
    if (read.torn) ++info_->torn_samples;
    if (window_open) overhead_->note_window_read(read.state, read.context, tables);
    uint32_t context = read.context;
    if (hidden == 0) {
      track.seen_context = read.context;
    } else if (read.state == capture::kBusy) {
      context = seen_below(tables, read.context, track.seen_context, hidden);
    }
    if (counting && read.state == capture::kBusy) {
      overhead_->note_busy_sample(innermost_procedure(tables, context), duration_ns);
    }
    bool created;
    WindowThread* w = window.thread(index, &track.window_position, &created);
    if (!w) return;
    if (created) {
      w->tid = track.tid;
      w->track = slot.ordinal;
    }
    tables.thread(index);
    track.clock_fresh = 0;
    const bool ended = status == rt::SlotStatus::exited;
    const bool may_read = reads_left > 0 && clock_turn(slot.ordinal);
    const float run = clock_share(track, *block, read.state != capture::kBlocked, ended, may_read,
                                  duration_ns, window);
    if (track.clock_fresh && !ended) --reads_left;
    if (trace_->is_open()) trace_thread(track, *block, read, status, now);
    ThreadSample sample{index,         track.window_position,
                        context,       read.state,
                        read.top_role, 0,
                        run,           presence(*runtime_, track, now - duration_ns, now)};
    sample.released = read.released;
    if (read.state != capture::kBlocked) {
      track.active_sample = window.next_sample();
      track.active_duration_ns = duration_ns;
      track.active_context = context;
      track.active_state = read.state;
      track.active_role = read.top_role;
    } else {
      sample.ran_context = track.active_context;
      sample.ran_state = track.active_state;
      sample.ran_role = track.active_role;
      track.active_sample = kNone;
    }
    window.add_sample(sample);
    count_hook_events(track, *w, *block);
    if (ended) {
      measure(track, *w, block);
      w->track = kNone;
      track.valid = 0;
      if (retire_now) {
        runtime_->threads.retire(&slot);
      } else if (rt::ThreadSlot** later = retire_later_.append()) {
        *later = &slot;  // never full: a slot is in it once
        track.retiring = 1;
      }
    } else {
      ++live;
    }
  });
  live_threads_ = live;
  close_cost_ns_ = 0;
  if (now - window_start_ns_ >= window_ns_) {
    const uint64_t from = support::read_own_clock();
    close_window();
    close_cost_ns_ = support::read_own_clock() - from;
    window_start_ns_ = now;
  }
}

void Snapshots::retire_deferred() {
  for (size_t i = 0; i < retire_later_.size(); ++i) {
    rt::ThreadSlot* slot = retire_later_[i];
    runtime_->threads.retire(slot);
    tracks_[slot->ordinal].retiring = 0;
  }
  retire_later_.reuse();
}

}  // namespace quartz::sampler

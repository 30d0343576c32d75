#include "analysis/trace_steps.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "format/capture_format.h"

namespace quartz::analysis {
namespace {

using trace::Type;

// Events that change nothing in a replay: they only mark where a wait began.
bool replayed(Type type) {
  switch (type) {
    case Type::lock_request:
    case Type::cond_wait:
    case Type::sem_wait_begin:
    case Type::spin_begin:
    case Type::spin_end:
      return false;
    default:
      return true;
  }
}

}  // namespace

StepAssembler::StepAssembler(uint32_t threads, AssemblerCosts costs)
    : costs_(costs), threads_(threads), logs_(threads) {}

// Whether the event that ends a wait names what the thread waited for; if not, the wait is
// replayed as a delay of its recorded length.
bool StepAssembler::paired(const Thread& t, const profile::TraceRecord& r) const {
  switch (r.type) {
    case Type::lock_acquire:
      return r.kind == capture::kRwlockRead ? r.sequence >= 1 : r.sequence > 1;
    case Type::cond_wake:
      return r.sequence != 0 && r.sequence != t.wait_sequence;
    case Type::lock_fed:
      return r.sequence != 0;
    case Type::join_begin:
    case Type::join_end:
      return r.object != trace::kNoThread;
    case Type::sem_acquire:
      return r.sequence != 0 && r.sequence > r.aux;
    case Type::barrier_depart:
      return r.aux != 0;
    default:
      return true;
  }
}

void StepAssembler::add(const std::vector<profile::TraceRecord>& records) {
  for (const profile::TraceRecord& r : records) {
    ++totals_.records;
    if (r.thread >= threads_.size()) {
      threads_.resize(r.thread + 1);
      logs_.resize(r.thread + 1);
    }
    Thread& t = threads_[r.thread];
    if (trace::is_sync_event(r.type)) {
      ++totals_.events;
      place_readings(t, r.thread, r.time_ns);
      event(t, r.thread, r);
    } else if (r.type == Type::sample) {
      ++totals_.samples;
      if (t.exited || !t.started) {
        if (t.started) sample(t, r.thread, r);
      } else {
        // A reading is held until the events before it have come: an event recorded
        // before the snapshot may reach the queue after the sampler drained it. A later
        // snapshot's reading says they have (the sampler drains a thread's queue before it
        // reads the thread), and a thread in a wait records nothing until the wait ends:
        // without this, a thread waiting for the whole run (main in pthread_join) held
        // every thread's steps in memory until its end.
        if (t.waiting && r.time_ns > 0) place_readings(t, r.thread, r.time_ns - 1);
        t.samples.push_back(r);
        ++pending_;
      }
    } else if (r.type == Type::cpu) {
      place_readings(t, r.thread, r.time_ns);
      if (t.started && !t.exited) {
        close_piece(t, static_cast<double>(r.time_ns), costs_.cpu_read_ns);
        resolve_cpu(t, static_cast<double>(r.cpu_ns), false);
        t.cpu_anchor_ns = static_cast<double>(r.time_ns);
      }
    } else if (r.type == Type::dropped) {
      totals_.dropped += r.dropped;
    }
  }
  totals_.peak_pending = std::max(totals_.peak_pending, pending_);
}

// Places the thread's held readings taken at `through_ns` or before, oldest first.
void StepAssembler::place_readings(Thread& t, uint32_t index, uint64_t through_ns) {
  while (!t.samples.empty() && t.samples.front().time_ns <= through_ns) {
    const profile::TraceRecord s = t.samples.front();
    t.samples.pop_front();
    --pending_;
    sample(t, index, s);
  }
}

void StepAssembler::close_piece(Thread& t, double until_ns, double overhead_ns) {
  Piece p;
  p.start_ns = t.last_ns;
  p.end_ns = std::max(until_ns, t.last_ns);
  p.waiting = t.waiting;
  p.spinning = t.spinning || (t.waiting && t.wait_spins);
  p.context_begin = t.context;
  if (p.waiting) {
    t.pending_overhead += overhead_ns;  // spent before the wait began: charge the work before
  } else {
    p.overhead_ns = overhead_ns + t.pending_overhead;
    t.pending_overhead = 0;
  }
  t.last_ns = p.end_ns;
  t.pieces.push(p, piece_blocks_);
  ++pending_;
}

void StepAssembler::event(Thread& t, uint32_t index, const profile::TraceRecord& r) {
  const auto time = static_cast<double>(r.time_ns);
  if (!t.started) {
    // Its first event (thread_start, unless dropped). CPU and run-queue clocks start here.
    t.started = true;
    t.last_ns = time;
    t.cpu_anchor_ns = time;
    t.has_cpu_anchor = true;
    t.has_runqueue_anchor = true;
  }
  const double overhead =
      costs_.trace_event_ns + static_cast<double>(r.hooks) * costs_.hook_event_ns;
  const bool ends_wait = t.waiting;
  const bool depends = paired(t, r);
  close_piece(t, time, overhead);
  end_segment(t, r);
  Piece& p = t.pieces.back();
  if (ends_wait && !depends) {
    // Nothing to wait for in a replay: the recorded wait becomes a delay.
    p.waiting = false;
    p.cpu_ns = 0;
    p.spinning = false;
    p.overhead_ns = -1;  // marks a wait replayed as delay
    ++totals_.unpaired_waits;
  }
  if (replayed(r.type)) {
    p.has_sync = true;
    Step& s = p.sync;
    s.kind = Step::sync;
    s.type = r.type;
    s.object_kind = r.kind;
    s.object = r.object;
    s.sequence = r.sequence;
    s.aux = r.aux;
    s.observed_ns = time;
    s.spinning = r.type == Type::lock_acquire && r.kind == capture::kSpinlock;
    s.depends = depends;
    if (r.type == Type::lock_acquire || r.type == Type::lock_release) {
      s.lock = locks_.try_emplace(r.object, static_cast<uint32_t>(locks_.size())).first->second;
      if (r.type == Type::lock_release) t.last_released = s.lock;
      if (r.type == Type::lock_acquire && s.lock < condition_mutexes_.size()) {
        if (std::vector<uint32_t>* takers = condition_mutexes_[s.lock]) add_thread(*takers, index);
      }
    }
  }
  switch (r.type) {
    case Type::lock_request:
      t.waiting = true;
      t.wait_spins = r.kind == capture::kSpinlock;
      break;
    case Type::cond_wait: {
      t.waiting = true;
      t.wait_spins = false;
      t.wait_sequence = r.sequence;
      ConditionUse& c = conditions_[r.object];
      add_thread(c.waiters, index);
      // Its mutex, the one released just before: who takes it from now on is noted.
      if (c.mutex == kNoLock && t.last_released != kNoLock) {
        c.mutex = t.last_released;
        if (condition_mutexes_.size() <= c.mutex) condition_mutexes_.resize(c.mutex + 1);
        if (!condition_mutexes_[c.mutex]) condition_mutexes_[c.mutex] = &mutex_takers_[c.mutex];
      }
      break;
    }
    case Type::cond_signal: {
      ConditionUse& c = conditions_[r.object];
      ++c.signals;
      add_thread(c.signallers, index);
      break;
    }
    case Type::cond_broadcast:
      ++conditions_[r.object].broadcasts;
      break;
    case Type::join_begin:
    case Type::sem_wait_begin:
    case Type::barrier_arrive:
      t.waiting = true;
      t.wait_spins = false;
      break;
    case Type::lock_acquire:
    case Type::cond_wake:
    case Type::join_end:
    case Type::sem_acquire:
    case Type::barrier_depart:
      t.waiting = false;
      break;
    case Type::spin_begin:
      t.spinning = true;
      break;
    case Type::spin_end:
      t.spinning = false;
      break;
    case Type::thread_exit:
      t.exited = true;
      t.waiting = false;
      place_readings(t, index, ~uint64_t{0});
      break;
    default:
      break;
  }
}

void StepAssembler::add_thread(std::vector<uint32_t>& threads, uint32_t index) {
  const auto at = std::lower_bound(threads.begin(), threads.end(), index);
  if (at == threads.end() || *at != index) threads.insert(at, index);
}

std::vector<uint32_t> StepAssembler::mutex_takers(uint32_t lock) const {
  const auto it = mutex_takers_.find(lock);
  return it == mutex_takers_.end() ? std::vector<uint32_t>{} : it->second;
}

// The segment that the event `r` ends: its readings vote for its path (the events that
// begin and end it), and its pieces take the path's attribution.
void StepAssembler::end_segment(Thread& t, const profile::TraceRecord& r) {
  const uint64_t here =
      (uint64_t{static_cast<uint8_t>(r.type)} << 56) ^ (r.object * 0x9E3779B97F4A7C15ull);
  const uint64_t path = here ^ (t.segment_begin * 0xC2B2AE3D27D4EB4Full + 0x165667B19E3779F9ull);
  t.segment_begin = here;
  const uint64_t first = std::max(t.segment_first_piece, t.pieces.begin());
  t.segment_first_piece = t.pieces.end();
  // Most segments hold no reading: a path is kept only once one has voted for it (with
  // many objects, a table of every path cost a cache miss and a node per event).
  auto it = paths_.find(path);
  if (it == paths_.end()) {
    if (t.segment_contexts.empty()) return;  // no reading on this path yet: the readings around it
    it = paths_.try_emplace(path).first;
  }
  PathVotes& votes = it->second;
  for (const auto& [c, weight] : t.segment_contexts) {
    votes.contexts[c] += weight;
    votes.total += weight;
  }
  t.segment_contexts.clear();
  if (votes.total <= 0) return;
  // A new snapshot when the votes have grown by a quarter: snapshots stay few.
  if (votes.snapshot == kNoAttribution || votes.total >= 1.25 * votes.snapshot_total + 0.5) {
    Attribution a;
    for (const auto& [context, n] : votes.contexts)
      a.emplace_back(context, static_cast<double>(n) / votes.total);
    votes.snapshot = static_cast<uint32_t>(attributions_.size());
    votes.snapshot_total = votes.total;
    attributions_.push_back(std::move(a));
  }
  for (uint64_t i = first; i < t.pieces.end(); ++i) t.pieces.at(i).attribution = votes.snapshot;
}

uint32_t StepAssembler::attribution_between(uint32_t begin, uint32_t end) {
  if (begin == kNoContext) begin = end;
  if (end == kNoContext) end = begin;
  if (begin == kNoContext) return kNoAttribution;
  auto [it, inserted] =
      between_.try_emplace({begin, end}, static_cast<uint32_t>(attributions_.size()));
  if (inserted) {
    attributions_.push_back(begin == end ? Attribution{{begin, 1.0}}
                                         : Attribution{{begin, 0.5}, {end, 0.5}});
  }
  return it->second;
}

void StepAssembler::sample(Thread& t, uint32_t index, const profile::TraceRecord& r) {
  const auto time = static_cast<double>(r.time_ns);
  if (time > t.last_ns && !t.exited) close_piece(t, time, 0);
  // Only readings of the thread at work say where work goes (while waiting, it is in the
  // wait's context). One with no procedure on the stack (outside the procedures
  // `--procedures` patched, say) says the work there is in none: without it, xz recorded
  // with only hc_find_func patched gave hc_find_func 96% of its work, where it has half.
  const double wall = time - t.cpu_anchor_ns;
  if (!t.waiting && !t.exited && (r.has_context || (r.cpu_ns != 0 && wall > 0))) {
    const uint32_t where = r.has_context ? r.context : kNoProcedure;
    for (uint64_t i = t.pieces.end();
         i-- > t.pieces.begin() && t.pieces.at(i).context_end == kNoContext;) {
      t.pieces.at(i).context_end = where;
    }
    t.context = where;
    const double rate =
        wall > 0 && r.cpu_ns >= t.cpu_anchor_cpu
            ? std::min(1.0, (static_cast<double>(r.cpu_ns) - t.cpu_anchor_cpu) / wall)
            : 1.0;
    if (rate > 0) t.segment_contexts.emplace_back(where, rate);
  }
  if (r.cpu_ns != 0) resolve_cpu(t, static_cast<double>(r.cpu_ns), false);
  t.cpu_anchor_ns = time;
  if (r.has_runqueue || !costs_.run_queue_measured) {
    resolve_ready(t, index, static_cast<double>(r.runqueue_ns), r.has_runqueue);
  }
  if (t.exited && t.samples.empty()) flush_thread(t, index);
}

// Shares the processor time used since the last reading over the pieces since then that
// were not waiting for another thread.
void StepAssembler::resolve_cpu(Thread& t, double cpu_ns, bool final) {
  double working_ns = 0;
  for (uint64_t i = t.cpu_resolved; i < t.pieces.end(); ++i) {
    const Piece& p = t.pieces.at(i);
    if (!p.waiting && p.overhead_ns >= 0) working_ns += p.end_ns - p.start_ns;
  }
  double rate = t.last_rate;
  if (!final && working_ns > 0) {
    rate = std::clamp((cpu_ns - t.cpu_anchor_cpu) / working_ns, 0.0, 1.0);
  }
  for (uint64_t i = t.cpu_resolved; i < t.pieces.end(); ++i) {
    Piece& p = t.pieces.at(i);
    if (p.overhead_ns < 0) continue;  // a wait replayed as delay
    p.cpu_ns = p.waiting ? 0 : rate * (p.end_ns - p.start_ns);
  }
  t.cpu_resolved = t.pieces.end();
  if (!final) {
    t.cpu_anchor_cpu = cpu_ns;
    if (working_ns > 0) t.last_rate = rate;
  }
}

// Of the time the pieces did not run, the run-queue time since the last reading was ready
// (preempted); the rest blocked in the kernel.
void StepAssembler::resolve_ready(Thread& t, uint32_t index, double runqueue_ns, bool known) {
  double not_run_ns = 0;
  for (uint64_t i = t.pieces.begin(); i < t.cpu_resolved; ++i) {
    const Piece& p = t.pieces.at(i);
    if (!p.waiting && p.overhead_ns >= 0) not_run_ns += p.end_ns - p.start_ns - p.cpu_ns;
  }
  double ready_share = 1;
  if (known) {
    const double ready_ns = runqueue_ns - t.runqueue_anchor;
    ready_share = not_run_ns > 0 ? std::clamp(ready_ns / not_run_ns, 0.0, 1.0) : t.last_ready_share;
    t.runqueue_anchor = runqueue_ns;
    if (not_run_ns > 0) t.last_ready_share = ready_share;
  }
  emit(t, index, t.cpu_resolved, ready_share);
}

// Makes the pieces before `until` steps of the thread's log.
void StepAssembler::emit(Thread& t, uint32_t index, uint64_t until, double ready_share) {
  StepLog& log = logs_[index];
  for (uint64_t i = t.pieces.begin(); i < until; ++i) {
    const Piece& p = t.pieces.at(i);
    const double wall = p.end_ns - p.start_ns;
    if (p.overhead_ns < 0) {
      Step s;  // a wait replayed as delay
      s.delay_ns = wall;
      s.observed_ns = p.start_ns;
      log.push(s, step_blocks_);
    } else if (!p.waiting && wall > 0) {
      Step s;
      const double cpu = std::max(0.0, p.cpu_ns);
      s.cpu_ns = (cpu - std::min(cpu, p.overhead_ns)) * costs_.cpu_scale;
      totals_.compensated_ns += cpu - s.cpu_ns;
      s.delay_ns = std::max(0.0, wall - cpu) * (1 - ready_share);
      s.spinning = p.spinning;
      s.attribution = p.attribution != kNoAttribution
                          ? p.attribution
                          : attribution_between(p.context_begin, p.context_end);
      s.observed_ns = p.start_ns;
      if (s.cpu_ns > 0 || s.delay_ns > 0) log.push(s, step_blocks_);
    }
    if (p.has_sync) log.push(p.sync, step_blocks_);
  }
  pending_ -= std::min<uint64_t>(pending_, until - t.pieces.begin());
  t.pieces.trim(until, piece_blocks_);
}

// Everything left of a thread becomes final: its remaining pieces get the latest rates.
void StepAssembler::flush_thread(Thread& t, uint32_t index) {
  resolve_cpu(t, 0, true);
  emit(t, index, t.pieces.end(), costs_.run_queue_measured ? t.last_ready_share : 1);
  if (t.exited) logs_[index].ended = true;
}

void StepAssembler::finish() {
  for (uint32_t index = 0; index < threads_.size(); ++index) {
    Thread& t = threads_[index];
    place_readings(t, index, ~uint64_t{0});
    flush_thread(t, index);
    logs_[index].ended = true;
  }
  pending_ = 0;
}

}  // namespace quartz::analysis

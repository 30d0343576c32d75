#include "sampler/publish/publisher.h"

#include <algorithm>

#include "runtime/run_status.h"
#include "support/thread_cpu.h"

namespace quartz::sampler {
namespace {

constexpr uint64_t kOtherProcessesEveryNs = 100'000'000;
constexpr uint64_t kTraceFlushNs = 100'000'000;  // the trace appended to its file this often
// Publishing the figures to `quartz run` (each snapshot) takes at most 2.5% of a processor,
// by the sampler's own clock: a small capture goes out at every snapshot, a bigger one less
// often.
constexpr uint64_t kPublishCostShare = 40;
// Amendments in between at every snapshot while one costs at most a quarter of a period (a
// 125,000-object capture's, 26-200 us: an abrupt end loses at most a period) and its
// attribution of the open window at most a 32nd, else at most 1.6% of a processor. The
// window is 1.1 ms a thread long: 64 threads' took 20-230 us to attribute, at every
// snapshot 6% of a processor; a thousand threads' ~5 ms, every 300 ms.
constexpr uint64_t kAmendCheapShare = 4;
constexpr uint64_t kAmendWindowShare = 32;
constexpr uint64_t kAmendCostShare = 64;

}  // namespace

bool Publisher::init(rt::Runtime& runtime, RunInfo& info, const OverheadControl& overhead,
                     SampledProfile profile) {
  runtime_ = &runtime;
  info_ = &info;
  overhead_ = &overhead;
  profile_ = profile;
  return writer_.init(runtime);
}

void Publisher::start_builder(const SharedProcessors& turns, BuilderFree on_free, void* context) {
  on_free_ = on_free;
  on_free_context_ = context;
  // Without copies nothing is published, and checkpoints are built from the tables; without
  // the builder thread, captures are built on this one.
  can_freeze_ = builder_.input().tables.init(profile_.tables->shape(), ProfileTables::Limits{});
  if (can_freeze_) builder_.start(writer_, *runtime_, turns);
  amending_ =
      can_freeze_ && writer_.shared() && changes_.init(*profile_.tables) && amendments_.init();
  if (amending_) profile_.tables->track(&changes_);
  read_machine_load(&load_at_start_, true);  // after placement: the program's processors
}

// What other processes took of the program's processors so far (machine_load.h).
void Publisher::note_other_processes() {
  MachineLoad now = load_at_start_;
  info_->other_cpu_known = load_at_start_.valid && read_machine_load(&now, false);
  info_->other_cpu_ns = info_->other_cpu_known ? other_processes_ns(load_at_start_, now) : 0;
}

// The trace written so far, for a capture written to the output (a publication tells the
// last one's figures): flushed, or finished when `final`.
void Publisher::note_trace(bool final) {
  if (!trace_.is_open()) return;
  if (final) {
    trace_.finish();
  } else {
    trace_.flush();
  }
  info_->trace_events = trace_.events();
  info_->trace_dropped = trace_.dropped();
  info_->trace_bytes = trace_.bytes();
}

// The run section's other figures that change as the run goes on, as of now.
void Publisher::note_run_so_far() {
  info_->sampler_cpu_ns = support::read_own_clock() + builder_.cpu_ns();
  info_->cost_trials = overhead_->trials();
  info_->unpatched = overhead_->decisions();
  info_->entry_windows = overhead_->windows();
  info_->window_reads = overhead_->window_reads();
}

// Tells the runtime's status what became of a capture written to the output.
void Publisher::note_written(int error, bool final) const {
  if (error == kBuildGivenUp) return;
  if (error) {
    rt::note_write_failed(rt::RunFile::capture, runtime_->options.output, error);
  } else {
    rt::note_capture_written(final);
  }
}

// Before a capture is built into the shared slot not published: the amendments logged for
// that slot are older than it (amendment_log.h).
void Publisher::restart_log() {
  capture::SharedCaptureHeader* region = writer_.shared_region();
  if (amending_ && region) amendments_.restart(*region, writer_.next_slot());
}

// A capture written here, on the sampler thread, from the tables themselves: the final one
// (or a forked child's), or a checkpoint when there are no copies to freeze into.
void Publisher::write_capture(bool final) {
  restart_log();
  note_trace(final);
  note_run_so_far();
  note_other_processes();
  ++info_->checkpoints;
  note_written(writer_.write(final, *info_, *profile_.totals, *profile_.tables, *runtime_), final);
}

// What the next publication will cost (publish_costs_); 0 until four are measured (the
// first ones come at every snapshot). At least the last one's: attributing the open window
// grows with it, not with the bytes (64 threads: 20 to 230 us over a 70 ms window), and the
// least cost a byte alone let publications take 5% of a processor.
uint64_t Publisher::publish_cost() const {
  double least_per_byte = -1;
  for (const PublishCost& c : publish_costs_) {
    if (c.ns == 0 || c.bytes == 0) return 0;
    const double per_byte = static_cast<double>(c.ns) / static_cast<double>(c.bytes);
    if (least_per_byte < 0 || per_byte < least_per_byte) least_per_byte = per_byte;
  }
  const PublishCost& last = publish_costs_[(publications_ - 1) % 4];
  return std::max(last.ns, static_cast<uint64_t>(least_per_byte * static_cast<double>(last.bytes)));
}

bool Publisher::builder_free() {
  if (!builder_.idle()) return false;
  const CaptureBuilder::Done& done = builder_.done();
  if (done.job != CaptureBuilder::Job::none) {
    // Its cost by the threads' own clocks: on processors the program keeps busy they also
    // wait for their turn, which costs the program nothing.
    const uint64_t cost = freeze_ns_ + done.cost_ns;
    if (done.job == CaptureBuilder::Job::publish && done.built) {
      publish_costs_[publications_++ % 4] = {cost, done.bytes};
    } else if (done.job == CaptureBuilder::Job::checkpoint) {
      checkpoint_cost_ns_ = cost;
      note_written(done.error, false);
    }
    builder_.clear_done();
  }
  if (on_free_) on_free_(on_free_context_);
  return true;
}

void Publisher::stop_builder() {
  builder_.stop();
  builder_free();
}

// Hands the builder a capture of the run as if it ended now: the tables copied to the
// builder's input, the open window attributed into the copy, its threads' run-queue time
// unread (their shortfall counts as blocked). The window is attributed where it is:
// attribution only reads its samples, and its threads' derived figures are worked out
// again when it closes. A capture expected to cost less than a quarter of
// a period (`cost_ns`) is built here: handed over, the samples' small captures cost the
// sampler and the builder 40% more processor time. False when the builder is at work.
bool Publisher::hand_over(CaptureBuilder::Job job, uint64_t cost_ns, uint64_t snapshot) {
  if (!can_freeze_ || !builder_free()) return false;
  const uint64_t start = support::read_own_clock();
  restart_log();
  CaptureBuilder::Input& in = builder_.input();
  if (!in.tables.assign(*profile_.tables)) return false;
  in.totals = *profile_.totals;
  attribute_window(*profile_.window, in.tables, *profile_.config, in.totals,
                   profile_.window->snapshot_count());
  in.info = *info_;
  freeze_ns_ = support::read_own_clock() - start;
  if (cost_ns < info_->period_ns / 4 || !builder_.started()) {
    builder_.run_here(job);
    if (amending_ && builder_.done().built) {
      // Published now, from the tables as they are: nothing to amend.
      changes_.next();
      amendments_.covered(*profile_.tables);
      covered_snapshot_ = snapshot;
    }
  } else {
    builder_.hand_over(job);
  }
  return true;
}

// Under `quartz run`, the figures so far go to the parent at every snapshot, so that a
// program killed at any moment loses at most a period (DESIGN.md §3). A capture too big to
// publish that often is published less often.
void Publisher::publish(uint64_t now, uint64_t snapshot) {
  const uint64_t cost = publish_cost();
  // Half a period of slack: a publication due at this snapshot is not put off to the next
  // by a late wake-up.
  if (!writer_.shared() ||
      now + info_->period_ns / 2 < last_publish_ns_ + kPublishCostShare * cost || !builder_free()) {
    return;
  }
  note_run_so_far();
  // /proc/stat costs more than the rest of a small publication: read it now and then (a
  // killed run's figure is then up to 100 ms old, of its 10 ms ticks anyway).
  if (now - other_noted_ns_ >= kOtherProcessesEveryNs) {
    note_other_processes();
    other_noted_ns_ = now;
  }
  if (hand_over(CaptureBuilder::Job::publish, cost, snapshot)) last_publish_ns_ = now;
}

// What this snapshot changed, amended into the logs of the published capture
// (amendment_log.h), with the open window attributed in the tables themselves for the time
// it takes to write it (table_changes.h). Its cost, and its attribution's, by the sampler's
// clock pace the next ones.
void Publisher::amend() {
  capture::SharedCaptureHeader* region = writer_.shared_region();
  if (!region) return;
  const uint64_t start = support::read_own_clock();
  AttributionTotals totals = *profile_.totals;
  changes_.begin_provisional(*profile_.tables);
  attribute_window(*profile_.window, *profile_.tables, *profile_.config, totals,
                   profile_.window->snapshot_count());
  const uint64_t attributed = support::read_own_clock();
  amendments_.amend(*region, *info_, totals, *profile_.tables, changes_, *runtime_);
  changes_.end_provisional();
  profile_.totals->stamps = totals.stamps;  // a stamp is never used twice
  amend_window_ns_ = attributed - start;
  amend_cost_ns_ = support::read_own_clock() - start;
}

// A checkpoint: the capture as a publication builds it, sealed and written to the output.
// False when it has to wait for the builder.
bool Publisher::write_checkpoint(uint64_t cost_ns, uint64_t snapshot) {
  if (!can_freeze_) {
    write_capture(false);
    return true;
  }
  if (!builder_free()) return false;
  note_trace(false);
  note_run_so_far();
  note_other_processes();
  ++info_->checkpoints;
  if (hand_over(CaptureBuilder::Job::checkpoint, cost_ns, snapshot)) return true;
  --info_->checkpoints;
  return false;
}

void Publisher::begin(uint64_t now) {
  last_checkpoint_ns_ = now;
}

void Publisher::after_snapshot(uint64_t now, uint64_t snapshot, uint64_t checkpoint_ns) {
  if (trace_.is_open() && now - last_trace_flush_ns_ >= kTraceFlushNs) {
    trace_.flush();  // so that a reader streams the trace in modest chunks
    last_trace_flush_ns_ = now;
  }
  // A checkpoint builds the capture as a publication does, then seals and writes it: at
  // most the publications' share of a processor too, by the cost of the last one or, for
  // the first, of a publication.
  const uint64_t cost = std::max(checkpoint_cost_ns_, publish_cost());
  if (now - last_checkpoint_ns_ >= std::max(checkpoint_ns, kPublishCostShare * cost)) {
    if (write_checkpoint(cost, snapshot)) last_checkpoint_ns_ = now;
  } else {
    publish(now, snapshot);
  }
  // Half a period of slack, as for publications.
  const bool cheap = kAmendCheapShare * amend_cost_ns_ <= info_->period_ns &&
                     kAmendWindowShare * amend_window_ns_ <= info_->period_ns;
  if (amending_ && covered_snapshot_ != snapshot &&
      (cheap || now + info_->period_ns / 2 >= last_amend_ns_ + kAmendCostShare * amend_cost_ns_)) {
    amend();
    last_amend_ns_ = now;
  }
}

}  // namespace quartz::sampler

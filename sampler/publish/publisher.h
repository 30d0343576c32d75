// What the sampler gives out (docs/design.md "Sampler"): under `quartz run`, the figures
// so far published to the parent at every snapshot it can afford (2.5% of a processor),
// amended in between when a capture is too big for that, as often as the same share
// affords; a checkpoint of the capture
// written to the output now and then; the final capture at the end; the trace's chunks.
// Captures of a run that goes on are built beside the sampler (capture_builder.h) from
// copies, so that the snapshots keep their period. On the sampler thread only.
#pragma once

#include <cstdint>

#include "runtime/runtime.h"
#include "sampler/attribution.h"
#include "sampler/overhead_control.h"
#include "sampler/publish/amendment_log.h"
#include "sampler/publish/capture_builder.h"
#include "sampler/publish/capture_writer.h"
#include "sampler/publish/machine_load.h"
#include "sampler/publish/trace_writer.h"
#include "sampler/run_info.h"
#include "sampler/shared_processors.h"
#include "sampler/table_changes.h"
#include "sampler/tables.h"
#include "sampler/window.h"
#include "support/attributes.h"

namespace quartz::sampler {

// The profile a capture is built from: the sampler's tables, its open window and what
// attributing it needs.
struct SampledProfile {
  ProfileTables* tables;
  Window* window;
  const AttributionConfig* config;
  AttributionTotals* totals;
};

class Publisher {
 public:
  // Called whenever the builder is found idle: ended threads' slots may then be retired.
  using BuilderFree = void (*)(void* context);

  // Writes `profile`'s captures for `runtime`'s output, with `info` (and the figures
  // `overhead` keeps). False when the output cannot be prepared.
  QUARTZ_NOINSTR bool init(rt::Runtime& runtime, RunInfo& info, const OverheadControl& overhead,
                           SampledProfile profile);
  // Copies to build from beside the sampler, the builder thread (on `turns`' processors when
  // the sampler takes them in turns), the amendments under `quartz run`, the machine's load
  // at the start. Without them, checkpoints are built from the tables on the sampler thread
  // and nothing is published.
  QUARTZ_NOINSTR void start_builder(const SharedProcessors& turns, BuilderFree on_free,
                                    void* context);
  QUARTZ_NOINSTR TraceWriter& trace() { return trace_; }

  // The run's snapshots begin `now`: the first checkpoint is due a checkpoint's interval on.
  QUARTZ_NOINSTR void begin(uint64_t now);
  // After snapshot number `snapshot`, taken `now`: the trace flushed now and then, a
  // checkpoint when due (every `checkpoint_ns` at least), else a publication when due, and
  // the amendment of what the snapshot changed when nothing published covers it.
  QUARTZ_NOINSTR void after_snapshot(uint64_t now, uint64_t snapshot, uint64_t checkpoint_ns);
  // True when no capture is being built beside the sampler.
  QUARTZ_NOINSTR bool builder_idle() const { return builder_.idle(); }
  // True when the builder is idle (what it did accounted for); calls the BuilderFree hook.
  QUARTZ_NOINSTR bool builder_free();
  // Gives up the build under way: the final capture has everything it would have had.
  QUARTZ_NOINSTR void stop_builder();
  // The final capture (or a forked child's), from the tables themselves.
  QUARTZ_NOINSTR void write_final() { write_capture(true); }

 private:
  QUARTZ_NOINSTR void note_other_processes();
  QUARTZ_NOINSTR void note_trace(bool final);
  QUARTZ_NOINSTR void note_run_so_far();
  QUARTZ_NOINSTR void note_written(int error, bool final) const;
  QUARTZ_NOINSTR void restart_log();
  QUARTZ_NOINSTR void write_capture(bool final);
  QUARTZ_NOINSTR uint64_t publish_cost() const;
  QUARTZ_NOINSTR bool hand_over(CaptureBuilder::Job job, uint64_t cost_ns, uint64_t snapshot);
  QUARTZ_NOINSTR void publish(uint64_t now, uint64_t snapshot);
  QUARTZ_NOINSTR void amend();
  QUARTZ_NOINSTR bool write_checkpoint(uint64_t cost_ns, uint64_t snapshot);

  rt::Runtime* runtime_ = nullptr;
  RunInfo* info_ = nullptr;
  const OverheadControl* overhead_ = nullptr;
  SampledProfile profile_{};
  BuilderFree on_free_ = nullptr;
  void* on_free_context_ = nullptr;

  CaptureWriter writer_;
  TraceWriter trace_;
  uint64_t last_trace_flush_ns_ = 0;
  // Publications and checkpoints: the open window is attributed in a copy, with the tables
  // copied to the builder's input (freeze), and the builder makes the capture while the
  // snapshots go on.
  CaptureBuilder builder_;
  bool can_freeze_ = false;
  uint64_t freeze_ns_ = 0;  // what the freeze of the job under way cost
  // Under `quartz run`, what each snapshot changed, amended into the published capture
  // (amendment_log.h) when no capture covering it was published at that snapshot.
  TableChanges changes_;
  AmendmentLog amendments_;
  bool amending_ = false;
  uint64_t covered_snapshot_ = ~uint64_t{0};  // a capture built at this snapshot covers it
  // An amendment attributes the open window, so it costs what the window holds (threads
  // times snapshots): paced as publications are, by the last one's cost.
  uint64_t last_amend_ns_ = 0;
  uint64_t amend_cost_ns_ = 0;
  uint64_t amend_window_ns_ = 0;  // ... of it, attributing the open window
  uint64_t last_publish_ns_ = 0;  // the snapshot time of the last publication
  uint64_t last_checkpoint_ns_ = 0;
  uint64_t checkpoint_cost_ns_ = 0;  // what the last checkpoint cost, by its threads' clocks
  // What the last publications cost by the sampler's clock, and their sizes (0: not
  // measured yet). The least cost a byte of the last four, times the last one's bytes,
  // stands for the next: the first ones touch new pages, one with cold caches is slow, and
  // a capture grows with the program's objects and contexts.
  struct PublishCost {
    uint64_t ns;
    uint64_t bytes;
  };
  PublishCost publish_costs_[4] = {};
  uint32_t publications_ = 0;
  MachineLoad load_at_start_;    // the program's processors' busy time, to tell others' use
  uint64_t other_noted_ns_ = 0;  // when the publication last read it
};

}  // namespace quartz::sampler

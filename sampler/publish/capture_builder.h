// Builds the captures of a run that goes on (publications to `quartz run`, checkpoints) on
// a thread of its own, so that the sampler thread keeps its period (DESIGN.md §3 "Sampler").
// Built on the sampler thread, a big capture (up to 100 ms of processor time for 125,000
// mutexes) would hold the snapshots back, and the next snapshot's interval would go to
// whatever each thread did at its end; built in slices between snapshots, its bursts of
// processor time would make the scheduler wake the sampler late. A capture cheaper to build
// than to hand over is still built by the sampler (run_here).
//
// The sampler fills the input while the builder is idle, then hands a job over; the builder
// reads the input and the runtime's shared counts, never the sampler's own tables. While a
// job is under way the sampler retires no thread (a fold would count the gathered counts
// twice) and leaves the writer alone. Allocation-free; the thread blocks every signal (it
// inherits the sampler's mask).
#pragma once

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <cstdint>

#include "sampler/attribution.h"
#include "sampler/publish/capture_writer.h"
#include "sampler/shared_processors.h"
#include "sampler/tables.h"
#include "support/attributes.h"

namespace quartz::sampler {

class CaptureBuilder {
 public:
  enum class Job : uint32_t { none = 0, publish, checkpoint, quit };

  // What a job builds from: the run as if it ended at the snapshot before.
  struct Input {
    RunInfo info;
    AttributionTotals totals;
    ProfileTables tables;
  };

  // What the last job did.
  struct Done {
    Job job = Job::none;
    bool built = false;
    int error = 0;         // a checkpoint's (CaptureWriter::write)
    uint64_t cost_ns = 0;  // by the builder's own clock
    uint64_t bytes = 0;    // of the capture built
  };

  // Starts the thread (with the calling thread's signal mask), on the shared processors when
  // the sampler takes them in turns, else where the calling thread runs. False when it
  // could not.
  QUARTZ_NOINSTR bool start(CaptureWriter& writer, rt::Runtime& runtime,
                            const SharedProcessors& turns);
  QUARTZ_NOINSTR bool started() const { return started_; }
  // True when no job is under way (the builder's writes are then visible).
  QUARTZ_NOINSTR bool idle() const {
    return job_.load(std::memory_order_acquire) == static_cast<uint32_t>(Job::none);
  }
  QUARTZ_NOINSTR Input& input() { return input_; }           // only while idle
  QUARTZ_NOINSTR const Done& done() const { return done_; }  // only while idle
  QUARTZ_NOINSTR void clear_done() { done_ = Done{}; }       // only while idle
  QUARTZ_NOINSTR void hand_over(Job job);
  // Does a job on the calling thread instead, while idle: for a capture cheaper to build
  // than to hand over.
  QUARTZ_NOINSTR void run_here(Job job) { run_job(job); }
  // The builder thread's processor time so far (read at any time).
  QUARTZ_NOINSTR uint64_t cpu_ns() const { return cpu_ns_.load(std::memory_order_relaxed); }
  // Gives up the job under way, waits for it, and ends the thread.
  QUARTZ_NOINSTR void stop();

 private:
  QUARTZ_NOINSTR static void* main(void* self);
  QUARTZ_NOINSTR void run_job(Job job);

  CaptureWriter* writer_ = nullptr;
  rt::Runtime* runtime_ = nullptr;
  cpu_set_t processors_;
  bool move_ = false;  // to processors_, at its start
  pthread_t thread_{};
  bool started_ = false;
  std::atomic<uint32_t> job_{0};
  std::atomic<bool> give_up_{false};
  std::atomic<uint64_t> cpu_ns_{0};
  Done done_;
  Input input_;
};

}  // namespace quartz::sampler

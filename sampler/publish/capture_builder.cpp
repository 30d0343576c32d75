#include "sampler/publish/capture_builder.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>

#include "runtime/real.h"
#include "runtime/runtime.h"
#include "support/thread_cpu.h"

namespace quartz::sampler {

namespace {

// The job word as the futex it is (not std::atomic's wait, whose error path throws where
// nothing may). A wait ends on a wake-up, a signal or a word already changed: the caller
// looks again.
static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
              std::atomic<uint32_t>::is_always_lock_free);

QUARTZ_NOINSTR void wait_while(const std::atomic<uint32_t>& word, uint32_t value) {
  syscall(SYS_futex, reinterpret_cast<const uint32_t*>(&word), FUTEX_WAIT_PRIVATE, value, nullptr,
          nullptr, 0);
}

QUARTZ_NOINSTR void wake_all(std::atomic<uint32_t>& word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr,
          nullptr, 0);
}

}  // namespace

bool CaptureBuilder::start(CaptureWriter& writer, rt::Runtime& runtime,
                           const SharedProcessors& turns) {
  if (started_ || !rt::real::pthread_create) return false;
  writer_ = &writer;
  runtime_ = &runtime;
  // On every processor the sampler takes in turn, not the one it was on at the start: a
  // build costs the thread it shares a processor with, and the kernel spreads that.
  move_ = turns.count > 1;
  CPU_ZERO(&processors_);
  for (uint32_t i = 0; i < turns.count; ++i) CPU_SET(turns.cpus[i], &processors_);
  started_ = rt::real::pthread_create(&thread_, nullptr, main, this) == 0;
  return started_;
}

void CaptureBuilder::hand_over(Job job) {
  job_.store(static_cast<uint32_t>(job), std::memory_order_release);
  wake_all(job_);
}

void CaptureBuilder::stop() {
  if (!started_) return;
  give_up_.store(true, std::memory_order_relaxed);
  for (uint32_t job = job_.load(std::memory_order_acquire); job != static_cast<uint32_t>(Job::none);
       job = job_.load(std::memory_order_acquire)) {
    wait_while(job_, job);
  }
  hand_over(Job::quit);
  rt::real::pthread_join(thread_, nullptr);
  // Idle again: the sampler retires the threads that end from now on at once (left `quit`,
  // the last snapshot would keep them for later, and the final capture would count the
  // entries on their stacks as open).
  job_.store(static_cast<uint32_t>(Job::none), std::memory_order_relaxed);
  started_ = false;
}

void* CaptureBuilder::main(void* builder) {
  rt::mark_runtime_thread();
  CaptureBuilder& self = *static_cast<CaptureBuilder*>(builder);
  // If refused, it stays where it started.
  if (self.move_) sched_setaffinity(0, sizeof self.processors_, &self.processors_);
  for (;;) {
    while (self.job_.load(std::memory_order_acquire) == static_cast<uint32_t>(Job::none)) {
      wait_while(self.job_, static_cast<uint32_t>(Job::none));
    }
    const auto job = static_cast<Job>(self.job_.load(std::memory_order_acquire));
    if (job == Job::quit) return nullptr;
    self.run_job(job);
    self.cpu_ns_.store(support::read_own_clock(), std::memory_order_relaxed);
    self.job_.store(static_cast<uint32_t>(Job::none), std::memory_order_release);
    wake_all(self.job_);
  }
}

void CaptureBuilder::run_job(Job job) {
  const uint64_t start = support::read_own_clock();
  done_ = Done{job};
  Input& in = input_;
  if (job == Job::publish) {
    done_.built = writer_->publish(in.info, in.totals, in.tables, *runtime_, &give_up_);
  } else {
    done_.error = writer_->write(false, in.info, in.totals, in.tables, *runtime_, &give_up_);
    done_.built = done_.error != kBuildGivenUp;
  }
  done_.cost_ns = support::read_own_clock() - start;
  done_.bytes = writer_->built_bytes();
}

}  // namespace quartz::sampler

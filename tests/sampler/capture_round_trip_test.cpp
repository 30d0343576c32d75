// The capture writer and the reader together: tables the test fills itself (its contexts,
// procedures, objects and threads, and the samples it attributes) come back from
// profile::read_capture with the figures those samples imply.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "profile/capture.h"
#include "runtime/runtime.h"
#include "sampler/attribution.h"
#include "sampler/publish/capture_writer.h"
#include "sampler/run_info.h"
#include "sampler/tables.h"
#include "sampler/window.h"

namespace quartz::sampler {
namespace {

using capture::kBlocked;
using capture::kBusy;
using capture::kMutex;
using capture::kNoParent;
using capture::kProcedure;
namespace keys = capture::run_keys;

constexpr uint32_t kProcessors = 2;
constexpr uint64_t kPeriodNs = 2'000'000;  // every snapshot's interval
constexpr double kD = 0.002;               // the same, in seconds
constexpr double kNear = 1e-12;            // seconds: sums of a few kD

constexpr uint64_t kMainAt = 0x401000, kWorkAt = 0x402000, kWorkerAt = 0x403000;
constexpr uint64_t kLockAt = 0x7f0000009000, kLockSite = 0x402040;
constexpr uint64_t kStartMonotonicNs = 5'000'000'000;  // the run's start (RunInfo)

// A sample of `thread` at `context`: busy for the whole interval by its clock, or blocked
// for all of it; a mutex on top is held.
struct Sampled {
  uint32_t thread;
  uint32_t context;
  uint8_t state = kBusy;
};

class CaptureRoundTrip : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir = ::testing::TempDir() + "quartz-round-trip-XXXXXX";
    ASSERT_NE(mkdtemp(dir.data()), nullptr);
    dir_ = dir;
    output_ = dir_ + "/run.qz";
    runtime_ = std::make_unique<rt::Runtime>();
    std::strncpy(runtime_->options.output, output_.c_str(), sizeof runtime_->options.output - 1);
    ASSERT_TRUE(runtime_->objects.configure(4));
    ASSERT_TRUE(runtime_->call_graph.configure(4));
    direct_ = std::make_unique<CaptureWriter>();
    ASSERT_TRUE(direct_->init(*runtime_));
    const RecordShape shape{kProcessors, 9};
    const ProfileTables::Limits limits{1024, 256, 256, 256};
    ASSERT_TRUE(tables_.init(shape, limits));
    ASSERT_TRUE(copy_.init(shape, limits));
    ASSERT_TRUE(window_.init(64, 1024, 64));
    ASSERT_TRUE(frozen_.init_like(window_));
    config_.processors = kProcessors;

    std::strcpy(info_.program, "/opt/round-trip/prog");
    std::strcpy(info_.arguments,
                "prog\x1f-n\x1f"
                "3");
    std::strcpy(info_.host, "test-host");
    std::strcpy(info_.topology, "1 package, 2 cores");
    std::strcpy(info_.app_cores, "0-1");
    info_.pid = 4242;
    info_.cpu_measured = true;
    info_.start_realtime_ns = 1'700'000'000'000'000'000;
    info_.start_monotonic_ns = kStartMonotonicNs;
    info_.period_ns = kPeriodNs;
    info_.window_snapshots = 4;
    info_.torn_samples = 1;
    info_.sampler_cpu_ns = 7'000'000;
    info_.hook_pair_ns = 12.5;

    main_ = tables_.context(kNone, kMainAt, kProcedure);
    work_ = tables_.context(main_, kWorkAt, kProcedure);
    worker_ = tables_.context(kNone, kWorkerAt, kProcedure);
    lock_ = tables_.context(worker_, kLockAt, kMutex);
    lock_record_ = runtime_->objects.find_or_insert(kLockAt, rt::EntryKind::mutex, kLockSite);
    ASSERT_NE(lock_record_, nullptr);
    runtime_->objects.set_name(kLockAt, "queue lock");
    lock_record_->acquisitions.store(5);
    runtime_->call_graph.add(kMainAt, kWorkAt, 10);
    main_thread_ = add_thread(0, "prog", 1000, rt::kNoThread, 0, 0);
    worker_thread_ = add_thread(1, "worker", 1001, 0, kWorkerAt, 1'000'000);
    ASSERT_TRUE(main_thread_ && worker_thread_);
    main_thread_->calls.store(100);
    rt::ThreadHistory::set_given_name(*worker_thread_, "worker");
  }

  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  // Thread `index` of the runtime's history, created `created_ns` into the run.
  rt::ThreadRecord* add_thread(uint32_t index, const char* name, int32_t tid, uint32_t parent,
                               uint64_t routine, uint64_t created_ns) {
    if (index != 0) {
      EXPECT_EQ(runtime_->history.next_index(), index);
    }
    rt::ThreadRecord* r = runtime_->history.at(index);
    EXPECT_NE(r, nullptr);
    if (!r) return nullptr;
    r->parent_index.store(parent);
    r->tid.store(tid);
    r->start_routine.store(routine);
    r->handle.store(routine ? 0x7f0000100000 + index : 0);
    r->created_ns.store(kStartMonotonicNs + created_ns);
    rt::ThreadHistory::set_name(*r, name);
    r->phase.store(rt::ThreadPhase::running);
    return r;
  }
  void end_thread(rt::ThreadRecord* r, uint64_t exited_ns) {
    r->exited_ns.store(kStartMonotonicNs + exited_ns);
    r->phase.store(rt::ThreadPhase::exited);
  }

  // One snapshot of kPeriodNs into the open window.
  void snapshot(std::initializer_list<Sampled> samples) {
    ASSERT_TRUE(window_.begin_snapshot(kPeriodNs));
    for (const Sampled& s : samples) {
      uint32_t position = 0;
      bool created;
      ASSERT_NE(window_.thread(s.thread, &position, &created), nullptr);
      const float run = s.state == kBusy ? 1.0f : 0.0f;
      ThreadSample sample{s.thread, position, s.context, s.state, kRoleNone, 0, run, 1.0f};
      if (s.context == lock_) sample.top_role = kRoleHolding;
      ASSERT_TRUE(window_.add_sample(sample));
    }
  }
  // The open window attributed for good (the sampler's close_window, last).
  void close_window() {
    attribute_window(window_, tables_, config_, totals_);
    window_.clear();
  }

  // The tables as a capture of the run so far is built from them (Publisher::hand_over):
  // copied, the open window attributed in the copy.
  AttributionTotals freeze() {
    AttributionTotals totals = totals_;
    EXPECT_TRUE(copy_.assign(tables_));
    EXPECT_TRUE(frozen_.assign(window_));
    attribute_window(frozen_, copy_, config_, totals, frozen_.snapshot_count());
    return totals;
  }

  // The capture the writer writes to the output now, read back.
  profile::Run written_now(bool final) {
    const AttributionTotals totals = freeze();
    EXPECT_EQ(direct_->write(final, info_, totals, copy_, *runtime_), 0);
    return profile::read_capture(output_);
  }

  std::string dir_, output_;
  std::unique_ptr<rt::Runtime> runtime_;
  std::unique_ptr<CaptureWriter> direct_;  // writes to the output
  ProfileTables tables_, copy_;
  Window window_, frozen_;
  AttributionConfig config_;
  AttributionTotals totals_;
  RunInfo info_{};
  uint32_t main_ = kNone, work_ = kNone, worker_ = kNone, lock_ = kNone;
  rt::ObjectRecord* lock_record_ = nullptr;
  rt::ThreadRecord *main_thread_ = nullptr, *worker_thread_ = nullptr;
};

const profile::ThreadInfo* thread_of(const profile::Run& run, uint32_t index) {
  for (const profile::ThreadInfo& t : run.threads) {
    if (t.index == index) return &t;
  }
  return nullptr;
}
const profile::ProcedureInfo* procedure_at(const profile::Run& run, uint64_t address) {
  for (const profile::ProcedureInfo& p : run.procedures) {
    if (p.address == address) return &p;
  }
  return nullptr;
}
const profile::ObjectInfo* object_at(const profile::Run& run, uint64_t address) {
  for (const profile::ObjectInfo& o : run.objects) {
    if (o.address == address) return &o;
  }
  return nullptr;
}

// Time by processors busy, 0..P, as the test works it out.
void expect_bins(std::span<const double> got, std::vector<double> want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], kNear) << what << " [" << i << "]";
  }
}

TEST_F(CaptureRoundTrip, AFinalCaptureReadsBackAsItsSamplesImply) {
  // The main thread busy alone in work() for three snapshots, then for two beside the worker,
  // who holds the lock; then blocked in main() while the worker runs its own procedure.
  for (int i = 0; i < 3; ++i) snapshot({{0, work_}});
  for (int i = 0; i < 2; ++i) snapshot({{0, work_}, {1, lock_}});
  snapshot({{0, main_, kBlocked}, {1, worker_}});
  close_window();
  tables_.thread_entry(0).cpu_ns = 10'000'000;  // what the sampler measured
  tables_.thread_entry(1).cpu_ns = 6'000'000;
  tables_.thread_entry(1).runqueue_ns = 250'000;
  end_thread(worker_thread_, 12'000'000);

  const profile::Run run = written_now(/*final=*/true);
  EXPECT_TRUE(run.final);
  EXPECT_EQ(run.processors, kProcessors);
  EXPECT_EQ(run.runnable_bins, 3u) << "two threads runnable at most";

  EXPECT_EQ(run.text(keys::kProgram), "/opt/round-trip/prog");
  EXPECT_EQ(run.text(keys::kArguments),
            "prog\x1f-n\x1f"
            "3");
  EXPECT_EQ(run.text(keys::kHost), "test-host");
  EXPECT_EQ(run.text(keys::kTopology), "1 package, 2 cores");
  EXPECT_EQ(run.text(keys::kAppCores), "0-1");
  EXPECT_EQ(run.text(keys::kPid), "4242");
  EXPECT_EQ(run.text(keys::kStartRealtimeNs), "1700000000000000000");
  EXPECT_EQ(run.text(keys::kPeriodNs), "2000000");
  EXPECT_EQ(run.text(keys::kWindowSnapshots), "4");
  EXPECT_EQ(run.text(keys::kCpuMeasurement), "schedstat");
  EXPECT_EQ(run.text(keys::kHookPairNs), "12.500");
  EXPECT_EQ(run.text(keys::kTornSamples), "1");
  EXPECT_EQ(run.text(keys::kSamplerCpuNs), "7000000");
  EXPECT_EQ(run.text(keys::kElapsedNs), "12000000") << "six snapshots of 2 ms";
  EXPECT_NEAR(run.elapsed_s(), 6 * kD, kNear);
  EXPECT_EQ(run.text(keys::kSamples), "6");
  EXPECT_EQ(run.text(keys::kThreadSamples), "9");
  // Both processors' threads at work from the fourth snapshot on: no starvation.
  EXPECT_EQ(run.text(keys::kFirstFullNs), "6000000");
  EXPECT_EQ(run.text(keys::kLastFullNs), "12000000");
  EXPECT_EQ(run.text(keys::kStarvedStartupNs), "0");
  EXPECT_FALSE(run.info.count(keys::kCountsElapsedNs)) << "not amended";

  // The contexts, by the ids the tables gave them.
  ASSERT_EQ(run.contexts.size(), 4u);
  const struct {
    uint32_t id, parent;
    uint64_t address;
    uint32_t kind;
  } contexts[] = {{main_, kNoParent, kMainAt, kProcedure},
                  {work_, main_, kWorkAt, kProcedure},
                  {worker_, kNoParent, kWorkerAt, kProcedure},
                  {lock_, worker_, kLockAt, kMutex}};
  for (const auto& c : contexts) {
    ASSERT_LT(c.id, run.contexts.size());
    EXPECT_EQ(run.contexts[c.id].id, c.id);
    EXPECT_EQ(run.contexts[c.id].parent, c.parent) << c.id;
    EXPECT_EQ(run.contexts[c.id].address, c.address) << c.id;
    EXPECT_EQ(run.contexts[c.id].kind, c.kind) << c.id;
  }
  // Alone: all its time in bin 1; beside the worker, half of it normalized, in bin 2.
  expect_bins(run.processor_of(work_), {0, 3 * kD, 2 * kD}, "work() processor");
  expect_bins(run.normalized_of(work_), {0, 3 * kD, kD}, "work() normalized");
  EXPECT_NEAR(run.contexts[work_].own.state[kBusy], 5 * kD, kNear);
  expect_bins(run.processor_of(main_), {0, 0, 0}, "main() processor");
  EXPECT_NEAR(run.contexts[main_].own.state[kBlocked], kD, kNear);
  expect_bins(run.processor_of(lock_), {0, 0, 2 * kD}, "lock processor");
  expect_bins(run.normalized_of(lock_), {0, 0, kD}, "lock normalized");
  expect_bins(run.processor_of(worker_), {0, kD, 0}, "worker() processor");
  expect_bins(run.normalized_of(worker_), {0, kD, 0}, "worker() normalized");

  ASSERT_EQ(run.procedures.size(), 3u);
  const profile::ProcedureInfo* main_fn = procedure_at(run, kMainAt);
  const profile::ProcedureInfo* work_fn = procedure_at(run, kWorkAt);
  const profile::ProcedureInfo* worker_fn = procedure_at(run, kWorkerAt);
  ASSERT_TRUE(main_fn && work_fn && worker_fn);
  expect_bins(main_fn->record.processor_self, {0, 0, 0}, "main() self");
  expect_bins(main_fn->record.processor_behalf, {0, 3 * kD, 2 * kD}, "main() on behalf");
  expect_bins(main_fn->record.normalized_behalf, {0, 3 * kD, kD}, "main() on behalf");
  EXPECT_NEAR(main_fn->record.state_self[kBlocked], kD, kNear);
  expect_bins(work_fn->record.processor_self, {0, 3 * kD, 2 * kD}, "work() self");
  expect_bins(work_fn->record.normalized_self, {0, 3 * kD, kD}, "work() self");
  expect_bins(worker_fn->record.processor_self, {0, kD, 0}, "worker() self");
  expect_bins(worker_fn->record.processor_behalf, {0, 0, 2 * kD}, "worker() on behalf");
  expect_bins(worker_fn->record.normalized_behalf, {0, 0, kD}, "worker() on behalf");

  ASSERT_EQ(run.objects.size(), 1u);
  ASSERT_NE(object_at(run, kLockAt), nullptr);
  const profile::ObjectInfo& lock = *object_at(run, kLockAt);
  EXPECT_EQ(lock.id, 1u);
  EXPECT_EQ(lock.kind, kMutex);
  EXPECT_EQ(lock.name, "queue lock");
  EXPECT_EQ(lock.first_site, kLockSite);
  EXPECT_EQ(lock.acquired_from, std::vector<uint64_t>{kLockSite});
  EXPECT_EQ(lock.acquisitions, 5u);
  EXPECT_NEAR(lock.hold_s, 2 * kD, kNear);
  EXPECT_EQ(lock.wait_blocked_s + lock.wait_spinning_s, 0);
  ASSERT_EQ(lock.queue.size(), kQueueBins);
  EXPECT_NEAR(lock.queue[0], 2 * kD, kNear) << "in use, nobody waiting";
  expect_bins(lock.record.processor_self, {0, 0, 2 * kD}, "lock self");
  expect_bins(lock.record.normalized_self, {0, 0, kD}, "lock self");

  ASSERT_EQ(run.threads.size(), 2u);
  const profile::ThreadInfo* main_thread = thread_of(run, 0);
  const profile::ThreadInfo* worker = thread_of(run, 1);
  ASSERT_TRUE(main_thread && worker);
  EXPECT_EQ(main_thread->parent, kNoParent);
  EXPECT_EQ(main_thread->tid, 1000);
  EXPECT_EQ(main_thread->name, "prog");
  EXPECT_EQ(main_thread->calls, 100u);
  EXPECT_EQ(main_thread->cpu_ns, 10'000'000u);
  EXPECT_EQ(main_thread->exited_ns, 0u) << "still running";
  expect_bins(main_thread->record.processor_self, {0, 3 * kD, 2 * kD}, "main thread");
  expect_bins(main_thread->record.normalized_self, {0, 3 * kD, kD}, "main thread");
  EXPECT_NEAR(main_thread->record.state_self[kBusy], 5 * kD, kNear);
  EXPECT_NEAR(main_thread->record.state_self[kBlocked], kD, kNear);
  EXPECT_EQ(worker->parent, 0u);
  EXPECT_EQ(worker->tid, 1001);
  EXPECT_EQ(worker->name, "worker");
  EXPECT_TRUE(worker->named);
  EXPECT_EQ(worker->start_routine, kWorkerAt);
  EXPECT_EQ(worker->handle, 0x7f0000100001u);
  EXPECT_EQ(worker->created_ns, 1'000'000u);
  EXPECT_EQ(worker->exited_ns, 12'000'000u);
  EXPECT_EQ(worker->cpu_ns, 6'000'000u);
  EXPECT_EQ(worker->run_queue_ns, 250'000u);
  expect_bins(worker->record.processor_self, {0, kD, 2 * kD}, "worker");
  expect_bins(worker->record.normalized_self, {0, kD, kD}, "worker");
  EXPECT_NEAR(worker->record.state_self[kBusy], 3 * kD, kNear);

  expect_bins(run.program.processor_self, {0, 4 * kD, 4 * kD}, "program");
  expect_bins(run.program.normalized_self, {0, 4 * kD, 2 * kD}, "program");
  ASSERT_EQ(run.edges.size(), 1u);
  EXPECT_EQ(run.edges[0].caller, kMainAt);
  EXPECT_EQ(run.edges[0].callee, kWorkAt);
  EXPECT_EQ(run.edges[0].calls, 10u);
}

}  // namespace
}  // namespace quartz::sampler

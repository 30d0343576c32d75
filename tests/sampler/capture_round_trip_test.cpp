// The capture writer, the amendment log and the reader together: tables the test fills itself
// (its contexts, procedures, objects and threads, and the samples it attributes) come back from
// profile::read_capture with the figures those samples imply; and a capture published into a
// shared region as under `quartz run`, amended at the snapshots after it as the publisher
// amends it, then taken with its log as `quartz run` takes it, reads as the capture written
// from the same tables at the same point, but for the runtime's counts, which amendments
// leave as the publication had them (docs/design.md "Files").
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "format/shared_capture.h"
#include "profile/capture.h"
#include "runtime/runtime.h"
#include "sampler/attribution.h"
#include "sampler/publish/amendment_log.h"
#include "sampler/publish/capture_writer.h"
#include "sampler/run_info.h"
#include "sampler/table_changes.h"
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

constexpr uint64_t kMainAt = 0x401000, kWorkAt = 0x402000, kWorkerAt = 0x403000, kLateAt = 0x404000,
                   kTailAt = 0x405000;
constexpr uint64_t kLockAt = 0x7f0000009000, kLockSite = 0x402040;
constexpr uint64_t kStartMonotonicNs = 5'000'000'000;  // the run's start (RunInfo)

// A region laid out as format/shared_capture.h says, made as `quartz run` makes it
// (cli/capture_rescue.cpp: a memfd sized before the program starts, its magic, the pid it is
// for), and the path QUARTZ_SHARED_CAPTURE names it by.
class SharedRegion {
 public:
  SharedRegion() {
    fd_ = memfd_create("quartz-round-trip", MFD_CLOEXEC);
    if (fd_ < 0 || ftruncate(fd_, static_cast<off_t>(capture::kSharedRegionBytes)) != 0) return;
    void* at = mmap(nullptr, capture::kSharedRegionBytes, PROT_READ | PROT_WRITE,
                    MAP_SHARED | MAP_NORESERVE, fd_, 0);
    if (at == MAP_FAILED) return;
    header_ = static_cast<capture::SharedCaptureHeader*>(at);
    std::memcpy(header_->magic, capture::kSharedMagic, sizeof header_->magic);
    header_->pid = getpid();
  }
  ~SharedRegion() {
    if (header_) munmap(header_, capture::kSharedRegionBytes);
    if (fd_ >= 0) close(fd_);
  }
  SharedRegion(const SharedRegion&) = delete;
  SharedRegion& operator=(const SharedRegion&) = delete;

  capture::SharedCaptureHeader* header() const { return header_; }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

  // The published capture as it was built, without its log, sealed in a copy.
  std::vector<unsigned char> published_alone() const {
    if (header_->published != 1 && header_->published != 2) return {};
    const uint32_t slot = header_->published - 1;
    const unsigned char* at = base() + capture::slot_offset(slot);
    std::vector<unsigned char> bytes(at, at + header_->slots[slot].bytes);
    capture::seal_capture(bytes.data(), bytes.size());
    return bytes;
  }
  // The published capture with its log taken in and sealed, as `quartz run` writes it out
  // when the program ended without its final capture (CaptureRescue::latest,
  // write_published).
  std::span<const unsigned char> take_published() {
    if (header_->published != 1 && header_->published != 2) return {};
    const uint32_t slot = header_->published - 1;
    const size_t bytes = capture::take_slot_amendments(*header_, slot);
    unsigned char* at = base() + capture::slot_offset(slot);
    capture::seal_capture(at, bytes);
    return {at, bytes};
  }

 private:
  unsigned char* base() const { return reinterpret_cast<unsigned char*>(header_); }

  int fd_ = -1;
  capture::SharedCaptureHeader* header_ = nullptr;
};

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
    // Its first own procedure, as the runtime notes it (it names a thread offline).
    r->routines[0].store(routine + 0x40);
    r->routine_count.store(1);
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

  // Under `quartz run`: the region, the writer that publishes into it (initialised while
  // QUARTZ_SHARED_CAPTURE names it), the changes the tables note and the amendment log
  // (Publisher::start_builder). The writer that writes to the output is made before, without
  // the region.
  void start_amending() {
    ASSERT_NE(region_.header(), nullptr);
    ASSERT_EQ(setenv("QUARTZ_SHARED_CAPTURE", region_.path().c_str(), 1), 0);
    shared_ = std::make_unique<CaptureWriter>();
    const bool init = shared_->init(*runtime_);
    unsetenv("QUARTZ_SHARED_CAPTURE");
    ASSERT_TRUE(init);
    ASSERT_TRUE(shared_->shared());
    ASSERT_FALSE(direct_->shared());
    ASSERT_TRUE(changes_.init(tables_));
    ASSERT_TRUE(log_.init());
    tables_.track(&changes_);
  }
  // A publication built at this snapshot (Publisher::hand_over, built here): its slot's log
  // started again, the capture built from the frozen tables, then nothing left to amend.
  void publish() {
    log_.restart(*region_.header(), shared_->next_slot());
    const AttributionTotals totals = freeze();
    ASSERT_TRUE(shared_->publish(info_, totals, copy_, *runtime_));
    changes_.next();
    log_.covered(tables_);
  }
  // What this snapshot changed, amended (Publisher::amend): the open window attributed in the
  // tables for the time the amendment takes.
  void amend() {
    ASSERT_TRUE(frozen_.assign(window_));
    AttributionTotals totals = totals_;
    changes_.begin_provisional(tables_);
    attribute_window(frozen_, tables_, config_, totals, frozen_.snapshot_count());
    EXPECT_GT(log_.amend(*region_.header(), info_, totals, tables_, changes_, *runtime_), 0u);
    changes_.end_provisional();
    totals_.stamps = totals.stamps;
  }

  // Up to the first publication: three snapshots closed, with both threads busy (the worker
  // holding the lock), and one in the open window (the worker past it).
  void run_to_first_publication() {
    for (int i = 0; i < 3; ++i) snapshot({{0, work_}, {1, lock_}});
    close_window();
    snapshot({{0, work_}, {1, worker_}});
    publish();
  }
  // After it: the runtime counts more, the worker ends and a late thread starts in a procedure
  // no snapshot saw before (a new context), and the last snapshot finds the main thread in
  // another; each snapshot is amended, as the publisher amends when it does not publish.
  void run_past_first_publication() {
    lock_record_->acquisitions.store(9);
    main_thread_->calls.store(250);
    runtime_->call_graph.add(kMainAt, kWorkAt, 20);
    info_.torn_samples = 3;
    info_.sampler_cpu_ns = 9'000'000;
    end_thread(worker_thread_, 9'000'000);
    ASSERT_NE(add_thread(2, "prog", 1002, 0, kLateAt, 9'500'000), nullptr);
    late_ = tables_.context(kNone, kLateAt, kProcedure);

    snapshot({{0, work_}, {2, late_}});
    close_window();
    amend();
    snapshot({{0, main_, kBlocked}, {2, late_}});
    amend();
    tail_ = tables_.context(main_, kTailAt, kProcedure);  // seen by the last snapshot only
    snapshot({{0, tail_}, {2, late_}});
    amend();
  }

  std::string dir_, output_;
  std::unique_ptr<rt::Runtime> runtime_;
  std::unique_ptr<CaptureWriter> direct_;  // writes to the output, never into the region
  ProfileTables tables_, copy_;
  Window window_, frozen_;
  AttributionConfig config_;
  AttributionTotals totals_;
  RunInfo info_{};
  uint32_t main_ = kNone, work_ = kNone, worker_ = kNone, lock_ = kNone, late_ = kNone,
           tail_ = kNone;
  rt::ObjectRecord* lock_record_ = nullptr;
  rt::ThreadRecord *main_thread_ = nullptr, *worker_thread_ = nullptr;

  SharedRegion region_;
  std::unique_ptr<CaptureWriter> shared_;
  TableChanges changes_;
  AmendmentLog log_;
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

std::vector<double> values(std::span<const double> bins) {
  return {bins.begin(), bins.end()};
}

void expect_same_record(const profile::FullRecord& a, const profile::FullRecord& b,
                        const std::string& what) {
  EXPECT_EQ(a.processor_self, b.processor_self) << what;
  EXPECT_EQ(a.processor_behalf, b.processor_behalf) << what;
  EXPECT_EQ(a.normalized_self, b.normalized_self) << what;
  EXPECT_EQ(a.normalized_behalf, b.normalized_behalf) << what;
  EXPECT_EQ(a.state_self, b.state_self) << what;
  EXPECT_EQ(a.state_behalf, b.state_behalf) << what;
  EXPECT_EQ(a.runnable, b.runnable) << what;
}

// `amended` as `written`, in everything amendments carry (capture_format.h, amended_*): the
// contexts, procedures, objects and threads with their times and what names them (whether
// the program named each, its first procedures), the program's, the run keys. Not the
// runtime's counts (calls, acquisitions, call edges): they are not amended.
void expect_same_sampled(const profile::Run& amended, const profile::Run& written) {
  EXPECT_EQ(amended.processors, written.processors);
  EXPECT_EQ(amended.runnable_bins, written.runnable_bins);
  EXPECT_EQ(amended.final, written.final);
  std::map<std::string, std::string> info = amended.info;
  info.erase(keys::kCountsElapsedNs);  // the reader's, for the counts
  EXPECT_EQ(info, written.info);
  ASSERT_EQ(amended.modules.size(), written.modules.size());
  for (size_t i = 0; i < written.modules.size(); ++i) {
    EXPECT_EQ(amended.modules[i].path, written.modules[i].path);
    EXPECT_EQ(amended.modules[i].load_bias, written.modules[i].load_bias);
  }

  ASSERT_EQ(amended.contexts.size(), written.contexts.size());
  for (size_t i = 0; i < written.contexts.size(); ++i) {
    const profile::ContextInfo& a = amended.contexts[i];
    const profile::ContextInfo& w = written.contexts[i];
    const std::string what = "context " + std::to_string(i);
    EXPECT_EQ(a.id, w.id) << what;
    EXPECT_EQ(a.parent, w.parent) << what;
    EXPECT_EQ(a.address, w.address) << what;
    EXPECT_EQ(a.kind, w.kind) << what;
    EXPECT_EQ(a.own.state, w.own.state) << what;
    EXPECT_EQ(a.own.runnable_sum, w.own.runnable_sum) << what;
    EXPECT_EQ(a.own.one_busy_starved, w.own.one_busy_starved) << what;
    EXPECT_EQ(a.own.one_busy_taken, w.own.one_busy_taken) << what;
    EXPECT_EQ(values(amended.processor_of(i)), values(written.processor_of(i))) << what;
    EXPECT_EQ(values(amended.normalized_of(i)), values(written.normalized_of(i))) << what;
  }

  ASSERT_EQ(amended.procedures.size(), written.procedures.size());
  for (const profile::ProcedureInfo& w : written.procedures) {
    const profile::ProcedureInfo* a = procedure_at(amended, w.address);
    ASSERT_NE(a, nullptr) << std::hex << w.address;
    expect_same_record(a->record, w.record, "procedure");
  }

  ASSERT_EQ(amended.objects.size(), written.objects.size());
  for (const profile::ObjectInfo& w : written.objects) {
    const profile::ObjectInfo* a = object_at(amended, w.address);
    ASSERT_NE(a, nullptr) << std::hex << w.address;
    EXPECT_EQ(a->id, w.id);
    EXPECT_EQ(a->kind, w.kind);
    EXPECT_EQ(a->name, w.name);
    EXPECT_EQ(a->first_site, w.first_site);
    EXPECT_EQ(a->acquired_from, w.acquired_from);
    EXPECT_EQ(a->wait_spinning_s, w.wait_spinning_s);
    EXPECT_EQ(a->wait_blocked_s, w.wait_blocked_s);
    EXPECT_EQ(a->hold_s, w.hold_s);
    EXPECT_EQ(a->queue, w.queue);
    expect_same_record(a->record, w.record, "object");
  }

  ASSERT_EQ(amended.threads.size(), written.threads.size());
  for (const profile::ThreadInfo& w : written.threads) {
    const profile::ThreadInfo* a = thread_of(amended, w.index);
    const std::string what = "thread " + std::to_string(w.index);
    ASSERT_NE(a, nullptr) << what;
    EXPECT_EQ(a->parent, w.parent) << what;
    EXPECT_EQ(a->tid, w.tid) << what;
    EXPECT_EQ(a->name, w.name) << what;
    EXPECT_EQ(a->start_routine, w.start_routine) << what;
    EXPECT_EQ(a->named, w.named) << what;
    EXPECT_EQ(a->routines, w.routines) << what;
    EXPECT_EQ(a->handle, w.handle) << what;
    EXPECT_EQ(a->created_ns, w.created_ns) << what;
    EXPECT_EQ(a->exited_ns, w.exited_ns) << what;
    EXPECT_EQ(a->cpu_ns, w.cpu_ns) << what;
    EXPECT_EQ(a->run_queue_ns, w.run_queue_ns) << what;
    EXPECT_EQ(a->starved_startup_s, w.starved_startup_s) << what;
    EXPECT_EQ(a->starved_later_s, w.starved_later_s) << what;
    expect_same_record(a->record, w.record, what);
  }
  expect_same_record(amended.program, written.program, "program");
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

TEST_F(CaptureRoundTrip, AnAmendedPublicationReadsAsTheCaptureWrittenAtTheSamePoint) {
  start_amending();
  run_to_first_publication();
  run_past_first_publication();
  const profile::Run written = written_now(/*final=*/false);
  const profile::Run amended = profile::parse_capture(region_.take_published(), "published");
  expect_same_sampled(amended, written);

  // The runtime's counts stay as the publication had them, four snapshots in
  // (docs/design.md: not amended, their elapsed time kept as counts_elapsed_ns).
  EXPECT_EQ(amended.text(keys::kCountsElapsedNs), "8000000");
  EXPECT_EQ(written.text(keys::kElapsedNs), "14000000");
  ASSERT_NE(object_at(amended, kLockAt), nullptr);
  ASSERT_NE(object_at(written, kLockAt), nullptr);
  EXPECT_EQ(object_at(amended, kLockAt)->acquisitions, 5u);
  EXPECT_EQ(object_at(written, kLockAt)->acquisitions, 9u);
  ASSERT_NE(thread_of(amended, 0), nullptr);
  EXPECT_EQ(thread_of(amended, 0)->calls, 100u);
  EXPECT_EQ(thread_of(written, 0)->calls, 250u);
  ASSERT_EQ(amended.edges.size(), 1u);
  ASSERT_EQ(written.edges.size(), 1u);
  EXPECT_EQ(amended.edges[0].calls, 10u);
  EXPECT_EQ(written.edges[0].calls, 30u);
}

TEST_F(CaptureRoundTrip, WhatBeganAfterThePublicationComesFromItsAmendments) {
  start_amending();
  run_to_first_publication();
  run_past_first_publication();
  const profile::Run published = profile::parse_capture(region_.published_alone(), "published");
  const profile::Run amended = profile::parse_capture(region_.take_published(), "published");

  // The publication: four snapshots, two threads, four contexts, the worker still running.
  EXPECT_EQ(published.text(keys::kElapsedNs), "8000000");
  EXPECT_EQ(published.contexts.size(), 4u);
  EXPECT_EQ(thread_of(published, 2), nullptr);
  EXPECT_EQ(procedure_at(published, kLateAt), nullptr);
  ASSERT_NE(thread_of(published, 1), nullptr);
  EXPECT_EQ(thread_of(published, 1)->exited_ns, 0u);

  // Amended: seven snapshots, the worker's end, and the late thread in its own procedure:
  // busy beside the main thread in the first and third snapshots after (bin 2, half of it
  // normalized), alone in the second (bin 1).
  EXPECT_EQ(amended.text(keys::kElapsedNs), "14000000");
  EXPECT_EQ(amended.text(keys::kSamples), "7");
  EXPECT_EQ(amended.text(keys::kThreadSamples), "14");
  EXPECT_EQ(amended.text(keys::kTornSamples), "3");
  EXPECT_EQ(amended.text(keys::kSamplerCpuNs), "9000000");
  ASSERT_NE(thread_of(amended, 1), nullptr);
  EXPECT_EQ(thread_of(amended, 1)->exited_ns, 9'000'000u);

  ASSERT_EQ(amended.contexts.size(), 6u);
  const profile::ContextInfo& late = amended.contexts[late_];
  EXPECT_EQ(late.parent, kNoParent);
  EXPECT_EQ(late.address, kLateAt);
  EXPECT_EQ(late.kind, kProcedure);
  expect_bins(amended.processor_of(late_), {0, kD, 2 * kD}, "late() processor");
  expect_bins(amended.normalized_of(late_), {0, kD, kD}, "late() normalized");
  // The main thread's context of the last snapshot, amended once only.
  EXPECT_EQ(amended.contexts[tail_].parent, main_);
  EXPECT_EQ(amended.contexts[tail_].address, kTailAt);
  expect_bins(amended.processor_of(tail_), {0, 0, kD}, "tail() processor");
  expect_bins(amended.normalized_of(tail_), {0, 0, kD / 2}, "tail() normalized");
  const profile::ProcedureInfo* late_fn = procedure_at(amended, kLateAt);
  ASSERT_NE(late_fn, nullptr);
  expect_bins(late_fn->record.processor_self, {0, kD, 2 * kD}, "late() self");

  const profile::ThreadInfo* late_thread = thread_of(amended, 2);
  ASSERT_NE(late_thread, nullptr);
  EXPECT_EQ(late_thread->parent, 0u);
  EXPECT_EQ(late_thread->tid, 1002);
  EXPECT_EQ(late_thread->start_routine, kLateAt);
  EXPECT_EQ(late_thread->created_ns, 9'500'000u);
  expect_bins(late_thread->record.processor_self, {0, kD, 2 * kD}, "late thread");
  expect_bins(late_thread->record.normalized_self, {0, kD, kD}, "late thread");
  EXPECT_NEAR(late_thread->record.state_self[kBusy], 3 * kD, kNear);

  // The whole run's: both threads busy in six snapshots, one in the other.
  expect_bins(amended.program.processor_self, {0, kD, 12 * kD}, "program");
  expect_bins(amended.program.normalized_self, {0, kD, 6 * kD}, "program");
  expect_bins(published.program.processor_self, {0, 0, 8 * kD}, "published program");
}

// The amendments after the first publication go to both slots' logs: the second publication,
// in the other slot, starts that slot's log again, or they would replace its newer figures.
TEST_F(CaptureRoundTrip, APublicationStartsItsSlotsLogAgain) {
  start_amending();
  run_to_first_publication();
  EXPECT_EQ(region_.header()->published, 1u);
  snapshot({{0, work_}, {1, worker_}});
  close_window();
  amend();
  snapshot({{0, work_}});
  amend();
  snapshot({{0, work_}});
  publish();
  EXPECT_EQ(region_.header()->published, 2u) << "the other slot";

  // Taken at once: the second publication as built, none of the amendments older than it.
  const profile::Run written = written_now(/*final=*/false);
  const profile::Run taken = profile::parse_capture(region_.take_published(), "published");
  expect_same_sampled(taken, written);
  EXPECT_EQ(taken.text(keys::kElapsedNs), "14000000");
  EXPECT_FALSE(taken.info.count(keys::kCountsElapsedNs)) << "nothing amended";
}

}  // namespace
}  // namespace quartz::sampler

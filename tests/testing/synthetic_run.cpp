#include "tests/testing/synthetic_run.h"

#include <algorithm>
#include <map>
#include <set>

#include "analysis/profile_view.h"

namespace quartz::viewer::test {
namespace {

profile::FullRecord empty_record(uint32_t processors, uint32_t runnable_bins) {
  profile::FullRecord r;
  for (auto* v :
       {&r.processor_self, &r.processor_behalf, &r.normalized_self, &r.normalized_behalf}) {
    v->assign(processors + 1, 0);
  }
  for (auto& hist : r.runnable) hist.assign(runnable_bins, 0);
  return r;
}

// Adds a context's self arrays to a record, as self or on behalf; states follow the bins
// (busy with processors busy, blocked when none is) and runnable counts the bin plus one.
void charge(profile::FullRecord& r, const profile::ContextRecord& c, bool self) {
  for (size_t b = 0; b < c.normalized.size(); ++b) {
    (self ? r.normalized_self : r.normalized_behalf)[b] += c.normalized[b];
    (self ? r.processor_self : r.processor_behalf)[b] += c.processor[b];
    const uint32_t state = b == 0 ? capture::kBlocked : capture::kBusy;
    const double thread_s = b == 0 ? c.normalized[b] : c.processor[b];
    (self ? r.state_self : r.state_behalf)[state] += thread_s;
    auto& hist = r.runnable[state];
    hist[std::min(b + 1, hist.size() - 1)] += thread_s;
  }
}

// Fills procedures, objects and the program from the contexts.
void derive_records(profile::Run& run) {
  std::map<uint64_t, profile::FullRecord> procedures, objects;
  run.program = empty_record(run.processors, run.runnable_bins);
  for (size_t i = 0; i < run.contexts.size(); ++i) {
    const profile::ContextRecord record = run.record_of(i);
    charge(run.program, record, true);
    std::set<uint64_t> seen;
    for (uint32_t j = static_cast<uint32_t>(i); j != capture::kNoParent;
         j = run.contexts[j].parent) {
      const profile::ContextInfo& at = run.contexts[j];
      if (!seen.insert(at.address).second) continue;  // a recursive entry counts once
      auto& records = at.kind == capture::kProcedure ? procedures : objects;
      auto it =
          records.try_emplace(at.address, empty_record(run.processors, run.runnable_bins)).first;
      charge(it->second, record, j == i);
    }
  }
  run.procedures.clear();
  for (auto& [address, record] : procedures) run.procedures.push_back({address, record});
  for (profile::ObjectInfo& o : run.objects) {
    auto it = objects.find(o.address);
    o.record = it != objects.end() ? it->second : empty_record(run.processors, run.runnable_bins);
  }
}

// Context `id`, the next of `run` (P set).
void add_context(profile::Run& run, uint32_t id, uint32_t parent, uint64_t address, uint32_t kind,
                 std::vector<double> normalized) {
  profile::ContextInfo c;
  c.id = id;
  c.parent = parent;
  c.address = address;
  c.kind = kind;
  profile::ContextRecord record;
  record.normalized = std::move(normalized);
  record.processor.resize(record.normalized.size());
  for (size_t b = 0; b < record.normalized.size(); ++b)
    record.processor[b] = record.normalized[b] * static_cast<double>(b);
  run.add_context(c, record);
}

}  // namespace

profile::Run small_run() {
  using namespace capture;
  profile::Run run;
  run.processors = 2;
  run.runnable_bins = 4;
  run.final = true;
  run.info = {{run_keys::kProgram, "/opt/demo/solver"},
              {run_keys::kArguments, std::string("/opt/demo/solver\x1f--threads\x1f") + "2"},
              {run_keys::kHost, "node7"},
              {run_keys::kStartRealtimeNs, "1700000000000000000"},
              {run_keys::kElapsedNs, "861000000"},
              {run_keys::kPeriodNs, "2000000"},
              {run_keys::kSamples, "430"},
              {run_keys::kThreadSamples, "1290"},
              {run_keys::kTornSamples, "3"},
              {run_keys::kReserve, "no"},
              {run_keys::kTopology, "Machine:1 Package:1 Core:2 PU:2"},
              {run_keys::kSamplerCpuNs, "12000000"},
              {run_keys::kHookPairNs, "6.5"},
              {run_keys::kDilationRemovedNs, "250000"},
              {run_keys::kCpuMeasurement, "schedstat"}};
  add_context(run, 0, kNoParent, kMain, kProcedure, {0, 0.010, 0});
  add_context(run, 1, 0, kWorker, kProcedure, {0, 0, 0});
  add_context(run, 2, 1, kSolve, kProcedure, {0, 0.05, 0.20});
  add_context(run, 3, 2, kRelax, kProcedure, {0, 0.02, 0.30});
  add_context(run, 4, 2, kQueueLock, kMutex, {0, 0.08, 0.02});
  add_context(run, 5, 0, kLog, kProcedure, {0, 0.10, 0});
  add_context(run, 6, 0, kSolve, kProcedure, {0, 0.03, 0});
  add_context(run, 7, 6, kRelax, kProcedure, {0, 0.04, 0.01});
  add_context(run, 8, 1, kPhaseBarrier, kBarrier, {0.001, 0, 0});
  run.edges = {{0, kMain, 1},         {kMain, kWorker, 2}, {kWorker, kSolve, 40},
               {kSolve, kRelax, 400}, {kMain, kLog, 1000}, {kMain, kSolve, 1}};
  profile::ObjectInfo lock;
  lock.id = 1;
  lock.address = kQueueLock;
  lock.kind = kMutex;
  lock.name = "queue lock";
  lock.acquisitions = 40;
  lock.contended = 12;
  lock.exact_wait_ns = 0;
  lock.wait_spinning_s = 0.004;
  lock.wait_blocked_s = 0.036;
  lock.hold_s = 0.12;
  lock.queue = {0.05, 0.04, 0.01};
  profile::ObjectInfo barrier;
  barrier.id = 2;
  barrier.address = kPhaseBarrier;
  barrier.kind = kBarrier;
  barrier.name = "phase barrier";
  barrier.acquisitions = 2;
  barrier.contended = 1;
  barrier.exact_wait_ns = 30'000'000;
  barrier.wait_blocked_s = 0.03;
  barrier.queue = {0.001, 0.002};
  run.objects = {lock, barrier};
  derive_records(run);
  profile::ThreadInfo main_thread;
  main_thread.index = 0;
  main_thread.name = "solver";
  main_thread.calls = 1403;
  main_thread.cpu_ns = 230'000'000;
  main_thread.record = empty_record(2, 4);
  main_thread.record.normalized_self = {0, 0.19, 0.01};
  main_thread.record.state_self = {0.23, 0, 0.62, 0.011};
  main_thread.record.runnable[kBusy] = {0, 0.2, 0.03, 0};
  main_thread.record.runnable[kBlocked] = {0, 0, 0.62, 0};
  main_thread.record.runnable[kReady] = {0, 0, 0, 0.011};
  profile::ThreadInfo worker_a = main_thread, worker_b = main_thread;
  worker_a.index = 1;
  worker_a.parent = 0;
  worker_a.name = "worker";
  worker_a.start_routine = kWorker;
  worker_a.calls = 221;
  worker_a.cpu_ns = 600'000'000;
  worker_a.record.normalized_self = {0.0005, 0.07, 0.27};
  worker_a.record.state_self = {0.6, 0, 0.1, 0.05};
  worker_b = worker_a;
  worker_b.index = 2;
  worker_b.calls = 220;
  worker_b.cpu_ns = 590'000'000;
  worker_b.record.normalized_self = {0.0005, 0.06, 0.25};
  run.threads = {main_thread, worker_a, worker_b};
  run.symbols = {{kMain, {"main", "/src/solver.c", 40, "/opt/demo/solver"}},
                 {kWorker, {"worker(void*)", "/src/solver.c", 30, "/opt/demo/solver"}},
                 {kSolve, {"solve(Grid&)", "/src/solve.cpp", 12, "/opt/demo/solver"}},
                 {kRelax, {"relax(Row&, int)", "/src/relax.cpp", 7, "/opt/demo/solver"}},
                 {kLog, {"log_message", "/src/log.c", 54, "/opt/demo/solver"}}};
  return run;
}

profile::Run large_run(size_t contexts) {
  using namespace capture;
  profile::Run run;
  run.processors = 4;
  run.runnable_bins = 33;
  run.final = true;
  run.info = {{run_keys::kProgram, "/opt/big/app"},
              {run_keys::kElapsedNs, "10000000000"},
              {run_keys::kPeriodNs, "1000000"},
              {run_keys::kSamples, "10000"}};
  uint64_t seed = 12345;
  auto next = [&seed] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(seed >> 40) / static_cast<double>(1ull << 24);
  };
  run.contexts.reserve(contexts);
  for (size_t i = 0; i < contexts; ++i) {
    const uint32_t parent = i == 0 ? kNoParent : static_cast<uint32_t>((i - 1) / 4);
    const bool lock = i % 97 == 96;
    const uint64_t address = lock ? 0x7f0000b000 + (i % 50) * 64 : 0x500000 + (i % 2000) * 16;
    std::vector<double> normalized(run.processors + 1);
    for (double& v : normalized) v = next() * 1e-4;
    add_context(run, static_cast<uint32_t>(i), parent, address, lock ? kMutex : kProcedure,
                std::move(normalized));
    if (parent != kNoParent) run.edges.push_back({run.contexts[parent].address, address, 1});
  }
  for (size_t k = 0; k < 50; ++k) {
    profile::ObjectInfo o;
    o.address = 0x7f0000b000 + k * 64;
    o.kind = kMutex;
    o.acquisitions = 100;
    o.queue = {0.1, 0.01};
    run.objects.push_back(o);
  }
  derive_records(run);
  profile::ThreadInfo main_thread;
  main_thread.name = "app";
  main_thread.record = empty_record(run.processors, run.runnable_bins);
  run.threads = {main_thread};
  return run;
}

std::shared_ptr<const RunData> analyzed(profile::Run run, std::string label) {
  auto data = std::make_shared<RunData>();
  data->label = std::move(label);
  data->run = std::move(run);
  data->view = analysis::analyze(data->run);
  return data;
}

analysis::Predictions small_predictions() {
  analysis::Predictions p;
  p.program = "/opt/demo/solver";
  p.processors = 2;
  p.observed_s = 0.9;
  p.recorded_s = 0.8;  // the model's error: -11.1%
  p.base_s = 0.8;      // no sampler share: the same replay
  // Two scheduler models; every answer under each, the first most likely. Ranges as stored:
  // the models' figures, low and high as given (not widened: the fixture's arithmetic is
  // simpler to read).
  p.models = {{"fair", 0.8}, {"slices", 0.82}};
  const auto range = [](double likely_s, double other_s) {
    return analysis::PredictionRange{
        std::min(likely_s, other_s), std::max(likely_s, other_s), {likely_s, other_s}};
  };
  p.recorded_range = range(0.8, 0.82);
  p.critical_path.length_s = 0.7;
  p.critical_path.share = 0.7 / 0.9;
  p.critical_path.cpu_s = 0.65;
  p.critical_path.delay_s = 0.05;
  p.critical_path.threads = {{"1 worker", 0.4}, {"2 worker", 0.25}, {"0 solver", 0.05}};
  p.critical_path.procedures = {{"solve(Grid&)", 0.6}, {"relax(Row&, int)", 0.35}};
  p.critical_path.locks = {{"queue lock", 0.07}};
  p.groupings = {{"0,1|2", "solver,worker | worker", 0.84, range(0.84, 0.9), {}, 0}};
  analysis::GroupingSearch search;
  search.cores = 1;
  search.candidates = 1;
  search.rounds = 1;
  search.shared_s = 1.32;
  search.shared_range = range(1.32, 1.3);
  search.best = {{"0,1,2", "solver,worker,worker", 1.24, range(1.24, 1.24), {}, 0}};
  p.searches = {search};
  p.procedures = {{"zero", "log_message", 100, 0.68, 0, range(0.68, 0.7), std::nullopt},
                  {"speedup", "relax(Row&, int)", 25, 0.72, 0, range(0.72, 0.71), std::nullopt},
                  {"migrate", "solve(Grid&)", 100, 0.8002, 0.012, range(0.8002, 0.8002),
                   std::nullopt}};  // +0.0%: unchanged
  p.quality.events = 12000;
  p.quality.records = 15000;
  p.quality.samples = 400;
  p.quality.bytes = 204000;
  p.quality.unpaired_waits = 3;
  p.quality.compensated_s = 0.002;
  p.quality.peak_window = 5000;
  p.quality.seconds = 0.015;
  p.quality.records_per_second = 1e6;
  return p;
}

std::shared_ptr<const RunData> with_what_ifs(const std::vector<profile::StoredPrediction>& stored,
                                             bool has_trace) {
  auto data = std::make_shared<RunData>();
  data->label = "run 1 (runs.db)";
  data->source = "runs.db";
  data->id = 1;
  data->run = small_run();
  data->view = analysis::analyze(data->run);
  data->has_trace = has_trace;
  data->what_ifs = read_what_ifs(stored);
  return data;
}

}  // namespace quartz::viewer::test

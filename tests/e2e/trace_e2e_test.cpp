// End-to-end: `quartz run --trace` records what the program did, numbered so every
// operation pairs exactly; `quartz predict` replays it; `quartz run --placement` pins
// threads where a grouping says.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "analysis/trust_warnings.h"
#include "harness.h"
#include "profile/capture.h"
#include "profile/trace_reader.h"

namespace quartz::test {
namespace {

using nlohmann::json;
using trace::Type;
namespace fs = std::filesystem;

std::string program(const std::string& name) {
  return std::string(QUARTZ_E2E_DIR) + "/" + name;
}

class TraceE2E : public ScratchTest {
 protected:
  json predict(const std::vector<std::string>& questions) {
    std::vector<std::string> argv{kQuartz, "predict", "--store", store, "--json"};
    argv.insert(argv.end(), questions.begin(), questions.end());
    const CommandResult r = run_command(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out, nullptr, false);
  }
};

std::vector<profile::TraceRecord> read_trace(const std::string& path,
                                             profile::TraceTotals* totals) {
  profile::TraceReader reader(profile::open_trace_file(path));
  std::vector<profile::TraceRecord> all, chunk;
  while (reader.next_chunk(chunk)) all.insert(all.end(), chunk.begin(), chunk.end());
  *totals = reader.totals();
  return all;
}

std::multiset<uint32_t> sequences(const std::vector<profile::TraceRecord>& records, uint64_t object,
                                  Type type) {
  std::multiset<uint32_t> out;
  for (const auto& r : records) {
    if (r.object == object && r.type == type) out.insert(r.sequence);
  }
  return out;
}

std::multiset<uint32_t> one_to(uint32_t n) {
  std::multiset<uint32_t> out;
  for (uint32_t i = 1; i <= n; ++i) out.insert(i);
  return out;
}

// sync_objects does every kind of operation a known number of times (and checks errno and
// return values itself, with the trace's extra work in every wrapper).
TEST_F(TraceE2E, EveryOperationIsNumberedForExactPairing) {
  const std::string capture = (dir / "sync.qcap").string();
  const CommandResult r = run_command(
      {kQuartz, "run", "--trace", "--no-import", "-o", capture, "--", program("sync_objects")});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const profile::Run run = profile::read_capture(capture);
  std::map<std::string, uint64_t> address;
  for (const auto& o : run.objects) address[o.name] = o.address;
  profile::TraceTotals totals;
  const auto records = read_trace(capture + ".trace", &totals);
  EXPECT_TRUE(totals.complete);
  EXPECT_EQ(totals.dropped, 0u);
  EXPECT_EQ(run.number(capture::run_keys::kTraceEvents), static_cast<double>(totals.events));

  // 1000 lock/unlock pairs: acquisitions 1..1000, each released once.
  EXPECT_EQ(sequences(records, address["normal"], Type::lock_acquire), one_to(1000));
  EXPECT_EQ(sequences(records, address["normal"], Type::lock_release), one_to(1000));
  // A recursive mutex taken 3 deep, twice: only the outer acquisitions hand it over.
  EXPECT_EQ(sequences(records, address["recursive"], Type::lock_acquire), one_to(2));
  EXPECT_EQ(sequences(records, address["recursive"], Type::lock_release), one_to(2));
  // A relock that fails and an unlock by a non-owner that fails are not operations.
  EXPECT_EQ(sequences(records, address["errcheck"], Type::lock_acquire), one_to(1));
  EXPECT_EQ(sequences(records, address["errcheck"], Type::lock_release), one_to(1));
  EXPECT_EQ(sequences(records, address["trylock"], Type::lock_acquire), one_to(2));
  EXPECT_EQ(sequences(records, address["timed"], Type::lock_acquire), one_to(2));
  EXPECT_EQ(sequences(records, address["spin"], Type::lock_acquire), one_to(100));
  // rwlock: two readers in epoch 0, the writer opens epoch 1 after both, one reader in it.
  EXPECT_EQ(sequences(records, address["rwlock"], Type::lock_acquire),
            (std::multiset<uint32_t>{0, 0, 1, 1}));
  for (const auto& rec : records) {
    if (rec.object == address["rwlock"] && rec.type == Type::lock_acquire &&
        rec.kind == capture::kRwlockWrite) {
      EXPECT_EQ(rec.sequence, 1u);
      EXPECT_EQ(rec.aux, 2u);  // it followed two read releases
    }
  }
  // 3 threads x 10 rounds: arrivals 0..29, each told the count; departures by generation.
  std::multiset<uint32_t> arrivals, generations;
  for (const auto& rec : records) {
    if (rec.object != address["barrier"]) continue;
    if (rec.type == Type::barrier_arrive) {
      arrivals.insert(rec.sequence);
      EXPECT_EQ(rec.aux, 3u);
    }
    if (rec.type == Type::barrier_depart) generations.insert(rec.sequence);
  }
  std::multiset<uint32_t> expected_arrivals, expected_generations;
  for (uint32_t a = 0; a < 30; ++a) {
    expected_arrivals.insert(a);
    expected_generations.insert(a / 3);
  }
  EXPECT_EQ(arrivals, expected_arrivals);
  EXPECT_EQ(generations, expected_generations);
  // The semaphore: 6 posts, 6 successful waits (one blocked), numbered from 1.
  EXPECT_EQ(sequences(records, address["sem"], Type::sem_post), one_to(6));
  EXPECT_EQ(sequences(records, address["sem"], Type::sem_acquire), one_to(6));
  EXPECT_EQ(sequences(records, address["sem"], Type::sem_wait_begin).size(), 1u);
  // 100 signals and a broadcast; every wake names one of them.
  EXPECT_EQ(sequences(records, address["queue_cond"], Type::cond_signal), one_to(100));
  EXPECT_EQ(sequences(records, address["queue_cond"], Type::cond_broadcast),
            (std::multiset<uint32_t>{101}));
  for (uint32_t wake : sequences(records, address["queue_cond"], Type::cond_wake)) {
    EXPECT_GE(wake, 1u);
    EXPECT_LE(wake, 101u);
  }
  // Main signals the queue's condition inside each of its 100 critical sections: each
  // signal names the one it came from (trace_format.h cond_signal's aux).
  std::multiset<uint32_t> main_holds, signalled_from;
  for (const auto& rec : records) {
    if (rec.thread == 0 && rec.object == address["queue_lock"] && rec.type == Type::lock_acquire)
      main_holds.insert(rec.sequence);
    if (rec.object == address["queue_cond"] && rec.type == Type::cond_signal)
      signalled_from.insert(rec.aux);
  }
  EXPECT_EQ(signalled_from, main_holds);
  // Every thread starts and ends once; all but main were created.
  std::map<Type, size_t> count;
  for (const auto& rec : records) ++count[rec.type];
  EXPECT_EQ(count[Type::thread_start], run.threads.size());
  EXPECT_EQ(count[Type::thread_exit], run.threads.size() - 1);  // main ends with the process
  EXPECT_EQ(count[Type::create], run.threads.size() - 1);
  EXPECT_EQ(count[Type::process_end], 1u);
  EXPECT_GT(count[Type::cpu], 0u);
  EXPECT_GT(count[Type::sample], 0u);
}

// A queue's consumers take most items without waiting (issue 38 item 2): before each of
// their critical sections the trace names the one the condition's latest signal came from
// (lock_fed), which the producer, notifying after it unlocks, announces as it releases it
// (lock_feeds); both by the mutex's own numbering.
TEST_F(TraceE2E, AConsumerNamesTheCriticalSectionItsItemCameFrom) {
  const std::string capture = (dir / "pc.qcap").string();
  const CommandResult r = run_command({kQuartz, "run", "--trace", "--no-import", "-o", capture,
                                       "--", program("producer_consumers"), "--items", "300"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  profile::TraceTotals totals;
  const auto records = read_trace(capture + ".trace", &totals);
  ASSERT_EQ(totals.dropped, 0u);
  // The thread's sync events after records[i].
  auto next_of = [&](size_t i) {
    return std::find_if(records.begin() + static_cast<ptrdiff_t>(i) + 1, records.end(),
                        [&](const profile::TraceRecord& n) {
                          return n.thread == records[i].thread && trace::is_sync_event(n.type);
                        });
  };
  std::set<std::pair<uint64_t, uint32_t>> fed_from;  // condition, acquisition
  size_t feeds = 0, fed = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    const profile::TraceRecord& rec = records[i];
    if (rec.type == Type::cond_signal && rec.aux != 0) fed_from.emplace(rec.object, rec.aux);
    if (rec.type != Type::lock_feeds) continue;
    ++feeds;
    fed_from.emplace(rec.object, rec.sequence);
    const auto release = next_of(i);  // the release it announces
    ASSERT_NE(release, records.end());
    EXPECT_EQ(release->type, Type::lock_release);
    EXPECT_EQ(release->sequence, rec.sequence);
  }
  EXPECT_GT(feeds, 250u);  // the producer's 300 pushes, but its first (and the consumers')
  for (size_t i = 0; i < records.size(); ++i) {
    const profile::TraceRecord& rec = records[i];
    if (rec.type != Type::lock_fed) continue;
    ++fed;
    auto take = next_of(i);  // the acquisition it precedes, after a request if it waited
    if (take != records.end() && take->type == Type::lock_request) {
      take = next_of(static_cast<size_t>(take - records.begin()));
    }
    ASSERT_NE(take, records.end());
    EXPECT_EQ(take->type, Type::lock_acquire);
    EXPECT_GT(take->sequence, rec.sequence);
    if (rec.sequence != 0) {
      EXPECT_EQ(fed_from.count({rec.object, rec.sequence}), 1u);
    }
  }
  EXPECT_GT(fed, 300u);  // consumers' and the producer's, but the ones that end a wait
}

// The lock is held T x I x H in all, one thread at a time: the critical path is at least
// that long and runs through the lock.
// Two threads calling a 40 ns procedure 16 million times between them, handing a lock back
// and forth every 100,000 calls: what the instrumentation costs is a large share of the
// recording. Predicted on one processor, the answer must be the plain program's (built
// without Quartz) pinned to one processor: within 10% of the time it measures itself.
constexpr const char* kCallHeavySource = R"(#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile double sink;
static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
__attribute__((noipa)) double leaf(double a) {
  for (int j = 0; j < 16; j++) a = a * 0.9999999 + 1.0;
  return a;
}
static void* worker(void* unused) {
  double a = 0;
  for (int round = 0; round < 80; round++) {
    for (long i = 0; i < 100000; i++) a = leaf(a);
    pthread_mutex_lock(&lock);
    sink += a;
    pthread_mutex_unlock(&lock);
  }
  return unused;
}
int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "pinned") == 0) {  /* to the first processor it may use */
    cpu_set_t allowed, first;
    sched_getaffinity(0, sizeof allowed, &allowed);
    CPU_ZERO(&first);
    for (int c = 0; c < CPU_SETSIZE; c++) {
      if (CPU_ISSET(c, &allowed)) { CPU_SET(c, &first); break; }
    }
    sched_setaffinity(0, sizeof first, &first);
  }
  const double start = now_s();
  pthread_t threads[2];
  for (int i = 0; i < 2; i++) pthread_create(&threads[i], 0, worker, 0);
  for (int i = 0; i < 2; i++) pthread_join(threads[i], 0);
  printf("elapsed_s=%.4f\n", now_s() - start);
  return 0;
}
)";

TEST_F(TraceE2E, ACallHeavyProgramIsPredictedAsThePlainProgramRuns) {
  // Under a sanitizer the unprofiled run of --baseline carries the sanitizer's runtime,
  // preloaded with ours (disabled): 0.47-0.48 s of processor time against the plain
  // program's 0.42-0.44 (AddressSanitizer's start and interceptors, measured), so the
  // measured correction is 9% long before any noise (0.481 s once in a CI rehearsal); and
  // the calibrated one is the sanitizer's (150 ns a call), not the users'.
  if (QUARTZ_SANITIZED) GTEST_SKIP() << "the baseline run would carry the sanitizer's runtime";
  const std::string source = (dir / "calls.c").string();
  std::ofstream(source) << kCallHeavySource;
  const std::string plain = (dir / "plain").string(), profiled = (dir / "profiled").string();
  const CommandResult cc = run_command({QUARTZ_C_COMPILER, "-O2", "-pthread", "-o", plain, source});
  ASSERT_EQ(cc.exit_code, 0) << cc.err;
  const CommandResult quartz_cc = run_command(
      {std::string(QUARTZ_BIN_DIR) + "/quartz-cc", "-O2", "-pthread", "-o", profiled, source});
  ASSERT_EQ(quartz_cc.exit_code, 0) << quartz_cc.err;
  // The plain program pinned to one processor, twice just before each recording and twice
  // just after: this VM's speed drifts by up to 10% over tens of seconds (0.45 to 0.51 s
  // here), and a truth taken before both recordings missed the second's.
  std::vector<double> pinned;
  auto run_pinned = [&](int times) {
    for (int i = 0; i < times; ++i) {
      const CommandResult r = run_command({plain, "pinned"});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      pinned.push_back(std::stod(printed_values(r.out)["elapsed_s"]));
    }
  };
  double truth = 0;

  // With the default budget the leaf's entry is turned off 20 ms into the run: the
  // calibrated costs are enough. With every call counted they are not (calls that cost 4 ns
  // each, calibrated at 13: 25% short), and --baseline measures what they cost.
  for (const std::vector<std::string>& flags :
       {std::vector<std::string>{}, std::vector<std::string>{"--budget", "0", "--baseline"}}) {
    store = (dir / ("calls" + std::to_string(flags.size()) + ".db")).string();
    std::vector<std::string> argv{kQuartz, "run", "-q", "--trace", "--store", store};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {"--", profiled});
    pinned.clear();
    run_pinned(2);
    const CommandResult run = run_command(argv);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    run_pinned(2);
    std::sort(pinned.begin(), pinned.end());
    truth = (pinned[1] + pinned[2]) / 2;
    const json p = predict({"--cores", "1"});
    ASSERT_FALSE(p.is_discarded());
    EXPECT_EQ(p["trace"]["correction"], flags.empty() ? "calibrated" : "baseline");
    ASSERT_EQ(p["searches"].size(), 1u);
    const json& best = p["searches"][0]["best"];
    ASSERT_FALSE(best.empty());
    const double predicted = best[0]["predicted_s"];
    EXPECT_NEAR(predicted, truth, 0.10 * truth)
        << flags.size() << " flags; plain pinned " << pinned[0] << ", " << pinned[1] << ", "
        << pinned[2] << ", " << pinned[3] << " s; scale " << p["trace"]["cpu_scale"] << ", removed "
        << p["trace"]["compensated_s"] << " s";
  }
  // The report gives what the baseline measured: the processor time the plain program uses
  // (pinned to one processor, its elapsed time).
  const CommandResult report = run_command({kQuartz, "report", "--store", store, "--json"});
  const json r = json::parse(report.out, nullptr, false);
  ASSERT_FALSE(r.is_discarded()) << report.err;
  ASSERT_TRUE(r["baseline"].is_object()) << report.out;
  EXPECT_NEAR(r["baseline"]["cpu_s"].get<double>(), truth, 0.10 * truth);
}

TEST_F(TraceE2E, PredictionsOfALockBoundProgram) {
  const CommandResult r = run_command({kQuartz, "run", "--trace", "--store", store, "--",
                                       sample("lock_contention"), "--iterations", "300"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double held_s = 4 * 300 * 100e-6;
  const json p = predict({"--cores", "1", "--group", "0|1,2|3,4"});
  ASSERT_FALSE(p.is_discarded());
  EXPECT_EQ(p["trace"]["dropped"], 0);
  EXPECT_EQ(p["trace"]["forced_waits"], 0);
  EXPECT_TRUE(p["trace"]["complete"]);
  // How close the replay of the recording comes is a benchmark figure (docs/performance.md
  // "Accuracy"); what the test holds is that the prediction says first how far off it is,
  // when that is more than 10% of the program's own clock (a point more: the run's elapsed
  // time is that clock within a millisecond).
  const double observed = std::stod(printed_values(r.out)["elapsed_s"]);
  const double recorded = p["recorded_s"];
  const double error = recorded / observed - 1;
  if (std::fabs(error) > 0.11) {
    const json* said = nullptr;
    for (const json& t : p["trust"]) {
      if (t["reason"] == "replay_error") said = &t;
    }
    ASSERT_NE(said, nullptr) << "replay " << error * 100 << "% off: " << p["trust"].dump();
    const std::string text = (*said)["text"];
    EXPECT_NE(text.find(error < 0 ? "short of" : "over"), std::string::npos) << text;
  }
  // The critical path is a replay too, with a processor per thread: it holds every hold of
  // the lock, and is no longer than the program took on two processors, give or take what
  // a replay may be off before the prediction must say so (a run 5% long once took its
  // path 5% over the program's clock).
  const json& cp = p["critical_path"];
  EXPECT_GE(cp["length_s"].get<double>(), 0.9 * held_s);
  EXPECT_LE(cp["length_s"].get<double>(), (1 + std::max(0.11, error)) * observed);
  ASSERT_FALSE(cp["locks"].empty());
  EXPECT_EQ(cp["locks"][0]["name"], "work_queue");
  // One processor for everything: at least all the processor time (W + H per iteration).
  const double cpu_s = 4 * 300 * 200e-6;
  ASSERT_EQ(p["searches"].size(), 1u);
  const json& best = p["searches"][0]["best"];
  ASSERT_FALSE(best.empty());
  EXPECT_GE(best[0]["predicted_s"].get<double>(), 0.9 * cpu_s);
  EXPECT_EQ(best[0]["spec"], "0,1,2,3,4");
  ASSERT_EQ(p["groupings"].size(), 1u);
  EXPECT_EQ(p["groupings"][0]["spec"], "0|1,2|3,4");
  // Stored with the run; the report lists it.
  const CommandResult report = run_command({kQuartz, "report", "--store", store});
  EXPECT_NE(report.out.find("What-ifs"), std::string::npos) << report.out;
}

TEST_F(TraceE2E, ProcedureChangesOnClientServer) {
  const CommandResult r = run_command({kQuartz, "run", "--trace", "--store", store, "--",
                                       sample("client_server"), "--requests", "120"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json p = predict(
      {"--zero", "serve_class_b", "--migrate", "serve_class_b", "--speedup", "serve_class_a=50"});
  ASSERT_FALSE(p.is_discarded());
  const double recorded = p["base_s"];  // what the what-ifs are compared with
  ASSERT_EQ(p["procedures"].size(), 3u);
  std::map<std::string, double> predicted;
  for (const json& c : p["procedures"]) predicted[c["change"]] = c["predicted_s"];
  // The server is the bottleneck: class B is 3 x 120 / 4 requests of 1 ms on it.
  const double class_b_s = 3 * 120 / 4 * 1e-3;
  EXPECT_LT(predicted["zero"], recorded - 0.5 * class_b_s);
  EXPECT_LT(predicted["migrate"], recorded);
  EXPECT_GE(predicted["migrate"],
            predicted["zero"] * 0.95);  // moving costs the client what zeroing saves
  EXPECT_LT(predicted["speedup"], recorded);
}

// A traced run of `program` on a quiet machine (issue 15 item 1: the replay's accuracy is
// its target there; on a busy one the predictions say so first, as tested below): the
// program's own wall clock and the predictions asked. A recording that found other
// processes taking more than 5% of the processors is busy: the test skips, once, and
// scripts/run-tests.sh fails a run with more than two such skips.
struct QuietRecording {
  double elapsed_s = 0;  // printed by the program: main's start to its end
  json predictions;
  bool busy() const {
    return predictions.is_object() && predictions["other_share"].is_number() &&
           predictions["other_share"].get<double>() > 0.05;
  }
};

QuietRecording record_quietly(const std::string& store, const std::string& program_path,
                              const std::vector<std::string>& questions) {
  QuietRecording out;
  const CommandResult r =
      run_command({kQuartz, "run", "-q", "--trace", "--store", store, "--", program_path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  out.elapsed_s = std::stod(printed_values(r.out)["elapsed_s"]);
  std::vector<std::string> argv{kQuartz, "predict", "--store", store, "--json"};
  argv.insert(argv.end(), questions.begin(), questions.end());
  const CommandResult p = run_command(argv);
  EXPECT_EQ(p.exit_code, 0) << p.err;
  out.predictions = json::parse(p.out, nullptr, false);
  return out;
}

// The recorded configuration, replayed as it ran (each processor less the sampler's share,
// and other processes'), takes what the program's own clock says within 5% (issue 38 item
// 2). Alone, without the sampler's 3-4% of each processor, the condition-variable programs
// replayed 4-7% fast.
void expect_replayed_as_it_ran(const QuietRecording& r) {
  const json& p = r.predictions;
  EXPECT_GT(p["sampler_share"].get<double>(), 0);
  EXPECT_LT(p["recorded_s"].get<double>(), p["base_s"].get<double>() * 1.2);
  EXPECT_NEAR(p["recorded_s"].get<double>(), r.elapsed_s, 0.05 * r.elapsed_s)
      << "the program's own clock: " << r.elapsed_s << " s";
}

// Condition-variable programs replay their own recordings with every wait paired, and
// what-ifs their structure decides move the right way. (They replayed 5 to 9% fast while
// wake-ups were instantaneous: thousands of hand-offs, each 20-30 us here.)
TEST_F(TraceE2E, AConditionVariablePipelineReplaysItsOwnRecording) {
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "needs two processors";
  // One producer (60 us an item), three consumers (150 us), a queue of 4: 3000 items.
  const QuietRecording r = record_quietly(store, program("producer_consumers"),
                                          {"--cores", "1", "--zero", "consume_items"});
  const json& p = r.predictions;
  ASSERT_FALSE(p.is_discarded());
  if (r.busy()) GTEST_SKIP() << "the machine is busy";
  EXPECT_EQ(p["trace"]["forced_waits"], 0);
  EXPECT_GT(p["trace"]["wake_ups"].get<uint64_t>(), 100u);
  expect_replayed_as_it_ran(r);
  // The critical path names the program's own procedures, as the report does: std::thread's
  // trampolines are on every thread's path, as long as the thread's own function.
  std::set<std::string> on_path;
  for (const json& proc : p["critical_path"]["procedures"]) on_path.insert(proc["name"]);
  EXPECT_TRUE(on_path.count("consume_items")) << p["critical_path"].dump();
  for (const std::string& name : on_path) EXPECT_EQ(name.find("std::"), std::string::npos) << name;
  const double recorded = p["base_s"];  // what the what-ifs are compared with
  // On one processor, its 0.63 s of processor time one after the other (it took about
  // 0.4 s on two).
  ASSERT_EQ(p["searches"].size(), 1u);
  EXPECT_GT(p["searches"][0]["best"][0]["predicted_s"].get<double>(), 1.2 * recorded);
  // Consumers that take no time leave the producer alone: 3000 x 60 us.
  ASSERT_EQ(p["procedures"].size(), 1u);
  const double free_consumers = p["procedures"][0]["predicted_s"];
  EXPECT_LT(free_consumers, 0.8 * recorded);
  EXPECT_GT(free_consumers, 0.9 * 3000 * 60e-6);
}

// A recording made while a CPU-bound process competed for the processors (issue 15 item
// 2): the threads were ready, not running, and a replay on the idle machine is 20-30% fast.
// Replayed with the capacity the other process left (measured during the run), the
// recorded configuration takes what the program's own clock says, within 10%. (imbalance's
// four threads keep both processors wanted; with two, the one that finishes early can absorb
// the competitor's turns, which the shared capacity does not see: up to 12% over.)
TEST_F(TraceE2E, ARecordingOnABusyMachineReplaysWithTheCapacityLeft) {
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "needs two processors";
  Competitors competitor(1);
  const CommandResult r = run_command({kQuartz, "run", "-q", "--trace", "--store", store, "--",
                                       sample("imbalance"), "--unit-ms", "50"});
  competitor.stop();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double elapsed_s = std::stod(printed_values(r.out)["elapsed_s"]);
  const CommandResult p = run_command({kQuartz, "predict", "--store", store, "--json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const json predictions = json::parse(p.out);
  // Whether the competitor took its turns is its own clock's to say (a precondition); the
  // share the run measured is then at least half of it.
  const double competed = competitor.cpu_s() / (competitor.life_s() *
                                                static_cast<double>(sysconf(_SC_NPROCESSORS_ONLN)));
  if (competed < 0.1)
    GTEST_SKIP() << "the competing process had " << competed << " of the processors";
  EXPECT_GT(predictions["other_share"].get<double>(), 0.5 * competed);
  const json& loaded = predictions["loaded"];
  ASSERT_TRUE(loaded.is_object()) << p.out;
  EXPECT_LT(loaded["processors"].get<double>(), 2.0);
  EXPECT_NEAR(loaded["predicted_s"].get<double>(), elapsed_s, 0.1 * elapsed_s) << p.out;
  bool said = false;
  for (const json& w : predictions["trust"]) said |= w["reason"] == "busy_machine";
  EXPECT_TRUE(said) << p.out;
}

// Of the processors' time while `run` ran, the share processes other than this one's
// children took: /proc/stat's busy time (steal too) less what the children used
// (getrusage of the reaped children), over the elapsed time times the processors.
template <typename Run>
double others_share_during(Run&& run) {
  auto busy_jiffies = [] {
    std::ifstream stat("/proc/stat");
    std::string cpu;
    uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
    return static_cast<double>(user + nice + system + irq + softirq + steal);
  };
  auto children_s = [] {
    rusage u{};
    getrusage(RUSAGE_CHILDREN, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
  };
  const double busy0 = busy_jiffies(), children0 = children_s();
  const auto start = std::chrono::steady_clock::now();
  run();
  const double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double others_s = (busy_jiffies() - busy0) / static_cast<double>(sysconf(_SC_CLK_TCK)) -
                          (children_s() - children0);
  return std::max(0.0, others_s) / (elapsed_s * static_cast<double>(sysconf(_SC_NPROCESSORS_ONLN)));
}

// The median elapsed time the program prints over three runs pinned as `placement` says;
// nothing when other processes took more than 5% of the processors during one.
std::optional<double> measured_pinned(const std::string& placement,
                                      const std::string& program_path) {
  std::vector<double> runs;
  for (int i = 0; i < 3; ++i) {
    CommandResult m;
    const double others = others_share_during([&] {
      m = run_command(
          {kQuartz, "run", "-q", "--no-profile", "--placement", placement, "--", program_path});
    });
    EXPECT_EQ(m.exit_code, 0) << m.err;
    if (others > 0.05) return std::nullopt;
    runs.push_back(std::stod(printed_values(m.out)["elapsed_s"]));
  }
  std::sort(runs.begin(), runs.end());
  return runs[1];
}

TEST_F(TraceE2E, AThreadPoolReplaysItsOwnRecording) {
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "needs two processors";
  // Three workers; 300 batches of 8 tasks of 100 to 300 us, each waited for. "0,1|*" puts
  // the submitter and one worker on one processor, two workers on the other.
  const QuietRecording r =
      record_quietly(store, program("thread_pool"),
                     {"--cores", "1", "--zero", "run_task", "--group", "0,1|*", "--cores", "2"});
  const json& p = r.predictions;
  ASSERT_FALSE(p.is_discarded());
  if (r.busy()) GTEST_SKIP() << "the machine is busy";
  EXPECT_EQ(p["trace"]["forced_waits"], 0);
  expect_replayed_as_it_ran(r);
  const double recorded = p["base_s"];  // what the what-ifs are compared with
  // One processor: the tasks' 0.48 s one after the other.
  ASSERT_EQ(p["searches"].size(), 2u);
  EXPECT_GT(p["searches"][0]["best"][0]["predicted_s"].get<double>(), 1.2 * recorded);
  // Free tasks leave only the hand-offs.
  ASSERT_EQ(p["procedures"].size(), 1u);
  EXPECT_LT(p["procedures"][0]["predicted_s"].get<double>(), 0.5 * recorded);
  // The grouping splits the pool: whichever worker is free takes the next task, so the one
  // with a processor nearly to itself takes more. Replayed with each worker keeping the
  // tasks it ran, it was 24-34% over the program's own clock.
  ASSERT_EQ(p["groupings"].size(), 1u);
  const json& split = p["groupings"][0];
  EXPECT_EQ(split["split_pools"], "pool_worker 1,2,3") << split.dump();
  const std::optional<double> measured = measured_pinned("0,1|*", program("thread_pool"));
  if (!measured) GTEST_SKIP() << "the machine got busy";
  EXPECT_NEAR(split["predicted_s"].get<double>(), *measured, 0.1 * *measured) << split.dump();
  EXPECT_GT(split["pinned_s"].get<double>(), split["predicted_s"].get<double>()) << split.dump();
  // The grouping onto two processors a search lists first splits the pool too (kept
  // together, the three workers share one), and runs as its answer says.
  const json& listed = p["searches"][1]["best"][0];
  EXPECT_EQ(listed["split_pools"], "pool_worker 1,2,3") << listed.dump();
  const std::optional<double> listed_measured =
      measured_pinned(listed["spec"].get<std::string>(), program("thread_pool"));
  if (!listed_measured) GTEST_SKIP() << "the machine got busy";
  EXPECT_NEAR(listed["predicted_s"].get<double>(), *listed_measured, 0.1 * *listed_measured)
      << listed.dump();
}

// Issue 15 items 4 and 5: every answer is the range the plausible scheduler models give.
// Truth from outside the replay: the program's own wall clock, recorded and run pinned as
// each grouping says (`quartz run --placement`, median of three runs). Unequal workers
// with a short shared lock, the program the issue's user tried: the grouping of the
// longest worker with the shortest was predicted 20-33% slow with one model. Skipped when
// other processes took more than 5% of the processors during the recording or a run.
//
// How often a measured time falls inside its range is a rate (the target is 90%), scored
// by bench/predict_accuracy.py over every sample's questions, these among them. A range's
// edges are the models' figures widened by the replay's residual error (3%, the largest
// error measured here where the models agree), so one run on another machine may fall
// just outside: a CI run measured "0,1,3|*" 3.2% below every model. What this test holds
// is what a user reads the ranges for: the recorded run inside its range, each grouping's
// most likely figure within 5% of its measured time (the issue's example was 20-33% off;
// -2.6 to +1.4% in 24 runs here), and the groupings measured in the order predicted.
TEST_F(TraceE2E, TheRangesPlaceTheMeasuredTimes) {
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "needs two processors";
  // Sanitized, the runtime's own work costs more (its sampler took 10.5% of a processor
  // recording this program, against 6.5% in Release): an ASan CI run predicted the
  // groupings 1-5% over the pinned runs.
  if (QUARTZ_SANITIZED) GTEST_SKIP() << "a sanitized runtime records this program differently";
  const std::vector<std::string> groupings{"0,1,4|*", "0,1,2|*", "0,1,3|*"};
  std::vector<std::string> questions;
  for (const std::string& g : groupings) questions.insert(questions.end(), {"--group", g});
  const QuietRecording r = record_quietly(store, program("unequal_workers"), questions);
  const json& p = r.predictions;
  ASSERT_FALSE(p.is_discarded());
  if (r.busy()) GTEST_SKIP() << "the machine is busy";
  ASSERT_GT(p["models"].size(), 1u);
  // The recorded configuration, by the program's own clock, inside its own range: no
  // further out than the noise of an elapsed time, where `predict` would caution.
  // (Since the check replays the sampler's share, the best model comes within 1-2% of the
  // clock, and the range's low end, its figure less the 3% residual, once missed by 0.01%.)
  const json& recorded = p["recorded_range"];
  EXPECT_GE(r.elapsed_s, recorded["low_s"].get<double>() * (1 - analysis::kOutsideRangeNoise))
      << recorded.dump();
  EXPECT_LE(r.elapsed_s, recorded["high_s"].get<double>() * (1 + analysis::kOutsideRangeNoise))
      << recorded.dump();
  // Each grouping, run pinned as it says.
  ASSERT_EQ(p["groupings"].size(), groupings.size());
  std::vector<double> measured;
  for (const std::string& g : groupings) {
    const std::optional<double> m = measured_pinned(g, program("unequal_workers"));
    if (!m) GTEST_SKIP() << "the machine got busy";
    measured.push_back(*m);
  }
  for (size_t i = 0; i < groupings.size(); ++i) {
    const json& g = p["groupings"][i];
    EXPECT_NEAR(g["predicted_s"].get<double>(), measured[i], 0.05 * measured[i])
        << groupings[i] << " " << g.dump();
    for (size_t j = i + 1; j < groupings.size(); ++j) {
      const bool predicted_faster = g["predicted_s"] < p["groupings"][j]["predicted_s"];
      EXPECT_EQ(predicted_faster, measured[i] < measured[j]) << groupings[i] << " " << groupings[j];
    }
  }
  // A grouping called best measured within 5% of the fastest measured; one not told
  // apart leaves the choice to the user.
  const json& verdict = p["groupings_best"];
  if (verdict["separated"].get<bool>()) {
    const double fastest = *std::min_element(measured.begin(), measured.end());
    EXPECT_LE(measured[verdict["best"].get<size_t>()], 1.05 * fastest) << verdict.dump();
  }
}

// The flow a user follows: record with --trace, ask for the best grouping onto fewer
// processors, apply it with --placement, and find the predicted time. pairs by
// construction: partners together on a processor beat partners apart. (How much apart
// costs depends on the pairs' relative phase, which the recording fixes: its prediction
// is not checked here; docs/performance.md has it.)
TEST_F(TraceE2E, TheBestGroupingAppliedRunsAsPredicted) {
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "needs two processors";
  const std::vector<std::string> args{"--rounds", "200"};
  std::vector<std::string> argv{kQuartz,   "run", "-q", "--trace",
                                "--store", store, "--", sample("pairs")};
  argv.insert(argv.end(), args.begin(), args.end());
  const CommandResult r = run_command(argv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json p = predict({"--cores", "2"});
  ASSERT_FALSE(p.is_discarded());
  ASSERT_EQ(p["searches"].size(), 1u);
  const json& best = p["searches"][0]["best"][0];
  const std::string spec = best["spec"];
  const double best_s = best["predicted_s"];
  // Each pair together: ping_0 (1) with pong_0 (2), ping_1 (3) with pong_1 (4).
  const bool together =
      (spec.find("1,2") != std::string::npos && spec.find("3,4") != std::string::npos);
  EXPECT_TRUE(together) << spec;
  auto measured = [&](const std::string& placement) {
    std::vector<std::string> run{kQuartz,       "run",     "-q", "--no-profile",
                                 "--placement", placement, "--", sample("pairs")};
    run.insert(run.end(), args.begin(), args.end());
    const CommandResult m = run_command(run);
    EXPECT_EQ(m.exit_code, 0) << m.err;
    return std::stod(printed_values(m.out)["elapsed_s"]);
  };
  const double best_measured = measured(spec),
               apart_measured = measured("0,1,3|2,4");  // pings | pongs
  // Wide bounds: the machine running the tests may be busy.
  EXPECT_NEAR(best_s, best_measured, 0.25 * best_measured);
  EXPECT_GT(apart_measured, 1.1 * best_measured);
}

TEST_F(TraceE2E, PlacementPinsThreadsAsTheGroupingSays) {
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "needs two processors";
  auto cpus_of = [](const std::string& out) {
    std::map<std::string, std::string> cpus;
    for (const auto& [key, value] : printed_values(out)) (void)key, (void)value;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
      const auto name = line.find("thread="), list = line.find("cpus=");
      if (name == std::string::npos || list == std::string::npos) continue;
      cpus[line.substr(name + 7, line.find(' ', name) - name - 7)] = line.substr(list + 5);
    }
    return cpus;
  };
  // By name (workers rename themselves: placed again when they do), without profiling.
  CommandResult r = run_command(
      {kQuartz, "run", "--placement", "main,0|w*", "--no-profile", "--", program("affinity")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto cpus = cpus_of(r.out);
  EXPECT_EQ(cpus["main"], "0") << r.out;
  EXPECT_EQ(cpus["w0"], "1") << r.out;
  EXPECT_EQ(cpus["w2"], "1") << r.out;
  // By index and '*', with profiling.
  r = run_command(
      {kQuartz, "run", "--store", store, "--placement", "2|*", "--", program("affinity")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  cpus = cpus_of(r.out);
  EXPECT_EQ(cpus["w1"], "0") << r.out;  // thread index 2
  EXPECT_EQ(cpus["main"], "1") << r.out;
  EXPECT_EQ(cpus["w0"], "1") << r.out;
  // P is the processors the program may use, not those its main thread was pinned to (the
  // sampler, created by it, inherits its pin; it read P = 1).
  cpu_set_t own;
  ASSERT_EQ(sched_getaffinity(0, sizeof own, &own), 0);
  const CommandResult report = run_command({kQuartz, "report", "--store", store, "--json"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(json::parse(report.out)["processors"].get<int>(), CPU_COUNT(&own));
}

// Recorded beside CPU-bound processes of the test's own (issue 15 item 3): the predictions
// say first that the machine was busy, in text and JSON, and the report says how much the
// others took.
TEST_F(TraceE2E, APredictionRecordedOnABusyMachineSaysSoFirst) {
  Competitors competitors;
  const CommandResult r = run_command({kQuartz, "run", "-q", "--trace", "--store", store, "--",
                                       sample("lock_contention"), "--iterations", "300"});
  competitors.stop();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json p = predict({});
  ASSERT_FALSE(p.is_discarded());
  bool busy = false;
  for (const json& w : p["trust"]) busy |= w["reason"] == "busy_machine";
  EXPECT_TRUE(busy) << p["trust"].dump(1);
  EXPECT_GT(p["other_share"].get<double>(), 0.2) << "one competitor per processor";
  const CommandResult text = run_command({kQuartz, "predict", "--store", store});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  const size_t caution = text.out.find("CAUTION");
  ASSERT_NE(caution, std::string::npos) << text.out;
  EXPECT_LT(caution, text.out.find("Critical path")) << "before any prediction";
}

// A thread waiting for a signal from its start until main sends it: in sigwait until a
// pthread_kill, as pbzip2's signal thread (whose untraced wait held every grouping of
// pbzip2 onto two processors at +0.0%), or in sigsuspend until a kill of the process, as
// lbzip2's main thread. The wait follows the signal in the replay, so the critical path
// runs through the workers, and a program without their work is predicted without the
// wait. Truth: the waiting thread's own clock.
class SignalWaits : public TraceE2E, public ::testing::WithParamInterface<const char*> {};

TEST_P(SignalWaits, AThreadWaitingForASignalWaitsForTheThreadThatSendsIt) {
  const CommandResult r =
      run_command({kQuartz, "run", "-q", "--trace", "--store", store, "--",
                   program("signal_thread"), "--work-ms", "400", "--suspend", GetParam()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double sigwait_s = std::stod(printed_values(r.out)["sigwait_s"]);
  ASSERT_GT(sigwait_s, 0.36) << "it waited while the workers computed";
  const json p = predict({"--zero", "crunch"});
  ASSERT_FALSE(p.is_discarded());
  EXPECT_EQ(p["trace"]["forced_waits"], 0);
  EXPECT_LT(p["critical_path"]["delay_s"].get<double>(), 0.1 * sigwait_s) << p.dump(1);
  ASSERT_EQ(p["procedures"].size(), 1u);
  EXPECT_LT(p["procedures"][0]["predicted_s"].get<double>(), 0.1 * sigwait_s) << p.dump(1);
}

INSTANTIATE_TEST_SUITE_P(SigwaitAndSigsuspend, SignalWaits, ::testing::Values("0", "1"),
                         [](const auto& info) {
                           return std::string(info.param[0] == '1' ? "sigsuspend_kill"
                                                                   : "sigwait_pthread_kill");
                         });

// A critical path mostly off the processor (threads waiting in the kernel for what the
// trace does not show: here I/O, a nanosleep) bounds every answer by time no replay
// changes: the predictions say so first; with no such waits, they do not. Truth: the
// program's own clocks of its threads' time in I/O.
TEST_F(TraceE2E, ACriticalPathMostlyOffTheProcessorIsSaidFirst) {
  auto record = [&](const char* io_ms) {
    const CommandResult r =
        run_command({kQuartz, "run", "-q", "--trace", "--store", store, "--", sample("io_wait"),
                     "--sleep", "1", "--compute-ms", "4", "--io-ms", io_ms, "--rounds", "20"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, std::string> v = printed_values(r.out);
    return std::stod(v["io_s"]) / 2 / std::stod(v["elapsed_s"]);  // two workers
  };
  auto said = [](const json& p) {
    for (const json& w : p["trust"]) {
      if (w["reason"] == "path_off_processor") return true;
    }
    return false;
  };
  const double in_io = record("16");
  ASSERT_GT(in_io, 0.6) << "each worker's own clock: mostly in I/O";
  const json p = predict({});
  ASSERT_FALSE(p.is_discarded());
  EXPECT_TRUE(said(p)) << p["trust"].dump(1);
  const CommandResult text = run_command({kQuartz, "predict", "--store", store});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  const size_t caution = text.out.find("CAUTION");
  ASSERT_NE(caution, std::string::npos) << text.out;
  EXPECT_LT(caution, text.out.find("Critical path")) << "before any prediction";
  EXPECT_LT(record("0"), 0.1);
  const json busy = predict({});
  ASSERT_FALSE(busy.is_discarded());
  EXPECT_FALSE(said(busy)) << busy["trust"].dump(1);
}

// Queues too small for the drain period: events are lost, counted, and predictions refused
// unless asked for anyway.
TEST_F(TraceE2E, ATraceThatLostEventsIsRefusedUnlessAllowed) {
  const CommandResult r =
      run_command({kQuartz, "run", "--trace", "--trace-capacity", "64", "--period-us", "200000",
                   "--store", store, "--", sample("lock_contention"), "--iterations", "300"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const CommandResult report = run_command({kQuartz, "report", "--store", store});
  EXPECT_NE(report.out.find("DROPPED"), std::string::npos) << report.out;
  const CommandResult refused = run_command({kQuartz, "predict", "--store", store});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("lost"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--allow-drops"), std::string::npos) << refused.err;
  const json p = predict({"--allow-drops"});
  ASSERT_FALSE(p.is_discarded());
  EXPECT_GT(p["trace"]["dropped"].get<uint64_t>(), 0u);
}

TEST_F(TraceE2E, BadQuestionsGiveOneLineAndStatusTwo) {
  auto expect_error = [](const CommandResult& r, const std::string& fragment) {
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
  };
  expect_error(run_command({kQuartz, "run", "--placement", "0||1", "--", "/bin/true"}), "empty");
  expect_error(run_command({kQuartz, "run", "--trace", "--no-profile", "--", "/bin/true"}),
               "--trace");
  // A run without a trace.
  ASSERT_EQ(run_command({kQuartz, "run", "--store", store, "--", sample("lock_contention"),
                         "--iterations", "20"})
                .exit_code,
            0);
  expect_error(run_command({kQuartz, "predict", "--store", store}), "no trace");
  // A traced one, asked bad questions.
  const std::string capture = (dir / "lc.qcap").string();
  ASSERT_EQ(run_command({kQuartz, "run", "--trace", "--store", store, "-o", capture, "--",
                         sample("lock_contention"), "--iterations", "20"})
                .exit_code,
            0);
  expect_error(run_command({kQuartz, "predict", "--store", store, "--group", "0|nobody"}),
               "names no thread");
  expect_error(run_command({kQuartz, "predict", "--store", store, "--group", "0|1"}),
               "in no group");
  expect_error(run_command({kQuartz, "predict", "--store", store, "--zero", "no_such_procedure"}),
               "no procedure");
  expect_error(run_command({kQuartz, "predict", "--store", store, "--speedup", "worker"}),
               "PROC=PCT");
  expect_error(run_command({kQuartz, "predict", "--store", store, "--speedup", "worker=0"}), "PCT");
  expect_error(run_command({kQuartz, "predict", "--store", store, "--cores", "0"}), "--cores");
  // The capture's own trace file, damaged.
  EXPECT_EQ(run_command({kQuartz, "predict", capture, "--no-save"}).exit_code, 0);
  std::fstream trace(capture + ".trace", std::ios::in | std::ios::out | std::ios::binary);
  trace.seekp(40);
  trace.put('\x5a');
  trace.close();
  expect_error(run_command({kQuartz, "predict", capture, "--no-save"}), "offset");
  fs::remove(capture + ".trace");
  expect_error(run_command({kQuartz, "predict", capture}), "no trace");
}

}  // namespace
}  // namespace quartz::test

// End-to-end: `quartz run` on the samples, then `quartz report --json`; each sample's truth
// (printed by the sample itself, or known by construction) must be what the profile shows.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "harness.h"
#include "invariants.h"

namespace quartz::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

class ProfileE2E : public ScratchTest {
 protected:
  // quartz run [flags] -- sample args; returns the run's output (the sample's own truths).
  CommandResult profile(const std::string& name, const std::vector<std::string>& args,
                        const std::vector<std::string>& flags = {}) {
    const std::string capture = (dir / (name + ".qcap")).string();
    std::vector<std::string> argv{kQuartz, "run", "--store", store, "-o", capture};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.push_back("--");
    argv.push_back(sample(name));
    argv.insert(argv.end(), args.begin(), args.end());
    CommandResult r = run_command(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    // Whatever else the test asks, every sample's figures are possible ones.
    if (const std::optional<Capture> kept = read_capture_file(capture)) {
      expect_possible_figures(kept->run);
    }
    return r;
  }
  json report(const std::string& which = "latest") {
    const CommandResult r = run_command({kQuartz, "report", "--store", store, "--json", which});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  }
  static const json* find(const json& rows, const std::string& name) {
    for (const json& row : rows) {
      if (row["name"] == name) return &row;
    }
    return nullptr;
  }
  // 1-based rank of `name` in `rows` ordered by `key`, descending.
  static size_t rank_by(const json& rows, const std::string& name, const std::string& key) {
    const json* row = find(rows, name);
    if (!row) return 0;
    size_t rank = 1;
    for (const json& other : rows) rank += other[key].get<double>() > (*row)[key].get<double>();
    return rank;
  }
};

double value(const std::string& out, const std::string& key) {
  const auto values = printed_values(out);
  auto it = values.find(key);
  EXPECT_NE(it, values.end()) << "the sample did not print " << key;
  return it == values.end() ? 0 : std::strtod(it->second.c_str(), nullptr);
}

// The run's elapsed time, the program's normalized time, its parallelism histogram and
// main's normalized time are each the time the program took by its own wall clock (its
// serial and parallel phases, which it times from main's start to its end), to within the
// sampling period and the runtime's start and exit around main.
TEST_F(ProfileE2E, RootNormalizedTimeIsTheProgramsElapsedTime) {
  const CommandResult run = profile("serial_init", {});
  const double program_s = value(run.out, "serial_s") + value(run.out, "parallel_s");
  const json r = report();
  ASSERT_FALSE(r.is_discarded());
  const double period = r["sampling"]["period_s"];
  const double slack = std::max(0.02 * program_s, 3 * period);
  EXPECT_GT(program_s, 0.5);
  EXPECT_GE(r["elapsed_s"].get<double>(), program_s - period);
  EXPECT_NEAR(r["elapsed_s"].get<double>(), program_s, slack);
  EXPECT_NEAR(r["program_totals"]["normalized_s"].get<double>(), program_s, slack);
  double histogram = 0;
  for (double t : r["parallelism_s"]) histogram += t;
  EXPECT_NEAR(histogram, program_s, slack);
  // Everything after the runtime started is on behalf of main (threads inherit its stack).
  const json* main_row = find(r["procedures"], "main");
  ASSERT_NE(main_row, nullptr);
  EXPECT_NEAR((*main_row)["normalized_s"].get<double>(), program_s, slack);
  EXPECT_TRUE(r["final"]);
}

TEST_F(ProfileE2E, SerialInitRanksTheLoggingRoutineByItsCostToElapsedTime) {
  const CommandResult run = profile("serial_init", {});
  const json r = report();
  ASSERT_FALSE(r.is_discarded());
  // How close the "one processor busy" share comes to the serial phase the program timed
  // is a benchmark figure (bench/serial_share.sh, docs/performance.md): with the sampler
  // sharing two processors it is 0.1 to 6 points over, from run to run.
  // A kernel alone weighs double: each second other processes take from one worker adds
  // half a second to the other's kernel, and past twice log_message's lead (its processor
  // time over a kernel's half) a kernel may rank above it, which is then right. Such a
  // run says nothing of the ranking: skipped (counted; more than two skips fail the
  // accuracy tests).
  const double lead_s = value(run.out, "log_cpu_s") - value(run.out, "kernel_cpu_max_s") / 2;
  const double other_s =
      r["sampling"]["other_cpu_s"].is_number() ? r["sampling"]["other_cpu_s"].get<double>() : 0.0;
  if (other_s > 2 * lead_s) {
    GTEST_SKIP() << "other processes took " << other_s << " s, log_message's lead is " << lead_s
                 << " s";
  }
  const json& procedures = r["procedures"];
  const size_t rank = rank_by(procedures, "log_message", "normalized_s");
  // Quartz's point: under 5% of the processor time, yet among the top three by normalized
  // time; below every kernel by processor time.
  EXPECT_LT(value(run.out, "log_cpu_s") / value(run.out, "total_cpu_s"), 0.05);
  EXPECT_LE(rank, 3u);
  EXPECT_GT(rank_by(procedures, "log_message", "processor_s"), 16u);
  const json* log = find(procedures, "log_message");
  ASSERT_NE(log, nullptr);
  EXPECT_EQ((*log)["calls"], 1000);
  EXPECT_NEAR((*log)["processor_s"].get<double>(), value(run.out, "log_cpu_s"),
              0.25 * value(run.out, "log_cpu_s"));
  // Its normalized time sits in the "one processor busy" bin.
  EXPECT_GT((*log)["histogram_s"][1].get<double>(), 0.8 * (*log)["normalized_s"].get<double>());
  // The sampler's own thread is not among the program's threads: main and two workers.
  EXPECT_EQ(r["threads"].size(), 3u);
}

TEST_F(ProfileE2E, TheContendedLockRanksFirst) {
  const CommandResult run = profile("lock_contention", {});
  const json r = report();
  ASSERT_FALSE(r.is_discarded());
  ASSERT_FALSE(r["locks"].empty());
  const json& lock = r["locks"][0];
  const double held_s = value(run.out, "held_s"), hold_s = lock["hold_s"];
  // Held at least for the processor time spent inside (longer when a holder is
  // preempted), and by one thread at a time: never longer than the run.
  const double at_least = (1 - 0.1 * kSlack) * held_s;
  EXPECT_EQ(lock["name"], "work_queue");
  EXPECT_EQ(lock["acquisitions"], 6000);
  EXPECT_GT(lock["contended"].get<double>(), 0.3 * 6000);
  EXPECT_GT(hold_s, at_least);
  EXPECT_LT(hold_s, 1.02 * r["elapsed_s"].get<double>());
  EXPECT_GT(lock["wait_s"].get<double>(), 0.5 * held_s);
  EXPECT_GT(lock["mean_queue"].get<double>(), 0.5);
}

// No object shows more threads waiting for it than can: of an object's three users one
// holds it, signals or posts it, or is the barrier's last arrival (a rwlock of 4 threads
// read "4 waiting", issue 38; a barrier's released parties looked waiting beside the next
// round's). Truth by construction: queue_bounds gives each kind of object three users,
// beside other threads, so that each snapshot sees more threads than any object has.
TEST_F(ProfileE2E, NoObjectQueuesMoreThreadsThanCanWaitForIt) {
  const std::string capture = (dir / "queues.qcap").string();
  const CommandResult run = run_command({kQuartz, "run", "--store", store, "-o", capture, "--",
                                         std::string(QUARTZ_E2E_DIR) + "/queue_bounds"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  if (const std::optional<Capture> kept = read_capture_file(capture)) {
    expect_possible_figures(kept->run);
  }
  const json r = report();
  ASSERT_FALSE(r.is_discarded());
  constexpr size_t kUsers = 3;
  for (const char* name :
       {"mutex_of_3", "spin_of_3", "rwlock_of_3", "cond_of_3", "barrier_of_3", "sem_of_3"}) {
    SCOPED_TRACE(name);
    const json* object = find(r["locks"], name);
    ASSERT_NE(object, nullptr);
    const std::vector<double> queue = (*object)["queue_s"].get<std::vector<double>>();
    double waited_s = 0;
    for (size_t waiting = 1; waiting < queue.size(); ++waiting) {
      if (waiting < kUsers) {
        waited_s += queue[waiting];
      } else {
        EXPECT_EQ(queue[waiting], 0) << waiting << " waiting: " << object->dump();
      }
    }
    EXPECT_GT(waited_s, 0) << "never seen waited for: " << object->dump();
  }
}

// A mutex released into a condition wait is not held while the thread waits, however many
// of the program's procedures lie between them (pbzip2's own wrapper around
// pthread_cond_timedwait had its mutex "held" 3.1 s of a 3.1 s run). Truth: the waiter's own
// clock of its hold, its wait left out.
TEST_F(ProfileE2E, AMutexIsNotHeldWhileItsThreadWaitsOnAConditionInAWrapper) {
  const std::string capture = (dir / "wrapper.qcap").string();
  const CommandResult run = run_command({kQuartz, "run", "--store", store, "-o", capture, "--",
                                         std::string(QUARTZ_E2E_DIR) + "/condition_wrapper"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json r = report();
  ASSERT_FALSE(r.is_discarded());
  const json* lock = find(r["locks"], "guarded");
  ASSERT_NE(lock, nullptr) << r["locks"].dump();
  const double period_s = r["sampling"]["period_s"];
  EXPECT_GT(value(run.out, "waited_s"), 0.25);
  // A snapshot that sees it held charges it a period, or more when the sampler wakes late:
  // under a sanitizer it runs several times slower (kSlack: an ASan CI run charged 5.1 ms
  // against a bound of 4.0).
  EXPECT_LT((*lock)["hold_s"].get<double>(), value(run.out, "held_s") + 2 * kSlack * period_s)
      << "waited " << value(run.out, "waited_s") << " s";
}

TEST_F(ProfileE2E, ProcessorTimeInsideAndOutsideALockWithPhasesLongerThanThePeriod) {
  // 5 ms of work outside and 5 ms inside the lock per iteration, the period 2 ms: both
  // procedures use the same processor time. (With phases shorter than the sampling period,
  // processor time is shared out in proportion to the time each phase is seen;
  // docs/user-guide.md.)
  profile("lock_contention", {"--work-us", "5000", "--hold-us", "5000", "--iterations", "40"});
  const json r = report();
  const json* inside = find(r["procedures"], "update_shared_state");
  const json* outside = find(r["procedures"], "do_private_work");
  ASSERT_TRUE(inside && outside) << r["procedures"].dump();
  for (const json* p : {inside, outside}) EXPECT_NEAR((*p)["processor_s"].get<double>(), 0.8, 0.12);
  ASSERT_FALSE(r["locks"].empty());
  EXPECT_GT(r["locks"][0]["hold_s"].get<double>(), 0.9 * 0.8);
  EXPECT_LT(r["locks"][0]["hold_s"].get<double>(), 1.02 * r["elapsed_s"].get<double>());
}

TEST_F(ProfileE2E, SpinningAndPollingAreSpinAndBlockingIsBlocked) {
  const CommandResult run = profile("spin_vs_block", {});
  const json r = report();
  ASSERT_FALSE(r.is_discarded());
  // A procedure whose waits the program timed at `wait` s spent them spinning (or ready to
  // spin), not busy.
  const auto expect_spinning = [&](const char* name, double wait) {
    const json* p = find(r["procedures"], name);
    ASSERT_NE(p, nullptr) << name;
    const json& state = (*p)["state_s"];
    EXPECT_NEAR(state["spinning"].get<double>() + state["ready"].get<double>(), wait, 0.3 * wait)
        << name;
    EXPECT_LT(state["busy"].get<double>(), 0.1 * wait) << name;
    EXPECT_LT((*p)["normalized_self_s"].get<double>(), 0.1 * wait) << name;
  };
  expect_spinning("wait_spinning", value(run.out, "spin_wait_s"));
  // A thread polling a flag with sched_yield between looks is spinning too.
  expect_spinning("wait_polling", value(run.out, "poll_wait_s"));
  const json* blocked = find(r["procedures"], "wait_blocked");
  ASSERT_NE(blocked, nullptr);
  const double block_wait = value(run.out, "block_wait_s");
  EXPECT_NEAR((*blocked)["state_s"]["blocked"].get<double>(), block_wait, 0.3 * block_wait);
  EXPECT_LT((*blocked)["state_s"]["spinning"].get<double>(), 0.05 * block_wait);
}

// Threads that hand work back and forth many times per sampling interval (pairs: 0.75 ms
// turns) keep their processors busy between the snapshots that find them waiting. The
// capacity the program left unused, P x elapsed less its threads' CPU clocks, is what the
// histogram of processors busy says went unused: sum of (P - i) x time with i busy.
// Crediting the time run before a wait to the snapshot before showed 28% too much; rounding
// each snapshot's processors busy to a whole number, and dropping what the clocks credited
// an interval beyond P, 2-10% of elapsed too much. Now 0.6-1.7%, beside a CPU hog too; under
// ASan 1.6-4.6% (a sanitizer gets twice the bound).
TEST_F(ProfileE2E, ProcessorsBusyAddUpToTheThreadsClocks) {
  const CommandResult run = profile("pairs", {"--rounds", "200"});
  const json r = report();
  ASSERT_FALSE(r.is_discarded());
  const double processors = r["processors"];
  const std::vector<double> busy = r["parallelism_s"];
  ASSERT_EQ(busy.size(), 3u) << "two processors";
  double unused_s = 0;
  for (size_t i = 0; i < busy.size(); ++i) unused_s += (processors - i) * busy[i];
  const double elapsed_s = value(run.out, "elapsed_s");
  EXPECT_NEAR(unused_s, processors * elapsed_s - value(run.out, "threads_cpu_s"),
              0.05 * kSlack * elapsed_s);
}

// gcc specialises pairs' pass_token and wait_for_turn for ping's and pong's constant
// arguments (".constprop.0", ".constprop.1"): each copy has an entry of its own, and the
// report shows one procedure with the calls the program made, 2 x pairs x rounds.
TEST_F(ProfileE2E, ACompilersCopiesOfAFunctionAreOneProcedure) {
  const CommandResult symbols = run_command({"/usr/bin/nm", sample("pairs")});
  ASSERT_EQ(symbols.exit_code, 0) << symbols.err;
  size_t copies = 0;
  for (size_t at = 0; (at = symbols.out.find(" pass_token.", at)) != std::string::npos; ++at) {
    ++copies;
  }
  if (copies < 2) GTEST_SKIP() << "this compiler made no copies of pass_token";
  profile("pairs", {"--rounds", "200"});
  const json r = report();
  ASSERT_FALSE(r.is_discarded());
  for (const std::string name : {"pass_token", "wait_for_turn"}) {
    int rows = 0;
    for (const json& p : r["procedures"]) rows += p["name"] == name;
    EXPECT_EQ(rows, 1) << name;
  }
  EXPECT_EQ((*find(r["procedures"], "pass_token"))["calls"], 2 * 2 * 200);
}

TEST_F(ProfileE2E, WaitingForInputOutputIsNotBusy) {
  const CommandResult run = profile("io_wait", {});
  const json r = report();
  ASSERT_FALSE(r.is_discarded());
  const json* io = find(r["procedures"], "wait_for_io");
  const json* compute = find(r["procedures"], "do_compute");
  ASSERT_TRUE(io && compute);
  const double io_s = value(run.out, "io_s");
  const double compute_s =
      2 * 50 * 0.010;  // processor time by construction: 2 threads x 50 x 10 ms
  // A snapshot credits a thread the processor time it used since the one before, to where
  // it is now: each of the 2 x 50 waits starts in a snapshot interval that may hold up to
  // the interval's time of do_compute, so wait_for_io is busy its own CPU time (io_cpu_s)
  // plus less than 100 mean intervals (the sampler's, late on a loaded machine).
  const double mean_interval_s =
      r["elapsed_s"].get<double>() / r["sampling"]["samples"].get<double>();
  const double busy_bound_s = value(run.out, "io_cpu_s") + 2 * 50 * mean_interval_s;
  EXPECT_LT((*io)["state_s"]["busy"].get<double>(), busy_bound_s);
  EXPECT_GT((*io)["state_s"]["blocked"].get<double>(), 0.6 * io_s);
  EXPECT_LT((*io)["processor_s"].get<double>(), busy_bound_s);
  EXPECT_NEAR((*compute)["processor_s"].get<double>(), compute_s, 0.25 * compute_s);
}

TEST_F(ProfileE2E, ProcessorsComeFromTheCpuset) {
  const CommandResult r = run_command({"/usr/bin/taskset", "-c", "0", kQuartz, "run", "--store",
                                       store, "--", sample("imbalance"), "--unit-ms", "50"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = report();
  EXPECT_EQ(j["processors"], 1);
  EXPECT_EQ(j["parallelism_s"].size(), 2u);
}

TEST_F(ProfileE2E, ReservingACoreLeavesTheProgramTheOthers) {
  profile("imbalance", {"--unit-ms", "50"}, {"--reserve"});
  const json j = report();
  EXPECT_EQ(j["processors"], 1);  // two processors here, one reserved
  EXPECT_TRUE(j["sampling"]["reserved_core"]);
  profile("imbalance", {"--unit-ms", "50"}, {"--no-reserve"});
  const json k = report();
  EXPECT_EQ(k["processors"], std::thread::hardware_concurrency());
  EXPECT_FALSE(k["sampling"]["reserved_core"]);
}

TEST_F(ProfileE2E, ExitStatusIsTheProgramsAndRunsAreListed) {
  const CommandResult r = run_command(
      {kQuartz, "run", "--store", store, "--", sample("imbalance"), "--no-such-flag", "1"});
  EXPECT_EQ(r.exit_code, 2);  // the sample rejects the flag; quartz passes its status on
  profile("imbalance", {"--unit-ms", "20"});
  const CommandResult list = run_command({kQuartz, "list", "--store", store});
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_NE(list.out.find("imbalance"), std::string::npos) << list.out;
}

// The text report's call graph has a block for each of its --top procedures that call
// others, and nothing else (it builds their children alone: a run of millions of contexts
// would otherwise build them all). imbalance's main starts 4 workers (its threads run on
// its behalf), each of which calls do_share once; do_share calls nothing.
// A call made while a lock is held counts from the procedure that holds it, as the call
// graph takes a context's caller. The runtime counted it from the lock: the context below
// the lock read 0 calls, and a program holding each of 125,000 mutexes in turn while it
// called one procedure made 125,000 edges. The truth: the program's own count of its calls.
TEST_F(ProfileE2E, ACallMadeHoldingALockCountsFromItsHolder) {
  const CommandResult run = run_command({kQuartz, "run", "--store", store, "--",
                                         std::string(QUARTZ_E2E_DIR) + "/calls_in_holds", "5000"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json r = report();
  ASSERT_FALSE(r.is_discarded());
  for (const std::string name : {"update_inside", "update_outside"}) {
    const double made = value(run.out, name.substr(7) + "_calls");
    const json* procedure = find(r["procedures"], name);
    ASSERT_NE(procedure, nullptr) << name;
    EXPECT_EQ((*procedure)["calls"].get<double>(), made) << name;
    double in_contexts = 0;
    for (const json& c : r["contexts"])
      in_contexts += c["name"] == name ? c["calls"].get<double>() : 0;
    EXPECT_EQ(in_contexts, made) << name << " in its contexts";
  }
}

TEST_F(ProfileE2E, TheTextCallGraphShowsTheTopProceduresThatCallOthers) {
  profile("imbalance", {"--unit-ms", "20"});
  // Each block of the call graph: its procedure, then each child's name and calls.
  auto call_graph = [&](const char* top) {
    const CommandResult r = run_command({kQuartz, "report", "--store", store, "--top", top});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, std::map<std::string, std::string>> blocks;
    std::istringstream lines(r.out.substr(r.out.find("Call graph, top-down")));
    std::string line, block;
    std::getline(lines, line);
    std::getline(lines, line);
    while (std::getline(lines, line) && (line.empty() || line[0] == ' ')) {
      if (line.rfind("  ", 0) == 0 && line.size() > 2 && line[2] != ' ') {
        block = line.substr(2, line.find("  ", 2) - 2);
        blocks[block];
      } else if (line.rfind("      ", 0) == 0) {
        // "      122.60 ms  96.5%         4  worker": time, share, calls (if any), name.
        std::istringstream words(line);
        std::string value, unit, percent, calls, name;
        words >> value >> unit >> percent >> calls;
        std::getline(words >> std::ws, name);
        if (!name.empty()) blocks[block][name] = calls;
      }
    }
    return blocks;
  };
  auto names = [](const auto& blocks) {
    std::string all;
    for (const auto& [name, children] : blocks) all += name + "; ";
    return all;
  };
  const auto one = call_graph("1");
  EXPECT_EQ(one.size(), 2u);  // <program>, main
  ASSERT_TRUE(one.count("main")) << names(one);
  EXPECT_EQ(one.at("main").count("worker") ? one.at("main").at("worker") : "", "4");
  const auto two = call_graph("2");
  EXPECT_EQ(two.size(), 3u) << names(two);  // and worker; do_share calls nothing
  ASSERT_TRUE(two.count("worker")) << names(two);
  EXPECT_EQ(two.at("worker").count("do_share") ? two.at("worker").at("do_share") : "", "4");
}

TEST_F(ProfileE2E, BadInputGivesOneLineAndStatusTwo) {
  auto expect_error = [](const CommandResult& r, const std::string& fragment) {
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
  };
  expect_error(run_command({kQuartz, "frobnicate"}), "unknown command");
  expect_error(run_command({kQuartz, "run", "--period-us", "0", "--", "/bin/true"}), "--period-us");
  const CommandResult missing = run_command({kQuartz, "run", "--", "/no/such/program"});
  EXPECT_EQ(missing.exit_code, 127) << missing.err;  // a shell's status for "not found"
  EXPECT_NE(missing.err.find("cannot execute"), std::string::npos) << missing.err;
  expect_error(run_command({kQuartz, "report", "--store", store, "17"}), "no store");
  expect_error(run_command({kQuartz, "report", (dir / "missing.qcap").string()}), "neither");

  // A capture, then damaged copies of it.
  const std::string capture = (dir / "good.qcap").string();
  profile("imbalance", {"--unit-ms", "20"}, {"--output", capture});
  std::ifstream in(capture, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 200u);
  auto write = [&](const std::string& name, const std::string& content) {
    const std::string path = (dir / name).string();
    std::ofstream(path, std::ios::binary) << content;
    return path;
  };
  expect_error(
      run_command({kQuartz, "report", write("truncated.qcap", bytes.substr(0, bytes.size() / 2))}),
      "offset");
  std::string flipped = bytes;
  flipped[flipped.size() / 2] ^= 0x5a;
  expect_error(run_command({kQuartz, "report", write("flipped.qcap", flipped)}), "offset");
  expect_error(run_command({kQuartz, "report", write("empty.qcap", "")}), "neither");
  expect_error(run_command({kQuartz, "report", write("text.qcap", "QUARTZC1 but not really")}),
               "offset");
  expect_error(
      run_command({kQuartz, "import", "--store", store, write("junk.qcap", std::string(100, 'x'))}),
      "not a Quartz capture");
  EXPECT_EQ(run_command({kQuartz, "report", capture}).exit_code, 0);
}

TEST_F(ProfileE2E, QuartzCcBuildsAProgramQuartzCanNameDownToTheLine) {
  const std::string source = (dir / "tiny.c").string();
  std::ofstream(source) << "#include <pthread.h>\n"
                           "static volatile long sink;\n"
                           // line 3: a static function, kept one (called once, gcc
                           // would inline it, and no entry of its own would remain)
                           "__attribute__((noinline)) static void crunch(long n) {\n"
                           "  for (long i = 0; i < n; i++) sink += i;\n"
                           "}\n"
                           "void* work(void* arg) {\n"
                           "  for (int i = 0; i < 50; i++) crunch(2000000);\n"
                           "  return arg;\n"
                           "}\n"
                           "int main(void) {\n"
                           "  pthread_t t;\n"
                           "  pthread_create(&t, 0, work, 0);\n"
                           "  work(0);\n"
                           "  pthread_join(t, 0);\n"
                           "  return 0;\n"
                           "}\n";
  const std::string program = (dir / "tiny").string();
  const CommandResult cc = run_command(
      {std::string(QUARTZ_BIN_DIR) + "/quartz-cc", "-O1", "-o", program, source, "-pthread"});
  ASSERT_EQ(cc.exit_code, 0) << cc.err;
  const CommandResult run = run_command({kQuartz, "run", "--store", store, "--", program});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json r = report();
  const json* crunch = find(r["procedures"], "crunch");
  ASSERT_NE(crunch, nullptr);
  EXPECT_EQ((*crunch)["calls"], 100);
  EXPECT_EQ((*crunch)["location"], "tiny.c:3");
  EXPECT_GT((*crunch)["processor_s"].get<double>(),
            0.8 * (*find(r["procedures"], "main"))["processor_s"].get<double>());
  // The join is named by the thread it waits for.
  bool join_named = false;
  for (const json& l : r["locks"])
    join_named |= l["name"].get<std::string>().rfind("join ", 0) == 0 &&
                  l["name"].get<std::string>().find("(thread 1)") != std::string::npos;
  EXPECT_TRUE(join_named) << r["locks"].dump();
}

// Diagnosis (issue 11): a balanced program (pairs: each pair needs one processor, and has
// one) has no finding above a low severity. Each sample's own problem is its first finding:
// diagnosis_e2e_test.cpp.
TEST_F(ProfileE2E, DiagnosisFindsNoProblemInABalancedProgram) {
  const CommandResult run = profile("pairs", {"--rounds", "200"});
  std::map<std::string, std::string> truth = printed_values(run.out);
  const double ready_s = std::stod(truth["threads_ready_s"]);
  const double capacity_s = 2 * std::stod(truth["elapsed_s"]);
  const CommandResult d = run_command({kQuartz, "diagnose", "--store", store, "--json"});
  const json pairs = json::parse(d.out);  // the loop's range must outlive it
  for (const json& f : pairs["findings"]) {
    if (f["property"] == "oversubscription" && ready_s >= 0) {
      // A token handed over wakes a thread while the one that handed it still runs: the
      // four threads are at times three runnable on two processors: a real oversubscription,
      // 6-9% of the processors' time on a quiet machine and 10.0-10.1% in CI's. At most the
      // threads' own run-queue time, as the kernel counts it (21-28% here: it also counts
      // the wake-ups onto idle processors).
      EXPECT_LT(f["severity"].get<double>(), ready_s / capacity_s + 0.02)
          << f.dump() << "; ready " << ready_s << " s";
    } else if (f["about"] == "program") {
      // (Under a sanitizer, whose hooks and sampler are slower, up to twice that: measured
      // 10.3-10.7% for serial bottleneck and oversubscription in CI's ASan tree.)
      EXPECT_LT(f["severity"].get<double>(), 0.10 * kSlack) << f.dump();
    }
    // Its four threads start together and a pair's two end together: two are at work to
    // the end, whatever the machine's load.
    if (f["property"] == "start-up and wind-down starvation") {
      EXPECT_LT(f["severity"].get<double>(), 0.02) << f.dump();
    }
  }
}

// Start-up and wind-down starvation (issue 11): stages' loader works alone until it starts
// the solver, which works alone after the loader ended; main only joins them. With a and
// b the loader's creation and end, c and d the solver's, P - 1 processors have no thread
// before c and after b, P - 2 in between: (P - 1)(d - a) - (b - c) processor-seconds. The
// stages' own clocks bracket each instant (a thread exists from between its creator's
// pthread_create and its first work, to between its last work and main's join), a
// scheduling delay wide on a busy machine, microseconds on a quiet one; the phases are
// 300 ms of wall time however loaded the machine. The sampler sees a thread's creation
// and end exactly and when it first works within a period; but the run's first snapshot
// stands for the time since the runtime started, before main (which the stages' clocks do
// not see), and one taken late spreads main's join over it: up to P processors starved
// while only main existed.
TEST_F(ProfileE2E, StarvationIsTheStagesOwnIdlePhases) {
  const CommandResult run = profile("stages", {});
  const json findings =
      json::parse(run_command({kQuartz, "diagnose", "--store", store, "--json"}).out)["findings"];
  const json r = report();
  ASSERT_FALSE(findings.empty());
  ASSERT_FALSE(r.is_discarded());
  const double p = r["processors"], period = r["sampling"]["period_s"];
  const double elapsed = r["elapsed_s"];
  auto at = [&](const std::string& key) { return value(run.out, key); };
  ASSERT_LT(at("solver_start_s"), at("loader_end_s"));
  const double fewest = (p - 1) * (at("solver_end_s") - at("loader_start_s")) -
                        (at("loader_joined_s") - at("solver_created_s"));
  const double most = (p - 1) * (at("solver_joined_s") - at("loader_created_s")) -
                      (at("loader_end_s") - at("solver_start_s"));
  const double sampling = kSlack * 3 * (p - 1) * period;
  const double only_main = std::max(0.0, elapsed - at("elapsed_s")) + at("loader_created_s");
  const json& top = findings[0];
  EXPECT_EQ(top["property"], "start-up and wind-down starvation") << findings.dump(1);
  // Its severity is that processor time over P times the run's elapsed time.
  const double starved = top["severity"].get<double>() * p * elapsed;
  EXPECT_GT(starved, fewest - sampling) << top.dump() << "\n" << run.out;
  EXPECT_LT(starved, most + sampling + p * only_main) << top.dump() << "\n" << run.out;
  EXPECT_GE(top["confidence"].get<double>(), 0.9);
  // The loader and the solver ran alone only for want of each other: a serial bottleneck
  // takes none of that time again. One can only come from the time both existed, where
  // one of them ran with a processor idle (on a loaded machine: taken by other processes).
  const double shared = at("loader_joined_s") - at("solver_created_s");
  for (const json& f : findings) {
    if (f["property"] == "serial bottleneck") {
      EXPECT_LT(f["severity"].get<double>() * elapsed, (shared + sampling) * (1 - 1 / p))
          << f.dump();
    }
  }
}

// `quartz check` applies the rule the tests apply (analysis/invariants.h) to a stored run
// and to a capture file: "ok" and status 0 for a possible run.
TEST_F(ProfileE2E, CheckSaysOkOfAPossibleRun) {
  profile("imbalance", {"--unit-ms", "50"});
  for (const std::string& which : {std::string("latest"), (dir / "imbalance.qcap").string()}) {
    const CommandResult c = run_command({kQuartz, "check", "--store", store, which});
    EXPECT_EQ(c.exit_code, 0) << c.err;
    EXPECT_EQ(c.out, "ok\n") << which;
  }
  const CommandResult none = run_command({kQuartz, "check", "--store", store, "99"});
  EXPECT_EQ(none.exit_code, 2) << "no such run: a usage error, not a violation";
}

// The program is killed with SIGKILL in the middle: the run is stored, marked as such,
// and still reports (abrupt_end_e2e_test.cpp: how close to the end it goes).
TEST_F(ProfileE2E, KilledRunIsStoredAndMarked) {
  const CommandResult r =
      run_command({kQuartz, "run", "--store", store, "--checkpoint-ms", "100", "--",
                   sample("imbalance"), "--unit-ms", "3000"},
                  {}, 120, [](int pid) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
                    // Kill the program, not quartz: quartz must store what the program left.
                    std::ifstream children("/proc/" + std::to_string(pid) + "/task/" +
                                           std::to_string(pid) + "/children");
                    pid_t child = 0;
                    children >> child;
                    if (child > 0) kill(child, SIGKILL);
                  });
  EXPECT_EQ(r.signal, SIGKILL) << "quartz ends as the program did: " << r.err;
  const json j = report();
  ASSERT_FALSE(j.is_discarded());
  EXPECT_FALSE(j["final"]);
  EXPECT_GT(j["elapsed_s"].get<double>(), 1.0);
  EXPECT_LT(j["elapsed_s"].get<double>(), 1.6);
  EXPECT_GE(j["threads"].size(), 2u);
}

}  // namespace
}  // namespace quartz::test

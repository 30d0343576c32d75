// End-to-end: the profiler never harms the program it profiles (signals, exit status,
// output, errno, descriptors, signal dispositions) when its writes fail, `quartz run`
// says what happened and behaves like `time` and `timeout`. The truth is the program's own
// view (what it prints of itself), the same program run without Quartz, and the kernel's
// account of how each process ended.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "harness.h"

namespace quartz::test {
namespace {

namespace fs = std::filesystem;

const std::string kHostEffects = std::string(QUARTZ_E2E_DIR) + "/host_effects";

std::vector<std::string> program(const std::string& mode, int ms) {
  return {kHostEffects, mode, std::to_string(ms)};
}

class ReliabilityE2E : public ScratchTest {
 protected:
  void TearDown() override {
    for (auto it = mounts_.rbegin(); it != mounts_.rend(); ++it) umount2(it->c_str(), MNT_DETACH);
    ScratchTest::TearDown();
  }

  // A tmpfs of `kib` KiB at dir/name, read-only if asked; empty when the environment
  // cannot mount one (not root).
  std::string mount_tmpfs(const std::string& name, int kib, bool read_only = false) {
    const fs::path at = dir / name;
    fs::create_directories(at);
    const std::string size = "size=" + std::to_string(kib) + "k";
    if (mount("tmpfs", at.c_str(), "tmpfs", 0, size.c_str()) != 0) return "";
    mounts_.push_back(at.string());
    if (read_only &&
        mount(nullptr, at.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, size.c_str()) != 0) {
      return "";
    }
    return at.string();
  }

  // The program under the runtime alone (LD_PRELOAD), writing its capture to `capture`.
  Launch preloaded(const std::vector<std::string>& argv, const std::string& capture) {
    Launch l;
    l.argv = argv;
    l.env = {{"LD_PRELOAD", QUARTZ_LIBRARY},
             {"QUARTZ_OUTPUT", capture},
             {"QUARTZ_CHECKPOINT_MS", "100"}};
    return l;
  }

  // The program under `quartz run`.
  Launch quartz_run(const std::vector<std::string>& argv, const std::string& capture,
                    const std::vector<std::string>& flags = {}) {
    Launch l;
    l.argv = {kQuartz, "run", "--store", store, "--checkpoint-ms", "100"};
    if (!capture.empty()) l.argv.insert(l.argv.end(), {"-o", capture});
    l.argv.insert(l.argv.end(), flags.begin(), flags.end());
    l.argv.push_back("--");
    l.argv.insert(l.argv.end(), argv.begin(), argv.end());
    return l;
  }

  // The same launch without Quartz: what the program does on its own.
  static CommandResult alone(Launch l) {
    l.env.clear();
    for (size_t i = 0; i < l.argv.size(); ++i) {
      if (l.argv[i] == "--") {
        l.argv.erase(l.argv.begin(), l.argv.begin() + static_cast<long>(i) + 1);
        break;
      }
    }
    return launch(l);
  }

  size_t stored_runs() {
    const CommandResult r = launch(command({kQuartz, "list", "--store", store}));
    size_t runs = 0;
    std::istringstream lines(r.out);
    std::string line;
    while (std::getline(lines, line)) runs += line.find("host_effects") != std::string::npos;
    return runs;
  }

  // Under the launch's condition, the program ends, prints and exits as it does alone.
  void expect_unharmed(const Launch& l, const CommandResult& r) {
    const CommandResult reference = alone(l);
    EXPECT_EQ(r.signal, reference.signal) << r.err;
    EXPECT_EQ(r.exit_code, reference.exit_code) << r.err;
    EXPECT_EQ(r.out, reference.out) << r.err;
    EXPECT_EQ(printed_values(r.out)["errno_kept"], "1");
  }

  std::vector<std::string> mounts_;
};

// Smaller than the program's capture at its end (4.6 KB), bigger than its own output.
constexpr long long kSmallLimit = 4 * 1024;

TEST_F(ReliabilityE2E, FileSizeLimitUnderPreloadLeavesTheProgramAlone) {
  Launch l = preloaded(program("exit", 400), (dir / "run.qcap").string());
  l.file_size_limit = kSmallLimit;
  const CommandResult r = launch(l);
  expect_unharmed(l, r);
  EXPECT_NE(r.err.find("quartz: cannot write the capture"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
}

TEST_F(ReliabilityE2E, FileSizeLimitUnderQuartzRunIsReported) {
  // --no-import: SQLite cannot open a store under so small a limit (quartz run says so
  // before it runs the program).
  // No checkpoint before the end: the earlier ones of so small a program fit the limit.
  Launch l = quartz_run(program("exit", 400), (dir / "run.qcap").string(),
                        {"--trace", "--no-import", "--checkpoint-ms", "60000"});
  l.file_size_limit = kSmallLimit;
  const CommandResult r = launch(l);
  expect_unharmed(l, r);
  EXPECT_NE(r.err.find("no capture was written"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("could not write it: File too large"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("statically linked"), std::string::npos) << r.err;
}

TEST_F(ReliabilityE2E, DiskFullLeavesTheProgramAloneAndIsReported) {
  const std::string full = mount_tmpfs("full", 4);
  if (full.empty()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root)";
  Launch plain = preloaded(program("exit", 400), full + "/plain.qcap");
  CommandResult r = launch(plain);
  expect_unharmed(plain, r);
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;

  Launch run = quartz_run(program("exit", 400), full + "/run.qcap", {"--trace"});
  r = launch(run);
  expect_unharmed(run, r);
  EXPECT_NE(r.err.find("could not write it: No space left on device"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("statically linked"), std::string::npos) << r.err;
  // The failed writes left nothing behind: the space is free again.
  EXPECT_FALSE(fs::exists(full + "/run.qcap.tmp"));
}

TEST_F(ReliabilityE2E, ReadOnlyFileSystemLeavesTheProgramAloneAndIsReported) {
  const std::string read_only = mount_tmpfs("ro", 1024, /*read_only=*/true);
  if (read_only.empty()) GTEST_SKIP() << "cannot mount a read-only tmpfs here (needs root)";
  Launch plain = preloaded(program("exit", 300), read_only + "/plain.qcap");
  plain.env["QUARTZ_TRACE"] = "1";
  CommandResult r = launch(plain);
  expect_unharmed(plain, r);
  EXPECT_NE(r.err.find("Read-only file system"), std::string::npos) << r.err;

  Launch run = quartz_run(program("exit", 300), read_only + "/run.qcap");
  r = launch(run);
  expect_unharmed(run, r);
  EXPECT_NE(r.err.find("could not write it: Read-only file system"), std::string::npos) << r.err;
}

// A trace that reaches the file-size limit stops at its last whole chunk: the program is
// unharmed and `quartz predict` (the trace's consumer) still reads what was recorded.
TEST_F(ReliabilityE2E, TraceCutShortByTheFileSizeLimitStaysReadable) {
  const std::string capture = (dir / "traced.qcap").string();
  Launch l = quartz_run({sample("lock_contention")}, capture, {"--trace", "--no-import"});
  l.file_size_limit = 64 * 1024;  // above the capture, below the trace (and SQLite's files)
  const CommandResult r = launch(l);
  EXPECT_EQ(r.signal, 0) << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("the trace " + capture + ".trace is cut short"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
  ASSERT_TRUE(fs::exists(capture)) << r.err;
  EXPECT_LE(fs::file_size(capture + ".trace"), 64u * 1024);

  const CommandResult stored = launch(command({kQuartz, "import", "--store", store, capture}));
  ASSERT_EQ(stored.exit_code, 0) << stored.err;
  const CommandResult predicted = launch(command({kQuartz, "predict", "--store", store, "latest"}));
  EXPECT_EQ(predicted.exit_code, 0) << predicted.err;
  EXPECT_NE(predicted.out.find("the trace ends early"), std::string::npos) << predicted.out;
}

// A message of ours on a stderr whose reader has gone (`prog 2>&1 | head -1`) must not
// raise SIGPIPE in the program, nor in `quartz run` (whose status is the program's).
TEST_F(ReliabilityE2E, BrokenStderrNeverRaisesSigpipe) {
  Launch plain = preloaded(program("exit", 200), (dir / "plain.qcap").string());
  plain.env["QUARTZ_PERIOD_US"] = "1";  // out of range: the runtime warns at start
  plain.broken_stderr = true;
  expect_unharmed(plain, launch(plain));

  Launch run = quartz_run(program("exit", 200), (dir / "run.qcap").string());
  run.broken_stderr = true;
  expect_unharmed(run, launch(run));
  EXPECT_EQ(stored_runs(), 1u);
}

// A trace path that is a FIFO nobody reads: opening it for writing would block the
// sampler, and the program's exit with it.
TEST_F(ReliabilityE2E, FifoTraceIsRefusedNotWaitedFor) {
  const std::string capture = (dir / "fifo.qcap").string();
  ASSERT_EQ(mkfifo((capture + ".trace").c_str(), 0600), 0);
  Launch l = preloaded(program("exit", 300), capture);
  l.env["QUARTZ_TRACE"] = "1";
  l.timeout_s = 20;
  const CommandResult r = launch(l);
  expect_unharmed(l, r);
  EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(capture)) << "the capture itself is still written";
}

// The program sees the same descriptors and signal dispositions before and after running
// under the sampler (checkpoints and trace appends included), and the same as alone.
TEST_F(ReliabilityE2E, DescriptorsAndSignalsAreThoseOfTheProgramAlone) {
  for (bool through_quartz_run : {false, true}) {
    Launch l = through_quartz_run
                   ? quartz_run(program("exit", 500), (dir / "run.qcap").string(), {"--trace"})
                   : preloaded(program("exit", 500), (dir / "plain.qcap").string());
    if (!through_quartz_run) l.env["QUARTZ_TRACE"] = "1";
    const CommandResult r = launch(l);
    expect_unharmed(l, r);
    auto printed = printed_values(r.out);
    EXPECT_EQ(printed["fds_end"], printed["fds_start"]) << through_quartz_run;
    EXPECT_EQ(printed["signals_end"], printed["signals_start"]) << through_quartz_run;
  }
}

// `quartz` started with SIGINT ignored (nohup, `cmd &` in a script) gives the program what
// it would have had without it.
TEST_F(ReliabilityE2E, QuartzRunPassesOnTheDispositionsItWasGiven) {
  Launch l = quartz_run(program("exit", 100), (dir / "run.qcap").string());
  l.ignore_sigint = true;
  expect_unharmed(l, launch(l));
}

// A program that blocks SIGTERM in its threads and sigwait()s for it gets it; the
// sampler's thread never takes a signal meant for the program.
TEST_F(ReliabilityE2E, ProcessSignalsGoToTheProgramsThreads) {
  Launch l = preloaded(program("sigwait", 300), (dir / "plain.qcap").string());
  const CommandResult r = launch(l);
  EXPECT_EQ(r.signal, 0) << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(printed_values(r.out)["sigwait_got"], std::to_string(SIGTERM));
}

// _exit skips the program's exit handlers, not the runtime's end: the run is whole.
TEST_F(ReliabilityE2E, UnderscoreExitKeepsTheStatusAndTheWholeRun) {
  Launch l = quartz_run(program("_exit", 0), (dir / "run.qcap").string());
  const CommandResult r = launch(l);
  EXPECT_EQ(r.exit_code, 0) << "a program that exits 0 leaves quartz run with 0: " << r.err;
  EXPECT_EQ(r.err.find("quartz: run: "), std::string::npos) << r.err;
  EXPECT_EQ(stored_runs(), 1u) << r.err;
}

// An exec replaces the profiled program with one that is not (no --follow-exec): its run
// ends without the runtime's end, and that is said.
TEST_F(ReliabilityE2E, AnExecWithoutTheRuntimesEndIsDiagnosedAndKeepsTheStatus) {
  Launch l = quartz_run(program("exec", 300), (dir / "run.qcap").string());
  const CommandResult r = launch(l);
  EXPECT_EQ(r.exit_code, 0) << "/bin/true exits 0, and so does quartz run: " << r.err;
  EXPECT_NE(r.err.find("without the runtime's end (an exec"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find((dir / "run.qcap").string()), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("statically linked"), std::string::npos) << r.err;
}

TEST_F(ReliabilityE2E, AbortIsDiagnosedAndQuartzEndsTheSameWay) {
  Launch l = quartz_run(program("abort", 0), (dir / "run.qcap").string());
  const CommandResult r = launch(l);
  expect_unharmed(l, r);
  EXPECT_EQ(r.signal, SIGABRT);
  EXPECT_NE(r.err.find("killed by signal 6"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("covers it to its end"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("statically linked"), std::string::npos) << r.err;
}

// After checkpoints, an abort still ends the run as exit does: the final capture replaces
// them, and is stored. (abrupt_end_e2e_test.cpp: how close to the end.)
TEST_F(ReliabilityE2E, AbortAfterACheckpointStoresTheWholeRun) {
  Launch l = quartz_run(program("abort", 500), (dir / "run.qcap").string());
  const CommandResult r = launch(l);
  EXPECT_EQ(r.signal, SIGABRT) << r.err;
  EXPECT_NE(r.err.find("covers it to its end"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("checkpoint"), std::string::npos) << r.err;
  EXPECT_EQ(stored_runs(), 1u) << r.err;
}

// The store's disk fills up while the program runs: the capture is kept, the message says
// how to store it, and that command works once there is room.
TEST_F(ReliabilityE2E, CaptureKeptButNotStoredSaysHowToStoreIt) {
  const std::string store_disk = mount_tmpfs("storefs", 1024);
  if (store_disk.empty()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root)";
  store = store_disk + "/runs.db";
  const std::string capture = (dir / "run.qcap").string();
  const std::string filler = store_disk + "/filler";
  Launch l = quartz_run(program("exit", 600), capture);
  l.while_running = [&](pid_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::ofstream fill(filler, std::ios::binary);
    const std::string block(4096, 'x');
    while (fill.write(block.data(), static_cast<std::streamsize>(block.size())) && fill.flush()) {
    }
  };
  const CommandResult r = launch(l);
  expect_unharmed(l, r);
  const std::string hint = "quartz import --store " + store + " " + capture;
  EXPECT_NE(r.err.find("was kept but not stored"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(hint), std::string::npos) << r.err;
  ASSERT_TRUE(fs::exists(capture));
  fs::remove(filler);
  const CommandResult stored = launch(command({kQuartz, "import", "--store", store, capture}));
  EXPECT_EQ(stored.exit_code, 0) << stored.err;
  EXPECT_EQ(stored_runs(), 1u);
}

// Signals sent to `quartz` reach the program; quartz waits for it, stores the run and
// ends as the program ended.
TEST_F(ReliabilityE2E, SigtermIsForwardedAndTheRunStored) {
  Launch l = quartz_run(program("handler", 30000), (dir / "run.qcap").string());
  l.while_running = [](pid_t quartz) {
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    kill(quartz, SIGTERM);
  };
  const CommandResult r = launch(l);
  EXPECT_EQ(r.signal, 0) << r.err;
  EXPECT_EQ(r.exit_code, 7) << "the program's status: " << r.err;
  EXPECT_NE(r.out.find("terminated"), std::string::npos);
  EXPECT_EQ(stored_runs(), 1u) << r.err;
}

TEST_F(ReliabilityE2E, SigintSighupSigquitAreForwardedAndQuartzEndsTheSameWay) {
  for (int signal : {SIGINT, SIGHUP, SIGQUIT}) {
    const std::string capture = (dir / ("run-" + std::to_string(signal) + ".qcap")).string();
    Launch l = quartz_run(program("forever", 30000), capture);
    l.while_running = [signal](pid_t quartz) {
      std::this_thread::sleep_for(std::chrono::milliseconds(700));
      kill(quartz, signal);
    };
    const CommandResult r = launch(l);
    EXPECT_EQ(r.signal, signal) << r.err;
    EXPECT_NE(r.err.find("stored in"), std::string::npos) << strsignal(signal) << ": " << r.err;
  }
  EXPECT_EQ(stored_runs(), 3u);
}

TEST_F(ReliabilityE2E, ProgramNotFoundIs127AndNotExecutableIs126) {
  CommandResult r = launch(quartz_run({(dir / "missing").string()}, ""));
  EXPECT_EQ(r.exit_code, 127) << r.err;
  EXPECT_NE(r.err.find("missing"), std::string::npos) << r.err;
  r = launch(quartz_run({"quartz-no-such-program"}, ""));
  EXPECT_EQ(r.exit_code, 127) << r.err;
  EXPECT_NE(r.err.find("cannot find program"), std::string::npos) << r.err;

  const std::string text = (dir / "not-executable").string();
  std::ofstream(text) << "not a program\n";
  r = launch(quartz_run({text}, ""));
  EXPECT_EQ(r.exit_code, 126) << r.err;
  EXPECT_NE(r.err.find("Permission denied"), std::string::npos) << r.err;
  chmod(text.c_str(), 0755);  // executable, but no format the kernel knows
  r = launch(quartz_run({text}, ""));
  EXPECT_EQ(r.exit_code, 126) << r.err;
  EXPECT_NE(r.err.find("Exec format error"), std::string::npos) << r.err;
}

TEST_F(ReliabilityE2E, BadStoreIsRefusedBeforeTheProgramRuns) {
  std::ofstream(store) << "not a store\n";
  const std::string marker = (dir / "program-ran").string();
  Launch l = quartz_run({kHostEffects, "touch", "0", marker}, (dir / "run.qcap").string());
  const CommandResult r = launch(l);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("not a Quartz store"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(marker)) << "the program ran although its run could not be stored";
}

TEST_F(ReliabilityE2E, TwoRunsGivenTheSameOutputNeverClobberEachOther) {
  const std::string capture = (dir / "same.qcap").string();
  CommandResult results[2];
  // Told apart by their arguments: each stored run must be its own program's.
  std::thread other([&] { results[1] = launch(quartz_run(program("exit", 801), capture)); });
  results[0] = launch(quartz_run(program("exit", 800), capture));
  other.join();
  for (const CommandResult& r : results) EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string both = results[0].err + results[1].err;
  EXPECT_NE(both.find("is being written by another run"), std::string::npos) << both;
  EXPECT_TRUE(fs::exists(capture));
  EXPECT_TRUE(fs::exists(dir / "same-2.qcap"));
  const CommandResult list = launch(command({kQuartz, "list", "--store", store}));
  EXPECT_NE(list.out.find("host_effects exit 800"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("host_effects exit 801"), std::string::npos) << list.out;
}

TEST_F(ReliabilityE2E, CapturesGoToTheCacheWhenTheStoresDirectoryIsReadOnly) {
  const std::string read_only = mount_tmpfs("ro-cwd", 1024, /*read_only=*/true);
  if (read_only.empty()) GTEST_SKIP() << "cannot mount a read-only tmpfs here (needs root)";
  const fs::path cache = dir / "cache";
  Launch l = command({kQuartz, "run", "--no-import", "--", kHostEffects, "exit", "100"});
  l.cwd = read_only;  // the default store, ./quartz.db, is in a read-only directory
  l.env["XDG_CACHE_HOME"] = cache.string();
  const CommandResult r = launch(l);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<fs::path> captures;
  std::error_code missing;  // no directory: no capture, checked below
  for (const auto& entry : fs::directory_iterator(cache / "quartz", missing)) {
    if (entry.path().extension() == ".qcap") captures.push_back(entry.path());
  }
  ASSERT_EQ(captures.size(), 1u) << r.err;
  EXPECT_NE(r.err.find(captures[0].string()), std::string::npos) << r.err;
  // The capture is whole: the report reads it and names the program's main.
  const CommandResult report = launch(command({kQuartz, "report", captures[0].string()}));
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("main"), std::string::npos) << report.out;
}

// The program ends while the overhead budget turns entries off: the sampler is still at it
// while exit() runs the destructors, and the index of entries it searches must outlive
// them. 2048 tiny procedures make the first decisions (20 and 50 ms into the run) long
// enough to overlap the end; before the fix 36 of 40 such runs died of SIGSEGV.
TEST_F(ReliabilityE2E, AProgramEndingWhileEntriesAreTurnedOffEndsNormally) {
  constexpr int kProcedures = 2048;
  const std::string program = (dir / "many").string();
  {
    std::ofstream c(program + ".c");
    c << "#include <stdlib.h>\n#include <time.h>\n"
         "static double now_ms(void) {\n"
         "  struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);\n"
         "  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;\n}\n";
    for (int i = 0; i < kProcedures; ++i) {
      c << "__attribute__((noipa)) double f" << i << "(double a) { return a * 0.9999999 + " << i
        << "; }\n";
    }
    c << "static double (*const procedures[])(double) = {";
    for (int i = 0; i < kProcedures; ++i) c << (i ? ", f" : "f") << i;
    c << "};\nint main(int argc, char** argv) {\n"
         "  const double end = now_ms() + atof(argv[1]); double a = 0;\n"
         "  while (now_ms() < end)\n"
         "    for (int i = 0; i < "
      << kProcedures
      << "; i++) a = procedures[i](a);\n"
         "  return a == 42;\n}\n";
  }
  const CommandResult cc = launch(
      command({std::string(QUARTZ_BIN_DIR) + "/quartz-cc", "-O2", "-o", program, program + ".c"}));
  ASSERT_EQ(cc.exit_code, 0) << cc.err;
  for (const char* ms : {"20", "24", "28", "50", "54"}) {
    Launch l = command({kQuartz, "run", "-q", "--no-import", "--", program, ms});
    l.cwd = dir.string();
    const CommandResult r = launch(l);
    EXPECT_EQ(r.signal, 0) << ms << " ms: " << r.err;
    EXPECT_EQ(r.exit_code, 0) << ms << " ms: " << r.err;
  }
}

// --baseline runs the program once unprofiled first: a run that fails gives no baseline,
// and says so; the profiled run goes on and its status is the program's.
TEST_F(ReliabilityE2E, ABaselineRunThatFailsRecordsNoBaselineAndSaysSo) {
  const CommandResult r = launch(command(
      {kQuartz, "run", "-q", "--baseline", "--store", store, "--", "/bin/sh", "-c", "exit 3"}));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("--baseline: the unprofiled run exited with status 3: no baseline recorded"),
            std::string::npos)
      << r.err;
  const CommandResult disabled =
      launch(command({kQuartz, "run", "--baseline", "--disable", "--", kHostEffects, "exit", "0"}));
  EXPECT_EQ(disabled.exit_code, 2);
  EXPECT_NE(disabled.err.find("--baseline needs profiling"), std::string::npos) << disabled.err;
}

}  // namespace
}  // namespace quartz::test

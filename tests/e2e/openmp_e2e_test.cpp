// End-to-end: an OpenMP program under `quartz run`, built by gcc (GNU libgomp, its entry
// points interposed) and by clang (LLVM libomp, seen through OMPT); its phases, waits and
// each thread's processor time, timed by the program itself (samples/omp_phases.c), must be
// what the report and the diagnosis show, the same for both builds.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "harness.h"
#include "invariants.h"

namespace quartz::test {
namespace {

using nlohmann::json;

// The sample as each compiler built it (samples/CMakeLists.txt).
const char* const kBuilds[] = {"omp_phases", "omp_phases_clang"};

struct OmpRun {
  std::map<std::string, std::string> printed;
  json report, diagnosis;
  double period_s = 0;

  double truth(const std::string& key) const {
    auto it = printed.find(key);
    EXPECT_NE(it, printed.end()) << "omp_phases did not print " << key;
    return it == printed.end() ? 0 : std::strtod(it->second.c_str(), nullptr);
  }
  std::string line(const std::string& key) const {
    return "omp_phases.c:" + std::to_string(static_cast<int>(truth(key)));
  }
  static const json* named(const json& rows, const std::string& name) {
    for (const json& row : rows) {
      if (row["name"] == name) return &row;
    }
    return nullptr;
  }
  const json* thread(int index) const {
    for (const json& t : report["threads"]) {
      if (t["index"] == index) return &t;
    }
    return nullptr;
  }
  const json* finding(const std::string& property, const std::string& subject) const {
    for (const json& f : diagnosis["findings"]) {
      if (f["property"] == property && f["subject"] == subject) return &f;
    }
    return nullptr;
  }
};

class OpenmpE2E : public ScratchTest, public testing::WithParamInterface<const char*> {
 protected:
  // The sample under `quartz run`, libgomp's waits as OMP_WAIT_POLICY says (active: spin
  // until released; passive: sleep at once; empty: libgomp's default, spin then sleep).
  OmpRun profile(const std::string& wait_policy) {
    std::map<std::string, std::string> env;
    if (!wait_policy.empty()) env["OMP_WAIT_POLICY"] = wait_policy;
    const std::string capture = (dir / "omp_phases.qcap").string();
    const CommandResult r = run_command(
        {kQuartz, "run", "-q", "--store", store, "-o", capture, "--", sample(GetParam())}, env);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    if (const std::optional<Capture> kept = read_capture_file(capture)) {
      expect_possible_figures(kept->run);
    }
    OmpRun run;
    run.printed = printed_values(r.out);
    const CommandResult report = run_command({kQuartz, "report", "--store", store, "--json"});
    EXPECT_EQ(report.exit_code, 0) << report.err;
    run.report = json::parse(report.out, nullptr, /*allow_exceptions=*/false);
    const CommandResult diagnosis = run_command({kQuartz, "diagnose", "--store", store, "--json"});
    EXPECT_EQ(diagnosis.exit_code, 0) << diagnosis.err;
    run.diagnosis = json::parse(diagnosis.out, nullptr, /*allow_exceptions=*/false);
    if (!run.report.is_discarded()) {
      run.period_s = run.report["sampling"]["period_s"];
      // How OpenMP was seen, by the runtime each compiler's OpenMP calls.
      EXPECT_EQ(run.report["sampling"]["openmp"],
                std::string(GetParam()).ends_with("clang") ? "ompt" : "libgomp");
    }
    return run;
  }
};

// Each parallel region is a procedure named by its pragma's line, called once per team
// thread, under the procedure that started it; the work inside is its children.
// The region end's and the barrier's waits are the program's own timings of them, and
// mostly in `state` (wait_spinning_s or wait_blocked_s).
void expect_timed_waits(const OmpRun& run, const json* end, const json* barrier,
                        const char* state) {
  for (const auto& [object, key] :
       {std::pair{end, "region_end_wait_s"}, {barrier, "barrier_wait_s"}}) {
    const double truth = run.truth(key);
    EXPECT_NEAR((*object)["wait_s"].get<double>(), truth,
                kSlack * std::max(0.15 * truth, 0.01 + 4 * run.period_s))
        << key;
    EXPECT_GT((*object)[state].get<double>(), 0.8 * (*object)["wait_s"].get<double>()) << key;
  }
}

TEST_P(OpenmpE2E, RegionsAreProceduresNamedByTheirPragmaLines) {
  const OmpRun run = profile("");
  ASSERT_FALSE(run.report.is_discarded());
  const double threads = run.truth("threads");
  ASSERT_GE(threads, 2);
  const json& procedures = run.report["procedures"];
  for (const auto& [key, work] :
       {std::pair{"region_imbalance_line", "do_share"}, {"region_steps_line", "do_step"}}) {
    const std::string name = "omp_parallel@" + run.line(key);
    const json* region = OmpRun::named(procedures, name);
    ASSERT_NE(region, nullptr) << name << " in " << procedures.dump();
    EXPECT_EQ((*region)["location"], run.line(key));
    EXPECT_EQ((*region)["calls"].get<double>(), threads);
    EXPECT_NE(OmpRun::named((*region)["children"], work), nullptr) << (*region).dump();
    const json* main_row = OmpRun::named(procedures, "main");
    ASSERT_NE(main_row, nullptr);
    EXPECT_NE(OmpRun::named((*main_row)["children"], name), nullptr) << (*main_row).dump();
  }
  // The worker is named by its creator's name (the kernel's, 15 characters), not by a region
  // it happened to run first.
  const json* worker = run.thread(1);
  ASSERT_NE(worker, nullptr);
  EXPECT_EQ((*worker)["name"], std::string(GetParam()).substr(0, 15));
  // No name a compiler made up, anywhere in the report.
  const std::string text = run.report.dump();
  for (const char* made_up : {".omp_outlined.", "._omp_fn.", ".omp_task_entry."}) {
    EXPECT_EQ(text.find(made_up), std::string::npos) << made_up;
  }
}

// Normalized time itself: the time with both processors busy is the time both threads were
// in their own work at once, by the program's clocks, within 5 points of the elapsed time
// (the runtime's spinning around that work is not work). Less the time a thread in its
// work had no processor (another process took it), which the program measures too.
TEST_P(OpenmpE2E, BothProcessorsAreBusyOnlyWhileBothThreadsWork) {
  const OmpRun run = profile("");
  ASSERT_FALSE(run.report.is_discarded());
  ASSERT_GE(run.report["processors"].get<double>(), 2);
  const double elapsed = run.report["elapsed_s"];
  const double both = run.report["parallelism_s"][2];
  const double working = run.truth("both_working_s"), lost = run.truth("both_working_lost_s");
  EXPECT_GT(both, working - lost - 0.05 * elapsed) << both << " s of " << elapsed << " s";
  EXPECT_LT(both, working + 0.05 * elapsed) << both << " s of " << elapsed << " s";
}

// The runtime spinning until released (OMP_WAIT_POLICY=active): what a thread spins at the
// region's end, at the barrier and between regions is spinning, not busy, and not main's
// own time; its busy time is the processor time of its own work.
TEST_P(OpenmpE2E, SpinningInTheRuntimeIsSpinningNotBusy) {
  const OmpRun run = profile("active");
  ASSERT_FALSE(run.report.is_discarded());
  const double period = run.period_s;
  for (int i = 0; i < 2; ++i) {
    const json* t = run.thread(i);
    ASSERT_NE(t, nullptr) << "thread " << i;
    const std::string n = std::to_string(i);
    const double work = run.truth("thread_" + n + "_work_cpu_s");
    const double spun = run.truth("thread_" + n + "_cpu_s") - work;
    // A sample's processor time is shared with its neighbours' (attribution.h): work next
    // to spinning trades a little of each, more when other processes preempt.
    EXPECT_NEAR((*t)["busy_s"].get<double>(), work, kSlack * std::max(0.12 * work, 4 * period))
        << "thread " << i;
    EXPECT_NEAR((*t)["spin_s"].get<double>(), spun,
                kSlack * std::max(0.15 * spun, 0.03 + 4 * period))
        << "thread " << i;
  }
  const double elapsed = run.report["elapsed_s"];
  const json* main_row = OmpRun::named(run.report["procedures"], "main");
  ASSERT_NE(main_row, nullptr);
  EXPECT_LT((*main_row)["normalized_self_s"].get<double>(), 0.03 * elapsed);
  // The waits, as the program timed them, and spinning.
  const json* end = OmpRun::named(run.report["locks"],
                                  "end of omp_parallel@" + run.line("region_imbalance_line"));
  const json* barrier =
      OmpRun::named(run.report["locks"], "omp barrier@" + run.line("barrier_line"));
  ASSERT_TRUE(end && barrier) << run.report["locks"].dump();
  expect_timed_waits(run, end, barrier, "wait_spinning_s");
}

// The runtime sleeping at once (OMP_WAIT_POLICY=passive): the same waits are blocked; objects'
// counts are the program's: one arrival per thread and step, one instance per step.
TEST_P(OpenmpE2E, SleepingInTheRuntimeIsBlockedAndWaitsAreCounted) {
  const OmpRun run = profile("passive");
  ASSERT_FALSE(run.report.is_discarded());
  const double period = run.period_s;
  const double threads = run.truth("threads"), steps = 5;
  const json& locks = run.report["locks"];
  const json* end =
      OmpRun::named(locks, "end of omp_parallel@" + run.line("region_imbalance_line"));
  const json* barrier = OmpRun::named(locks, "omp barrier@" + run.line("barrier_line"));
  const json* critical = nullptr;  // libgomp's is unnamed, libomp's named by its pragma's line
  for (const json& l : locks) {
    if (l["kind"] == "omp critical") critical = &l;
  }
  ASSERT_TRUE(end && barrier && critical) << locks.dump();
  EXPECT_EQ((*end)["kind"], "omp region end");
  EXPECT_EQ((*end)["acquisitions"].get<double>(), threads);
  EXPECT_EQ((*end)["posts"], 1);
  EXPECT_EQ((*barrier)["kind"], "omp barrier");
  EXPECT_EQ((*barrier)["acquisitions"].get<double>(), threads * steps);
  EXPECT_EQ((*barrier)["posts"].get<double>(), steps);
  EXPECT_EQ((*critical)["kind"], "omp critical");
  EXPECT_EQ((*critical)["acquisitions"].get<double>(), threads * steps);
  bool lock_seen = false;
  for (const json& l : locks) {
    if (l["kind"] != "omp lock") continue;
    lock_seen = true;
    EXPECT_EQ(l["acquisitions"].get<double>(), threads * steps);
  }
  EXPECT_TRUE(lock_seen) << locks.dump();
  expect_timed_waits(run, end, barrier, "wait_blocked_s");
  // Held by one thread at a time, at least for the time the program spent inside.
  const double held = run.truth("critical_hold_s");
  EXPECT_GT((*critical)["hold_s"].get<double>(), 0.9 * held - 2 * period);
  EXPECT_LT((*critical)["hold_s"].get<double>(), 1.1 * held + 4 * period);
  for (int i = 0; i < 2; ++i) {
    const json* t = run.thread(i);
    ASSERT_NE(t, nullptr);
    const double work = run.truth("thread_" + std::to_string(i) + "_work_cpu_s");
    EXPECT_NEAR((*t)["busy_s"].get<double>(), work, kSlack * std::max(0.1 * work, 3 * period));
    EXPECT_LT((*t)["spin_s"].get<double>(), 0.05);
  }
}

// libgomp's default waits: the serial phase weighs its length, and the diagnosis finds it
// and the imbalance at the first region's end and at the barrier, each with the share of
// the elapsed time the program's own timings give.
TEST_P(OpenmpE2E, DiagnosisFindsTheSerialPhaseAndTheImbalance) {
  const OmpRun run = profile("");
  ASSERT_FALSE(run.report.is_discarded());
  ASSERT_FALSE(run.diagnosis.is_discarded());
  const double period = run.period_s, elapsed = run.report["elapsed_s"];
  const double processors = run.report["processors"];
  const json* serial = OmpRun::named(run.report["procedures"], "serial_phase");
  ASSERT_NE(serial, nullptr);
  // Its normalized time is its wall time when nothing else takes the processor; another
  // process that does leaves part of it with no processor busy (bin 0), shared with the
  // idle worker: less, never more.
  const double serial_s = run.truth("serial_s");
  const double normalized = (*serial)["normalized_s"];
  EXPECT_GT(normalized, (1 - 0.25 * kSlack) * serial_s - 2 * period);
  EXPECT_LT(normalized, 1.05 * serial_s + 2 * period);
  EXPECT_GT((*serial)["histogram_s"][1].get<double>(), 0.6 * normalized);

  // Found, with the share spreading it over the processors would save (less what the
  // diagnosis puts on blocking in the kernel, which load from other processes raises).
  const json* bottleneck = run.finding("serial bottleneck", "serial_phase");
  EXPECT_NE(bottleneck, nullptr) << run.diagnosis.dump();
  const double serial_share = serial_s * (1 - 1 / processors) / elapsed;
  if (bottleneck) {
    EXPECT_GT((*bottleneck)["severity"].get<double>(), 0.5 * serial_share);
    EXPECT_LT((*bottleneck)["severity"].get<double>(), 1.3 * serial_share);
  }

  const double threads = run.truth("threads");
  for (const auto& [subject, key] :
       {std::pair{"end of omp_parallel@" + run.line("region_imbalance_line"), "region_end_wait_s"},
        {"omp barrier@" + run.line("barrier_line"), "barrier_wait_s"}}) {
    const json* imbalance = run.finding("load imbalance", subject);
    EXPECT_NE(imbalance, nullptr) << subject << " in " << run.diagnosis.dump();
    if (!imbalance) continue;
    const double share = run.truth(key) / threads / elapsed;
    EXPECT_NEAR((*imbalance)["severity"].get<double>(), share,
                kSlack * std::max(0.25 * share, 4 * period / elapsed))
        << subject;
    EXPECT_GT((*imbalance)["confidence"].get<double>(), 0.5) << subject;
  }
}

// Every region of a C++ program, nested ones included, is named by its pragma's line (gcc
// names a C++ body after its function, "_Z4ssori._omp_fn.1", which demangles to a clone of
// "ssor(int)": every region of a NAS benchmark read so), and so is every wait (fasttree's
// read "omp barrier@libquartz.so"). The truth is the source.
TEST_P(OpenmpE2E, NestedRegionsOfACxxProgramAreNamedByTheirLines) {
  const std::string source = (dir / "nested.cpp").string();
  std::ofstream(source) << "#include <omp.h>\n"
                           "#include <cstdio>\n"
                           "__attribute__((noinline)) static double work(int n) {\n"
                           "  double s = 0;\n"
                           "  for (int i = 0; i < n * 100000; ++i) s += i * 0.5;\n"
                           "  return s;\n"
                           "}\n"
                           "double ssor(int k) {\n"
                           "  double total = 0;\n"
                           "#pragma omp parallel num_threads(2) reduction(+ : total)\n"  // 10
                           "  {\n"
                           "    total += work(100);\n"
                           "#pragma omp parallel num_threads(2) reduction(+ : total)\n"  // 13
                           "    total += work(50 + k);\n"
                           "  }\n"
                           "  return total;\n"
                           "}\n"
                           "static double sink[2];\n"
                           "__attribute__((noinline)) void fill() {\n"
                           "#pragma omp parallel num_threads(2)\n"  // 20
                           "  {\n"
                           "    sink[omp_get_thread_num()] = work(40);\n"
                           "#pragma omp barrier\n"  // 23: it ends the body, gcc jumps to it
                           "  }\n"
                           "}\n"
                           "int main() {\n"
                           "  omp_set_max_active_levels(2);\n"
                           "  double t = 0;\n"
                           "  for (int k = 0; k < 3; ++k) t += ssor(k);\n"
                           "  fill();\n"
                           "  std::printf(\"%g\\n\", t + sink[3]);\n"
                           "}\n";
  const bool clang = std::string(GetParam()).ends_with("clang");
  const std::string program = (dir / "nested").string();
  const CommandResult cxx = run_command(
      {std::string(QUARTZ_BIN_DIR) + "/quartz-c++", "-O2", "-fopenmp", "-o", program, source},
      {{"QUARTZ_CXX", clang ? "clang++" : "g++"}});
  ASSERT_EQ(cxx.exit_code, 0) << cxx.err;
  const CommandResult r = run_command({kQuartz, "run", "-q", "--store", store, "--", program});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(run_command({kQuartz, "report", "--store", store, "--json"}).out);
  std::set<std::string> regions;
  for (const json& p : report["procedures"]) {
    const std::string name = p["name"];
    if (name.starts_with("omp_parallel@")) regions.insert(name);
  }
  EXPECT_EQ(regions,
            (std::set<std::string>{"omp_parallel@nested.cpp:10", "omp_parallel@nested.cpp:13",
                                   "omp_parallel@nested.cpp:20"}))
      << report["procedures"].dump(1);
  // Every OpenMP wait is named by the program's code, never by Quartz's own (a barrier the
  // body jumped to returns into the runtime: by the region's line, then).
  bool barrier = false;
  for (const json& l : report["locks"]) {
    const std::string name = l["name"];
    if (l["kind"].get<std::string>().starts_with("omp")) {
      EXPECT_EQ(name.find("libquartz"), std::string::npos) << l.dump();
    }
    barrier |= name == "omp barrier@nested.cpp:20" || name == "omp barrier@nested.cpp:23";
  }
  EXPECT_TRUE(barrier) << report["locks"].dump(1);
}

INSTANTIATE_TEST_SUITE_P(Builds, OpenmpE2E, testing::ValuesIn(kBuilds),
                         [](const testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

}  // namespace
}  // namespace quartz::test

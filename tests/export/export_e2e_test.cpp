// End-to-end: `quartz report --format F` of a sample's run, read back by the tools people
// use (go tool pprof, a flame graph renderer, Chrome DevTools' trace engine, Python's json
// and csv modules) and compared with `quartz report --json` of the same run, or with what
// the program itself and the kernel measured.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "harness.h"

namespace quartz::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kChecks = QUARTZ_EXPORT_TESTS_DIR;

// A program on PATH, or "" when it is not installed.
std::string find_program(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string d; std::getline(dirs, d, ':');) {
    const fs::path candidate = fs::path(d) / name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "";
}

// Where npm installed a package globally (PACKAGE_DIR/FILE exists), or "" when it did not.
std::string npm_package(const std::string& name, const std::string& file) {
  const std::string npm = find_program("npm");
  if (npm.empty() || find_program("node").empty()) return "";
  const CommandResult root = run_command({npm, "root", "-g"});
  if (root.exit_code != 0) return "";
  const std::string dir = root.out.substr(0, root.out.find('\n')) + "/" + name;
  return fs::exists(dir + "/" + file) ? dir : "";
}

// Processor time of this process's children that ended, and of theirs (getrusage).
double children_cpu_s() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

class ExportE2E : public ScratchTest {
 protected:
  // lock_contention: 4 threads that wait for one lock, "work_queue", most of the time.
  void record(bool trace) {
    record_program(trace, {sample("lock_contention"), "--iterations", "400"});
  }

  void record_program(bool trace, const std::vector<std::string>& program) {
    std::vector<std::string> argv{kQuartz, "run", "--store", store, "-q"};
    if (trace) argv.push_back("--trace");
    argv.push_back("--");
    argv.insert(argv.end(), program.begin(), program.end());
    const double cpu_before_s = children_cpu_s();
    const CommandResult r = run_command(argv);
    recording_cpu_s = children_cpu_s() - cpu_before_s;
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    program_said = printed_values(r.out);
    const CommandResult j = run_command({kQuartz, "report", "--store", store, "--json"});
    ASSERT_EQ(j.exit_code, 0) << j.err;
    report = json::parse(j.out);
    report_path = (dir / "report.json").string();
    std::ofstream(report_path) << j.out;
  }

  std::string exported(const std::vector<std::string>& flags, const std::string& name) {
    const std::string path = (dir / name).string();
    std::vector<std::string> argv{kQuartz, "report", "--store", store, "-o", path};
    argv.insert(argv.end(), flags.begin(), flags.end());
    const CommandResult r = run_command(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return path;
  }

  std::map<std::string, std::string> program_said;
  double recording_cpu_s = 0;  // used by `quartz run` and the program, as the kernel counts
  json report;
  std::string report_path;
};

// One row of `go tool pprof -top`: flat, flat%, sum%, cum, cum%, name.
struct TopRow {
  double flat = 0, cum = 0;
};

std::map<std::string, TopRow> pprof_top(const CommandResult& r) {
  std::map<std::string, TopRow> rows;
  const std::regex row(
      R"(^\s*([0-9.]+)(?:ns)?\s+[0-9.]+%\s+[0-9.]+%\s+([0-9.]+)(?:ns)?\s+[0-9.]+%\s+(.+?)\s*$)");
  std::stringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_match(line, m, row)) rows[m[3]] = {std::stod(m[1]), std::stod(m[2])};
  }
  return rows;
}

// go tool pprof -top ranks procedures and locks as `quartz report` does, with the report's
// normalized, processor and wait times (nanoseconds, rounded once per calling context).
TEST_F(ExportE2E, PprofTopMatchesReport) {
  const std::string go = find_program("go");
  if (go.empty()) GTEST_SKIP() << "go (Debian's golang-go) is not installed";
  ASSERT_NO_FATAL_FAILURE(record(false));
  const std::string profile = exported({"--format", "pprof"}, "quartz.pb.gz");
  const std::map<std::string, std::string> offline{{"HOME", dir.string()},
                                                   {"GOCACHE", (dir / "gocache").string()},
                                                   {"GOPATH", (dir / "gopath").string()},
                                                   {"GOTOOLCHAIN", "local"},
                                                   {"GOPROXY", "off"},
                                                   {"GOFLAGS", "-mod=mod"},
                                                   {"GOTELEMETRY", "off"}};
  auto top = [&](const std::string& sample_index) {
    const CommandResult r =
        run_command({go, "tool", "pprof", "-top", "-cum", "-nodecount=1000", "-nodefraction=0",
                     "-unit=ns", "-sample_index=" + sample_index, profile},
                    offline);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return std::make_pair(r, pprof_top(r));
  };
  // Each context rounds to whole nanoseconds once: a procedure's total is within a
  // nanosecond per context of the report's.
  const double rounding_ns = static_cast<double>(report["contexts"].size());

  const auto [normalized_out, normalized] = top("normalized");
  ASSERT_FALSE(normalized.empty()) << normalized_out.out << normalized_out.err;
  // The default sample type is normalized time: -top without -sample_index ranks by it.
  const CommandResult plain =
      run_command({go, "tool", "pprof", "-top", "-cum", "-unit=ns", profile}, offline);
  EXPECT_EQ(pprof_top(plain).begin()->second.cum, normalized.begin()->second.cum);
  // A procedure or lock the sampler never saw has no sample: pprof does not list it.
  auto listed = [&](const std::map<std::string, TopRow>& top, const json& row, const char* key) {
    if (top.count(row["name"])) return true;
    EXPECT_LT(row[key].get<double>() * 1e9, rounding_ns) << row["name"] << " missing";
    return false;
  };
  for (const json& p : report["procedures"]) {
    const std::string name = p["name"];
    if (!listed(normalized, p, "normalized_s")) continue;
    EXPECT_NEAR(normalized.at(name).cum, p["normalized_s"].get<double>() * 1e9, rounding_ns)
        << name;
    EXPECT_NEAR(normalized.at(name).flat, p["normalized_self_s"].get<double>() * 1e9, rounding_ns)
        << name;
  }
  for (const json& l : report["locks"]) {
    const std::string name = l["name"];
    if (!listed(normalized, l, "normalized_s")) continue;
    EXPECT_NEAR(normalized.at(name).cum, l["normalized_s"].get<double>() * 1e9, rounding_ns)
        << name;
  }
  // pprof ranks the procedures as the report does.
  double previous_ns = std::numeric_limits<double>::infinity();
  for (const json& p : report["procedures"]) {
    if (!normalized.count(p["name"])) continue;
    const double cum = normalized.at(p["name"]).cum;
    EXPECT_LE(cum, previous_ns + rounding_ns) << p["name"];
    previous_ns = cum;
  }

  const auto [processor_out, processor] = top("processor");
  ASSERT_FALSE(processor.empty()) << processor_out.out << processor_out.err;
  for (const json& p : report["procedures"]) {
    const std::string name = p["name"];
    if (!listed(processor, p, "processor_s")) continue;
    EXPECT_NEAR(processor.at(name).cum, p["processor_s"].get<double>() * 1e9, rounding_ns) << name;
  }

  // Wait time: the contexts' own spinning and blocked time; the lock's is where the
  // threads waited for it.
  const auto [wait_out, wait] = top("wait");
  std::map<std::string, double> wait_by_name;
  for (const json& c : report["contexts"])
    wait_by_name[c["name"]] += c["wait_self_s"].get<double>();
  const std::string lock = "work_queue";
  ASSERT_TRUE(wait.count(lock)) << wait_out.out;
  EXPECT_NEAR(wait.at(lock).flat, wait_by_name[lock] * 1e9, rounding_ns);
  EXPECT_GT(wait.at(lock).flat, 0);  // four threads took it: some waited
}

// Every line of the collapsed stacks is "frame;frame;... N", N the context's own normalized
// nanoseconds; a flame graph renderer (npm flamegraph@0.1.0, flamegraph.pl's JavaScript
// port) draws them: its root frames add up to the contexts' normalized time, and each
// procedure's frames (lock_contention recurses nowhere) are as wide as its normalized time.
TEST_F(ExportE2E, CollapsedStacksRenderAsFlameGraph) {
  const std::string renderer = npm_package("flamegraph", "lib/stackparse.js");
  if (renderer.empty()) GTEST_SKIP() << "npm flamegraph@0.1.0 is not installed";
  ASSERT_NO_FATAL_FAILURE(record(false));
  const std::string stacks = exported({"--format", "collapsed"}, "stacks.folded");
  std::ifstream in(stacks);
  size_t lines = 0;
  std::set<std::string> roots;
  const std::regex line_format(R"(^[^;\n]+(;[^;\n]+)* [0-9]+$)");
  for (std::string line; std::getline(in, line); ++lines) {
    ASSERT_TRUE(std::regex_match(line, line_format)) << line;
    roots.insert(line.substr(0, line.find_first_of("; ")));
  }
  ASSERT_GT(lines, 0u);
  const double rounding_ns = static_cast<double>(lines);

  const CommandResult svg =
      run_command({find_program("node"), kChecks + "/render_flame_graph.js", renderer, stacks});
  ASSERT_EQ(svg.exit_code, 0) << svg.err;
  // Each frame's tooltip: <title>NAME (N samples), P%)</title>, N with thousands commas.
  std::map<std::string, double> width_ns;
  const std::regex title(R"(<title>(.*?) \(([0-9,]+) samples?\)?, [0-9.]+%\)</title>)");
  for (auto it = std::sregex_iterator(svg.out.begin(), svg.out.end(), title);
       it != std::sregex_iterator(); ++it) {
    std::string digits = (*it)[2];
    digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
    width_ns[(*it)[1]] += std::stod(digits);
  }
  ASSERT_FALSE(width_ns.empty()) << svg.out.substr(0, 2000);
  double contexts_ns = 0, roots_ns = 0;
  for (const json& c : report["contexts"])
    contexts_ns += c["normalized_self_s"].get<double>() * 1e9;
  for (const std::string& root : roots) roots_ns += width_ns[root];
  EXPECT_NEAR(roots_ns, contexts_ns, rounding_ns);
  for (const json& p : report["procedures"]) {
    const double normalized_ns = p["normalized_s"].get<double>() * 1e9;
    if (normalized_ns < rounding_ns) continue;  // no frame: the sampler never saw it
    EXPECT_NEAR(width_ns[p["name"]], normalized_ns, rounding_ns) << p["name"];
  }
}

// The trace's timeline follows the Trace Event Format (checked by a Python checker written
// from the format's documentation, not by our writer) and what the program did: one track
// per thread, named as the report names them; holds of the lock never overlap (it is a
// mutex) and add up to at least the time the program computed while holding it; the
// processors-busy counter integrates to no less than the program computed and no more than
// the kernel counted.
TEST_F(ExportE2E, ChromeTraceFollowsTheFormatAndTheProgram) {
  const std::string python = find_program("python3");
  if (python.empty()) GTEST_SKIP() << "python3 is not installed";
  ASSERT_NO_FATAL_FAILURE(record(true));
  const std::string trace = exported({"--format", "chrome-trace"}, "trace.json");
  const CommandResult r = run_command({python, kChecks + "/check_chrome_trace.py", trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json seen = json::parse(r.out);

  std::vector<std::string> threads;
  for (const json& t : report["threads"]) threads.push_back(t["name"]);
  std::sort(threads.begin(), threads.end());
  EXPECT_EQ(seen["threads"].get<std::vector<std::string>>(), threads);

  const std::string hold = "hold work_queue";
  ASSERT_TRUE(seen["slice_s"].contains(hold)) << r.out;
  EXPECT_FALSE(seen["holds_overlap"][hold].get<bool>());
  const double held_s = seen["slice_s"][hold];
  EXPECT_GE(held_s, std::stod(program_said.at("held_s")));
  EXPECT_LE(held_s, std::stod(program_said.at("elapsed_s")));
  // Four threads taking one lock: some of them waited for it.
  ASSERT_TRUE(seen["slice_s"].contains("wait work_queue")) << r.out;
  EXPECT_GT(seen["slice_s"]["wait work_queue"].get<double>(), 0);

  // lock_contention computes as long outside the lock as inside it (100 us each, in thread
  // CPU time) and never spins: its threads were busy at least twice held_s, and for no
  // longer than the kernel says `quartz run` and the program used the processors.
  const double busy = seen["counter_integral"]["processors busy"];
  EXPECT_GE(busy, 2 * std::stod(program_said.at("held_s")));
  EXPECT_LE(busy, recording_cpu_s);
}

// spin_vs_block waits for a spin lock, then on a condition, and measures both waits itself.
// The trace's wait slices are those waits; the processors-busy counter leaves the spinning
// out (it used processors but was not busy, DESIGN.md §2).
TEST_F(ExportE2E, ChromeTraceWaitsAndSpinsMatchTheProgramsClocks) {
  const std::string python = find_program("python3");
  if (python.empty()) GTEST_SKIP() << "python3 is not installed";
  const long rounds = 20, hold_ms = 25;
  ASSERT_NO_FATAL_FAILURE(
      record_program(true, {sample("spin_vs_block"), "--rounds", std::to_string(rounds),
                            "--hold-ms", std::to_string(hold_ms)}));
  const std::string trace = exported({"--format", "chrome-trace"}, "trace.json");
  const CommandResult r = run_command({python, kChecks + "/check_chrome_trace.py", trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json seen = json::parse(r.out);
  const json slices = seen["slice_s"];
  auto slice_s = [&](const std::string& name) {
    return slices.contains(name) ? slices[name].get<double>() : 0.0;
  };
  // Each wait lies inside the procedure the program timed it in; little else is in there.
  const double spin_wait_s = std::stod(program_said.at("spin_wait_s"));
  EXPECT_LE(slice_s("wait resource_spin"), spin_wait_s);
  EXPECT_GE(slice_s("wait resource_spin"), 0.95 * spin_wait_s);
  const double block_wait_s = std::stod(program_said.at("block_wait_s"));
  const double blocked_s = slice_s("wait resource_free") + slice_s("wait resource_mutex");
  EXPECT_LE(blocked_s, block_wait_s);
  EXPECT_GE(blocked_s, 0.95 * block_wait_s);
  // The holder computes hold_ms of thread CPU time per round in each phase: busy at least
  // that; the spinners' CPU time (the program's own clock) is not busy.
  const double busy = seen["counter_integral"]["processors busy"];
  EXPECT_GE(busy, 2 * rounds * hold_ms / 1e3);
  EXPECT_LE(busy, recording_cpu_s - std::stod(program_said.at("spin_wait_cpu_s")));

  // Chrome DevTools' own trace model loads it: every slice on its thread, the spin waits
  // as long as the program measured.
  const std::string engine = npm_package("@paulirish/trace_engine", "models/trace/trace.js");
  if (engine.empty())
    GTEST_SKIP() << "Chrome DevTools' trace engine (npm @paulirish/trace_engine) is not installed";
  const CommandResult d =
      run_command({find_program("node"), kChecks + "/load_in_devtools.mjs", engine, trace});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  const json devtools = json::parse(d.out);
  std::vector<std::string> names, expected;
  size_t entries = 0;
  double spin_s = 0;
  for (const json& t : devtools["threads"]) {
    names.push_back(t["name"]);
    entries += t["entries"].get<size_t>();
    if (t["slice_s"].contains("wait resource_spin"))
      spin_s += t["slice_s"]["wait resource_spin"].get<double>();
  }
  for (const json& t : report["threads"]) expected.push_back(t["name"]);
  std::sort(names.begin(), names.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(names, expected);
  EXPECT_EQ(entries, seen["complete_events"].get<size_t>());
  EXPECT_LE(spin_s, spin_wait_s);
  EXPECT_GE(spin_s, 0.95 * spin_wait_s);
}

// Every CSV table, read by Python's csv module, holds the report's records and numbers.
TEST_F(ExportE2E, CsvTablesHoldTheReportsNumbers) {
  const std::string python = find_program("python3");
  if (python.empty()) GTEST_SKIP() << "python3 is not installed";
  ASSERT_NO_FATAL_FAILURE(record(false));
  const std::string tables = exported({"--format", "csv"}, "tables");
  const CommandResult r = run_command({python, kChecks + "/check_csv.py", tables, report_path});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // One table on standard output is the same table.
  const CommandResult one =
      run_command({kQuartz, "report", "--store", store, "--format", "csv", "--table", "locks"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  std::ifstream file(tables + "/locks.csv", std::ios::binary);
  EXPECT_EQ(one.out, std::string(std::istreambuf_iterator<char>(file), {}));
  // Every table needs a directory; an unknown format or table is refused in one line.
  for (const std::vector<std::string>& flags : {std::vector<std::string>{"--format", "csv"},
                                                {"--format", "svg"},
                                                {"--format", "csv", "--table", "nope"},
                                                {"--table", "locks"}}) {
    std::vector<std::string> argv{kQuartz, "report", "--store", store};
    argv.insert(argv.end(), flags.begin(), flags.end());
    const CommandResult refused = run_command(argv);
    EXPECT_EQ(refused.exit_code, 2) << flags[1];
    EXPECT_TRUE(refused.out.empty()) << flags[1];
    EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
  }
}

}  // namespace
}  // namespace quartz::test

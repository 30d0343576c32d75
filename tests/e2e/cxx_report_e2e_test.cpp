// End-to-end: a C++ program as people write it (std::thread, std::vector, std::sort, a
// std::mutex, lambdas, pthread_setname_np), hooked in std:: code too, reads like its source
// in `quartz report` (issue 9 item 5). The truth is the program's own output: the worker
// function each thread ran, the name its thread had (pthread_getname_np, after the
// program named two of them, with pthread_setname_np and with prctl) and the thread's
// processor time by its own clock (CLOCK_THREAD_CPUTIME_ID).
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness.h"

namespace quartz::test {
namespace {

using nlohmann::json;
const std::string kCxxWorkers = std::string(QUARTZ_E2E_DIR) + "/cxx_workers";

// What a worker printed: "worker=crunch_numbers name=cruncher cpu_s=0.31".
struct Worker {
  std::string function, thread_name;
  double cpu_s = 0;
};

std::vector<Worker> printed_workers(const std::string& out) {
  std::vector<Worker> workers;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    Worker w;
    char function[64] = {}, name[64] = {};
    if (std::sscanf(line.c_str(), "worker=%63s name=%63s cpu_s=%lf", function, name, &w.cpu_s) ==
        3) {
      w.function = function;
      w.thread_name = name;
      workers.push_back(w);
    }
  }
  return workers;
}

// Columns as a terminal counts them: UTF-8 code points.
size_t columns(const std::string& line) {
  size_t n = 0;
  for (unsigned char c : line) n += (c & 0xC0) != 0x80;
  return n;
}

// A system header's code, by the names libstdc++ gives it.
bool is_std_name(const std::string& name) {
  return name.find("std::") != std::string::npos || name.find("__gnu_cxx::") != std::string::npos;
}

class CxxReport : public ScratchTest {
 protected:
  void SetUp() override {
    ScratchTest::SetUp();
    // Long enough that each worker's own work outweighs the report() it calls at its end
    // (~1 ms of printing) by far: the tests below compare its self time with its total.
    // Under ASan every std:: call goes through the hooks: a tenth of the rounds still
    // outweighs the printing, and 4000 took 168 s on a slow machine.
    const CommandResult r = run_command({kQuartz, "run", "-q", "--store", store, "--", kCxxWorkers,
                                         QUARTZ_SANITIZED ? "400" : "4000"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    workers = printed_workers(r.out);
    ASSERT_EQ(workers.size(), 4u) << r.out;
  }
  CommandResult quartz(std::vector<std::string> args) {
    args.insert(args.begin(), kQuartz);
    args.insert(args.end(), {"--store", store});
    const CommandResult r = run_command(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r;
  }
  json report(const std::vector<std::string>& flags = {}) {
    std::vector<std::string> args{"report", "--json"};
    args.insert(args.end(), flags.begin(), flags.end());
    return json::parse(quartz(args).out, nullptr, /*allow_exceptions=*/false);
  }
  static const json* find(const json& rows, const std::string& key, const std::string& value) {
    for (const json& row : rows) {
      if (row[key] == value) return &row;
    }
    return nullptr;
  }
  // The procedure row whose bare name is `function` (names are demangled in full).
  static const json* procedure(const json& j, const std::string& function) {
    for (const json& row : j["procedures"]) {
      const std::string name = row["name"];
      if (name.find("::" + function + "(") != std::string::npos ||
          name.rfind(function + "(", 0) == 0) {
        return &row;
      }
    }
    return nullptr;
  }
  std::vector<Worker> workers;
};

// By default no procedure of std:: code is listed; the workers come first after main and
// the lambda that calls sort_records, each with its thread's processor time as its own.
TEST_F(CxxReport, WorkersRankFirstWithTheirThreadsTimeAsTheirOwn) {
  const json j = report();
  ASSERT_TRUE(j.is_object());
  for (const json& p : j["procedures"]) {
    EXPECT_FALSE(is_std_name(p["name"])) << p["name"] << " is system code";
    const std::string location = p["location"];
    const std::string name = p["name"];
    if (name.rfind("static initialisation of ", 0) == 0) {
      // The compiler's own code, named by the file whose globals it initialises; clang's
      // has no line.
      EXPECT_EQ(name, "static initialisation of cxx_workers.cpp");
      EXPECT_EQ(location.rfind("cxx_workers.cpp", 0), 0u) << name << " at " << location;
      continue;
    }
    EXPECT_EQ(location.rfind("cxx_workers.cpp:", 0), 0u) << name << " at " << location;
  }
  const double period_s = j["sampling"]["period_s"];
  for (const Worker& w : workers) {
    SCOPED_TRACE(w.function);
    const json* p = procedure(j, w.function);
    ASSERT_TRUE(p);
    size_t rank = 1;  // main and the lambda rank above it: they hold the threads' work too
    for (const json& other : j["procedures"]) {
      rank += other["normalized_s"].get<double>() > (*p)["normalized_s"].get<double>();
    }
    EXPECT_LE(rank, 6u);
    // Its thread: the one whose routine it is. Its processor time in the profile is the
    // thread's own clock less the hook cost Quartz takes out of that thread (its CPU time
    // less its processor time, both as the report gives them).
    const json* thread = find(j["threads"], "routine", (*p)["name"]);
    ASSERT_TRUE(thread);
    const double hooks_s =
        (*thread)["cpu_s"].get<double>() - (*thread)["processor_s"].get<double>();
    EXPECT_NEAR((*p)["processor_s"].get<double>() + hooks_s, w.cpu_s,
                std::max(0.05 * w.cpu_s, period_s));
    // Its std:: callees' time is its own (sort_records calls a comparator of the program's).
    if (w.function != "sort_records") {
      EXPECT_GT((*p)["processor_self_s"].get<double>(), 0.95 * (*p)["processor_s"].get<double>());
    }
  }
}

// Threads are named by the name the program gave them, else by the worker they ran.
TEST_F(CxxReport, ThreadsAreNamedByTheirNameOrTheirWorker) {
  const json j = report();
  ASSERT_TRUE(j.is_object());
  for (const Worker& w : workers) {
    SCOPED_TRACE(w.function);
    const json* p = procedure(j, w.function);
    ASSERT_TRUE(p);
    const json* thread = find(j["threads"], "routine", (*p)["name"]);
    ASSERT_TRUE(thread);
    const bool named = w.thread_name != "cxx_workers";  // threads inherit the program's name
    EXPECT_EQ((*thread)["named"], named);
    EXPECT_EQ((*thread)["name"], named ? w.thread_name : w.function);
  }
  const CommandResult text = quartz({"report"});
  EXPECT_NE(text.out.find("  cruncher\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  sum_squares\n"), std::string::npos) << text.out;
}

// --all-frames shows std:: code as procedures of its own, and the workers' self time
// shrinks to what they do themselves.
TEST_F(CxxReport, AllFramesShowsTheStandardLibrary) {
  const json j = report({"--all-frames"});
  ASSERT_TRUE(j.is_object());
  size_t std_procedures = 0;
  for (const json& p : j["procedures"]) std_procedures += is_std_name(p["name"]);
  EXPECT_GT(std_procedures, 10u);
  bool thread_trampoline = false;
  for (const json& p : j["procedures"]) {
    thread_trampoline |= p["name"].get<std::string>().find("_M_run()") != std::string::npos;
  }
  EXPECT_TRUE(thread_trampoline) << "std::thread's _State_impl::_M_run";
  const json* crunch = procedure(j, "crunch_numbers");
  ASSERT_TRUE(crunch);
  EXPECT_LT((*crunch)["processor_self_s"].get<double>(),
            0.5 * (*crunch)["processor_s"].get<double>());
}

// Every line of the text reports fits in 120 columns, std:: names included; diagnose names
// the program's procedures.
TEST_F(CxxReport, TextLinesFitIn120Columns) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"report"}, {"report", "--all-frames", "--top", "100"}, {"diagnose"}}) {
    const CommandResult r = quartz(args);
    std::istringstream lines(r.out);
    size_t n = 0;
    for (std::string line; std::getline(lines, line); ++n) {
      EXPECT_LE(columns(line), 120u) << args.back() << ": " << line;
    }
    EXPECT_GT(n, 5u);
    if (args[0] == "diagnose") {
      EXPECT_EQ(r.out.find("std::"), std::string::npos) << r.out;
    }
  }
  const CommandResult all = quartz({"report", "--all-frames"});
  EXPECT_NE(all.out.find("std::"), std::string::npos) << "std:: names, shortened, still show";
}

}  // namespace
}  // namespace quartz::test

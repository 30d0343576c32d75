// System frames fold into the program's procedures (analysis/system_frames.h), and long C++
// names fit the text report (analysis/cxx_names.h, text_format.h).
#include "analysis/system_frames.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "analysis/cxx_names.h"
#include "analysis/profile_view.h"
#include "analysis/text_format.h"
#include "profile/system_code.h"

namespace quartz::analysis {
namespace {

using profile::FullRecord;
using profile::ProcedureInfo;

constexpr uint64_t kMain = 0x1000, kPushBack = 0x2000, kWork = 0x3000;

// One processor: bins "0 busy" and "1 busy"; all the time with one busy.
FullRecord full(double self_s, double behalf_s) {
  FullRecord r;
  r.normalized_self = r.processor_self = {0, self_s};
  r.normalized_behalf = r.processor_behalf = {0, behalf_s};
  r.state_self[capture::kBusy] = self_s;
  r.state_behalf[capture::kBusy] = behalf_s;
  for (auto& bins : r.runnable) bins.assign(2, 0);
  return r;
}

// Context `id` (the next in `run`).
void add_context(profile::Run& run, uint32_t id, uint32_t parent, uint64_t address, double self_s) {
  ASSERT_EQ(id, run.contexts.size());
  profile::ContextRecord record;
  record.normalized = record.processor = {0, self_s};
  record.states.state[capture::kBusy] = self_s;
  profile::ContextInfo context;
  context.parent = parent;
  context.address = address;
  run.add_context(context, record);
}

// main calls std::vector's push_back, which calls the program's `work` back (a callback),
// and main calls work directly, which calls push_back:
//   main 1 -> push_back 2 -> work 3
//   main   -> work 4 -> push_back 5              (self seconds at each context)
profile::Run callback_run() {
  profile::Run run;
  run.processors = 1;
  run.symbols[kMain] = {"main", "/src/app.cpp", 10, "/src/app"};
  run.symbols[kPushBack] = {"std::vector<int, std::allocator<int> >::push_back(int const&)",
                            "/usr/include/c++/12/bits/stl_vector.h", 1280, "/src/app"};
  run.symbols[kWork] = {"work(int)", "/src/app.cpp", 20, "/src/app"};
  run.procedures = {{kMain, full(1, 14)}, {kPushBack, full(7, 3)}, {kWork, full(7, 5)}};
  add_context(run, 0, capture::kNoParent, kMain, 1);
  add_context(run, 1, 0, kPushBack, 2);
  add_context(run, 2, 1, kWork, 3);
  add_context(run, 3, 0, kWork, 4);
  add_context(run, 4, 3, kPushBack, 5);
  run.edges = {{0, kMain, 1},
               {kMain, kPushBack, 10},
               {kPushBack, kWork, 5},
               {kMain, kWork, 2},
               {kWork, kPushBack, 20}};
  run.program = full(15, 0);
  return run;
}

// Headers as gcc and clang name them (clang through its own directory, unnormalized), and
// the program's own sources, wherever they are.
TEST(SystemCode, HeadersAsEitherCompilerNamesThem) {
  EXPECT_TRUE(profile::is_system_source("/usr/include/c++/12/bits/std_thread.h"));
  EXPECT_TRUE(profile::is_system_source(
      "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/bits/std_thread.h"));
  EXPECT_FALSE(profile::is_system_source("/home/me/src/../include/app.h"));
  EXPECT_FALSE(profile::is_system_source("app.cpp"));
}

TEST(SystemFrames, FoldIntoTheirCallerWhoseOwnTimeTheyBecome) {
  const profile::Run folded = fold_system_frames(callback_run()).value();
  ASSERT_EQ(folded.procedures.size(), 2u);
  for (const ProcedureInfo& p : folded.procedures) {
    const double self = p.record.normalized_self[1], behalf = p.record.normalized_behalf[1];
    if (p.address == kMain) {
      EXPECT_DOUBLE_EQ(self, 3);  // its own 1, and push_back's 2 called from it
      EXPECT_DOUBLE_EQ(behalf, 12);
    } else {
      EXPECT_EQ(p.address, kWork);
      EXPECT_DOUBLE_EQ(self, 12);  // 3 + 4 of its own, push_back's 5 called from it
      EXPECT_DOUBLE_EQ(behalf, 0);
    }
    EXPECT_DOUBLE_EQ(self + behalf, p.address == kMain ? 15 : 12) << "totals unchanged";
  }
  // The tree: main -> work, the two paths to work merged.
  ASSERT_EQ(folded.contexts.size(), 2u);
  EXPECT_EQ(folded.contexts[0].address, kMain);
  EXPECT_DOUBLE_EQ(folded.normalized_of(0)[1], 3);
  EXPECT_EQ(folded.contexts[1].address, kWork);
  EXPECT_EQ(folded.contexts[1].parent, 0u);
  EXPECT_DOUBLE_EQ(folded.normalized_of(1)[1], 12);
  // Calls through push_back are main's; calls to it are gone.
  ASSERT_EQ(folded.edges.size(), 2u);
  EXPECT_EQ(folded.edges[1].caller, kMain);
  EXPECT_EQ(folded.edges[1].callee, kWork);
  EXPECT_EQ(folded.edges[1].calls, 7u);
}

TEST(SystemFrames, ARunWithoutSystemCodeReadsAsItIs) {
  profile::Run run = callback_run();
  run.symbols[kPushBack].file = "/src/vector.h";
  EXPECT_FALSE(fold_system_frames(run).has_value());
}

TEST(SystemFrames, TheViewFoldsUnlessAskedForAllFrames) {
  const profile::Run run = callback_run();
  const ProfileView view = analyze(run);
  EXPECT_FALSE(view.all_frames);
  ASSERT_EQ(view.procedures.size(), 2u);
  const std::vector<ChildRow>& main_children = view.children.at(kMain);
  ASSERT_EQ(main_children.size(), 2u);  // work, self
  EXPECT_EQ(view.name_of(main_children[0]), "work(int)");
  EXPECT_DOUBLE_EQ(main_children[0].share + main_children[1].share, 1);
  EXPECT_EQ(main_children[0].calls, 7u);

  const ProfileView all = analyze(run, {.all_frames = true});
  EXPECT_TRUE(all.all_frames);
  EXPECT_EQ(all.procedures.size(), 3u);
}

TEST(CxxNames, FitShortensTemplatesAndParametersFirst) {
  const std::string invoke =
      "void std::thread::_Invoker<std::tuple<void (*)(int), int> >::_M_invoke<0ul, "
      "1ul>(std::_Index_tuple<0ul, 1ul>)";
  EXPECT_EQ(fit_name(invoke, 200), invoke);
  EXPECT_EQ(fit_name(invoke, 60), "void std::thread::_Invoker<...>::_M_invoke<...>(...)");
  EXPECT_EQ(fit_name(invoke, 48), "std::thread::_Invoker<...>::_M_invoke<...>(...)");
  EXPECT_EQ(fit_name(invoke, 20).size(), 20u);
  EXPECT_EQ(fit_name("std::thread::_State_impl<std::thread::_Invoker<> >::_M_run()", 33),
            "std::thread::_State_...::_M_run()")
      << "a cut keeps the function's own name";
  EXPECT_EQ(fit_name("(anonymous namespace)::sort_records(int)", 30), "sort_records(int)");
  // A location in parentheses is not a parameter list.
  EXPECT_EQ(fit_name("mutex@(anonymous namespace)::report(char const*, double) (w.cpp:33)", 40),
            "mutex@report(...) (w.cpp:33)");
  EXPECT_EQ(fit_name("bool operator<(Foo const&, Foo const&)", 20), "bool operator<(...)");
}

TEST(CxxNames, LambdasAsEitherCompilerNamesThem) {
  EXPECT_TRUE(is_lambda("main::{lambda()#1}::operator()() const"));
  EXPECT_TRUE(is_lambda("main::$_1::operator()() const"));
  EXPECT_TRUE(is_lambda("(anonymous namespace)::run()::$_12::operator()(int) const"));
  EXPECT_FALSE(is_lambda("Matrix::operator()(int, int) const"));
  EXPECT_FALSE(is_lambda("price$_usd::operator()()"));
  EXPECT_FALSE(is_lambda("sort_records(int)"));
}

TEST(CxxNames, BareNamesAreWhatTheSourceCallsThem) {
  EXPECT_EQ(bare_name("(anonymous namespace)::sort_records(int)"), "sort_records");
  EXPECT_EQ(bare_name("main::{lambda()#1}::operator()() const"), "main::{lambda()#1}");
  EXPECT_EQ(bare_name("Worker<int>::run(std::vector<int, std::allocator<int> > const&) const"),
            "Worker::run");
  EXPECT_EQ(bare_name("Matrix::operator()(int, int)"), "Matrix::operator()");
  EXPECT_EQ(bare_name("main"), "main");
}

// The symbols nm shows in the same program built by each compiler (tests/e2e's
// cxx_workers): gcc's driver and helper, clang's driver and one per global.
TEST(CxxNames, StaticInitialisersAsEitherCompilerNamesThem) {
  for (const char* symbol :
       {"_GLOBAL__sub_I_main", "__static_initialization_and_destruction_0(int, int)",
        "_GLOBAL__sub_I_cxx_workers.cpp", "__cxx_global_var_init", "__cxx_global_var_init.1"}) {
    EXPECT_EQ(readable_generated_name(symbol, "cxx_workers.cpp"),
              "static initialisation of cxx_workers.cpp");
  }
  EXPECT_EQ(readable_generated_name("_GLOBAL__sub_I_main", ""),
            "static initialisation of _GLOBAL__sub_I_main");
  EXPECT_EQ(readable_generated_name("main", "cxx_workers.cpp"), "main");
}

TEST(TextWidth, LongLinesWrapAtSpacesWithinTheWidth) {
  const std::string line = "  Sampling: " + std::string(30, 'x') + " " + std::string(30, 'y') +
                           " \u2588\u2588 " + std::string(30, 'z') + " end";
  const std::string wrapped = text::wrap_lines(line + "\nshort\n", 50);
  std::istringstream lines(wrapped);
  std::vector<std::string> got;
  for (std::string l; std::getline(lines, l);) {
    EXPECT_LE(text::columns(l), 50u) << l;
    got.push_back(l);
  }
  ASSERT_EQ(got.size(), 4u) << wrapped;
  EXPECT_EQ(got[1].rfind("      yyy", 0), 0u) << "continued 4 past the line's indentation";
  EXPECT_EQ(got.back(), "short");
  // A word wider than the line is cut, on every line it continues on.
  const std::string word = text::wrap_lines(std::string(120, 'w'), 50);
  std::istringstream pieces(word);
  size_t letters = 0, n = 0;
  for (std::string l; std::getline(pieces, l); ++n) {
    EXPECT_LE(text::columns(l), 50u) << l;
    letters += std::count(l.begin(), l.end(), 'w');
  }
  EXPECT_EQ(letters, 120u);
  EXPECT_EQ(n, 3u);
}

}  // namespace
}  // namespace quartz::analysis

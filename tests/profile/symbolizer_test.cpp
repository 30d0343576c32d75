// The symbolizer against fixture programs that print their own functions' runtime addresses,
// load biases and source lines (fixtures/fixture_main.cpp): with debug info (PIE and not),
// without (-g0), stripped, and in a shared library (with debug info and stripped).
#include "profile/symbolizer.h"

#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace quartz::profile {
namespace {

const std::string kFixtureDir = QUARTZ_SYMBOLIZER_FIXTURE_DIR;
const std::string kLibraryName = "libsymbolizer_fixture_lib.so";

// What the fixture programs report, by module (fixture_main.cpp, fixture_c.c, fixture_lib.cpp).
const std::set<std::string> kProgramFunctions = {
    "main",
    "fixture::Accumulator::add(int)",
    "fixture::Accumulator::scaled(int) const",
    "int fixture::clamp_to_zero<int>(int)",
    "double fixture::clamp_to_zero<double>(double)",
    "fixture::static_helper(int)",
    "fixture::(anonymous namespace)::anonymous_helper(int)",
    "fixture::outer_with_inlined_call(fixture::Site*)",
    "fixture::outer_with_direct_call(fixture::Site*)",
    "c_static_square",
    "c_exported_sum",
};
const std::set<std::string> kLibraryFunctions = {
    "(anonymous namespace)::lib_anonymous_mix(int)",
    "lib_static_widen(int)",
    "fixture_lib::scale(int, int)",
    "fixture_lib_entry",
};
const std::set<std::string> kLibraryExports = {"fixture_lib::scale(int, int)", "fixture_lib_entry"};

// One address a fixture program reported.
struct ReportedAddress {
  std::string kind;      // "function": the entry of `name`; "site": an address inside `name`
  std::string name;      // demangled
  uint64_t address = 0;  // at run time
  uint64_t bias = 0;     // load bias of `module` (dlpi_addr)
  std::string module;
  int line = 0;  // declaration line for a function, the call's line for a site
  std::string file;

  uint64_t elf_address() const { return address - bias; }
  bool in_library() const {
    return module.size() >= kLibraryName.size() &&
           module.compare(module.size() - kLibraryName.size(), kLibraryName.size(), kLibraryName) ==
               0;
  }
  std::string describe() const {
    char hex[32];
    std::snprintf(hex, sizeof(hex), "%#llx", static_cast<unsigned long long>(elf_address()));
    return kind + " " + name + " at " + hex + " in " + module;
  }
};

ReportedAddress parse_line(const std::string& line) {
  ReportedAddress reported;
  std::map<std::string, std::string> fields;
  size_t start = 0;
  for (size_t field = 0; start <= line.size(); ++field) {
    size_t end = line.find('\t', start);
    if (end == std::string::npos) end = line.size();
    const std::string text = line.substr(start, end - start);
    if (field == 0) {
      reported.kind = text;
    } else if (size_t equals = text.find('='); equals != std::string::npos) {
      fields[text.substr(0, equals)] = text.substr(equals + 1);
    }
    start = end + 1;
  }
  reported.name = fields["name"];
  reported.address = std::strtoull(fields["address"].c_str(), nullptr, 0);
  reported.bias = std::strtoull(fields["bias"].c_str(), nullptr, 0);
  reported.module = fields["module"];
  reported.line = std::atoi(fields["line"].c_str());
  reported.file = fields["file"];
  return reported;
}

std::vector<ReportedAddress> run_fixture_program(const std::string& program) {
  std::vector<ReportedAddress> reported;
  const std::string command = "'" + kFixtureDir + "/" + program + "'";
  FILE* output = popen(command.c_str(), "r");
  if (output == nullptr) {
    ADD_FAILURE() << "cannot run " << command;
    return reported;
  }
  char* buffer = nullptr;
  size_t capacity = 0;
  ssize_t length = 0;
  while ((length = getline(&buffer, &capacity, output)) > 0) {
    std::string line(buffer, static_cast<size_t>(length));
    if (line.back() == '\n') line.pop_back();
    ReportedAddress address = parse_line(line);
    if (address.kind == "function" || address.kind == "site") reported.push_back(address);
  }
  std::free(buffer);
  const int status = pclose(output);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command << ": " << status;
  return reported;
}

// Each program runs once per test process.
const std::vector<ReportedAddress>& fixture_output(const std::string& program) {
  static std::map<std::string, std::vector<ReportedAddress>> outputs;
  auto it = outputs.find(program);
  if (it == outputs.end()) it = outputs.emplace(program, run_fixture_program(program)).first;
  return it->second;
}

enum class From { program, library };

std::vector<ReportedAddress> reported(const std::string& program, const std::string& kind,
                                      From from) {
  std::vector<ReportedAddress> selected;
  for (const ReportedAddress& address : fixture_output(program)) {
    if (address.kind == kind && address.in_library() == (from == From::library)) {
      selected.push_back(address);
    }
  }
  return selected;
}

std::set<std::string> names_of(const std::vector<ReportedAddress>& addresses) {
  std::set<std::string> names;
  for (const ReportedAddress& address : addresses) names.insert(address.name);
  return names;
}

uint64_t entry_of(const std::string& program, const std::string& function) {
  for (const ReportedAddress& address : reported(program, "function", From::program)) {
    if (address.name == function) return address.elf_address();
  }
  ADD_FAILURE() << "no function " << function;
  return 0;
}

void expect_symbol(const SourceSymbol& symbol, const std::string& function, const std::string& file,
                   int line) {
  EXPECT_EQ(symbol.function, function);
  EXPECT_EQ(symbol.file, file);
  EXPECT_EQ(symbol.line, line);
}

// Function entries resolve to their name, declaration file and line, and to themselves.
void expect_functions_with_debug_info(const std::vector<ReportedAddress>& functions) {
  Symbolizer symbolizer;
  for (const ReportedAddress& function : functions) {
    SCOPED_TRACE(function.describe());
    expect_symbol(symbolizer.symbolize(function.module, function.elf_address()), function.name,
                  function.file, function.line);
    EXPECT_EQ(symbolizer.function_entry(function.module, function.elf_address()),
              function.elf_address());
    // One byte in: the same function, the same entry.
    EXPECT_EQ(symbolizer.symbolize(function.module, function.elf_address() + 1).function,
              function.name);
    EXPECT_EQ(symbolizer.function_entry(function.module, function.elf_address() + 1),
              function.elf_address());
  }
}

TEST(SymbolizerTest, PieExecutableWithDebugInfo) {
  const auto functions = reported("symbolizer_fixture_debug", "function", From::program);
  EXPECT_EQ(names_of(functions), kProgramFunctions);
  ASSERT_FALSE(functions.empty());
  EXPECT_NE(functions.front().bias, 0u) << "not loaded as PIE";
  expect_functions_with_debug_info(functions);
}

TEST(SymbolizerTest, NonPieExecutableWithDebugInfo) {
  const auto functions = reported("symbolizer_fixture_nopie", "function", From::program);
  EXPECT_EQ(names_of(functions), kProgramFunctions);
  ASSERT_FALSE(functions.empty());
  EXPECT_EQ(functions.front().bias, 0u) << "loaded as PIE";
  expect_functions_with_debug_info(functions);
}

TEST(SymbolizerTest, SharedLibraryWithDebugInfo) {
  const auto functions = reported("symbolizer_fixture_debug", "function", From::library);
  EXPECT_EQ(names_of(functions), kLibraryFunctions);
  ASSERT_FALSE(functions.empty());
  EXPECT_NE(functions.front().bias, 0u);
  expect_functions_with_debug_info(functions);
}

// Inside a function, the line is the line of the address, and for code inlined into the
// function the line of the inlined call in it.
TEST(SymbolizerTest, CallSitesInsideFunctions) {
  for (const char* program : {"symbolizer_fixture_debug", "symbolizer_fixture_nopie"}) {
    const auto sites = reported(program, "site", From::program);
    EXPECT_EQ(sites.size(), 2u) << program;
    Symbolizer symbolizer;
    for (const ReportedAddress& site : sites) {
      SCOPED_TRACE(site.describe());
      expect_symbol(symbolizer.symbolize(site.module, site.elf_address()), site.name, site.file,
                    site.line);
      EXPECT_EQ(symbolizer.function_entry(site.module, site.elf_address()),
                entry_of(program, site.name));
    }
  }
}

TEST(SymbolizerTest, WithoutDebugInfoNamesComeFromTheSymbolTable) {
  const std::string program = "symbolizer_fixture_nodebug";
  const auto functions = reported(program, "function", From::program);
  EXPECT_EQ(names_of(functions), kProgramFunctions);
  Symbolizer symbolizer;
  for (const ReportedAddress& function : functions) {
    SCOPED_TRACE(function.describe());
    expect_symbol(symbolizer.symbolize(function.module, function.elf_address()), function.name, "",
                  0);
    EXPECT_EQ(symbolizer.function_entry(function.module, function.elf_address()),
              function.elf_address());
  }
  for (const ReportedAddress& site : reported(program, "site", From::program)) {
    SCOPED_TRACE(site.describe());
    expect_symbol(symbolizer.symbolize(site.module, site.elf_address()), site.name, "", 0);
    EXPECT_EQ(symbolizer.function_entry(site.module, site.elf_address()),
              entry_of(program, site.name));
  }
}

TEST(SymbolizerTest, StrippedExecutableGivesNothing) {
  const std::string program = "symbolizer_fixture_stripped";
  const auto functions = reported(program, "function", From::program);
  EXPECT_EQ(names_of(functions), kProgramFunctions);
  Symbolizer symbolizer;
  for (const ReportedAddress& address : fixture_output(program)) {
    if (address.in_library()) continue;
    SCOPED_TRACE(address.describe());
    expect_symbol(symbolizer.symbolize(address.module, address.elf_address()), "", "", 0);
    EXPECT_EQ(symbolizer.function_entry(address.module, address.elf_address()), std::nullopt);
  }
}

// Exported functions keep their names in .dynsym; file-local ones are gone.
TEST(SymbolizerTest, StrippedSharedLibraryKeepsExportedNames) {
  const std::string stripped = kFixtureDir + "/libsymbolizer_fixture_lib_stripped.so";
  const auto functions = reported("symbolizer_fixture_debug", "function", From::library);
  ASSERT_EQ(names_of(functions), kLibraryFunctions);
  Symbolizer symbolizer;
  for (const ReportedAddress& function : functions) {
    SCOPED_TRACE(function.describe());
    const bool exported = kLibraryExports.count(function.name) > 0;
    expect_symbol(symbolizer.symbolize(stripped, function.elf_address()),
                  exported ? function.name : "", "", 0);
    EXPECT_EQ(symbolizer.function_entry(stripped, function.elf_address()),
              exported ? std::optional<uint64_t>(function.elf_address()) : std::nullopt);
  }
}

TEST(SymbolizerTest, UnreadableFilesAndUnknownAddressesGiveNothing) {
  Symbolizer symbolizer;
  const std::string program = kFixtureDir + "/symbolizer_fixture_debug";
  for (const std::string& path :
       {kFixtureDir + "/no_such_file", std::string(__FILE__), kFixtureDir}) {
    for (int attempt = 0; attempt < 2; ++attempt) {  // the second one from the cache
      SCOPED_TRACE(path);
      expect_symbol(symbolizer.symbolize(path, 0x1000), "", "", 0);
      EXPECT_EQ(symbolizer.function_entry(path, 0x1000), std::nullopt);
    }
  }
  for (uint64_t address : {uint64_t{0}, uint64_t{0x10}, uint64_t{1} << 40, ~uint64_t{0}}) {
    SCOPED_TRACE(address);
    expect_symbol(symbolizer.symbolize(program, address), "", "", 0);
    EXPECT_EQ(symbolizer.function_entry(program, address), std::nullopt);
  }
  // The module still works after those.
  const ReportedAddress main = reported("symbolizer_fixture_debug", "function", From::program)[0];
  EXPECT_EQ(symbolizer.symbolize(program, main.elf_address()).function, main.name);
}

// Every address between the fixture's first and last function resolves consistently: its
// function's entry has the same name, and the entry of the entry is itself; padding between
// functions resolves to nothing.
TEST(SymbolizerTest, EveryAddressAgreesWithItsFunctionEntry) {
  const auto functions = reported("symbolizer_fixture_debug", "function", From::program);
  ASSERT_FALSE(functions.empty());
  const std::string module = functions.front().module;
  uint64_t low = ~uint64_t{0}, high = 0;
  for (const ReportedAddress& function : functions) {
    low = std::min(low, function.elf_address());
    high = std::max(high, function.elf_address());
  }
  Symbolizer symbolizer;
  size_t resolved = 0;
  for (uint64_t address = low; address <= high; ++address) {
    const SourceSymbol symbol = symbolizer.symbolize(module, address);
    const std::optional<uint64_t> entry = symbolizer.function_entry(module, address);
    ASSERT_EQ(symbol.function.empty(), !entry.has_value()) << address;
    if (!entry) {
      ASSERT_TRUE(symbol.file.empty() && symbol.line == 0) << address;
      continue;
    }
    ++resolved;
    ASSERT_EQ(symbolizer.symbolize(module, *entry).function, symbol.function) << address;
    ASSERT_EQ(symbolizer.function_entry(module, *entry), entry) << address;
    // The fixture's own code has debug info; C run-time start-up code (_start) does not.
    if (kProgramFunctions.count(symbol.function) > 0) {
      ASSERT_GT(symbol.line, 0) << address;
      ASSERT_FALSE(symbol.file.empty()) << address;
    }
  }
  EXPECT_GT(resolved, (high - low) / 2);
}

// Not a pass/fail check (the machine is shared): prints the cost of opening a module and of
// each lookup after that.
TEST(SymbolizerTest, LookupCost) {
  std::vector<ReportedAddress> addresses;
  for (const ReportedAddress& address : fixture_output("symbolizer_fixture_debug")) {
    addresses.push_back(address);
  }
  ASSERT_FALSE(addresses.empty());
  using Clock = std::chrono::steady_clock;
  Symbolizer symbolizer;
  const auto start = Clock::now();
  size_t named = 0;
  for (const ReportedAddress& address : addresses) {  // opens both modules
    named += !symbolizer.symbolize(address.module, address.elf_address()).function.empty();
  }
  const auto opened = Clock::now();
  constexpr int kRounds = 500;
  for (int round = 0; round < kRounds; ++round) {
    for (const ReportedAddress& address : addresses) {
      named += !symbolizer.symbolize(address.module, address.elf_address()).function.empty();
    }
  }
  const auto end = Clock::now();
  EXPECT_EQ(named, addresses.size() * (kRounds + 1));
  const double first_ms = std::chrono::duration<double, std::milli>(opened - start).count();
  const double each_us = std::chrono::duration<double, std::micro>(end - opened).count() /
                         static_cast<double>(kRounds * addresses.size());
  std::printf(
      "[   COST   ] first pass over %zu addresses (opens 2 modules): %.2f ms; "
      "after that: %.2f us per symbolize()\n",
      addresses.size(), first_ms, each_us);
  RecordProperty("first_pass_ms", std::to_string(first_ms));
  RecordProperty("us_per_lookup", std::to_string(each_us));
}

}  // namespace
}  // namespace quartz::profile

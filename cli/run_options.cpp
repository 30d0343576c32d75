#include "cli/run_options.h"

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <iterator>

#include "cli/command_line.h"
#include "format/placement_syntax.h"

extern char** environ;

namespace quartz::cli {
namespace {

// The runtime's numeric options: flag, variable, and the range runtime/options.cpp accepts.
struct NumberOption {
  const char* flag;
  const char* variable;
  uint64_t lo, hi;
  bool traces;  // only means something with --trace, which it implies
};
constexpr NumberOption kNumberOptions[] = {
    {"--period-us", "QUARTZ_PERIOD_US", 50, 1000000, false},
    {"--checkpoint-ms", "QUARTZ_CHECKPOINT_MS", 10, 3600000, false},
    {"--budget", "QUARTZ_BUDGET", 0, 100, false},
    {"--stack-capacity", "QUARTZ_STACK_CAPACITY", 16, 65536, false},
    {"--objects-log2", "QUARTZ_OBJECTS_LOG2", 6, 24, false},
    {"--call-graph-log2", "QUARTZ_CALL_GRAPH_LOG2", 6, 24, false},
    {"--thread-edges-log2", "QUARTZ_THREAD_EDGES_LOG2", 4, 20, false},
    {"--thread-objects-log2", "QUARTZ_THREAD_OBJECTS_LOG2", 4, 16, false},
    {"--trace-capacity", "QUARTZ_TRACE_CAPACITY", 64, 1u << 24, true},
    {"--trace-cpu-us", "QUARTZ_TRACE_CPU_US", 1, 1000000, true},
};
// The runtime's other options, each set by the flags below.
constexpr const char* kOtherVariables[] = {
    "QUARTZ_DISABLE", "QUARTZ_FOLLOW_EXEC",    "QUARTZ_TRACE",      "QUARTZ_PLACEMENT",
    "QUARTZ_RESERVE", "QUARTZ_RESERVED_CORES", "QUARTZ_PROCEDURES", "QUARTZ_SAMPLER_PRIORITY"};

bool is_runtime_option(const std::string& variable) {
  for (const NumberOption& n : kNumberOptions) {
    if (variable == n.variable) return true;
  }
  for (const char* v : kOtherVariables) {
    if (variable == v) return true;
  }
  return false;  // QUARTZ_OUTPUT and QUARTZ_STATUS are this command's to set
}

// The runtime reads the placement; here it is only checked, so that a typo is an error
// before the program runs rather than a warning while it does. `source`: the flag or
// variable that gave it.
void check_placement(const std::string& source, const std::string& spec) {
  const format::PlacementSyntax syntax = format::check_placement(spec);
  if (syntax.error != format::PlacementSyntaxError::none) {
    std::string what = format::describe(syntax.error);
    if (!syntax.where.empty()) what += " ('" + std::string(syntax.where) + "')";
    throw UsageError("run: " + source + " '" + spec + "' has " + what);
  }
  if (syntax.groups > sysconf(_SC_NPROCESSORS_ONLN)) {
    throw UsageError("run: " + source + " has " + std::to_string(syntax.groups) +
                     " groups but there are " + std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) +
                     " processors");
  }
}

bool truthy(const std::string& value) {
  return value == "1" || value == "yes" || value == "true";
}

// Runtime options already in the environment, where no flag set them: a user who exported
// QUARTZ_OBJECTS_LOG2=16 for LD_PRELOAD runs gets it under `quartz run` too.
void inherit_environment(RunOptions& o) {
  for (char** e = environ; *e; ++e) {
    const char* equals = std::strchr(*e, '=');
    if (!equals) continue;
    const std::string name(*e, static_cast<size_t>(equals - *e));
    if (!is_runtime_option(name) || o.env.count(name)) continue;
    if (name == "QUARTZ_PLACEMENT") check_placement(name, equals + 1);
    o.env[name] = equals + 1;
    o.inherited.push_back(*e);
  }
}

}  // namespace

RunOptions parse_run_options(const std::vector<std::string>& args) {
  RunOptions o;
  o.store = default_store();
  Arguments a(args, "run");
  bool disable = false;
  while (!a.done()) {
    std::string text;
    uint64_t n = 0;
    if (a.flag("--")) break;
    if (a.value("--output", &o.output) || a.value("-o", &o.output)) continue;
    if (a.value("--store", &o.store)) continue;
    if (a.label("--label", &o.labels)) continue;
    if (a.flag("--no-import")) {
      o.import = false;
      continue;
    }
    if (a.flag("--quiet") || a.flag("-q")) {
      o.quiet = true;
      continue;
    }
    if (a.flag("--baseline")) {
      o.baseline = true;
      continue;
    }
    const NumberOption* number = nullptr;
    for (const NumberOption& option : kNumberOptions) {
      if (a.number(option.flag, option.lo, option.hi, &n)) number = &option;
      if (number) break;
    }
    if (number) {
      o.env[number->variable] = std::to_string(n);
      if (number->traces) o.env["QUARTZ_TRACE"] = "1";
      continue;
    }
    if (a.flag("--reserve")) {
      o.env["QUARTZ_RESERVE"] = "yes";
      continue;
    }
    if (a.flag("--no-reserve")) {
      o.env["QUARTZ_RESERVE"] = "no";
      continue;
    }
    if (a.value("--reserved-cores", &text)) {
      o.env["QUARTZ_RESERVED_CORES"] = text;
      o.env["QUARTZ_RESERVE"] = "yes";
      continue;
    }
    if (a.value("--sampler-priority", &text)) {
      if (text != "realtime" && text != "normal") {
        throw UsageError("run: --sampler-priority takes realtime or normal, not '" + text + "'");
      }
      o.env["QUARTZ_SAMPLER_PRIORITY"] = text;
      continue;
    }
    if (a.flag("--follow-exec")) {
      o.env["QUARTZ_FOLLOW_EXEC"] = "1";
      continue;
    }
    if (a.flag("--trace")) {
      o.env["QUARTZ_TRACE"] = "1";
      continue;
    }
    if (a.value("--placement", &text)) {
      check_placement("--placement", text);
      o.env["QUARTZ_PLACEMENT"] = text;
      continue;
    }
    if (a.value("--procedures", &text)) {
      if (text.empty() || text.size() >= 1024) {
        throw UsageError("run: --procedures takes 1 to 1023 characters of patterns");
      }
      o.env["QUARTZ_PROCEDURES"] = text;
      continue;
    }
    if (a.flag("--no-profile")) {
      o.profile = false;
      continue;
    }
    if (a.flag("--disable")) {
      disable = true;
      continue;
    }
    if (a.peek().rfind("-", 0) == 0) a.unknown();
    break;  // the program
  }
  o.program = a.rest();
  if (o.program.empty())
    throw UsageError("run: no program given (quartz run [options] -- PROGRAM ARGS)");
  if (!o.profile && o.env.count("QUARTZ_TRACE"))
    throw UsageError("run: --trace needs profiling (drop --no-profile)");
  if ((!o.profile || disable) && o.baseline)
    throw UsageError("run: --baseline needs profiling (drop --no-profile and --disable)");
  if (disable) {
    if (o.env.count("QUARTZ_PLACEMENT")) {
      throw UsageError("run: --disable keeps the runtime from placing threads (drop --placement)");
    }
    o.env = {{"QUARTZ_DISABLE", "1"}};
    o.profile = false;
    return o;  // nothing else means anything to a disabled runtime
  }

  inherit_environment(o);
  // As --disable: the runtime will write nothing.
  if (o.env.count("QUARTZ_DISABLE") && truthy(o.env["QUARTZ_DISABLE"])) o.profile = false;
  return o;
}

}  // namespace quartz::cli

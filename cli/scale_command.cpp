// `quartz scale [options] -- PROGRAM [ARGS...]`: runs the program under `quartz run` on 1..P
// processors (the affinity of the first P the machine allows, inherited by the program),
// each count repeated, the repeats interleaved so that a change in the machine's load
// falls on every count alike; stores the runs as a series and reports how the program
// scales (analysis/scaling.h). `quartz scale --series RUN` reports a stored series again.
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis/scaling.h"
#include "analysis/scaling_report.h"
#include "analysis/text_format.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "profile/store.h"

namespace quartz::cli {
namespace {

// The processors this process may run on, lowest first.
std::vector<int> allowed_processors() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) out.push_back(cpu);
  }
  return out;
}

std::vector<uint32_t> parse_processors(const std::string& text, uint32_t available) {
  std::vector<uint32_t> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    char* end = nullptr;
    const unsigned long n = std::strtoul(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || n < 1 || n > 4096) {
      throw UsageError("scale: --processors wants counts like 1,2,4, not '" + text + "'");
    }
    if (n > available) {
      throw UsageError("scale: this machine lets the program use " + std::to_string(available) +
                       " processors: " + std::to_string(n) + " cannot be measured");
    }
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    start = comma + 1;
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Runs `quartz run -q --store STORE -- PROGRAM...` on the first `processors` allowed
// processors, with the program's standard output sent to our standard error (ours is the
// report's). Returns the wait status.
int run_on(uint32_t processors, const std::vector<int>& allowed, const std::string& store,
           const std::vector<std::string>& program) {
  std::vector<std::string> args{"quartz", "run", "-q", "--store", store, "--"};
  args.insert(args.end(), program.begin(), program.end());
  std::vector<char*> argv = exec_strings(args);
  std::cout.flush();
  std::cerr.flush();
  const pid_t child = fork();
  if (child < 0) throw UsageError(std::string("scale: cannot fork: ") + std::strerror(errno));
  if (child == 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (uint32_t i = 0; i < processors; ++i) CPU_SET(allowed[i], &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
      _exit(126);
    }
    execv("/proc/self/exe", argv.data());
    _exit(126);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// The series' runs, grouped by the processors each ran on.
std::vector<analysis::ScalePoint> load_series(const std::vector<int64_t>& runs,
                                              const std::string& store) {
  std::vector<analysis::ProfileView> views;
  for (int64_t id : runs) {
    profile::OpenedRun opened = open_named_run("scale", std::to_string(id), store);
    views.push_back(analysis::analyze_taking_contexts(opened.run));
  }
  return analysis::points_by_processors(std::move(views));
}

}  // namespace

int scale_command(const std::vector<std::string>& args) {
  Arguments arguments(args, "scale");
  std::string store_path = default_store(), processors_text, series_text;
  uint64_t repeat = 1, top = 10;
  bool as_json = false;
  std::vector<std::string> program;
  while (!arguments.done()) {
    if (arguments.value("--store", &store_path)) continue;
    if (arguments.value("--processors", &processors_text)) continue;
    if (arguments.value("--series", &series_text)) continue;
    if (arguments.number("--repeat", 1, 100, &repeat)) continue;
    if (arguments.number("--top", 1, 1000, &top)) continue;
    if (arguments.flag("--json")) {
      as_json = true;
      continue;
    }
    if (arguments.flag("--")) {
      program = arguments.rest();
      break;
    }
    arguments.unknown();
  }
  const std::vector<int> allowed = allowed_processors();
  const auto available = static_cast<uint32_t>(allowed.size());
  std::vector<int64_t> runs;
  if (!series_text.empty()) {
    if (!program.empty()) throw UsageError("scale: give a program or --series, not both");
    const profile::OpenedRun named = open_named_run("scale", series_text, store_path);
    const profile::Store store(store_path, profile::StoreAccess::read_only);
    const std::optional<int64_t> series = named.id ? store.series_of(*named.id) : std::nullopt;
    if (!series) throw UsageError("scale: " + named.label + " is not part of a series");
    runs = store.series_runs(*series);
  } else {
    if (program.empty()) throw UsageError("scale: give the program after --");
    if (available < 2) {
      throw UsageError("scale: this machine lets the program use " + std::to_string(available) +
                       " processor: scaling cannot be measured on it");
    }
    std::vector<uint32_t> counts;
    if (processors_text.empty()) {
      for (uint32_t p = 1; p <= available; ++p) counts.push_back(p);
    } else {
      counts = parse_processors(processors_text, available);
    }
    { const profile::Store check(store_path); }  // a bad store is known before the first run
    int64_t series = 0;
    for (uint64_t r = 1; r <= repeat; ++r) {
      for (uint32_t p : counts) {
        std::cerr << "quartz: scale: " << p << (p == 1 ? " processor" : " processors") << ", run "
                  << r << " of " << repeat << "\n";
        const int status = run_on(p, allowed, store_path, program);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
          std::cerr << "quartz: scale: the run on " << p
                    << (p == 1 ? " processor " : " processors ")
                    << (WIFSIGNALED(status)
                            ? "was ended by signal " + std::to_string(WTERMSIG(status))
                            : "exited with status " + std::to_string(WEXITSTATUS(status)))
                    << "; stopped\n";
          return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
        }
        profile::Store store(store_path);
        const std::optional<int64_t> run = store.latest();
        if (!run) throw UsageError("scale: the run was not stored");
        if (series == 0) series = *run;
        store.add_to_series(*run, series);
        runs.push_back(*run);
      }
    }
  }
  std::vector<analysis::ScalePoint> points = load_series(runs, store_path);
  const std::string name = points.front().runs.front().program;
  const analysis::Scaling scaling = analysis::scale(std::move(points));
  if (as_json) {
    nlohmann::json out = analysis::scaling_json(scaling, available);
    out["runs"] = runs;
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << "Scaling of " << name << ": runs " << runs.front() << ".." << runs.back() << " ("
              << profile::Store::display_name(store_path) << ")\n";
    analysis::print_scaling(std::cout, scaling, available, top);
  }
  return 0;
}

}  // namespace quartz::cli

// `quartz report`, `import`, `list` and `help`.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include "analysis/profile_view.h"
#include "analysis/report.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "export/export.h"
#include "profile/capture.h"
#include "profile/open_run.h"
#include "profile/store.h"
#include "profile/symbolize_run.h"

namespace quartz::cli {
namespace {

std::vector<unsigned char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot open: " + std::strerror(errno));
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void store_metrics(profile::Store& store, int64_t id, const analysis::ProfileView& view) {
  std::vector<profile::ProcedureMetric> procedures;
  for (const auto& p : view.procedures) {
    procedures.push_back({p.name, p.location, p.totals.normalized_s, p.totals.normalized_self_s,
                          p.totals.processor_s, p.calls});
  }
  std::vector<profile::LockMetric> locks;
  for (const auto& l : view.locks) {
    locks.push_back({l.name, analysis::kind_name(l.kind), l.totals.normalized_s, l.wait_s, l.hold_s,
                     l.acquisitions, l.contended});
  }
  std::vector<profile::ThreadMetric> threads;
  for (const auto& t : view.threads) {
    threads.push_back({t.index, t.name, t.totals.normalized_s, t.busy_s, t.spinning_s, t.blocked_s,
                       t.ready_s});
  }
  store.add_metrics(id, procedures, locks, threads);
}

profile::OpenedRun open_named_run(const char* command, const std::string& which,
                                  const std::string& store_path) {
  try {
    return profile::open_run(which, store_path);
  } catch (const profile::OpenRunError& e) {
    throw UsageError(std::string(command) + ": " + e.what());
  }
}

}  // namespace

int64_t import_capture(const std::string& capture_path, const std::string& store_path,
                       const std::string& options) {
  const std::vector<unsigned char> bytes = read_bytes(capture_path);
  profile::Run run = profile::parse_capture(bytes, capture_path);
  profile::symbolize_run(run);
  profile::Store store(store_path);
  std::error_code error;
  const auto absolute = std::filesystem::absolute(capture_path, error);
  const int64_t id = store.add_run(bytes, run, error ? capture_path : absolute.string(), options);
  store_metrics(store, id, analysis::analyze(run));
  const std::string trace = capture_path + ".trace";
  if (std::filesystem::exists(trace, error)) store.add_trace(id, trace);
  return id;
}

int report_command(const std::vector<std::string>& args) {
  Arguments a(args, "report");
  std::string store_path = default_store();
  std::string format = "text", output, table;
  uint64_t top = 20;
  std::string which;
  while (!a.done()) {
    if (a.value("--store", &store_path)) continue;
    if (a.flag("--json")) {
      format = "json";
      continue;
    }
    if (a.value("--format", &format) || a.value("-o", &output) || a.value("--output", &output) ||
        a.value("--table", &table)) {
      continue;
    }
    if (a.number("--top", 1, 100000, &top)) continue;
    if (a.peek().rfind("-", 0) == 0) a.unknown();
    if (!which.empty()) throw UsageError("report: more than one run given");
    which = a.next();
  }

  profile::OpenedRun opened = open_named_run("report", which, store_path);
  analysis::ReportOptions options;
  options.top = top;
  options.run_label = opened.label;
  if (opened.id) {
    for (auto& p : profile::Store(store_path).predictions(*opened.id)) {
      options.what_ifs.push_back({p.made, p.question, p.json});
    }
  }
  const analysis::ProfileView view = analysis::analyze(opened.run);
  if ((format != "text" && format != "json") || !table.empty()) {
    try {
      exports::write_export({format, output, table}, opened, view, store_path);
    } catch (const exports::ExportError& e) {
      throw UsageError(std::string("report: ") + e.what());
    }
    return 0;
  }
  std::ofstream file;
  if (!output.empty()) {
    file.open(output);
    if (!file) throw UsageError("report: " + output + ": cannot write: " + std::strerror(errno));
  }
  std::ostream& out = output.empty() ? std::cout : file;
  if (format == "json") {
    analysis::print_json_report(out, view, options);
  } else {
    analysis::print_text_report(out, view, options);
  }
  return 0;
}

int import_command(const std::vector<std::string>& args) {
  Arguments a(args, "import");
  std::string store_path = default_store();
  std::vector<std::string> captures;
  while (!a.done()) {
    if (a.value("--store", &store_path)) continue;
    if (a.peek().rfind("-", 0) == 0) a.unknown();
    captures.push_back(a.next());
  }
  if (captures.empty()) throw UsageError("import: no capture file given");
  for (const std::string& capture : captures) {
    const int64_t id = import_capture(capture, store_path, "");
    std::cout << "run " << id << ": " << capture << "\n";
  }
  return 0;
}

int list_command(const std::vector<std::string>& args) {
  Arguments a(args, "list");
  std::string store_path = default_store();
  while (!a.done()) {
    if (a.value("--store", &store_path)) continue;
    a.unknown();
  }
  std::error_code error;
  if (!std::filesystem::exists(store_path, error)) {
    throw UsageError("list: no store at " + store_path);
  }
  profile::Store store(store_path);
  std::cout << "  run  started              elapsed  P  samples  program\n";
  for (const profile::RunSummary& r : store.list()) {
    char line[128];
    std::snprintf(line, sizeof line, "%5lld  %-19s %8.3fs %2u %8llu  ", static_cast<long long>(r.id),
                  r.started.c_str(), r.elapsed_s, r.processors,
                  static_cast<unsigned long long>(r.samples));
    std::cout << line << (r.arguments.empty() ? r.program : r.arguments)
              << (r.final ? "" : "  (ended abnormally)") << "\n";
  }
  return 0;
}

std::string command_help(const std::string& command) {
  if (command == "run") {
    return "usage: quartz run [options] -- PROGRAM [ARGS...]\n"
           "  Runs PROGRAM with libquartz preloaded, samples it, and stores the run.\n"
           "  -o, --output FILE       capture file (default: quartz-captures/ next to the store)\n"
           "  --store FILE            experiment store (default: ./quartz.db or $QUARTZ_STORE)\n"
           "  --no-import             write the capture only\n"
           "  --period-us N           time between samples, microseconds (default: 1000 with a\n"
           "                          reserved core, 2000 when sharing the processors)\n"
           "  --checkpoint-ms N       rewrite the capture this often (default 1000)\n"
           "  --reserve, --no-reserve reserve a core for the sampler (default: with 8+ processors)\n"
           "  --reserved-cores LIST   the cores to reserve (e.g. 7 or 6-7; implies --reserve)\n"
           "  --stack-capacity N      profile stack entries per thread (default 512)\n"
           "  --follow-exec           also profile programs PROGRAM executes\n"
           "  --summary FILE          write the runtime's own summary at exit (- for stderr)\n"
           "  --trace                 also record synchronization events for 'quartz predict'\n"
           "                          (written to CAPTURE.trace and stored with the run)\n"
           "  --trace-capacity N      events queued per thread between drains (default 16384)\n"
           "  --placement SPEC        pin threads to cores: groups separated by '|', members\n"
           "                          by ',': thread indices, names (NAME* matches a prefix)\n"
           "                          or '*' for the rest; group i runs on the i-th processor\n"
           "  --no-profile            run with --placement only: no sampling, no capture\n"
           "  -q, --quiet             no messages from quartz\n"
           "  The exit status is PROGRAM's (128+N if killed by signal N).\n";
  }
  if (command == "report") {
    return "usage: quartz report [RUN] [--format F] [-o PATH] [--json] [--top N] [--store FILE]\n"
           "  RUN: a run number, 'latest' (the default), or a capture file.\n"
           "  --format F   text (default), json, pprof (gzipped profile.proto), collapsed\n"
           "               (flame graph stacks), chrome-trace (timeline of a --trace run),\n"
           "               csv (every table into the directory -o DIR, or --table NAME:\n"
           "               parallelism, procedures, call_graph, locks, threads, contexts)\n"
           "  -o, --output PATH  write there instead of to standard output\n";
  }
  if (command == "import") return "usage: quartz import CAPTURE... [--store FILE]\n";
  if (command == "predict") {
    return "usage: quartz predict [RUN] [questions] [--json] [--store FILE]\n"
           "  Predicts from a run recorded with 'quartz run --trace' (RUN: a run number,\n"
           "  'latest' (the default), or a capture file with CAPTURE.trace next to it).\n"
           "  Always: the recorded configuration replayed (the model's error) and the\n"
           "  critical path. Questions, each may be repeated:\n"
           "  --group SPEC            elapsed time with threads grouped onto processors, one\n"
           "                          per group: \"0,1|2,3\" (indices, names, NAME*, '*' = the rest)\n"
           "  --cores K               the best groupings of the threads onto K processors\n"
           "  --zero PROC             if procedure PROC took no time\n"
           "  --speedup PROC=PCT      if PROC took PCT% less time\n"
           "  --migrate PROC          if PROC ran on the thread its next signal or post wakes\n"
           "  --best N                groupings listed per --cores (default 5)\n"
           "  --allow-drops           predict even if the trace lost events\n"
           "  --no-save               do not store the predictions with the run\n";
  }
  if (command == "list") return "usage: quartz list [--store FILE]\n";
  throw UsageError("help: unknown command '" + command + "'");
}

}  // namespace quartz::cli

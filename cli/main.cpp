// The `quartz` command: run a program under the profiler, store, report.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "format/version.h"
#include "profile/capture.h"
#include "profile/store.h"
#include "profile/trace_reader.h"

namespace {

const char kUsage[] =
    "usage: quartz <command> [options]\n"
    "\n"
    "  run [options] -- PROGRAM [ARGS...]   run PROGRAM under the profiler, store the run\n"
    "  report [RUN] [--json]                print a run's profile (RUN: id, 'latest', or a capture "
    "file)\n"
    "  import CAPTURE...                    add capture files to the store\n"
    "  list                                 list the runs in the store\n"
    "  diagnose [RUN] [--json]              what is wrong with a run, most severe first\n"
    "  compare A B                          what changed between two runs (or series of runs)\n"
    "  scale [options] -- PROGRAM [ARGS...] run PROGRAM on 1..P processors: how it scales\n"
    "  predict [RUN] [questions]            what-if predictions from a run made with --trace\n"
    "  check [RUN]                          figures the run cannot have: 'ok', or one a line\n"
    "  push --to URI [RUNS...]              copy runs to another store (--from: from it)\n"
    "  help [COMMAND]                       show this, or a command's options\n"
    "\n"
    "'quartz COMMAND --help' shows a command's options; 'quartz --version' the version.\n"
    "The store is ./quartz.db unless --store STORE or QUARTZ_STORE says otherwise: a\n"
    "file, or a PostgreSQL server (postgresql://USER@HOST/DATABASE).\n";

int dispatch(const std::string& command, const std::vector<std::string>& args) {
  using namespace quartz::cli;
  if (command == "run") return run_command(args);
  if (command == "report") return report_command(args);
  if (command == "import") return import_command(args);
  if (command == "list") return list_command(args);
  if (command == "predict") return predict_command(args);
  if (command == "diagnose") return diagnose_command(args);
  if (command == "compare") return compare_command(args);
  if (command == "scale") return scale_command(args);
  if (command == "check") return check_command(args);
  if (command == "push") return push_command(args);
  if (command == "help" || command == "--help" || command == "-h") {
    const bool about_help = !args.empty() && (args.front() == "--help" || args.front() == "-h" ||
                                              args.front() == "help");
    std::cout << (args.empty() || about_help ? kUsage : command_help(args.front()));
    return 0;
  }
  if (command == "--version" || command == "-V") {
    std::cout << "quartz " << quartz::kVersion << "\n";
    return 0;
  }
  std::cerr << "quartz: unknown command '" << command << "' (see quartz help)\n";
  return 2;
}

// What a command printed must have reached standard output (`quartz report > /dev/full`):
// else the command failed, whatever it returned. `error`: the errno of the failed write.
int standard_output_failed(const std::string& command, int error) {
  std::cout.exceptions(std::ios::goodbit);  // nothing more to say there, even at exit
  std::cerr << "quartz: " << command << ": cannot write to standard output"
            << (error ? std::string(": ") + std::strerror(error) : std::string()) << "\n";
  return 1;
}

int check_standard_output(const std::string& command, int status) {
  std::cout.exceptions(std::ios::goodbit);
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  if (flushed && !std::ferror(stdout)) return status;
  return standard_output_failed(command, errno);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace quartz::cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string command = args.front();
  args.erase(args.begin());
  int status = 2;
  // A failed write to standard output ends the command at once, its errno still known.
  std::cout.exceptions(std::ios::badbit);
  try {
    status = dispatch(command, args);
  } catch (const std::ios_base::failure&) {
    return standard_output_failed(command, errno);
  } catch (const HelpRequested&) {
    try {
      std::cout << command_help(command) << std::flush;
      status = 0;
    } catch (const std::ios_base::failure&) {
      return standard_output_failed(command, errno);
    }
  } catch (const UsageError& e) {
    std::cerr << "quartz: " << e.what() << "\n";
  } catch (const quartz::profile::CaptureError& e) {
    std::cerr << "quartz: " << e.what() << "\n";
  } catch (const quartz::profile::StoreError& e) {
    std::cerr << "quartz: " << e.what() << "\n";
  } catch (const quartz::profile::TraceError& e) {
    std::cerr << "quartz: " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "quartz: " << e.what() << "\n";
  }
  return check_standard_output(command, status);
}

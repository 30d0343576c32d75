// The `quartz` command: run a program under the profiler, store, report.
#include <iostream>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/commands.h"
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
    "  predict [RUN] [questions]            what-if predictions from a run made with --trace\n"
    "  help [COMMAND]                       show this, or a command's options\n"
    "\n"
    "The store is ./quartz.db unless --store FILE or QUARTZ_STORE says otherwise.\n";

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
  try {
    if (command == "run") return run_command(args);
    if (command == "report") return report_command(args);
    if (command == "import") return import_command(args);
    if (command == "list") return list_command(args);
    if (command == "predict") return predict_command(args);
    if (command == "help" || command == "--help" || command == "-h") {
      if (!args.empty()) {
        std::cout << command_help(args.front());
      } else {
        std::cout << kUsage;
      }
      return 0;
    }
    std::cerr << "quartz: unknown command '" << command << "' (see quartz help)\n";
    return 2;
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
  return 2;
}

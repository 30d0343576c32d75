// Small helpers shared by the `quartz` subcommands: flag parsing with one-line errors, and
// where things are (the runtime library, the default store).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "profile/open_run.h"

namespace quartz::cli {

// A bad command line or an unusable input: printed as "quartz: <message>", exit status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `quartz CMD --help` (or -h) where a flag is expected: main() prints the command's help.
class HelpRequested {};

// A run's labels, key=value (keys of letters, digits, '.', '_' and '-'), by key.
using Labels = std::vector<std::pair<std::string, std::string>>;

// Walks a command's arguments: flags first, then operands.
class Arguments {
 public:
  Arguments(std::vector<std::string> args, std::string command)
      : args_(std::move(args)), command_(std::move(command)) {}

  bool done() const { return at_ >= args_.size(); }
  const std::string& peek() const { return args_[at_]; }
  std::string next() { return args_[at_++]; }
  // True (and consumed) if the next argument is `flag`.
  bool flag(const std::string& flag);
  // The value after `flag` if the next argument is `flag` (or "flag=value").
  bool value(const std::string& flag, std::string* out);
  bool number(const std::string& flag, uint64_t lo, uint64_t hi, uint64_t* out);
  // A `flag key=value` label, added to `out` (a later value of a key replaces the earlier).
  bool label(const std::string& flag, Labels* out);
  // The next argument is no flag of the command: throws HelpRequested for --help and -h,
  // else UsageError.
  [[noreturn]] void unknown() const;
  std::vector<std::string> rest();

 private:
  std::vector<std::string> args_;
  std::string command_;
  size_t at_ = 0;
};

// `strings` as execve and posix_spawn take an argument list or an environment: pointers to
// each, then a null; valid while `strings` is.
std::vector<char*> exec_strings(const std::vector<std::string>& strings);

// libquartz.so in the library directory of this executable's prefix (an installed quartz)
// or next to it (../lib, a build tree), or QUARTZ_LIBRARY.
std::string runtime_library();
// The store used when none is named: QUARTZ_STORE, or ./quartz.db.
std::string default_store();
// Hands `value` to the process's end instead of destroying it: a command done with a run of
// 125,000 objects spent 80 ms freeing their records one by one, memory the process returns
// whole as it exits. It stays reachable: LeakSanitizer counts no leak.
template <typename T>
void keep_until_exit(T&& value) {
  static auto* const kept = new std::vector<std::shared_ptr<void>>();
  kept->push_back(std::make_shared<std::decay_t<T>>(std::forward<T>(value)));
}

// The run `which` names (an id, 'latest', a capture file; "" for the latest) in the store;
// a UsageError saying `command` when there is none.
profile::OpenedRun open_named_run(const std::string& command, const std::string& which,
                                  const std::string& store_path);
// The same in two steps: which run it is, then the run itself.
profile::OpenedRun find_named_run(const std::string& command, const std::string& which,
                                  const std::string& store_path);
void load_named_run(const std::string& command, profile::OpenedRun& found,
                    const std::string& store_path);

}  // namespace quartz::cli

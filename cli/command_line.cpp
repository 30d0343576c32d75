#include "cli/command_line.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "profile/open_run.h"

namespace quartz::cli {

bool Arguments::flag(const std::string& flag) {
  if (done() || args_[at_] != flag) return false;
  ++at_;
  return true;
}

bool Arguments::value(const std::string& flag, std::string* out) {
  if (done()) return false;
  const std::string& a = args_[at_];
  if (a == flag) {
    if (at_ + 1 >= args_.size()) throw UsageError(command_ + ": " + flag + " needs a value");
    *out = args_[at_ + 1];
    at_ += 2;
    return true;
  }
  if (a.rfind(flag + "=", 0) == 0) {
    *out = a.substr(flag.size() + 1);
    ++at_;
    return true;
  }
  return false;
}

bool Arguments::label(const std::string& flag, Labels* out) {
  std::string text;
  if (!value(flag, &text)) return false;
  const size_t eq = text.find('=');
  const std::string key = text.substr(0, eq);
  if (eq == std::string::npos || key.empty() ||
      key.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
          std::string::npos) {
    throw UsageError(command_ + ": " + flag +
                     " takes key=value (a key of letters, digits, '.', "
                     "'_' and '-'), not '" +
                     text + "'");
  }
  std::erase_if(*out, [&](const auto& label) { return label.first == key; });
  out->emplace_back(key, text.substr(eq + 1));
  std::sort(out->begin(), out->end());
  return true;
}

bool Arguments::number(const std::string& flag, uint64_t lo, uint64_t hi, uint64_t* out) {
  std::string text;
  if (!value(flag, &text)) return false;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < lo || v > hi) {
    throw UsageError(command_ + ": " + flag + " needs a number from " + std::to_string(lo) +
                     " to " + std::to_string(hi) + ", not '" + text + "'");
  }
  *out = v;
  return true;
}

void Arguments::unknown() const {
  if (args_[at_] == "--help" || args_[at_] == "-h") throw HelpRequested();
  throw UsageError(command_ + ": unknown option '" + args_[at_] + "' (see quartz help " + command_ +
                   ")");
}

std::vector<std::string> Arguments::rest() {
  std::vector<std::string> out(args_.begin() + static_cast<long>(at_), args_.end());
  at_ = args_.size();
  return out;
}

std::vector<char*> exec_strings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  // exec's prototypes predate const; it does not write through them.
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

std::string runtime_library() {
  if (const char* path = std::getenv("QUARTZ_LIBRARY")) return path;
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    // Installed (bin/ and the library directory of the same prefix), then this build tree.
    for (const char* relative :
         {QUARTZ_LIBDIR_FROM_BINDIR "/libquartz.so", "../lib/libquartz.so", "libquartz.so"}) {
      const auto candidate = self.parent_path() / relative;
      if (std::filesystem::exists(candidate, error)) {
        return std::filesystem::weakly_canonical(candidate, error).string();
      }
    }
  }
  throw UsageError("cannot find libquartz.so next to the quartz command (set QUARTZ_LIBRARY)");
}

std::string default_store() {
  return profile::default_store_path();
}

profile::OpenedRun open_named_run(const std::string& command, const std::string& which,
                                  const std::string& store_path) {
  profile::OpenedRun opened = find_named_run(command, which, store_path);
  load_named_run(command, opened, store_path);
  return opened;
}

void load_named_run(const std::string& command, profile::OpenedRun& found,
                    const std::string& store_path) {
  try {
    profile::load_run(found, store_path);
  } catch (const profile::OpenRunError& e) {
    throw UsageError(command + ": " + e.what());
  }
}

profile::OpenedRun find_named_run(const std::string& command, const std::string& which,
                                  const std::string& store_path) {
  try {
    return profile::find_run(which, store_path);
  } catch (const profile::OpenRunError& e) {
    throw UsageError(command + ": " + e.what());
  }
}

}  // namespace quartz::cli

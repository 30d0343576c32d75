// Where `quartz run` writes the capture: the path it takes when -o is not given, and a
// claim on the path against another run given the same one.
#pragma once

#include <string>

#include "cli/run_options.h"

namespace quartz::cli {

// "<dir>/<program>-<date>-<time>-<pid>.qcap": <dir> is quartz-captures/ next to the store,
// or, when that cannot be written (a read-only directory), $XDG_CACHE_HOME/quartz
// (~/.cache/quartz). Throws UsageError when neither can.
std::string default_output(const RunOptions& o);

// The capture path, held for this run: a lock on `<capture>.lock` (released if we die)
// keeps a concurrent run given the same -o from writing the same files; that run takes
// the next free `<stem>-N<ext>` instead.
class OutputClaim {
 public:
  // Claims `*output`, or the first free alternative, which it puts there. Throws
  // UsageError when a hundred are in use.
  explicit OutputClaim(std::string* output);
  ~OutputClaim();
  OutputClaim(const OutputClaim&) = delete;
  OutputClaim& operator=(const OutputClaim&) = delete;

 private:
  bool lock(const std::string& path);

  int fd_ = -1;
  std::string lock_path_;
};

}  // namespace quartz::cli

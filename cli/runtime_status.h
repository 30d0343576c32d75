// What the runtime in the program said about the run (runtime/safe_file.cpp writes it): a
// file `quartz run` makes, of the size the runtime rewrites in place, so that even a full
// disk takes its news. QUARTZ_STATUS gives the runtime its path.
#pragma once

#include <string>

namespace quartz::cli {

struct RuntimeStatus {
  bool final_written = false;              // the capture written at exit
  int capture_error = 0, trace_error = 0;  // errno of the last failed write, 0 if none
};

class StatusFile {
 public:
  // Makes it in $TMPDIR (/tmp); if that fails the run goes on without it (path() is "").
  StatusFile();
  ~StatusFile();
  StatusFile(const StatusFile&) = delete;
  StatusFile& operator=(const StatusFile&) = delete;

  const std::string& path() const { return path_; }
  // False when the runtime never wrote it: it did not start in the program.
  bool read(RuntimeStatus* status) const;

 private:
  std::string path_;
};

}  // namespace quartz::cli

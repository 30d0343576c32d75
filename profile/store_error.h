// What every failure of the experiment store throws (profile/store.h).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace quartz::profile {

// A one-line message starting with the store's path.
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A store opened for writing that can only be read (a read-only file, directory or file
// system): "PATH: read-only (...)".
class ReadOnlyStoreError : public StoreError {
 public:
  using StoreError::StoreError;
};

// A server that cannot be reached, or that refused the connection: "NAME: cannot open: ...".
// What was to be stored can be stored later.
class UnreachableStoreError : public StoreError {
 public:
  using StoreError::StoreError;
};

// A capture already stored, byte for byte, as run `existing_run`.
class DuplicateCaptureError : public StoreError {
 public:
  DuplicateCaptureError(const std::string& message, int64_t existing_run)
      : StoreError(message), existing_run(existing_run) {}
  int64_t existing_run;
};

}  // namespace quartz::profile

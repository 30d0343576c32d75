// What every failure of the experiment store throws (profile/store.h).
#pragma once

#include <stdexcept>

namespace quartz::profile {

// A one-line message starting with the store's path.
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace quartz::profile

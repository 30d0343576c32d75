// A capture's amendments (capture_format.h, amended_*): what the sampler's tables gained
// after the capture was built, logged after its sections. Each item replaces the one of its
// key or adds one, a later one winning; full records of more runnable bins than the file's
// fold into its last. The items are decoded as the capture's own (capture_items.h).
// Internal to the capture reader.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "profile/capture_cursor.h"
#include "profile/run.h"

namespace quartz::profile {

class Amendments {
 public:
  // Made at the first amendment of `run`, read from the capture's own sections: the run
  // keeps the elapsed time its counts cover (run_keys::kCountsElapsedNs), which no
  // amendment changes.
  explicit Amendments(Run& run);

  // Applies the amended_* section of `type` whose payload `c` reads, to its end (nothing is
  // read for a section of another type).
  void apply(Cursor& c, uint32_t type);

 private:
  // Where the items of each key are in the run, built at the first amendment that needs it.
  template <typename Key>
  class Index {
   public:
    // The item of `key` in `items`, added with only its key set when there is none.
    template <typename Item>
    Item& find_or_add(std::vector<Item>& items, Key key, Key Item::*field);

   private:
    std::unordered_map<Key, size_t> at_;
    bool built_ = false;
  };

  Run& run_;
  Index<uint32_t> threads_;     // by index
  Index<uint64_t> objects_;     // by address
  Index<uint64_t> procedures_;  // by address
};

}  // namespace quartz::profile

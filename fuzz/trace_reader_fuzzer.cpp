// A trace as `quartz predict` reads it: every chunk decoded to the end. A damaged trace must
// give a one-line TraceError or end early (a torn last chunk), nothing else.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz/checksums.h"
#include "fuzz/one_line.h"
#include "profile/trace_reader.h"

namespace {

void read_all(std::vector<unsigned char> bytes) {
  using namespace quartz;
  try {
    profile::TraceReader reader(profile::trace_from_bytes(std::move(bytes), "fuzz.trace"));
    std::vector<profile::TraceRecord> records;
    while (reader.next_chunk(records)) {
    }
  } catch (const profile::TraceError& error) {
    fuzz::check_one_line(error);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<unsigned char> bytes(data, data + size);
  read_all(bytes);
  quartz::fuzz::fix_trace_checksums(bytes);
  read_all(std::move(bytes));
  return 0;
}

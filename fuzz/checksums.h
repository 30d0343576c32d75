// Checksums recomputed over a fuzzer's input before it is parsed. A mutated byte almost
// never keeps a CRC-32 right, so without this every input would stop at the first checksum
// test and the parsers behind it would never be reached. The checks themselves are still
// fuzzed: each target also parses the input exactly as given.
#pragma once

#include <cstring>
#include <vector>

#include "format/capture_format.h"
#include "format/trace_format.h"

namespace quartz::fuzz {

// The capture sealed as the runtime seals it (the magic numbers and lengths left as the
// input has them).
inline void fix_capture_checksums(std::vector<unsigned char>& bytes) {
  capture::seal_capture(bytes.data(), bytes.size());
}

// Sets the CRC of every whole chunk.
inline void fix_trace_checksums(std::vector<unsigned char>& bytes) {
  using namespace quartz::trace;
  size_t at = sizeof(FileHeader);
  while (bytes.size() >= at && bytes.size() - at >= sizeof(ChunkHeader)) {
    ChunkHeader chunk;
    std::memcpy(&chunk, bytes.data() + at, sizeof chunk);
    const size_t payload = at + sizeof chunk;
    if (chunk.bytes > bytes.size() - payload) break;
    chunk.crc32 = capture::crc32_update(0, bytes.data() + payload, chunk.bytes);
    std::memcpy(bytes.data() + at, &chunk, sizeof chunk);
    at = payload + chunk.bytes;
  }
}

}  // namespace quartz::fuzz

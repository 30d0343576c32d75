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

// Sets the CRC of every section whose payload lies inside the file, and the footer's size and
// CRC; the magic numbers and lengths are left as the input has them.
inline void fix_capture_checksums(std::vector<unsigned char>& bytes) {
  using namespace quartz::capture;
  if (bytes.size() < sizeof(FileHeader) + sizeof(FileFooter)) return;
  const size_t footer_at = bytes.size() - sizeof(FileFooter);
  size_t at = sizeof(FileHeader);
  while (footer_at - at >= sizeof(SectionHeader)) {
    SectionHeader section;
    std::memcpy(&section, bytes.data() + at, sizeof section);
    const size_t payload = at + sizeof section;
    if (section.bytes > footer_at - payload) break;
    section.crc32 = crc32_update(0, bytes.data() + payload, section.bytes);
    std::memcpy(bytes.data() + at, &section, sizeof section);
    at = payload + section.bytes;
  }
  FileFooter footer;
  std::memcpy(&footer, bytes.data() + footer_at, sizeof footer);
  footer.file_bytes = bytes.size();
  footer.crc32 = crc32_update(0, bytes.data(), footer_at);
  std::memcpy(bytes.data() + footer_at, &footer, sizeof footer);
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

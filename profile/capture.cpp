// The capture file as a whole: its header and footer, the checksums, and the order of its
// sections, each read by capture_sections.h or, for amendments, capture_amendments.h.
#include "profile/capture.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>

#include "format/capture_format.h"
#include "profile/capture_amendments.h"
#include "profile/capture_cursor.h"
#include "profile/capture_sections.h"
#include "profile/mapped_file.h"

namespace quartz::profile {

using namespace quartz::capture;

uint32_t checksum(std::span<const unsigned char> bytes, const std::function<void(size_t)>& release,
                  size_t base) {
  constexpr size_t kStep = size_t{64} << 20;  // a step's pages resident at most
  uint32_t crc = 0;
  for (size_t done = 0; done < bytes.size();) {
    const size_t step = std::min(kStep, bytes.size() - done);
    crc = static_cast<uint32_t>(crc32_z(crc, bytes.data() + done, step));
    done += step;
    if (release) release(base + done);
  }
  return crc;
}

namespace {

// The sections of a capture whose header and footer were checked, each section's checksum
// before it is read; `file_crc`: the checksum of every byte before the footer, from them.
Run parse_sections(std::span<const unsigned char> bytes, const FileHeader& header, size_t footer_at,
                   const std::string& name, const ParseOptions& options, uint32_t& file_crc) {
  auto fail = [&](size_t offset, const std::string& what) -> Run {
    throw CaptureError(name + ": offset " + std::to_string(offset) + ": " + what);
  };
  auto crc_of = [](uint32_t crc, const unsigned char* data, size_t n) {
    return static_cast<uint32_t>(crc32_z(crc, data, n));
  };
  Run run;
  run.processors = header.processors;
  run.runnable_bins = header.runnable_bins;
  run.final = header.flags & kFinal;
  size_t at = sizeof header;
  file_crc = crc_of(0, bytes.data(), at);
  bool seen[kSectionTypeCount + 1] = {};
  std::optional<Amendments> amendments;  // once met, only more of them may follow
  for (uint32_t s = 0; s < header.section_count; ++s) {
    if (footer_at - at < sizeof(SectionHeader)) return fail(at, "truncated section header");
    SectionHeader section;
    std::memcpy(&section, bytes.data() + at, sizeof section);
    const size_t payload = at + sizeof section;
    if (section.bytes > footer_at - payload) return fail(at, "a section longer than the file");
    file_crc = crc_of(file_crc, bytes.data() + at, sizeof section);
    const uint32_t payload_crc =
        checksum(bytes.subspan(payload, section.bytes), options.release, payload);
    if (payload_crc != section.crc32) {
      return fail(payload, std::string("checksum mismatch in the ") + section_name(section.type) +
                               " section");
    }
    file_crc = static_cast<uint32_t>(
        crc32_combine(file_crc, payload_crc, static_cast<z_off_t>(section.bytes)));
    if (section.type == 0 || section.type > kSectionTypeCount) {
      at = payload + section.bytes;  // a section from a newer writer: skip it
      continue;
    }
    Cursor cursor(bytes.data() + payload, section.bytes, payload, name, section_name(section.type),
                  options);
    if (is_amendment(section.type)) {
      if (!seen[uint32_t(SectionType::run)]) return fail(at, "an amendment before the run section");
      if (!amendments) amendments.emplace(run);
      amendments->apply(cursor, section.type);
    } else {
      if (amendments) {
        return fail(
            at, std::string("a ") + section_name(section.type) + " section after the amendments");
      }
      if (seen[section.type])
        return fail(at, std::string("a second ") + section_name(section.type) + " section");
      read_section(cursor, run, section.type);
    }
    seen[section.type] = true;
    at = payload + section.bytes;
    if (options.release) options.release(at);
    if (options.done) options.done(at);
  }
  if (at != footer_at) return fail(at, "unexpected bytes before the end marker");
  if (!seen[uint32_t(SectionType::thread_routines)]) infer_named_threads(run);
  for (uint32_t type : {uint32_t(SectionType::run), uint32_t(SectionType::program)}) {
    if (!seen[type]) return fail(at, std::string("no ") + section_name(type) + " section");
  }
  return run;
}

}  // namespace

Run parse_capture(std::span<const unsigned char> bytes, const std::string& name,
                  const ParseOptions& options) {
  auto fail = [&](size_t offset, const std::string& what) -> Run {
    throw CaptureError(name + ": offset " + std::to_string(offset) + ": " + what);
  };
  if (bytes.size() < sizeof(FileHeader) + sizeof(FileFooter)) {
    return fail(0, bytes.empty() ? "empty file, not a Quartz capture"
                                 : "truncated: too short for a capture");
  }
  FileHeader header;
  std::memcpy(&header, bytes.data(), sizeof header);
  if (std::memcmp(header.magic, kFileMagic, sizeof kFileMagic) != 0) {
    return fail(0, "not a Quartz capture (bad magic)");
  }
  if (header.version != kFormatVersion) {
    return fail(8, "capture format version " + std::to_string(header.version) +
                       ", this Quartz reads version " + std::to_string(kFormatVersion));
  }
  if (header.processors == 0 || header.processors > 65536 || header.runnable_bins < 2 ||
      header.runnable_bins > 4096) {
    return fail(20, "impossible processor or bin count");
  }
  FileFooter footer;
  const size_t footer_at = bytes.size() - sizeof footer;
  std::memcpy(&footer, bytes.data() + footer_at, sizeof footer);
  if (std::memcmp(footer.magic, kFooterMagic, sizeof kFooterMagic) != 0 ||
      footer.file_bytes != bytes.size()) {
    return fail(footer_at, "truncated or damaged: no valid end marker");
  }
  auto corrupt = [&] { return fail(footer_at, "checksum mismatch: the file is corrupt"); };
  // One pass: each section's checksum is checked before it is read, and the file's (the
  // footer's) follows from them, so every byte is checksummed once. A file whose sections
  // do not read is judged by the file's checksum first, as a damaged file, when its pages
  // can still be read (not dropped for good: ParseOptions::done).
  uint32_t file_crc = 0;
  Run run;
  try {
    run = parse_sections(bytes, header, footer_at, name, options, file_crc);
  } catch (const CaptureError&) {
    if (!options.done && checksum(bytes.first(footer_at), options.release) != footer.crc32) {
      return corrupt();
    }
    throw;
  }
  if (file_crc != footer.crc32) return corrupt();
  return run;
}

std::vector<unsigned char> read_capture_bytes(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) throw CaptureError(path + ": is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CaptureError(path + ": cannot open: " + std::strerror(errno));
  // In one read of the size the file has (a character at a time took twice as long), then
  // whatever it grew by meanwhile, or a pipe's bytes.
  const uintmax_t size =
      std::filesystem::is_regular_file(path, error) ? std::filesystem::file_size(path, error) : 0;
  std::vector<unsigned char> bytes(error ? 0 : static_cast<size_t>(size));
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<size_t>(in.gcount()));
  if (in) bytes.insert(bytes.end(), std::istreambuf_iterator<char>(in), {});
  if (in.bad()) throw CaptureError(path + ": cannot read: " + std::strerror(errno));
  return bytes;
}

Run read_capture(const std::string& path) {
  const CaptureBytes capture(path);
  return parse_capture(capture.bytes(), path, capture.giving_back());
}

bool looks_like_capture(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[sizeof kFileMagic] = {};
  in.read(magic, sizeof magic);
  return in.gcount() == sizeof magic && std::memcmp(magic, kFileMagic, sizeof magic) == 0;
}

}  // namespace quartz::profile

// Test fixture: capture files written byte by byte (CaptureFile), following capture_format.h
// and nothing else: not the sampler's writer, so the reader is checked against the format,
// not against the writer. Also a sample run with every section filled, and a field-by-field
// comparison of runs for GoogleTest. Compiled once, as the library quartz_capture_file_fixture.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "format/capture_format.h"
#include "profile/run.h"

namespace quartz::profile::test_support {

// Appends fields to a payload.
class PayloadWriter {
 public:
  void u32(uint32_t v) { raw(&v, sizeof v); }
  void i32(int32_t v) { raw(&v, sizeof v); }
  void u64(uint64_t v) { raw(&v, sizeof v); }
  void f64(double v) { raw(&v, sizeof v); }
  void str(const std::string& s);
  void f64s(const std::vector<double>& values);
  template <size_t N>
  void f64s(const std::array<double, N>& values) {
    for (double v : values) f64(v);
  }
  void raw(const void* data, size_t n);
  const std::vector<unsigned char>& bytes() const { return bytes_; }

 private:
  std::vector<unsigned char> bytes_;
};

// Where a section landed in the bytes built.
struct SectionSpan {
  uint32_t type = 0;
  size_t header_offset = 0;   // of its SectionHeader
  size_t payload_offset = 0;  // of its first payload byte
  size_t payload_bytes = 0;
};

// A record with every value distinct (so that a field read from the wrong place shows),
// sized for P processors and R1 runnable bins.
FullRecord full_record(uint32_t processors, uint32_t runnable_bins, double seed);

ContextRecord context_record(uint32_t processors, double seed);

// A capture file: header, sections in a fixed order (run, modules, threads, objects,
// procedures, contexts, edges, program, then raw sections), footer. The run and program
// sections are always written (the program record zero-filled unless given) unless
// without() drops them; the others only when something was added to them.
class CaptureFile {
 public:
  explicit CaptureFile(uint32_t processors = 2, uint32_t runnable_bins = 3)
      : processors_(processors), runnable_bins_(runnable_bins) {}

  // Everything in `run` except its symbols (they are not part of a capture).
  static CaptureFile of(const Run& run);

  CaptureFile& final(bool is_final);
  CaptureFile& version(uint32_t v) {
    version_ = v;
    return *this;
  }
  CaptureFile& run_key(const std::string& key, const std::string& value);
  CaptureFile& module(const Module& m);
  CaptureFile& thread(const ThreadInfo& t);
  CaptureFile& object(const ObjectInfo& o);
  CaptureFile& procedure(const ProcedureInfo& p);
  CaptureFile& context(const ContextInfo& c, const ContextRecord& record);
  // Repeated edges are allowed (the format says readers add them up).
  CaptureFile& edge(uint64_t caller, uint64_t callee, uint64_t calls);
  CaptureFile& program(const FullRecord& record);
  // A section with any type and payload, written after the others.
  CaptureFile& raw_section(uint32_t type, std::vector<unsigned char> payload);
  // Leaves out a section written by default (run or program).
  CaptureFile& without(capture::SectionType type);

  // The capture's bytes; `sections`, when given, receives where each section went.
  std::vector<unsigned char> bytes(std::vector<SectionSpan>* sections = nullptr) const;

  // Rewrites the footer (size and CRC-32) for the bytes before it: after a test changed a
  // byte, the file checksum then passes and the reader meets the change itself.
  static void reseal(std::vector<unsigned char>& bytes);
  // Recomputes one section's CRC-32 (then the file's) after its payload was changed.
  static void reseal_section(std::vector<unsigned char>& bytes, const SectionSpan& span);

 private:
  FullRecord zero_record() const;
  // Writes the arrays as they are: a record of the wrong size makes a malformed capture.
  static void write_full(PayloadWriter& w, const FullRecord& r);
  bool dropped(capture::SectionType type) const;

  uint32_t processors_, runnable_bins_;
  uint32_t version_ = capture::kFormatVersion;
  uint32_t flags_ = capture::kFinal;
  uint32_t run_keys_ = 0, modules_count_ = 0, threads_count_ = 0, objects_count_ = 0,
           procedures_count_ = 0, contexts_count_ = 0, edges_count_ = 0;
  PayloadWriter run_, modules_, threads_, objects_, procedures_, contexts_, edges_;
  FullRecord program_;
  bool has_program_ = false;
  std::vector<std::pair<uint32_t, std::vector<unsigned char>>> raw_;
  std::vector<uint32_t> without_;
};

// A run with every section filled and every field set: 3 processors, 4 runnable bins.
// Edges are merged and sorted by (caller, callee), as the reader returns them.
Run sample_run();

// Symbols as a symbolizer would give them, for the sample run's procedures.
std::unordered_map<uint64_t, Symbol> sample_symbols();

// GoogleTest expectations (non-fatal) that two records are equal field by field.
void expect_same_record(const FullRecord& expected, const FullRecord& actual);

// Every field, symbols included.
void expect_same_run(const Run& expected, const Run& actual);

}  // namespace quartz::profile::test_support

#include "export/pprof.h"

#include <zlib.h>

#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "export/context_stacks.h"

namespace quartz::exports {
namespace {

// profile.proto's field numbers (github.com/google/pprof, proto/profile.proto).
namespace field {
constexpr uint32_t kSampleType = 1, kSample = 2, kLocation = 4, kFunction = 5, kStringTable = 6,
                   kDurationNanos = 10, kPeriodType = 11, kPeriod = 12, kComment = 13,
                   kDefaultSampleType = 14;
constexpr uint32_t kValueTypeType = 1, kValueTypeUnit = 2;
constexpr uint32_t kSampleLocationId = 1, kSampleValue = 2;
constexpr uint32_t kLocationId = 1, kLocationAddress = 3, kLocationLine = 4;
constexpr uint32_t kLineFunctionId = 1, kLineLine = 2;
constexpr uint32_t kFunctionId = 1, kFunctionName = 2, kFunctionSystemName = 3,
                   kFunctionFilename = 4, kFunctionStartLine = 5;
}  // namespace field

// Protocol buffers' wire format: varints (wire type 0) and length-delimited fields (2).
class Message {
 public:
  void varint(uint64_t value) {
    while (value >= 0x80) {
      bytes_.push_back(static_cast<char>(value | 0x80));
      value >>= 7;
    }
    bytes_.push_back(static_cast<char>(value));
  }
  void tag(uint32_t number, uint32_t wire_type) { varint(uint64_t{number} << 3 | wire_type); }
  // proto3 leaves zero scalars out.
  void integer(uint32_t number, uint64_t value) {
    if (value == 0) return;
    tag(number, 0);
    varint(value);
  }
  void bytes(uint32_t number, const std::string& value) {
    tag(number, 2);
    varint(value.size());
    bytes_ += value;
  }
  void message(uint32_t number, const Message& m) { bytes(number, m.bytes_); }
  template <typename Integer>
  void packed(uint32_t number, const std::vector<Integer>& values) {
    Message m;
    for (Integer v : values) m.varint(static_cast<uint64_t>(v));
    bytes(number, m.bytes_);
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

// The string table: "" first, each string once.
class Strings {
 public:
  Strings() { index(""); }
  uint64_t index(const std::string& s) {
    auto [it, added] = indices_.emplace(s, table_.size());
    if (added) table_.push_back(s);
    return it->second;
  }
  const std::vector<std::string>& table() const { return table_; }

 private:
  std::unordered_map<std::string, uint64_t> indices_;
  std::vector<std::string> table_;
};

Message value_type(Strings& strings, const std::string& type, const std::string& unit) {
  Message m;
  m.integer(field::kValueTypeType, strings.index(type));
  m.integer(field::kValueTypeUnit, strings.index(unit));
  return m;
}

void gzip(std::ostream& out, const std::string& bytes) {
  z_stream z{};
  // 15 window bits + 16: a gzip header and trailer rather than zlib's.
  if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("pprof: zlib cannot start compressing");
  }
  std::string compressed(deflateBound(&z, bytes.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(compressed.data());
  z.avail_out = static_cast<uInt>(compressed.size());
  const int status = deflate(&z, Z_FINISH);
  compressed.resize(z.total_out);
  deflateEnd(&z);
  if (status != Z_STREAM_END)
    throw std::runtime_error("pprof: zlib could not compress the profile");
  out.write(compressed.data(), static_cast<std::streamsize>(compressed.size()));
}

}  // namespace

void write_pprof(std::ostream& out, const profile::Run& run, const analysis::ProfileView& view) {
  Strings strings;
  Message profile;
  profile.message(field::kSampleType, value_type(strings, "normalized", "nanoseconds"));
  profile.message(field::kSampleType, value_type(strings, "processor", "nanoseconds"));
  profile.message(field::kSampleType, value_type(strings, "wait", "nanoseconds"));

  // One function and one location per procedure or object, both numbered from 1.
  std::map<std::pair<uint64_t, uint32_t>, uint64_t> location_of;  // (address, kind) -> id
  std::vector<uint64_t> context_location(view.contexts.size());
  for (size_t i = 0; i < view.contexts.size(); ++i) {
    const analysis::ContextRow& c = view.contexts[i];
    auto [it, added] =
        location_of.emplace(std::make_pair(c.address, c.kind), location_of.size() + 1);
    context_location[i] = it->second;
    if (!added) continue;
    const uint64_t id = it->second;
    int64_t line = 0;
    std::string file;
    if (c.kind == capture::kProcedure) {
      if (auto symbol = run.symbols.find(c.address); symbol != run.symbols.end()) {
        file = symbol->second.file.empty() ? symbol->second.module : symbol->second.file;
        line = symbol->second.line;
      }
    }
    Message function;
    function.integer(field::kFunctionId, id);
    function.integer(field::kFunctionName, strings.index(view.name_of(c)));
    function.integer(field::kFunctionSystemName, strings.index(view.name_of(c)));
    function.integer(field::kFunctionFilename, strings.index(file));
    function.integer(field::kFunctionStartLine, static_cast<uint64_t>(line));
    profile.message(field::kFunction, function);
    Message where;
    where.integer(field::kLineFunctionId, id);
    where.integer(field::kLineLine, static_cast<uint64_t>(line));
    Message location;
    location.integer(field::kLocationId, id);
    if (c.kind == capture::kProcedure) location.integer(field::kLocationAddress, c.address);
    location.message(field::kLocationLine, where);
    profile.message(field::kLocation, location);
  }

  const auto stacks = context_stacks(view);
  for (size_t i = 0; i < view.contexts.size(); ++i) {
    const analysis::ContextRow& c = view.contexts[i];
    const std::vector<int64_t> values{nanoseconds(c.normalized_self_s),
                                      nanoseconds(c.processor_self_s), nanoseconds(c.wait_self_s)};
    if (values[0] == 0 && values[1] == 0 && values[2] == 0) continue;
    std::vector<uint64_t> locations;  // the leaf first
    for (auto it = stacks[i].rbegin(); it != stacks[i].rend(); ++it) {
      locations.push_back(context_location[*it]);
    }
    Message sample;
    sample.packed(field::kSampleLocationId, locations);
    sample.packed(field::kSampleValue, values);
    profile.message(field::kSample, sample);
  }

  profile.integer(field::kDurationNanos, static_cast<uint64_t>(nanoseconds(view.elapsed_s)));
  profile.message(field::kPeriodType, value_type(strings, "normalized", "nanoseconds"));
  profile.integer(field::kPeriod, static_cast<uint64_t>(nanoseconds(view.quality.period_s)));
  std::string command;
  for (const std::string& word : view.arguments) command += (command.empty() ? "" : " ") + word;
  profile.packed(field::kComment,
                 std::vector<uint64_t>{strings.index(command.empty() ? view.program : command)});
  profile.integer(field::kDefaultSampleType, strings.index("normalized"));
  // The string table last: every string above has its index by now.
  for (const std::string& s : strings.table()) profile.bytes(field::kStringTable, s);
  gzip(out, profile.bytes());
}

}  // namespace quartz::exports

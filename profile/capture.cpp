#include "profile/capture.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <unordered_map>

#include "profile/mapped_file.h"

namespace quartz::profile {

using namespace quartz::capture;

namespace {

// Bounds-checked reading of one section's payload.
class Cursor {
 public:
  Cursor(const unsigned char* data, size_t size, size_t base, const std::string& name,
         const char* section, const ParseOptions& options)
      : data_(data), size_(size), base_(base), name_(name), section_(section), options_(options) {}

  // Bytes before the current position are read (ParseOptions::release, done).
  void read_so_far() const {
    if (options_.release) options_.release(base_ + at_);
    if (options_.done) options_.done(base_ + at_);
  }

  // Reports the current position: where missing bytes would have started.
  [[noreturn]] void fail(const std::string& what) const { fail_at(at_, what); }
  // Reports a position in the payload: where a bad value or item starts.
  [[noreturn]] void fail_at(size_t at, const std::string& what) const {
    std::ostringstream message;
    message << name_ << ": offset " << base_ + at << ": " << what << " (in the " << section_
            << " section)";
    throw CaptureError(message.str());
  }
  size_t position() const { return at_; }
  void need(size_t n) const {
    if (n > size_ - at_) fail("truncated");
  }
  uint32_t u32() { return value<uint32_t>(); }
  int32_t i32() { return value<int32_t>(); }
  uint64_t u64() { return value<uint64_t>(); }
  double f64() {
    const size_t at = at_;
    const double v = value<double>();
    if (!std::isfinite(v)) fail_at(at, "a value that is not a finite number");
    return v;
  }
  std::string str() {
    const uint32_t n = u32();
    need(n);
    std::string s(reinterpret_cast<const char*>(data_ + at_), n);
    at_ += n;
    return s;
  }
  std::vector<double> f64s(size_t n) {
    need(n * sizeof(double));
    std::vector<double> v(n);
    for (double& x : v) x = f64();
    return v;
  }
  // An item count, checked against what the remaining bytes can hold.
  uint32_t count(size_t min_item_bytes) {
    const size_t at = at_;
    const uint32_t n = u32();
    if (min_item_bytes && n > (size_ - at_) / min_item_bytes) {
      fail_at(at, "an item count larger than the section");
    }
    return n;
  }
  void expect_end() const {
    if (at_ != size_) fail("unexpected bytes after the last item");
  }

 private:
  template <typename T>
  T value() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, data_ + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  const unsigned char* data_;
  size_t size_;
  size_t at_ = 0;
  size_t base_;
  const std::string& name_;
  const char* section_;
  const ParseOptions& options_;
};

FullRecord read_full(Cursor& c, uint32_t processors, uint32_t runnable_bins) {
  FullRecord r;
  const size_t bins = size_t{processors} + 1;
  r.processor_self = c.f64s(bins);
  r.processor_behalf = c.f64s(bins);
  r.normalized_self = c.f64s(bins);
  r.normalized_behalf = c.f64s(bins);
  for (double& v : r.state_self) v = c.f64();
  for (double& v : r.state_behalf) v = c.f64();
  for (auto& hist : r.runnable) hist = c.f64s(runnable_bins);
  return r;
}

// An object's fields up to its exact wait (both objects sections begin alike).
ObjectInfo read_object_counts(Cursor& c, uint32_t id) {
  ObjectInfo o;
  o.id = id;
  o.address = c.u64();
  o.kind = c.u32();
  o.name = c.str();
  o.first_site = c.u64();
  o.acquisitions = c.u64();
  o.contended = c.u64();
  o.posts = c.u64();
  o.exact_wait_ns = c.u64();
  return o;
}

// A context's record: its time by processors busy into the run's columns, the rest into
// `own`.
void read_context(Run& run, Cursor& c, ContextStates& own) {
  const size_t values = 2 * run.bins();
  const size_t at = run.context_bins.size();
  run.context_bins.resize(at + values);
  for (size_t i = 0; i < values; ++i) run.context_bins[at + i] = c.f64();
  for (double& v : own.state) v = c.f64();
  for (double& v : own.runnable_sum) v = c.f64();
}

const char* section_name(uint32_t type) {
  static const char* const kNames[] = {"unknown",
                                       "run",
                                       "modules",
                                       "threads",
                                       "objects",
                                       "procedures",
                                       "contexts",
                                       "edges",
                                       "program",
                                       "thread routines",
                                       "object frames",
                                       "thread starvation",
                                       "context starvation",
                                       "context taken",
                                       "unseen objects",
                                       "amended run",
                                       "amended threads",
                                       "amended objects",
                                       "amended procedures",
                                       "amended contexts",
                                       "amended program"};
  return type <= kSectionTypeCount ? kNames[type] : "unknown";
}

// A section of (u32 context id, f64 seconds) pairs, into `field` of each context's record.
void read_context_seconds(Run& run, Cursor& c, double ContextStates::*field, const char* stranger) {
  const uint32_t n = c.count(12);
  for (uint32_t i = 0; i < n; ++i) {
    const size_t item = c.position();
    const uint32_t id = c.u32();
    if (id >= run.contexts.size()) c.fail_at(item, stranger);
    run.contexts[id].own.*field = c.f64();
  }
}

// A full record of `bins` runnable-thread bins (an amendment's may have more), fitted to
// the run's R1: bins from R1 - 1 up are "k >= R1 - 1".
FullRecord read_full_fitted(Run& run, Cursor& c, uint32_t bins) {
  FullRecord r = read_full(c, run.processors, bins);
  for (auto& hist : r.runnable) {
    for (size_t k = run.runnable_bins; k < hist.size(); ++k) hist[run.runnable_bins - 1] += hist[k];
    hist.resize(run.runnable_bins, 0);
  }
  return r;
}

// A thread's fields from its parent to its end (both threads sections begin alike).
void read_thread_identity(Cursor& c, ThreadInfo& t) {
  t.parent = c.u32();
  t.tid = c.i32();
  t.name = c.str();
  t.start_routine = c.u64();
  t.handle = c.u64();
  t.created_ns = c.u64();
  t.exited_ns = c.u64();
}

// What the snapshots saw of an object: its waits, hold, queue lengths and full record.
void read_object_figures(Run& run, Cursor& c, ObjectInfo& o, uint32_t bins) {
  o.wait_spinning_s = c.f64();
  o.wait_blocked_s = c.f64();
  o.hold_s = c.f64();
  o.queue = c.f64s(c.count(sizeof(double)));
  o.record = read_full_fitted(run, c, bins);
}

// The run section's (key, value) pairs, over any the run has.
void read_run_keys(Run& run, Cursor& c) {
  const uint32_t n = c.count(8);
  for (uint32_t i = 0; i < n; ++i) {
    std::string key = c.str();
    run.info[key] = c.str();
  }
}

void read_section(Run& run, uint32_t type, Cursor& c) {
  const size_t full = full_record_size(run.processors, run.runnable_bins) * sizeof(double);
  const size_t context = context_record_size(run.processors) * sizeof(double);
  switch (static_cast<SectionType>(type)) {
    case SectionType::run:
      read_run_keys(run, c);
      break;
    case SectionType::modules: {
      const uint32_t n = c.count(16);
      for (uint32_t i = 0; i < n; ++i) {
        Module m;
        m.id = c.u32();
        m.load_bias = c.u64();
        m.path = c.str();
        run.modules.push_back(std::move(m));
      }
      break;
    }
    case SectionType::threads: {
      const uint32_t n = c.count(full);
      for (uint32_t i = 0; i < n; ++i) {
        ThreadInfo t;
        t.index = c.u32();
        read_thread_identity(c, t);
        t.calls = c.u64();
        t.stack_overflows = c.u64();
        t.unmatched_exits = c.u64();
        t.exact_blocked_ns = c.u64();
        t.exact_spinning_ns = c.u64();
        t.cpu_ns = c.u64();
        t.run_queue_ns = c.u64();
        t.record = read_full(c, run.processors, run.runnable_bins);
        run.threads.push_back(std::move(t));
      }
      break;
    }
    case SectionType::objects: {
      const uint32_t n = c.count(full);
      run.objects.reserve(run.objects.size() + n);  // n is bounded by the section's size
      for (uint32_t i = 0; i < n; ++i) {
        ObjectInfo o = read_object_counts(c, static_cast<uint32_t>(run.objects.size()) + 1);
        read_object_figures(run, c, o, run.runnable_bins);
        run.objects.push_back(std::move(o));
      }
      break;
    }
    case SectionType::unseen_objects: {
      // Into the objects section's, in the order the program first used them; ids again.
      const uint32_t n = c.count(60);
      std::vector<ObjectInfo> seen = std::move(run.objects);
      run.objects.clear();
      run.objects.reserve(seen.size() + n);
      size_t next = 0;
      for (uint32_t i = 0; i < n; ++i) {
        const size_t item = c.position();
        const uint32_t after = c.u32();
        if (after < next || after > seen.size()) c.fail_at(item, "unseen objects out of order");
        for (; next < after; ++next) run.objects.push_back(std::move(seen[next]));
        run.objects.push_back(read_object_counts(c, 0));  // its record empty: all zero
      }
      for (; next < seen.size(); ++next) run.objects.push_back(std::move(seen[next]));
      for (size_t i = 0; i < run.objects.size(); ++i)
        run.objects[i].id = static_cast<uint32_t>(i) + 1;
      break;
    }
    case SectionType::procedures: {
      const uint32_t n = c.count(full);
      for (uint32_t i = 0; i < n; ++i) {
        ProcedureInfo p;
        p.address = c.u64();
        p.record = read_full(c, run.processors, run.runnable_bins);
        run.procedures.push_back(std::move(p));
      }
      break;
    }
    case SectionType::contexts: {
      const uint32_t n = c.count(context);
      run.contexts.reserve(run.contexts.size() + n);  // n is bounded by the section's size
      run.context_bins.reserve(run.context_bins.size() + size_t{n} * 2 * run.bins());
      for (uint32_t i = 0; i < n; ++i) {
        if (i % 65536 == 65535) c.read_so_far();
        ContextInfo x;
        const size_t item = c.position();
        x.id = c.u32();
        x.parent = c.u32();
        x.address = c.u64();
        x.kind = c.u32();
        if (x.id != run.contexts.size()) c.fail_at(item, "contexts out of order");
        if (x.parent != kNoParent && x.parent >= x.id) {
          c.fail_at(item + 4, "a context whose parent comes after it");
        }
        read_context(run, c, x.own);
        run.contexts.push_back(x);
      }
      break;
    }
    case SectionType::edges: {
      const uint32_t n = c.count(24);
      std::map<std::pair<uint64_t, uint64_t>, uint64_t> sums;
      for (uint32_t i = 0; i < n; ++i) {
        const uint64_t caller = c.u64();
        const uint64_t callee = c.u64();
        sums[{caller, callee}] += c.u64();
      }
      for (const auto& [edge, calls] : sums)
        run.edges.push_back(Edge{edge.first, edge.second, calls});
      break;
    }
    case SectionType::program:
      run.program = read_full(c, run.processors, run.runnable_bins);
      break;
    case SectionType::object_frames: {
      std::unordered_map<uint64_t, ObjectInfo*> by_address;
      for (ObjectInfo& o : run.objects) by_address.emplace(o.address, &o);
      const uint32_t n = c.count(12);
      for (uint32_t i = 0; i < n; ++i) {
        const size_t item = c.position();
        const uint64_t address = c.u64();
        const uint32_t k = c.count(8);
        std::vector<uint64_t> frames;
        for (uint32_t f = 0; f < k; ++f) frames.push_back(c.u64());
        auto object = by_address.find(address);
        if (object == by_address.end()) c.fail_at(item, "frames of an object not listed");
        object->second->acquired_from = std::move(frames);
      }
      break;
    }
    case SectionType::thread_routines: {
      const uint32_t n = c.count(12);
      for (uint32_t i = 0; i < n; ++i) {
        const size_t item = c.position();
        const uint32_t index = c.u32();
        const uint32_t named = c.u32();
        const uint32_t k = c.count(8);
        std::vector<uint64_t> routines;
        for (uint32_t r = 0; r < k; ++r) routines.push_back(c.u64());
        // Threads are listed by index: look there first.
        auto thread = index < run.threads.size() && run.threads[index].index == index
                          ? run.threads.begin() + index
                          : std::find_if(run.threads.begin(), run.threads.end(),
                                         [&](const ThreadInfo& t) { return t.index == index; });
        if (thread == run.threads.end()) c.fail_at(item, "routines of a thread not listed");
        thread->named = named == 1;
        thread->routines = std::move(routines);
      }
      break;
    }
    case SectionType::thread_starvation: {
      const uint32_t n = c.count(20);
      for (uint32_t i = 0; i < n; ++i) {
        const size_t item = c.position();
        const uint32_t index = c.u32();
        const double startup = c.f64();
        const double later = c.f64();
        auto thread = index < run.threads.size() && run.threads[index].index == index
                          ? run.threads.begin() + index
                          : std::find_if(run.threads.begin(), run.threads.end(),
                                         [&](const ThreadInfo& t) { return t.index == index; });
        if (thread == run.threads.end()) c.fail_at(item, "starvation of a thread not listed");
        thread->starved_startup_s = startup;
        thread->starved_later_s = later;
      }
      break;
    }
    case SectionType::context_starvation:
      read_context_seconds(run, c, &ContextStates::one_busy_starved,
                           "starvation of a context not listed");
      break;
    case SectionType::context_taken:
      read_context_seconds(run, c, &ContextStates::one_busy_taken,
                           "taken processors of a context not listed");
      break;
    case SectionType::amended_run:
    case SectionType::amended_threads:
    case SectionType::amended_objects:
    case SectionType::amended_procedures:
    case SectionType::amended_contexts:
    case SectionType::amended_program:
      return;  // read_amendment's
  }
  c.expect_end();
}

// Where the amendments' keys are (built at the first amendment that needs each).
struct Amending {
  std::unordered_map<uint32_t, size_t> threads;     // by index
  std::unordered_map<uint64_t, size_t> objects;     // by address
  std::unordered_map<uint64_t, size_t> procedures;  // by address
  bool threads_known = false, objects_known = false, procedures_known = false;
};

uint32_t amended_bins(Cursor& c) {
  const size_t at = c.position();
  const uint32_t bins = c.u32();
  if (bins < 1 || bins > 64) c.fail_at(at, "runnable-thread bins out of range");
  return bins;
}

template <typename Item, typename Key>
size_t find_or_add(std::vector<Item>& items, std::unordered_map<Key, size_t>& index, bool& known,
                   Key key, Key Item::*field) {
  if (!known) {
    for (size_t i = 0; i < items.size(); ++i) index.emplace(items[i].*field, i);
    known = true;
  }
  auto [at, added] = index.emplace(key, items.size());
  if (added) {
    items.emplace_back();
    items.back().*field = key;
  }
  return at->second;
}

// An amended_* section (capture_format.h): each item replaces its key's or adds one.
void read_amendment(Run& run, uint32_t type, Cursor& c, Amending& state) {
  const size_t context = context_record_size(run.processors) * sizeof(double);
  switch (static_cast<SectionType>(type)) {
    case SectionType::amended_run:
      read_run_keys(run, c);
      break;
    case SectionType::amended_threads: {
      const uint32_t bins = amended_bins(c);
      const uint32_t n = c.count(64);
      for (uint32_t i = 0; i < n; ++i) {
        const uint32_t index = c.u32();
        ThreadInfo& t = run.threads[find_or_add(run.threads, state.threads, state.threads_known,
                                                index, &ThreadInfo::index)];
        read_thread_identity(c, t);
        t.cpu_ns = c.u64();
        t.run_queue_ns = c.u64();
        t.starved_startup_s = c.f64();
        t.starved_later_s = c.f64();
        t.record = read_full_fitted(run, c, bins);
      }
      break;
    }
    case SectionType::amended_objects: {
      const uint32_t bins = amended_bins(c);
      const uint32_t n = c.count(60);
      for (uint32_t i = 0; i < n; ++i) {
        const uint64_t address = c.u64();
        const size_t at = find_or_add(run.objects, state.objects, state.objects_known, address,
                                      &ObjectInfo::address);
        ObjectInfo& o = run.objects[at];
        if (o.id == 0) o.id = static_cast<uint32_t>(at) + 1;  // new: next in the order of use
        o.kind = c.u32();
        o.name = c.str();
        o.first_site = c.u64();
        read_object_figures(run, c, o, bins);
      }
      break;
    }
    case SectionType::amended_procedures: {
      const uint32_t bins = amended_bins(c);
      const uint32_t n = c.count(8);
      for (uint32_t i = 0; i < n; ++i) {
        const uint64_t address = c.u64();
        run.procedures[find_or_add(run.procedures, state.procedures, state.procedures_known,
                                   address, &ProcedureInfo::address)]
            .record = read_full_fitted(run, c, bins);
      }
      break;
    }
    case SectionType::amended_contexts: {
      const uint32_t n = c.count(context + 36);
      for (uint32_t i = 0; i < n; ++i) {
        const size_t item = c.position();
        ContextInfo x;
        x.id = c.u32();
        x.parent = c.u32();
        x.address = c.u64();
        x.kind = c.u32();
        if (x.id > run.contexts.size()) c.fail_at(item, "an amended context past the next one");
        if (x.parent != kNoParent && x.parent >= x.id) {
          c.fail_at(item + 4, "a context whose parent comes after it");
        }
        const bool known = x.id < run.contexts.size();
        if (known) {
          const ContextInfo& was = run.contexts[x.id];
          if (was.parent != x.parent || was.address != x.address || was.kind != x.kind) {
            c.fail_at(item, "an amended context that is another one");
          }
          // Its record again: the columns rewritten in place.
          std::span<double> processor = run.processor_of(x.id);
          std::span<double> normalized = run.normalized_of(x.id);
          for (double& v : processor) v = c.f64();
          for (double& v : normalized) v = c.f64();
          for (double& v : x.own.state) v = c.f64();
          for (double& v : x.own.runnable_sum) v = c.f64();
        } else {
          read_context(run, c, x.own);
        }
        x.own.one_busy_starved = c.f64();
        x.own.one_busy_taken = c.f64();
        if (known) {
          run.contexts[x.id] = x;
        } else {
          run.contexts.push_back(x);
        }
      }
      break;
    }
    case SectionType::amended_program:
      run.program = read_full_fitted(run, c, amended_bins(c));
      break;
    default:
      return;  // read_section's
  }
  c.expect_end();
}

// A capture from before the thread_routines section: a thread that has its creator's name
// (the main thread's when its creator is unknown) kept the name it inherited.
void infer_named_threads(Run& run) {
  std::map<uint32_t, const std::string*> names;
  for (const ThreadInfo& t : run.threads) names[t.index] = &t.name;
  for (ThreadInfo& t : run.threads) {
    if (t.index == 0) continue;
    auto creator = names.find(t.parent == kNoParent ? 0 : t.parent);
    t.named = creator == names.end() || *creator->second != t.name;
  }
}

}  // namespace

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
  Amending amending;
  bool amended = false;  // amended_* sections met: only more of them may follow
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
      if (!amended) run.info[run_keys::kCountsElapsedNs] = run.text(run_keys::kElapsedNs);
      amended = true;
      read_amendment(run, section.type, cursor, amending);
    } else {
      if (amended) {
        return fail(
            at, std::string("a ") + section_name(section.type) + " section after the amendments");
      }
      if (seen[section.type])
        return fail(at, std::string("a second ") + section_name(section.type) + " section");
      read_section(run, section.type, cursor);
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
  // In one read of the size the file has (a character at a time: 1.6 s against 0.7 for a 138 MB
  // capture), then whatever it grew by meanwhile, or a pipe's bytes.
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

#include "profile/capture_sections.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "format/capture_format.h"
#include "profile/capture_items.h"

namespace quartz::profile {

using capture::SectionType;

namespace {

// The listed thread of `index`, which the item at `item` is about; `stranger` when none is.
ThreadInfo& listed_thread(Cursor& c, Run& run, size_t item, uint32_t index, const char* stranger) {
  // Threads are listed by index: look there first.
  auto thread = index < run.threads.size() && run.threads[index].index == index
                    ? run.threads.begin() + index
                    : std::find_if(run.threads.begin(), run.threads.end(),
                                   [&](const ThreadInfo& t) { return t.index == index; });
  if (thread == run.threads.end()) c.fail_at(item, stranger);
  return *thread;
}

// A section of (u32 context id, f64 seconds) pairs, into `field` of each context's record.
void read_context_seconds(Cursor& c, Run& run, double ContextStates::*field, const char* stranger) {
  const uint32_t n = c.count(12);
  for (uint32_t i = 0; i < n; ++i) {
    const size_t item = c.position();
    const uint32_t id = c.u32();
    if (id >= run.contexts.size()) c.fail_at(item, stranger);
    run.contexts[id].own.*field = c.f64();
  }
}

void read_modules(Cursor& c, Run& run) {
  const uint32_t n = c.count(16);
  for (uint32_t i = 0; i < n; ++i) {
    Module& m = run.modules.emplace_back();
    m.id = c.u32();
    m.load_bias = c.u64();
    m.path = c.str();
  }
}

void read_threads(Cursor& c, Run& run, size_t full_bytes) {
  const uint32_t n = c.count(full_bytes);
  for (uint32_t i = 0; i < n; ++i) {
    ThreadInfo& t = run.threads.emplace_back();
    t.index = c.u32();
    read_thread(c, run, captured(run), t);
  }
}

void read_objects(Cursor& c, Run& run, size_t full_bytes) {
  const uint32_t n = c.count(full_bytes);
  run.objects.reserve(run.objects.size() + n);  // n is bounded by the section's size
  for (uint32_t i = 0; i < n; ++i) {
    ObjectInfo& o = run.objects.emplace_back();
    o.id = static_cast<uint32_t>(run.objects.size());
    o.address = c.u64();
    read_object(c, run, captured(run), o);
  }
}

// Into the objects section's, in the order the program first used them; ids again.
void read_unseen_objects(Cursor& c, Run& run) {
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
    ObjectInfo& o = run.objects.emplace_back();  // its figures and record empty: all zero
    o.address = c.u64();
    read_object_identity(c, o);
    read_object_counts(c, o);
  }
  for (; next < seen.size(); ++next) run.objects.push_back(std::move(seen[next]));
  for (size_t i = 0; i < run.objects.size(); ++i) run.objects[i].id = static_cast<uint32_t>(i) + 1;
}

void read_procedures(Cursor& c, Run& run, size_t full_bytes) {
  const uint32_t n = c.count(full_bytes);
  for (uint32_t i = 0; i < n; ++i) {
    ProcedureInfo& p = run.procedures.emplace_back();
    p.address = c.u64();
    read_procedure(c, run, captured(run), p);
  }
}

void read_contexts(Cursor& c, Run& run) {
  const uint32_t n = c.count(capture::context_record_size(run.processors) * sizeof(double));
  run.contexts.reserve(run.contexts.size() + n);  // n is bounded by the section's size
  run.context_bins.reserve(run.context_bins.size() + size_t{n} * 2 * run.bins());
  for (uint32_t i = 0; i < n; ++i) {
    if (i % 65536 == 65535) c.read_so_far();
    read_context(c, run, captured(run));
  }
}

// Repeated edges are added up (capture_format.h).
void read_edges(Cursor& c, Run& run) {
  const uint32_t n = c.count(24);
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> sums;
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t caller = c.u64();
    const uint64_t callee = c.u64();
    sums[{caller, callee}] += c.u64();
  }
  for (const auto& [edge, calls] : sums) run.edges.push_back(Edge{edge.first, edge.second, calls});
}

void read_object_frames(Cursor& c, Run& run) {
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
}

void read_thread_starvation(Cursor& c, Run& run) {
  const uint32_t n = c.count(20);
  for (uint32_t i = 0; i < n; ++i) {
    const size_t item = c.position();
    const uint32_t index = c.u32();
    const double startup = c.f64();
    const double later = c.f64();
    ThreadInfo& thread = listed_thread(c, run, item, index, "starvation of a thread not listed");
    thread.starved_startup_s = startup;
    thread.starved_later_s = later;
  }
}

}  // namespace

void read_thread_routines(Cursor& c, Run& run) {
  const uint32_t n = c.count(12);
  for (uint32_t i = 0; i < n; ++i) {
    const size_t item = c.position();
    const uint32_t index = c.u32();
    const uint32_t named = c.u32();
    const uint32_t k = c.count(8);
    std::vector<uint64_t> routines;
    for (uint32_t r = 0; r < k; ++r) routines.push_back(c.u64());
    ThreadInfo& thread = listed_thread(c, run, item, index, "routines of a thread not listed");
    thread.named = named == 1;
    thread.routines = std::move(routines);
  }
}

void read_section(Cursor& c, Run& run, uint32_t type) {
  const size_t full_bytes =
      capture::full_record_size(run.processors, run.runnable_bins) * sizeof(double);
  switch (static_cast<SectionType>(type)) {
    case SectionType::run:
      read_run_keys(c, run);
      break;
    case SectionType::modules:
      read_modules(c, run);
      break;
    case SectionType::threads:
      read_threads(c, run, full_bytes);
      break;
    case SectionType::objects:
      read_objects(c, run, full_bytes);
      break;
    case SectionType::unseen_objects:
      read_unseen_objects(c, run);
      break;
    case SectionType::procedures:
      read_procedures(c, run, full_bytes);
      break;
    case SectionType::contexts:
      read_contexts(c, run);
      break;
    case SectionType::edges:
      read_edges(c, run);
      break;
    case SectionType::program:
      run.program = read_record(c, run, run.runnable_bins);
      break;
    case SectionType::object_frames:
      read_object_frames(c, run);
      break;
    case SectionType::thread_routines:
      read_thread_routines(c, run);
      break;
    case SectionType::thread_starvation:
      read_thread_starvation(c, run);
      break;
    case SectionType::context_starvation:
      read_context_seconds(c, run, &ContextStates::one_busy_starved,
                           "starvation of a context not listed");
      break;
    case SectionType::context_taken:
      read_context_seconds(c, run, &ContextStates::one_busy_taken,
                           "taken processors of a context not listed");
      break;
    case SectionType::context_waited:
      read_context_seconds(c, run, &ContextStates::one_busy_waited,
                           "team waits of a context not listed");
      break;
    case SectionType::amended_run:
    case SectionType::amended_threads:
    case SectionType::amended_objects:
    case SectionType::amended_procedures:
    case SectionType::amended_contexts:
    case SectionType::amended_program:
    case SectionType::amended_thread_routines:
      return;  // capture_amendments.h
  }
  c.expect_end();
}

void infer_named_threads(Run& run) {
  std::map<uint32_t, const std::string*> names;
  for (const ThreadInfo& t : run.threads) names[t.index] = &t.name;
  for (ThreadInfo& t : run.threads) {
    if (t.index == 0) continue;
    auto creator = names.find(t.parent == capture::kNoParent ? 0 : t.parent);
    t.named = creator == names.end() || *creator->second != t.name;
  }
}

}  // namespace quartz::profile

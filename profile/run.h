// One sampled run, as offline code sees it: plain value types, no Qt, no SQLite
// (STYLE: hotspot's data.h). Read from a capture file (capture.h) or from the experiment
// store (store.h); records keep the capture's layout (capture_format.h).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "format/capture_format.h"

namespace quartz::profile {

using States = std::array<double, capture::kStateCount>;

// Procedures, objects, threads and the program (capture_format.h "full record"). Empty
// vectors are zeros: an object no snapshot saw keeps none (for 125,000 such objects, a third
// of loading the run).
struct FullRecord {
  std::vector<double> processor_self, processor_behalf;            // by processors busy, 0..P
  std::vector<double> normalized_self, normalized_behalf;          // by processors busy, 0..P
  States state_self{}, state_behalf{};                             // thread-seconds per state
  std::array<std::vector<double>, capture::kStateCount> runnable;  // time by runnable count
};

// A calling context's own figures, self only, but for its time by processors busy, which
// the run keeps in columns (Run::processor_of, normalized_of): a run of millions of
// contexts holds no vector for each.
struct ContextStates {
  States state{};
  States runnable_sum{};  // Σ runnable count × time, per state
  // Of normalized[1], the part whose other processors had no thread at work to run
  // (capture_format.h, context_starvation): starvation, not a serial bottleneck.
  double one_busy_starved = 0;
  // Of the rest of normalized[1], the part whose other processors the program's other
  // threads were ready for (context_taken): taken by other processes, or being woken.
  double one_busy_taken = 0;
  // Of the rest, the part whose other processors' threads waited for the slowest of their
  // team (context_waited): a load imbalance.
  double one_busy_waited = 0;
};

// A calling context's whole record, self only; inclusive values are sums over its subtree.
struct ContextRecord {
  std::vector<double> processor, normalized;  // by processors busy, 0..P
  ContextStates states;
};

// Adds `values` into `into`, element by element (`into` grows to fit).
inline void add_values(std::vector<double>& into, std::span<const double> values) {
  if (into.size() < values.size()) into.resize(values.size(), 0);
  for (size_t i = 0; i < values.size(); ++i) into[i] += values[i];
}

inline void add_record(FullRecord& into, const FullRecord& r) {
  add_values(into.processor_self, r.processor_self);
  add_values(into.processor_behalf, r.processor_behalf);
  add_values(into.normalized_self, r.normalized_self);
  add_values(into.normalized_behalf, r.normalized_behalf);
  for (size_t s = 0; s < capture::kStateCount; ++s) {
    into.state_self[s] += r.state_self[s];
    into.state_behalf[s] += r.state_behalf[s];
    add_values(into.runnable[s], r.runnable[s]);
  }
}

inline void add_states(ContextStates& into, const ContextStates& r) {
  for (size_t s = 0; s < capture::kStateCount; ++s) {
    into.state[s] += r.state[s];
    into.runnable_sum[s] += r.runnable_sum[s];
  }
  into.one_busy_starved += r.one_busy_starved;
  into.one_busy_taken += r.one_busy_taken;
  into.one_busy_waited += r.one_busy_waited;
}

struct Module {
  uint32_t id = 0;
  uint64_t load_bias = 0;
  std::string path;
};

// Where an address is in the program's source.
struct Symbol {
  std::string function;  // demangled; empty when unknown
  std::string file;
  int line = 0;
  std::string module;  // path of the executable or library
};

struct ThreadInfo {
  uint32_t index = 0;
  uint32_t parent = capture::kNoParent;
  int32_t tid = 0;
  std::string name;
  uint64_t start_routine = 0;
  uint64_t handle = 0;                     // pthread_t: the address of the object its joins wait on
  uint64_t created_ns = 0, exited_ns = 0;  // since the run started; exited 0: still running
  uint64_t calls = 0, stack_overflows = 0, unmatched_exits = 0;
  uint64_t exact_blocked_ns = 0, exact_spinning_ns = 0;
  uint64_t cpu_ns = 0, run_queue_ns = 0;
  FullRecord record;
  // The program named the thread: `name` is its own, not the one it inherited from its
  // creator. Captures written before the runtime said so: inferred, named when its name
  // is not its creator's (profile/capture_sections.cpp).
  bool named = true;
  // The first procedure it entered at each depth of its own stack, bottom first (empty in
  // older captures): for a std::thread, its trampolines, then the program's callable.
  std::vector<uint64_t> routines;
  // Processor time idle for want of threads at work while it ran (its share), before and
  // after the program first had P threads at work (capture_format.h, thread_starvation).
  double starved_startup_s = 0, starved_later_s = 0;
};

struct ObjectInfo {
  // Its number in the run, from 1 in the order the program first used them: the same in
  // every report, export and view of the run.
  uint32_t id = 0;
  uint64_t address = 0;
  uint32_t kind = capture::kMutex;
  std::string name;
  uint64_t first_site = 0;
  // The call chain of its first acquisition, innermost first (return addresses, from
  // first_site on); empty in older captures and for objects only named or waited for.
  std::vector<uint64_t> acquired_from;
  uint64_t acquisitions = 0, contended = 0, posts = 0, exact_wait_ns = 0;
  double wait_spinning_s = 0, wait_blocked_s = 0, hold_s = 0;
  std::vector<double> queue;  // time with k threads waiting, while in use
  FullRecord record;
};

struct ProcedureInfo {
  uint64_t address = 0;
  FullRecord record;
};

struct ContextInfo {
  uint32_t id = 0;  // its index in Run::contexts
  uint32_t parent = capture::kNoParent;
  uint64_t address = 0;
  uint32_t kind = capture::kProcedure;
  ContextStates own;
};

struct Edge {
  uint64_t caller = 0;  // 0: the thread's root
  uint64_t callee = 0;
  uint64_t calls = 0;
};

struct Run {
  uint32_t processors = 1;     // P
  uint32_t runnable_bins = 2;  // R1
  bool final = false;          // false: a checkpoint of a run that did not end normally
  std::map<std::string, std::string> info;  // the capture's run section (capture::run_keys)
  std::vector<Module> modules;
  std::vector<ThreadInfo> threads;
  std::vector<ObjectInfo> objects;
  std::vector<ProcedureInfo> procedures;
  std::vector<ContextInfo> contexts;
  // The contexts' time by processors busy, 0..P: processor time, then normalized, 2(P+1)
  // values a context in the order of `contexts` (processor_of, normalized_of).
  std::vector<double> context_bins;
  std::vector<Edge> edges;  // duplicates merged
  FullRecord program;
  std::unordered_map<uint64_t, Symbol> symbols;  // by runtime address, when symbolized

  size_t bins() const { return size_t{processors} + 1; }
  std::span<const double> processor_of(size_t context) const {
    return {context_bins.data() + context * 2 * bins(), bins()};
  }
  std::span<const double> normalized_of(size_t context) const {
    return {context_bins.data() + (context * 2 + 1) * bins(), bins()};
  }
  std::span<double> processor_of(size_t context) {
    return {context_bins.data() + context * 2 * bins(), bins()};
  }
  std::span<double> normalized_of(size_t context) {
    return {context_bins.data() + (context * 2 + 1) * bins(), bins()};
  }
  // Appends a context, its id set to its index; `record`'s values fitted to P+1 bins (P set
  // first).
  void add_context(ContextInfo context, const ContextRecord& record);
  ContextRecord record_of(size_t context) const;  // a context's whole record, as a value

  // A run-section value as a number (0 when absent or not a number).
  double number(const std::string& key) const;
  std::string text(const std::string& key) const;
  // The run's elapsed time (docs/design.md "Elapsed time": from the runtime's start to the
  // program's end), the one figure the report, predict, the store and the viewer show.
  double elapsed_s() const { return number(capture::run_keys::kElapsedNs) * 1e-9; }
  // Torn stack copies per thread sample: one definition for the report's quality section
  // (analysis/profile_view.h) and the store's summary column, which is filled below analysis.
  double torn_rate() const {
    const double thread_samples = number(capture::run_keys::kThreadSamples);
    return thread_samples > 0 ? number(capture::run_keys::kTornSamples) / thread_samples : 0;
  }
};

}  // namespace quartz::profile

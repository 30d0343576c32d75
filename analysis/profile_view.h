// What the report shows, derived from a run: the definitions of every displayed metric
// live here, once; `quartz report` (text and JSON) and `quartz-view` both use them.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "profile/run.h"

namespace quartz::analysis {

// A record's totals: self plus work on its behalf, unless named *_self.
struct Totals {
  double normalized_s = 0, normalized_self_s = 0;
  double processor_s = 0, processor_self_s = 0;
  std::vector<double> histogram_s;              // normalized time by processors busy, 0..P
  std::vector<double> histogram_self_s;         // the self part of it
  profile::States state_s{};                    // elapsed thread-time per state, self + behalf
  profile::States mean_runnable{};              // mean runnable threads while in each state
  std::vector<std::vector<double>> runnable_s;  // [state][k]: time with k runnable threads
};

// A procedure's own time with one processor busy, in its contexts outside held objects
// (where a serial bottleneck's findings look, diagnosis.h): summed from the calling
// contexts when the view is made, so that a view without their rows finds the same.
struct OneBusyTime {
  double serial_s = 0;  // with the other processors idle for want of it
  // ... with no thread at work to run on them: start-up or wind-down starvation, not a
  // serial bottleneck (profile::ContextStates::one_busy_starved)
  double starved_s = 0;
  // ... while the program's other threads were ready for them (taken by other processes,
  // or being woken): not a serial bottleneck either (one_busy_taken)
  double taken_s = 0;
};

struct ProcedureRow {
  uint64_t address = 0;
  std::string name;      // demangled function, or the address
  std::string location;  // file:line, or the module
  uint64_t calls = 0;
  Totals totals;
  OneBusyTime one_busy;
};

// The procedure context that spent longest spinning or blocked at itself (a finding names
// it), summed like OneBusyTime.
struct LongestWait {
  std::string name;
  double wait_s = 0;
};

struct ChildRow {
  static constexpr uint32_t kSelf = ~uint32_t{0};  // name_index of the parent's own time
  uint64_t address = 0;
  uint32_t kind = capture::kProcedure;
  uint32_t name_index = 0;  // in ProfileView::names (name_of), or kSelf: "self"
  double normalized_s = 0;
  double share = 0;  // of the parent's normalized time
  uint64_t calls = 0;
  bool is_self() const { return name_index == kSelf; }
};

struct LockRow {
  uint32_t id = 0;  // ObjectInfo::id
  uint64_t address = 0;
  std::string name;  // object_names()
  uint32_t kind = capture::kMutex;
  double wait_s = 0, wait_spinning_s = 0, wait_blocked_s = 0, hold_s = 0;
  uint64_t acquisitions = 0, contended = 0, posts = 0;
  double mean_wait_s = 0;  // exact, per contended acquisition, where the runtime timed it
  double mean_queue = 0;   // threads waiting, on average, while it was in use
  std::vector<double> queue_s;
  Totals totals;
};

// One calling context: a path from the root through procedures and objects. Its name and
// histograms are the view's (ProfileView::name_of, histogram_of): a big run has millions
// of contexts and far fewer names, and a string and two vectors of their own made each
// context three times the size of its record in the capture.
struct ContextRow {
  uint32_t id = 0;  // its index in ProfileView::contexts
  uint32_t parent = capture::kNoParent;
  uint64_t address = 0;  // the procedure or object
  uint32_t kind = capture::kProcedure;
  uint32_t name_index = 0;       // in ProfileView::names
  double normalized_s = 0;       // with its subtree
  double normalized_self_s = 0;  // at this context itself
  double processor_s = 0;        // with its subtree
  double processor_self_s = 0;   // at this context itself
  // Elapsed thread-time spinning or blocked at this context itself: waiting for an object,
  // or in the kernel (I/O, sleep).
  double wait_self_s = 0;
  // Calls to this procedure from the parent context's procedure (the thread's root for a
  // top context), from the call graph: a caller seen in several contexts counts them all.
  // 0 for objects.
  uint64_t calls = 0;
};

struct ThreadRow {
  uint32_t index = 0;
  uint32_t parent = capture::kNoParent;
  // The name the program gave it; else its routine's bare name (cxx_names.h); else the
  // name it inherited (the main thread's: the program's).
  std::string name;
  bool named = false;            // the program named it
  std::string routine;           // the program's own procedure it started in (full name), or ""
  uint64_t routine_address = 0;  // its address; 0 when none is known
  // The first of the program's procedures it entered below its routine (its role, where one
  // routine starts threads that do different work: lbzip2's thread_entry a worker or the
  // muxer, zstd's POOL_thread a compression or an I/O job); "" and 0 when none is known.
  std::string role;
  uint64_t role_address = 0;
  // What tables show: the name, and the role where the program did not name the thread and
  // another thread of its routine has another role ("thread_entry (worker)").
  std::string label;

  double busy_s = 0, spinning_s = 0, blocked_s = 0, ready_s = 0;
  double start_s = 0;     // its creation, since the run's start
  double lifetime_s = 0;  // from its creation to its end, or to the run's
  double cpu_s = 0;
  uint64_t calls = 0;
  Totals totals;
  // Processor time idle for want of threads at work while it ran (its share), before and
  // after the program first had P threads at work (Starvation).
  double starved_startup_s = 0, starved_later_s = 0;
};

// Start-up and wind-down starvation, in processor-seconds: processor time idle because
// fewer threads were at work (existing, not waiting in a join) than processors, while a
// thread besides the first was at work (sampler/attribution.h; docs/design.md "Diagnosis").
struct Starvation {
  bool measured = false;  // false: a capture from before Quartz measured it
  double startup_s = 0;   // before the program first had P threads at work (all: never had)
  double between_s = 0;   // between the first and the last time it had
  double winddown_s = 0;  // after the last time it had
  std::optional<double> first_full_s, last_full_s;  // since the run's start; none: never
  double total_s() const { return startup_s + between_s + winddown_s; }
};

// A limit of the runtime that this run reached, so data was lost: which, how much, and the
// `quartz run` flag that raises it ("" when none does).
struct LimitReached {
  std::string limit;  // "object table", "call-graph table", ...
  uint64_t lost = 0;
  std::string lost_what;  // "objects not registered", ...
  std::string flag;       // "--objects-log2"
};

// A procedure whose patched entry the overhead budget turned off (sampler/overhead_budget.h):
// from then on its calls are not counted and its time is its caller's.
struct UnpatchedProcedure {
  std::string name;
  uint64_t calls = 0;  // counted until then
  double at_s = 0;     // into the run
  double call_ns = 0;  // what a call cost the program, as a trial measured it; 0: not measured
};

// One run of the program without the profiler (`quartz run --baseline`), beside this one.
struct Baseline {
  double elapsed_s = 0;       // unprofiled
  double cpu_s = 0;           // unprofiled, all its threads
  double profiled_cpu_s = 0;  // this run's threads (the sampler is not among them)
};

struct Quality {
  uint64_t samples = 0;
  uint64_t thread_samples = 0;
  double period_s = 0;
  double torn_rate = 0;           // torn stack copies per thread sample
  double dilation_removed_s = 0;  // processor time taken out as hook overhead
  double hook_pair_ns = 0;        // one call's cost: through a patched entry, or the hooks
  // How procedures were seen: through patched entries (this many), else the compiler's
  // hooks; the overhead budget, percent (0: none), and the entries it turned off.
  uint64_t patched_entries = 0;
  std::string procedure_patterns;  // --procedures: only the entries of these were patched
  uint32_t budget_percent = 0;
  std::vector<UnpatchedProcedure> unpatched;
  uint64_t cost_trials = 0;  // entries the budget switched off and on to measure their cost
  // Windows in which those entries were on again, and the stack reads made in them: the
  // turned-off procedures' time since is estimated from those reads (0: not estimated).
  uint64_t entry_windows = 0;
  uint64_t window_reads = 0;
  double sampler_cpu_s = 0;
  // Processor time other processes took from the program's processors; none: not measured.
  std::optional<double> other_cpu_s;
  bool reserved_core = false;
  std::string cpu_measurement;  // "schedstat" or "model"
  std::optional<Baseline> baseline;
  uint64_t stack_overflows = 0, unmatched_exits = 0;
  uint64_t dropped = 0;  // objects, calls or contexts that found no room
  bool final = true;     // false: the run ended abnormally; data up to a checkpoint
  // A run amended after its last capture (an abnormal end under `quartz run`): its counts
  // of calls and acquisitions cover it to here, its times to its end.
  std::optional<double> counts_elapsed_s;
  bool traced = false;  // recorded with --trace (quartz predict can use it)
  uint64_t trace_events = 0, trace_dropped = 0, trace_bytes = 0;
  std::vector<LimitReached> limits_reached;  // the one list of them: report and viewer

  // How procedures were seen, for report and viewer: "N patched entries", none when
  // --procedures matched no entry, else the compiler's hooks.
  std::string seen_through() const;
};

// Each procedure's normalized time divided among its children (and "self", last), by the
// procedure's address (0: the root); children by normalized time, descending.
using CallGraph = std::map<uint64_t, std::vector<ChildRow>>;
// Which (parent procedure, child, child's kind) pairs of a call graph to sum.
using CallGraphFilter = std::function<bool(uint64_t parent, uint64_t child, uint32_t kind)>;

struct ProfileView {
  std::string program;
  bool all_frames = false;  // false: system frames folded into their callers (system_frames.h)
  bool folded_system_frames = false;  // some were
  std::vector<std::string> arguments;
  uint32_t processors = 1;
  double elapsed_s = 0;
  std::vector<double> parallelism_s;     // elapsed time with i processors busy, 0..P
  Totals program_totals;                 // the root: everything (all of it "self")
  std::vector<ProcedureRow> procedures;  // by normalized time, descending
  std::vector<LockRow> locks;            // by normalized time, descending
  std::vector<ThreadRow> threads;        // by index
  std::vector<ContextRow> contexts;      // the calling-context tree, parents first
  // The names of the contexts' and children's procedures and objects, each once
  // (name_index); the contexts' normalized time by processors busy, 0..P, with the
  // subtree's and at the context itself: 2(P+1) values a context, in the order of
  // `contexts` (histogram_of, histogram_self_of).
  std::vector<std::string> names;
  std::vector<double> context_histograms;
  Starvation starvation;
  LongestWait longest_wait;
  // The call graph; empty in a view made without it (ViewOptions::children): call_graph().
  CallGraph children;
  Quality quality;

  // "% elapsed" of a record: its normalized time as a share of the elapsed time.
  std::optional<double> share_of_elapsed(double normalized_s) const;

  const std::string& name_of(const ContextRow& c) const { return names[c.name_index]; }
  const std::string& name_of(const ChildRow& c) const;
  std::span<const double> histogram_of(const ContextRow& c) const {
    return {context_histograms.data() + size_t{c.id} * 2 * bins(), bins()};
  }
  std::span<const double> histogram_self_of(const ContextRow& c) const {
    return {context_histograms.data() + (size_t{c.id} * 2 + 1) * bins(), bins()};
  }
  // Appends a context built by hand (tests, a view without a run): its id is its index.
  void add_context(ContextRow c, const std::string& name, const std::vector<double>& histogram,
                   const std::vector<double>& histogram_self);
  size_t bins() const { return size_t{processors} + 1; }
};

// A part's share of a whole (of the elapsed time, of the critical path); none when the
// whole is not positive.
std::optional<double> share(double part, double whole);

// What analyze() shows.
struct ViewOptions {
  bool all_frames = false;  // every frame, system code's included (`--all-frames`)
  // The calling-context tree's rows, and the children's shares (the call graph); without
  // them only the ranked tables and the findings (what import stores), which a run of
  // millions of contexts builds in a fraction of the memory. The text report shows the
  // call graph, not the rows: at 8.1 M contexts they are 0.97 GB (120 bytes a context).
  bool contexts = true;
  bool children = true;
  // The call graph's parents: the root and this many procedures that have children, the
  // first by rank (the text report shows its --top of them; a huge run's whole call graph
  // is ~70 bytes a context to build).
  size_t children_of = std::numeric_limits<size_t>::max();
};

ProfileView analyze(const profile::Run& run, const ViewOptions& options = {});
// The same for a caller done with the run's calling contexts (reports, exports, the
// viewer): the view takes them rather than copying, their time by processors busy becoming
// its histograms in place, and frees them once its rows are made, so a run of millions of
// contexts peaks at 224 bytes a context where a copy took 312. Leaves `run` as the view
// shows it (system frames folded unless options.all_frames) and without contexts.
ProfileView analyze_taking_contexts(profile::Run& run, const ViewOptions& options = {});

// The call graph summed from a view's rows, of the pairs `keep` lets through (every pair
// when empty): the rows ProfileView::children holds, for a view made without it. The viewer
// makes its view so and sums one procedure's callers or callees as it shows them: the
// whole call graph of a run of millions of contexts takes seconds and a third of a
// gigabyte to sum.
CallGraph call_graph(const ProfileView& view, const CallGraphFilter& keep = {});

// The run's --baseline, if it has one.
std::optional<Baseline> baseline_of(const profile::Run& run);
// The procedures whose entries the overhead budget turned off (capture key "unpatched").
std::vector<UnpatchedProcedure> unpatched_procedures(const profile::Run& run);

// A symbol's display name: the function, or the address in hex.
std::string display_name(const profile::Run& run, uint64_t address);
std::string kind_name(uint32_t kind);  // capture::kind_name, as a string

// The one name of a thread and of each object, by address, in every report, export and
// view. A thread: the name the program gave it, else its routine's. An object: the
// program's name for it, else its kind and the program's own frame that first acquired
// it ("mutex@push_job (queue.cpp:41)"), or for a join the thread joined; objects that
// share a name (an array's, first taken at one site) add their ids ("... #7").
std::string thread_name(const profile::Run& run, const profile::ThreadInfo& t);
std::unordered_map<uint64_t, std::string> object_names(const profile::Run& run);

}  // namespace quartz::analysis

#include "analysis/profile_view.h"

#include <tsl/robin_map.h>
#include <tsl/robin_set.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "analysis/cxx_names.h"
#include "analysis/system_frames.h"
#include "profile/system_code.h"

namespace quartz::analysis {

using namespace quartz::profile;

namespace {

double sum(std::span<const double> v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

// The totals of `r`, its histograms of the run's shape (an empty record is all zero).
Totals totals_of(const FullRecord& r, const Run& run) {
  Totals t;
  const size_t bins = std::max(run.bins(), r.normalized_self.size());
  t.histogram_s.assign(bins, 0);
  t.histogram_self_s = r.normalized_self;
  t.histogram_self_s.resize(bins, 0);
  for (size_t i = 0; i < r.normalized_self.size(); ++i) t.histogram_s[i] += r.normalized_self[i];
  for (size_t i = 0; i < r.normalized_behalf.size() && i < bins; ++i)
    t.histogram_s[i] += r.normalized_behalf[i];
  t.normalized_self_s = sum(r.normalized_self);
  t.normalized_s = t.normalized_self_s + sum(r.normalized_behalf);
  t.processor_self_s = sum(r.processor_self);
  t.processor_s = t.processor_self_s + sum(r.processor_behalf);
  for (size_t s = 0; s < capture::kStateCount; ++s) {
    t.state_s[s] = r.state_self[s] + r.state_behalf[s];
    const std::vector<double>& hist = r.runnable[s];
    t.runnable_s.push_back(hist);
    if (t.runnable_s.back().size() < run.runnable_bins)
      t.runnable_s.back().resize(run.runnable_bins, 0);
    double weight = 0, weighted = 0;
    for (size_t k = 0; k < hist.size(); ++k) {
      weight += hist[k];
      weighted += hist[k] * static_cast<double>(k);
    }
    t.mean_runnable[s] = weight > 0 ? weighted / weight : 0;
  }
  return t;
}

std::string hex(uint64_t address) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(address));
  return text;
}

std::string basename_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string location_of(const Run& run, uint64_t address) {
  auto it = run.symbols.find(address);
  if (it == run.symbols.end()) return "";
  const Symbol& s = it->second;
  if (!s.file.empty()) return basename_of(s.file) + (s.line ? ":" + std::to_string(s.line) : "");
  return basename_of(s.module);
}

// The program's own procedure a thread started in: its start routine, or for one a library
// started (std::thread's trampolines) the first of the program's procedures on its own
// stack. A lambda that calls the program's procedure gives way to it: the lambda only
// passes arguments on. 0: not known.
uint64_t thread_routine(const Run& run, const ThreadInfo& t) {
  auto symbol = [&](uint64_t address) -> const Symbol* {
    auto it = run.symbols.find(address);
    return it == run.symbols.end() || it->second.function.empty() ? nullptr : &it->second;
  };
  const Symbol* start = symbol(t.start_routine);
  if (start && !is_system_code(*start)) return t.start_routine;
  for (size_t i = 0; i < t.routines.size(); ++i) {
    const Symbol* s = symbol(t.routines[i]);
    if (!s || is_system_code(*s)) continue;
    if (is_lambda(s->function) && i + 1 < t.routines.size()) {
      const Symbol* next = symbol(t.routines[i + 1]);
      if (next && !is_system_code(*next)) return t.routines[i + 1];
    }
    return t.routines[i];
  }
  return 0;
}

// What a frame says of the code that acquired an object (acquiring_frame).
enum class FrameClass : uint8_t { nameless, system, own };

// The program's own frame that first acquired an object: the first of its call chain
// outside system code (std::mutex::lock, std::lock_guard, the C library), else the first
// with a name. 0: none known. `classes` remembers each frame's class: a run of 100,000
// objects asks about the same few frames 100,000 times.
uint64_t acquiring_frame(const Run& run, const ObjectInfo& o,
                         std::unordered_map<uint64_t, FrameClass>& classes) {
  const uint64_t* chain = o.acquired_from.empty() ? &o.first_site : o.acquired_from.data();
  const size_t length = o.acquired_from.empty() ? 1 : o.acquired_from.size();
  uint64_t named = 0;
  for (size_t i = 0; i < length; ++i) {
    const uint64_t frame = chain[i];
    auto [known, added] = classes.try_emplace(frame, FrameClass::nameless);
    if (added) {
      auto it = run.symbols.find(frame);
      if (it != run.symbols.end() && !it->second.function.empty()) {
        known->second = is_system_code(it->second) ? FrameClass::system : FrameClass::own;
      }
    }
    if (known->second == FrameClass::own) return frame;
    if (known->second == FrameClass::system && named == 0) named = frame;
  }
  return named;
}

}  // namespace

// A thread's name in reports (ThreadRow::name).
std::string thread_name(const Run& run, const ThreadInfo& t) {
  const uint64_t routine = t.named || t.index == 0 ? 0 : thread_routine(run, t);
  if (routine) return bare_name(display_name(run, routine));
  return t.name.empty() ? "thread " + std::to_string(t.index) : t.name;
}

namespace {

// An object's name before objects that share it are told apart (object_names). The caches
// keep what the objects' frames give: the same few for 100,000 objects.
struct ObjectNamer {
  const Run& run;
  std::unordered_map<uint64_t, FrameClass> classes;    // acquiring_frame's
  std::unordered_map<uint64_t, std::string> at_frame;  // "@procedure (file:line)"

  std::string own_name(const ObjectInfo& o);
};

std::string ObjectNamer::own_name(const ObjectInfo& o) {
  if (!o.name.empty()) return o.name;
  std::string name = kind_name(o.kind);
  if (o.kind == capture::kJoin) {  // a join waits on the thread joined: name it
    for (const ThreadInfo& t : run.threads) {
      if (t.handle == o.address && t.handle != 0) {
        return name + " " + thread_name(run, t) + " (thread " + std::to_string(t.index) + ")";
      }
    }
  }
  // OpenMP's objects are named by their place in the source: the region whose end it is
  // (its function's entry), the barrier's or the lock's first call.
  const bool openmp = o.kind >= capture::kOmpRegionEnd && o.kind <= capture::kOmpIdle;
  if (openmp && o.first_site) {
    if (o.kind == capture::kOmpRegionEnd) {
      auto it = run.symbols.find(o.first_site);
      if (it != run.symbols.end() && !it->second.function.empty()) {
        return "end of " + it->second.function;
      }
    }
    const std::string where = location_of(run, o.first_site);
    if (!where.empty()) return name + "@" + where;
  }
  if (const uint64_t frame = acquiring_frame(run, o, classes)) {
    auto [it, added] = at_frame.try_emplace(frame);
    if (added) {
      it->second = "@" + bare_name(display_name(run, frame));
      const std::string where = location_of(run, frame);
      if (!where.empty()) it->second += " (" + where + ")";
    }
    return name + it->second;
  }
  return name + "@" + hex(o.address);
}

}  // namespace

std::unordered_map<uint64_t, std::string> object_names(const Run& run) {
  std::unordered_map<uint64_t, std::string> names;
  std::unordered_map<std::string, int> uses;
  ObjectNamer namer{run, {}, {}};
  for (const ObjectInfo& o : run.objects) ++uses[names[o.address] = namer.own_name(o)];
  for (const ObjectInfo& o : run.objects) {
    std::string& name = names[o.address];
    if (uses[name] > 1) name += " #" + std::to_string(o.id);
  }
  return names;
}

std::string kind_name(uint32_t kind) {
  return capture::kind_name(kind);
}

std::string Quality::seen_through() const {
  if (patched_entries != 0) return std::to_string(patched_entries) + " patched entries";
  if (!procedure_patterns.empty()) {
    return "no patched entry: --procedures '" + procedure_patterns + "' matches none";
  }
  return "the compiler's hooks";
}

std::optional<double> share(double part, double whole) {
  if (!(whole > 0)) return std::nullopt;
  return part / whole;
}

void ProfileView::add_context(ContextRow c, const std::string& name,
                              const std::vector<double>& histogram,
                              const std::vector<double>& histogram_self) {
  c.id = static_cast<uint32_t>(contexts.size());
  const auto known = std::find(names.begin(), names.end(), name);
  c.name_index = static_cast<uint32_t>(known - names.begin());
  if (known == names.end()) names.push_back(name);
  contexts.push_back(c);
  for (const std::vector<double>* values : {&histogram, &histogram_self}) {
    const size_t at = context_histograms.size();
    context_histograms.resize(at + bins(), 0);
    std::copy_n(values->begin(), std::min(bins(), values->size()), context_histograms.begin() + at);
  }
}

const std::string& ProfileView::name_of(const ChildRow& c) const {
  static const std::string kSelfName = "self";
  return c.is_self() ? kSelfName : names[c.name_index];
}

std::optional<double> ProfileView::share_of_elapsed(double normalized_s) const {
  return share(normalized_s, elapsed_s);
}

std::string display_name(const Run& run, uint64_t address) {
  auto it = run.symbols.find(address);
  if (it == run.symbols.end() || it->second.function.empty()) return hex(address);
  const Symbol& s = it->second;
  return readable_generated_name(s.function, s.file.empty() ? "" : basename_of(s.file));
}

namespace {

std::vector<ProcedureRow> procedure_rows(const Run& run) {
  std::unordered_map<uint64_t, uint64_t> calls;  // by callee
  for (const Edge& e : run.edges) calls[e.callee] += e.calls;
  std::vector<ProcedureRow> rows;
  for (const ProcedureInfo& p : run.procedures) {
    ProcedureRow row;
    row.address = p.address;
    row.name = display_name(run, p.address);
    row.location = location_of(run, p.address);
    row.calls = calls.count(p.address) ? calls[p.address] : 0;
    row.totals = totals_of(p.record, run);
    rows.push_back(std::move(row));
    calls.erase(p.address);
  }
  // Procedures the hooks counted but no sample ever found running (a program shorter than a
  // period, a handler between two samples): listed with their calls and no time.
  const FullRecord unseen;  // all zero
  std::vector<std::pair<uint64_t, uint64_t>> unseen_calls(calls.begin(), calls.end());
  std::sort(unseen_calls.begin(), unseen_calls.end());  // the same order on every run
  for (const auto& [address, count] : unseen_calls) {
    if (address == 0) continue;
    ProcedureRow row;
    row.address = address;
    row.name = display_name(run, address);
    row.location = location_of(run, address);
    row.calls = count;
    row.totals = totals_of(unseen, run);
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const ProcedureRow& a, const ProcedureRow& b) {
    return a.totals.normalized_s > b.totals.normalized_s;
  });
  return rows;
}

// How each procedure's normalized time divides among its children, from the calling-
// context tree: a child's share is its inclusive time in the contexts directly below the
// procedure's contexts. Key 0 holds the root's children.
// Hash tables keyed by a pair, for the per-context passes below: a big run has millions of
// contexts, where ordered maps spent most of the analysis.
// Mixed down to the low bits (murmur3's finalizer): the open tables below index by them, and
// addresses differ little there.
struct PairHash {
  size_t operator()(const std::pair<uint64_t, uint64_t>& p) const {
    uint64_t h = p.first * 0x9E3779B97F4A7C15ull ^ p.second;
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ull;
    return h ^ (h >> 33);
  }
};
// Open tables: a run of millions of contexts looks each one up (a node-based table's
// look-ups were a tenth of opening one in the viewer).
using EdgeCalls = tsl::robin_map<std::pair<uint64_t, uint64_t>, uint64_t, PairHash>;

EdgeCalls edge_calls_of(const Run& run) {
  EdgeCalls calls;
  for (const Edge& e : run.edges) calls[{e.caller, e.callee}] += e.calls;
  return calls;
}

// The names of procedures and objects, each once, into ProfileView::names.
class Names {
 public:
  Names(const Run& run, ProfileView& view) : run_(run), view_(view), objects_(object_names(run)) {}

  uint32_t index(uint64_t address, uint32_t kind) {
    const auto [found, added] =
        index_.try_emplace({address, kind}, static_cast<uint32_t>(view_.names.size()));
    if (!added) return found->second;
    if (kind == capture::kProcedure) {
      view_.names.push_back(display_name(run_, address));
    } else {
      const auto object = objects_.find(address);
      view_.names.push_back(object != objects_.end() ? object->second
                                                     : kind_name(kind) + "@" + hex(address));
    }
    return found->second;
  }

 private:
  const Run& run_;
  ProfileView& view_;
  const std::unordered_map<uint64_t, std::string> objects_;
  tsl::robin_map<std::pair<uint64_t, uint64_t>, uint32_t, PairHash> index_;
};

// The root (0) and the first `limit` procedures by rank with a child context, or none (no
// limit: every procedure). `Context`: the run's (ContextInfo) or the view's (ContextRow).
template <typename Context>
std::optional<tsl::robin_set<uint64_t>> parents_shown(const std::vector<Context>& contexts,
                                                      const std::vector<ProcedureRow>& procedures,
                                                      size_t limit) {
  if (limit >= procedures.size()) return std::nullopt;
  tsl::robin_set<uint64_t> parents;
  for (const Context& c : contexts) {
    if (c.parent == capture::kNoParent) continue;
    const Context& p = contexts[c.parent];
    if (p.kind == capture::kProcedure) parents.insert(p.address);
  }
  tsl::robin_set<uint64_t> shown{0};
  for (size_t i = 0; i < procedures.size() && shown.size() <= limit; ++i) {
    if (parents.count(procedures[i].address)) shown.insert(procedures[i].address);
  }
  return shown;
}

// Keeps the pairs whose parent is among `shown` (none: every pair).
CallGraphFilter parents_among(const std::optional<tsl::robin_set<uint64_t>>& shown) {
  if (!shown) return {};
  return [&shown](uint64_t parent, uint64_t, uint32_t) { return shown->count(parent) > 0; };
}

// The call graph (ProfileView::children) from the run's contexts (ContextInfo) or the
// view's rows (ContextRow), whichever the analysis holds. `from` tells what a context's
// row is made of: inclusive(i), its normalized time with its subtree; name_index(i), its
// name in ProfileView::names; calls(i, parent), the calls to it from its parent's procedure.
template <typename Context, typename From>
CallGraph child_rows(const std::vector<Context>& contexts, const From& from, double root_total,
                     const std::vector<ProcedureRow>& procedures, const CallGraphFilter& keep) {
  const size_t n = contexts.size();
  // Each context's inclusive time under its parent's procedure, summed by (parent, child,
  // kind) once sorted, in the contexts' order: one array, not a hash table of hash tables
  // (a big run has about as many of these as contexts).
  struct Share {
    uint64_t parent, child;
    uint32_t kind, context;
    double time;
  };
  std::vector<Share> shares;
  if (!keep) shares.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const Context& c = contexts[i];
    uint64_t parent_address = 0;
    if (c.parent != capture::kNoParent) {
      const Context& p = contexts[c.parent];
      if (p.kind != capture::kProcedure) continue;  // a child of a lock belongs to the lock
      parent_address = p.address;
    }
    if (keep && !keep(parent_address, c.address, c.kind)) continue;
    shares.push_back(
        {parent_address, c.address, c.kind, static_cast<uint32_t>(i), from.inclusive(i)});
  }
  std::sort(shares.begin(), shares.end(), [](const Share& a, const Share& b) {
    return std::tie(a.parent, a.child, a.kind, a.context) <
           std::tie(b.parent, b.child, b.kind, b.context);
  });

  std::unordered_map<uint64_t, const ProcedureRow*> by_address;
  for (const ProcedureRow& p : procedures) by_address[p.address] = &p;
  CallGraph result;
  for (size_t at = 0; at < shares.size();) {
    const uint64_t parent = shares[at].parent;
    double total = 0;
    double self = 0;
    if (parent == 0) {
      total = root_total;
    } else if (by_address.count(parent)) {
      total = by_address[parent]->totals.normalized_s;
      self = by_address[parent]->totals.normalized_self_s;
    }
    std::vector<ChildRow>& rows = result[parent];
    size_t distinct = 1;  // the parent's "self"
    for (size_t i = at; i < shares.size() && shares[i].parent == parent; ++i) {
      distinct +=
          i == at || shares[i].child != shares[i - 1].child || shares[i].kind != shares[i - 1].kind;
    }
    rows.reserve(distinct);
    while (at < shares.size() && shares[at].parent == parent) {
      ChildRow row;
      row.address = shares[at].child;
      row.kind = shares[at].kind;
      row.name_index = from.name_index(shares[at].context);
      if (row.kind == capture::kProcedure) row.calls = from.calls(shares[at].context, parent);
      for (; at < shares.size() && shares[at].parent == parent && shares[at].child == row.address &&
             shares[at].kind == row.kind;
           ++at) {
        row.normalized_s += shares[at].time;
      }
      row.share = share(row.normalized_s, total).value_or(0);
      rows.push_back(row);
    }
    // Ties by address and kind: the same order on every run.
    std::sort(rows.begin(), rows.end(), [](const ChildRow& a, const ChildRow& b) {
      if (a.normalized_s != b.normalized_s) return a.normalized_s > b.normalized_s;
      return a.address != b.address ? a.address < b.address : a.kind < b.kind;
    });
    if (parent != 0) {
      ChildRow row;
      row.name_index = ChildRow::kSelf;
      row.address = parent;
      row.normalized_s = self;
      row.share = share(self, total).value_or(0);
      rows.push_back(row);
    }
  }
  return result;
}

// The call graph from the view's rows, which hold all a child row is made of: a context's
// calls are those from the procedure above it, its parent's here (a child of a lock is
// the lock's).
CallGraph child_rows_of_view(const ProfileView& view, const CallGraphFilter& keep) {
  struct FromRows {
    const std::vector<ContextRow>& rows;
    double inclusive(size_t i) const { return rows[i].normalized_s; }
    uint32_t name_index(size_t i) const { return rows[i].name_index; }
    uint64_t calls(size_t i, uint64_t) const { return rows[i].calls; }
  };
  return child_rows(view.contexts, FromRows{view.contexts}, view.program_totals.normalized_self_s,
                    view.procedures, keep);
}

// The call graph without the view's rows (the text report's), from the run's contexts.
CallGraph child_rows_of_run(const Run& run, const std::vector<ProcedureRow>& procedures,
                            Names& names, size_t limit) {
  std::vector<double> inclusive(run.contexts.size(), 0);
  for (size_t i = inclusive.size(); i-- > 0;) {
    inclusive[i] += sum(run.normalized_of(i));
    const uint32_t parent = run.contexts[i].parent;
    if (parent != capture::kNoParent) inclusive[parent] += inclusive[i];
  }
  struct From {
    const Run& run;
    const std::vector<double>& inclusive_s;
    Names& names;
    const EdgeCalls edge_calls;
    double inclusive(size_t i) const { return inclusive_s[i]; }
    uint32_t name_index(size_t i) const {
      return names.index(run.contexts[i].address, run.contexts[i].kind);
    }
    uint64_t calls(size_t i, uint64_t parent) const {
      auto it = edge_calls.find({parent, run.contexts[i].address});
      return it == edge_calls.end() ? 0 : it->second;
    }
  };
  const std::optional<tsl::robin_set<uint64_t>> shown =
      parents_shown(run.contexts, procedures, limit);
  return child_rows(run.contexts, From{run, inclusive, names, edge_calls_of(run)},
                    sum(run.program.normalized_self), procedures, parents_among(shown));
}

// The calling-context tree into `view`: its rows, their names (each distinct procedure's
// or object's once) and histograms. `bins`: the run's contexts' time by processors busy
// (Run::context_bins, taken or copied), which become the histograms in place.
void add_context_rows(const Run& run, std::vector<double> bins_by_context, ProfileView& view,
                      Names& names) {
  const size_t n = run.contexts.size();
  const size_t bins = view.bins();
  const EdgeCalls edge_calls = edge_calls_of(run);
  std::vector<ContextRow>& rows = view.contexts;
  rows.assign(n, {});
  std::vector<double>& histograms = view.context_histograms;
  histograms = std::move(bins_by_context);
  histograms.resize(n * 2 * bins, 0);
  for (size_t i = 0; i < n; ++i) {
    const ContextInfo& c = run.contexts[i];
    ContextRow& row = rows[i];
    row.id = c.id;
    row.parent = c.parent;
    row.address = c.address;
    row.kind = c.kind;
    row.name_index = names.index(c.address, c.kind);
    if (c.kind == capture::kProcedure) {
      // The caller is the nearest procedure above: objects held in between do not call.
      uint32_t up = c.parent;
      while (up != capture::kNoParent && run.contexts[up].kind != capture::kProcedure) {
        up = run.contexts[up].parent;
      }
      const uint64_t caller = up == capture::kNoParent ? 0 : run.contexts[up].address;
      auto it = edge_calls.find({caller, c.address});
      if (it != edge_calls.end()) row.calls = it->second;
    }
    // The run's [processor time, normalized] by processors busy become the view's
    // [normalized with the subtree (its own, until the sums below), normalized].
    double* histogram = histograms.data() + i * 2 * bins;
    row.processor_self_s = sum({histogram, bins});
    row.normalized_self_s = sum({histogram + bins, bins});
    std::copy_n(histogram + bins, bins, histogram);
    row.processor_s = row.processor_self_s;
    row.wait_self_s = c.own.state[capture::kSpinning] + c.own.state[capture::kBlocked];
  }
  // Inclusive values: children come after their parents.
  for (size_t i = n; i-- > 0;) {
    ContextRow& row = rows[i];
    row.normalized_s += row.normalized_self_s;
    if (row.parent == capture::kNoParent) continue;
    ContextRow& parent = rows[row.parent];
    parent.normalized_s += row.normalized_s;
    parent.processor_s += row.processor_s;
    const double* histogram = histograms.data() + i * 2 * bins;
    double* parent_histogram = histograms.data() + size_t{row.parent} * 2 * bins;
    for (size_t b = 0; b < bins; ++b) parent_histogram[b] += histogram[b];
  }
}

// What the findings read from the calling contexts (OneBusyTime, LongestWait), in one pass:
// parents come before their children, so whether a context runs inside a held object is
// known from its parent's answer when its own is asked.
void sum_context_findings(const Run& run, ProfileView& view) {
  const size_t n = run.contexts.size();
  std::vector<bool> under_object(n);
  tsl::robin_map<uint64_t, OneBusyTime> one_busy;  // by procedure address
  const ContextInfo* longest = nullptr;
  double longest_s = 0;
  for (size_t i = 0; i < n; ++i) {
    const ContextInfo& c = run.contexts[i];
    const bool under = c.parent != capture::kNoParent && under_object[c.parent];
    under_object[i] = under || c.kind != capture::kProcedure;
    if (c.kind != capture::kProcedure) continue;
    const double wait_s = c.own.state[capture::kSpinning] + c.own.state[capture::kBlocked];
    if (!longest || wait_s > longest_s) {
      longest = &c;
      longest_s = wait_s;
    }
    if (under || run.processors < 2) continue;
    const double time_s = run.normalized_of(i)[1];
    const double starved = std::clamp(c.own.one_busy_starved, 0.0, time_s);
    const double taken = std::clamp(c.own.one_busy_taken, 0.0, time_s - starved);
    OneBusyTime& t = one_busy[c.address];
    t.serial_s += time_s - starved - taken;
    t.starved_s += starved;
    t.taken_s += taken;
  }
  for (ProcedureRow& row : view.procedures) {
    if (auto it = one_busy.find(row.address); it != one_busy.end()) row.one_busy = it->second;
  }
  if (longest && longest_s > 0)
    view.longest_wait = {display_name(run, longest->address), longest_s};
}

std::vector<LockRow> lock_rows(const Run& run) {
  std::vector<LockRow> rows;
  const std::unordered_map<uint64_t, std::string> names = object_names(run);
  for (const ObjectInfo& o : run.objects) {
    // Only named, or signalled with nobody waiting: nothing happened on it.
    if (o.acquisitions == 0 && o.wait_spinning_s + o.wait_blocked_s + o.hold_s == 0 &&
        sum(o.record.normalized_self) + sum(o.record.normalized_behalf) == 0) {
      continue;
    }
    LockRow row;
    row.id = o.id;
    row.address = o.address;
    row.name = names.at(o.address);
    row.kind = o.kind;
    row.wait_spinning_s = o.wait_spinning_s;
    row.wait_blocked_s = o.wait_blocked_s;
    row.wait_s = o.wait_spinning_s + o.wait_blocked_s;
    row.hold_s = o.hold_s;
    row.acquisitions = o.acquisitions;
    row.contended = o.contended;
    row.posts = o.posts;
    const double waits = static_cast<double>(o.contended);
    if (waits > 0) {
      row.mean_wait_s = o.exact_wait_ns > 0 ? o.exact_wait_ns * 1e-9 / waits : row.wait_s / waits;
    }
    row.queue_s = o.queue;
    double time = 0, weighted = 0;
    for (size_t k = 0; k < o.queue.size(); ++k) {
      time += o.queue[k];
      weighted += o.queue[k] * static_cast<double>(k);
    }
    row.mean_queue = time > 0 ? weighted / time : 0;
    row.totals = totals_of(o.record, run);
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const LockRow& a, const LockRow& b) {
    if (a.totals.normalized_s != b.totals.normalized_s)
      return a.totals.normalized_s > b.totals.normalized_s;
    return a.wait_s > b.wait_s;
  });
  return rows;
}

std::vector<ThreadRow> thread_rows(const Run& run) {
  std::vector<ThreadRow> rows;
  for (const ThreadInfo& t : run.threads) {
    ThreadRow row;
    row.index = t.index;
    row.parent = t.parent;
    row.name = thread_name(run, t);
    row.named = t.named;
    row.routine_address = thread_routine(run, t);
    if (row.routine_address) row.routine = display_name(run, row.routine_address);
    const auto at = std::find(t.routines.begin(), t.routines.end(), row.routine_address);
    if (row.routine_address && at != t.routines.end() && at + 1 != t.routines.end()) {
      row.role_address = *(at + 1);
      row.role = display_name(run, row.role_address);
    }
    row.totals = totals_of(t.record, run);
    row.busy_s = row.totals.state_s[capture::kBusy];
    row.spinning_s = row.totals.state_s[capture::kSpinning];
    row.blocked_s = row.totals.state_s[capture::kBlocked];
    row.ready_s = row.totals.state_s[capture::kReady];
    const double end_s = t.exited_ns ? t.exited_ns * 1e-9 : run.elapsed_s();
    row.start_s = t.created_ns * 1e-9;
    row.lifetime_s = std::max(0.0, end_s - row.start_s);
    row.cpu_s = t.cpu_ns * 1e-9;
    row.calls = t.calls;
    row.starved_startup_s = t.starved_startup_s;
    row.starved_later_s = t.starved_later_s;
    rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end(),
            [](const ThreadRow& a, const ThreadRow& b) { return a.index < b.index; });
  std::map<uint64_t, std::set<uint64_t>> roles;  // by routine
  for (const ThreadRow& row : rows) {
    if (row.index != 0 && row.routine_address) roles[row.routine_address].insert(row.role_address);
  }
  for (ThreadRow& row : rows) {
    const bool role_tells = !row.named && !row.role.empty() && row.index != 0 &&
                            row.routine_address && roles[row.routine_address].size() > 1;
    row.label = role_tells ? row.name + " (" + row.role + ")" : row.name;
  }
  return rows;
}

// Each limit that dropped data, with the flag that raises it. Objects count both the
// runtime's registry (QUARTZ_OBJECTS_LOG2) and the sampler's tables, which hold 2^18 and
// are only reached past that.
std::vector<LimitReached> limits_reached(const Run& run, const Quality& q) {
  using namespace capture::run_keys;
  const auto count = [&](const char* key) { return static_cast<uint64_t>(run.number(key)); };
  const LimitReached all[] = {
      {"object table", count(kObjectsDropped), "objects not registered", "--objects-log2"},
      {"call-graph table", count(kCallsDropped), "calls not counted by edge", "--call-graph-log2"},
      {"calling-context table", count(kContextsDropped), "samples charged to a context's parent",
       ""},
      {"profile stack depth", q.stack_overflows, "entries past the stack's capacity",
       "--stack-capacity"},
      {"trace queues", q.trace_dropped, "trace events dropped", "--trace-capacity"},
  };
  std::vector<LimitReached> reached;
  for (const LimitReached& limit : all) {
    if (limit.lost > 0) reached.push_back(limit);
  }
  return reached;
}

}  // namespace

std::vector<UnpatchedProcedure> unpatched_procedures(const Run& run) {
  std::vector<UnpatchedProcedure> out;
  std::istringstream list(run.text(capture::run_keys::kUnpatched));
  std::string item;
  while (std::getline(list, item, ';')) {
    std::istringstream fields(item);
    uint64_t address = 0, calls = 0, at_ns = 0, call_ns = 0;
    int off = 0;
    if (!(fields >> std::hex >> address >> std::dec >> calls >> at_ns >> off) || !off) continue;
    if (!(fields >> call_ns)) call_ns = 0;  // a capture from before trials
    out.push_back({display_name(run, address), calls, static_cast<double>(at_ns) * 1e-9,
                   static_cast<double>(call_ns)});
  }
  return out;
}

std::optional<Baseline> baseline_of(const Run& run) {
  using namespace capture::run_keys;
  if (run.number(kBaselineElapsedNs) <= 0) return std::nullopt;
  Baseline b;
  b.elapsed_s = run.number(kBaselineElapsedNs) * 1e-9;
  b.cpu_s = run.number(kBaselineCpuNs) * 1e-9;
  for (const ThreadInfo& t : run.threads) b.profiled_cpu_s += static_cast<double>(t.cpu_ns) * 1e-9;
  if (!(b.cpu_s > 0) || !(b.profiled_cpu_s > 0)) return std::nullopt;  // nothing to scale by
  return b;
}

namespace {

Quality quality_of(const Run& run) {
  Quality q;
  using namespace capture::run_keys;
  q.samples = static_cast<uint64_t>(run.number(kSamples));
  q.thread_samples = static_cast<uint64_t>(run.number(kThreadSamples));
  q.period_s = run.number(kPeriodNs) * 1e-9;
  q.torn_rate = run.torn_rate();
  q.dilation_removed_s = run.number(kDilationRemovedNs) * 1e-9;
  q.hook_pair_ns = run.number(kHookPairNs);
  q.patched_entries = static_cast<uint64_t>(run.number(kPatchedEntries));
  q.procedure_patterns = run.text(kProcedurePatterns);
  q.budget_percent = static_cast<uint32_t>(run.number(kBudgetPercent));
  q.unpatched = unpatched_procedures(run);
  q.cost_trials = static_cast<uint64_t>(run.number(kCostTrials));
  q.entry_windows = static_cast<uint64_t>(run.number(kEntryWindows));
  q.window_reads = static_cast<uint64_t>(run.number(kWindowReads));
  q.sampler_cpu_s = run.number(kSamplerCpuNs) * 1e-9;
  if (run.info.count(kOtherCpuNs)) q.other_cpu_s = run.number(kOtherCpuNs) * 1e-9;
  q.reserved_core = run.text(kReserve) == "yes";
  q.cpu_measurement = run.text(kCpuMeasurement);
  q.baseline = baseline_of(run);
  q.dropped = static_cast<uint64_t>(run.number(kObjectsDropped) + run.number(kCallsDropped) +
                                    run.number(kContextsDropped));
  for (const ThreadInfo& t : run.threads) {
    q.stack_overflows += t.stack_overflows;
    q.unmatched_exits += t.unmatched_exits;
  }
  q.final = run.final;
  if (run.info.count(kCountsElapsedNs)) q.counts_elapsed_s = run.number(kCountsElapsedNs) * 1e-9;
  q.traced = run.info.count(kTraceEvents) > 0;
  q.trace_events = static_cast<uint64_t>(run.number(kTraceEvents));
  q.trace_dropped = static_cast<uint64_t>(run.number(kTraceDropped));
  q.trace_bytes = static_cast<uint64_t>(run.number(kTraceBytes));
  q.limits_reached = limits_reached(run, q);
  return q;
}

Starvation starvation_of(const Run& run) {
  using namespace capture::run_keys;
  Starvation s;
  s.measured = run.info.count(kStarvedStartupNs) > 0;
  s.startup_s = run.number(kStarvedStartupNs) * 1e-9;
  s.between_s = run.number(kStarvedBetweenNs) * 1e-9;
  s.winddown_s = run.number(kStarvedWinddownNs) * 1e-9;
  if (run.info.count(kFirstFullNs)) s.first_full_s = run.number(kFirstFullNs) * 1e-9;
  if (run.info.count(kLastFullNs)) s.last_full_s = run.number(kLastFullNs) * 1e-9;
  return s;
}

// `owned`: `run` itself when its contexts are the view's to take (analyze_taking_contexts,
// or a folded copy), else null.
ProfileView view_of(const Run& run, const ViewOptions& options, bool folded, Run* owned) {
  ProfileView view;
  view.all_frames = options.all_frames;
  view.folded_system_frames = folded;
  view.program = run.text(capture::run_keys::kProgram);
  std::stringstream split(run.text(capture::run_keys::kArguments));
  for (std::string word; std::getline(split, word, '\x1f');) view.arguments.push_back(word);
  view.processors = run.processors;
  view.elapsed_s = run.elapsed_s();
  view.program_totals = totals_of(run.program, run);
  view.parallelism_s = view.program_totals.histogram_s;
  view.procedures = procedure_rows(run);
  sum_context_findings(run, view);
  std::optional<Names> names;
  if (options.contexts || options.children) names.emplace(run, view);
  if (options.contexts) {
    std::vector<double> bins;
    if (owned) {
      bins = std::move(owned->context_bins);
    } else {
      bins = run.context_bins;
    }
    add_context_rows(run, std::move(bins), view, *names);
    // The call graph from the rows, once the run's contexts (104 bytes each) are gone.
    if (owned) owned->contexts = std::vector<ContextInfo>();
    if (options.children) {
      const std::optional<tsl::robin_set<uint64_t>> shown =
          parents_shown(view.contexts, view.procedures, options.children_of);
      view.children = child_rows_of_view(view, parents_among(shown));
    }
  } else if (options.children) {
    view.children = child_rows_of_run(run, view.procedures, *names, options.children_of);
  }
  view.locks = lock_rows(run);
  view.threads = thread_rows(run);
  view.quality = quality_of(run);
  view.starvation = starvation_of(run);
  if (owned) {
    // Assigned new vectors: `= {}` would keep their capacity.
    owned->contexts = std::vector<ContextInfo>();
    owned->context_bins = std::vector<double>();
  }
  return view;
}

}  // namespace

CallGraph call_graph(const ProfileView& view, const CallGraphFilter& keep) {
  return child_rows_of_view(view, keep);
}

ProfileView analyze(const Run& run, const ViewOptions& options) {
  std::optional<Run> folded = options.all_frames ? std::nullopt : fold_system_frames(run);
  return folded ? view_of(*folded, options, true, &*folded) : view_of(run, options, false, nullptr);
}

ProfileView analyze_taking_contexts(Run& run, const ViewOptions& options) {
  std::optional<Run> folded = options.all_frames ? std::nullopt : fold_system_frames(run);
  if (folded) run = std::move(*folded);
  return view_of(run, options, folded.has_value(), &run);
}

}  // namespace quartz::analysis

#include "analysis/table_rows.h"

#include <tsl/robin_map.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <span>
#include <unordered_map>

#include "analysis/display_names.h"
#include "profile/system_code.h"

namespace quartz::analysis {

using namespace quartz::profile;

namespace {

double sum(std::span<const double> v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

}  // namespace

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
    // The program's own procedures: a library's templates its threads run first (oneTBB's
    // task wrappers) are no role.
    auto at = std::find(t.routines.begin(), t.routines.end(), row.routine_address);
    if (row.routine_address && at != t.routines.end()) {
      at = std::find_if(at + 1, t.routines.end(), [&run](uint64_t address) {
        return !profile::is_system_procedure(run, address);
      });
    }
    if (row.routine_address && at != t.routines.end()) {
      row.role_address = *at;
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

// In one pass: parents come before their children, so whether a context runs inside a
// held object is known from its parent's answer when its own is asked.
void sum_context_findings(const Run& run, std::vector<ProcedureRow>& procedures,
                          LongestWait& longest_wait) {
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
    const double waited = std::clamp(c.own.one_busy_waited, 0.0, time_s - starved - taken);
    OneBusyTime& t = one_busy[c.address];
    t.serial_s += time_s - starved - taken - waited;
    t.starved_s += starved;
    t.taken_s += taken;
    t.waited_s += waited;
  }
  for (ProcedureRow& row : procedures) {
    if (auto it = one_busy.find(row.address); it != one_busy.end()) row.one_busy = it->second;
  }
  if (longest && longest_s > 0) longest_wait = {display_name(run, longest->address), longest_s};
}

}  // namespace quartz::analysis

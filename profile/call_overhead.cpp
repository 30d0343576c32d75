#include "profile/call_overhead.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>
#include <utility>

#include "runtime/patched_entry.h"

namespace quartz::profile {
namespace {

double sum(const std::vector<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0);
}

// Adds `delta` into `into`, element by element, never below zero (what a context loses its
// ancestors held on its behalf; rounding must not leave them negative).
void add_delta(std::vector<double>& into, const std::vector<double>& delta) {
  if (into.size() < delta.size()) into.resize(delta.size(), 0);
  for (size_t i = 0; i < delta.size(); ++i) into[i] = std::max(0.0, into[i] + delta[i]);
}

// Each context's factor on its own processor time: what it keeps once the calls' cost is
// taken out where it falls instead of where the sampler took it; 1 for contexts whose leaf
// is an object.
std::vector<double> factors(const Run& run, double call_s, double callee_share) {
  std::unordered_map<uint64_t, double> paid;  // the calls' cost, by procedure
  for (const Edge& e : run.edges) {
    paid[e.callee] += static_cast<double>(e.calls) * call_s * callee_share;
    if (e.caller != 0) paid[e.caller] += static_cast<double>(e.calls) * call_s * (1 - callee_share);
  }
  // Each procedure's time as measured, the cost in it: shared among its contexts by theirs.
  std::unordered_map<uint64_t, double> measured;
  for (const ContextInfo& c : run.contexts) {
    if (c.kind == capture::kProcedure)
      measured[c.address] += sum(c.record.processor) + c.record.call_cost;
  }
  std::vector<double> factor(run.contexts.size(), 1);
  for (size_t id = 0; id < run.contexts.size(); ++id) {
    const ContextInfo& c = run.contexts[id];
    const double processor = sum(c.record.processor);
    if (c.kind != capture::kProcedure || !(processor > 0)) continue;
    const double raw = processor + c.record.call_cost;
    const auto it = paid.find(c.address);
    const double cost = it == paid.end() ? 0 : it->second * raw / measured[c.address];
    factor[id] = std::max(0.0, raw - cost) / processor;
  }
  return factor;
}

}  // namespace

void place_call_overhead(Run& run) {
  const double call_s = run.number(capture::run_keys::kHookPairNs) * 1e-9;
  if (!run.call_costs_known || !(call_s > 0) || run.contexts.empty()) return;
  const bool patched = run.number(capture::run_keys::kPatchedEntries) > 0;
  std::vector<double> factor =
      factors(run, call_s, patched ? rt::kPatchedCallCalleeShare : rt::kHookCallCalleeShare);

  // Scaled again bin by bin (processors busy), so that the program's histogram of processor
  // time stays what the sampler measured (what the calls cost and what it took out differ
  // by rounding and by the calls of contexts it never sampled). Normalized time moves with
  // processor time, so that it never exceeds it in a context.
  const size_t bins = run.processors + size_t{1};
  std::vector<double> before(bins), after(bins);
  for (size_t id = 0; id < run.contexts.size(); ++id) {
    const ContextInfo& c = run.contexts[id];
    for (size_t b = 1; b < bins && b < c.record.processor.size(); ++b) {
      before[b] += c.record.processor[b];
      after[b] += c.record.processor[b] * factor[id];
    }
  }
  std::vector<double> scale(bins, 1);
  for (size_t b = 1; b < bins; ++b) {
    if (after[b] > 0) scale[b] = before[b] / after[b];
  }

  std::unordered_map<uint64_t, size_t> procedure_at;
  for (size_t i = 0; i < run.procedures.size(); ++i) procedure_at[run.procedures[i].address] = i;
  std::map<std::pair<uint64_t, uint32_t>, size_t> object_at;
  for (size_t i = 0; i < run.objects.size(); ++i) {
    object_at[{run.objects[i].address, run.objects[i].kind}] = i;
  }
  // A procedure or object on a path more than once (recursion) is charged once, as the
  // sampler does: the context's number marks those charged.
  std::vector<size_t> procedure_mark(run.procedures.size(), SIZE_MAX);
  std::vector<size_t> object_mark(run.objects.size(), SIZE_MAX);

  for (size_t id = 0; id < run.contexts.size(); ++id) {
    ContextInfo& leaf = run.contexts[id];
    const double f = factor[id];
    if (f == 1) continue;
    // Bins 1..P: bin 0 of normalized time, when nobody was busy, does not move.
    auto scaled = [&](size_t b) { return b != 0 && b < bins ? f * scale[b] : 1.0; };
    std::vector<double> processor = leaf.record.processor, normalized = leaf.record.normalized;
    for (size_t b = 0; b < processor.size(); ++b) processor[b] *= scaled(b) - 1;
    for (size_t b = 0; b < normalized.size(); ++b) normalized[b] *= scaled(b) - 1;
    // The leaf's own values are scaled, not added to, so that their order stays exact.
    for (size_t b = 0; b < leaf.record.processor.size(); ++b) leaf.record.processor[b] *= scaled(b);
    for (size_t b = 0; b < leaf.record.normalized.size(); ++b) {
      leaf.record.normalized[b] *= scaled(b);
    }
    leaf.record.one_busy_starved *= scaled(1);
    for (uint32_t at = static_cast<uint32_t>(id);
         at != capture::kNoParent && at < run.contexts.size(); at = run.contexts[at].parent) {
      const ContextInfo& node = run.contexts[at];
      FullRecord* record = nullptr;
      if (node.kind == capture::kProcedure) {
        const auto p = procedure_at.find(node.address);
        if (p == procedure_at.end() || procedure_mark[p->second] == id) continue;
        procedure_mark[p->second] = id;
        record = &run.procedures[p->second].record;
      } else {
        const auto o = object_at.find({node.address, node.kind});
        if (o == object_at.end() || object_mark[o->second] == id) continue;
        object_mark[o->second] = id;
        record = &run.objects[o->second].record;
      }
      const bool self = at == id;
      add_delta(self ? record->processor_self : record->processor_behalf, processor);
      add_delta(self ? record->normalized_self : record->normalized_behalf, normalized);
    }
  }
  run.call_costs_known = false;  // placed: a second call changes nothing
}

}  // namespace quartz::profile

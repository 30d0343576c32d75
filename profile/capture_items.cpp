#include "profile/capture_items.h"

#include <span>

#include "format/capture_format.h"

namespace quartz::profile {

using capture::kNoParent;

FullRecord read_record(Cursor& c, const Run& run, uint32_t runnable_bins) {
  FullRecord r;
  const size_t bins = run.bins();
  r.processor_self = c.f64s(bins);
  r.processor_behalf = c.f64s(bins);
  r.normalized_self = c.f64s(bins);
  r.normalized_behalf = c.f64s(bins);
  for (double& v : r.state_self) v = c.f64();
  for (double& v : r.state_behalf) v = c.f64();
  for (auto& hist : r.runnable) {
    hist = c.f64s(runnable_bins);
    for (size_t k = run.runnable_bins; k < hist.size(); ++k) hist[run.runnable_bins - 1] += hist[k];
    hist.resize(run.runnable_bins, 0);
  }
  return r;
}

void read_thread(Cursor& c, const Run& run, const ItemLayout& layout, ThreadInfo& t) {
  t.parent = c.u32();
  t.tid = c.i32();
  t.name = c.str();
  t.start_routine = c.u64();
  t.handle = c.u64();
  t.created_ns = c.u64();
  t.exited_ns = c.u64();
  if (!layout.amendment) {
    t.calls = c.u64();
    t.stack_overflows = c.u64();
    t.unmatched_exits = c.u64();
    t.exact_blocked_ns = c.u64();
    t.exact_spinning_ns = c.u64();
  }
  t.cpu_ns = c.u64();
  t.run_queue_ns = c.u64();
  if (layout.amendment) {
    t.starved_startup_s = c.f64();
    t.starved_later_s = c.f64();
  }
  t.record = read_record(c, run, layout.runnable_bins);
}

void read_object_identity(Cursor& c, ObjectInfo& o) {
  o.kind = c.u32();
  o.name = c.str();
  o.first_site = c.u64();
}

void read_object_counts(Cursor& c, ObjectInfo& o) {
  o.acquisitions = c.u64();
  o.contended = c.u64();
  o.posts = c.u64();
  o.exact_wait_ns = c.u64();
}

void read_object(Cursor& c, const Run& run, const ItemLayout& layout, ObjectInfo& o) {
  read_object_identity(c, o);
  if (!layout.amendment) read_object_counts(c, o);
  // What the snapshots saw: its waits, hold, queue lengths and full record.
  o.wait_spinning_s = c.f64();
  o.wait_blocked_s = c.f64();
  o.hold_s = c.f64();
  o.queue = c.f64s(c.count(sizeof(double)));
  o.record = read_record(c, run, layout.runnable_bins);
}

void read_procedure(Cursor& c, const Run& run, const ItemLayout& layout, ProcedureInfo& p) {
  p.record = read_record(c, run, layout.runnable_bins);
}

void read_context(Cursor& c, Run& run, const ItemLayout& layout) {
  const size_t item = c.position();
  ContextInfo x;
  x.id = c.u32();
  x.parent = c.u32();
  x.address = c.u64();
  x.kind = c.u32();
  const bool next = x.id == run.contexts.size();
  if (!layout.amendment && !next) c.fail_at(item, "contexts out of order");
  if (x.id > run.contexts.size()) c.fail_at(item, "an amended context past the next one");
  if (x.parent != kNoParent && x.parent >= x.id) {
    c.fail_at(item + 4, "a context whose parent comes after it");
  }
  if (!next) {
    const ContextInfo& was = run.contexts[x.id];
    if (was.parent != x.parent || was.address != x.address || was.kind != x.kind) {
      c.fail_at(item, "an amended context that is another one");
    }
  }
  if (next) run.context_bins.resize(run.context_bins.size() + 2 * run.bins());
  for (double& v : run.processor_of(x.id)) v = c.f64();
  for (double& v : run.normalized_of(x.id)) v = c.f64();
  for (double& v : x.own.state) v = c.f64();
  for (double& v : x.own.runnable_sum) v = c.f64();
  if (layout.amendment) {
    x.own.one_busy_starved = c.f64();
    x.own.one_busy_taken = c.f64();
    if (!next) x.own.one_busy_waited = run.contexts[x.id].own.one_busy_waited;  // not amended
  }
  if (next) {
    run.contexts.push_back(x);
  } else {
    run.contexts[x.id] = x;
  }
}

void read_run_keys(Cursor& c, Run& run) {
  const uint32_t n = c.count(8);
  for (uint32_t i = 0; i < n; ++i) {
    std::string key = c.str();
    run.info[key] = c.str();
  }
}

}  // namespace quartz::profile

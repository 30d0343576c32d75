#include "sampler/publish/amendment_log.h"

#include <string.h>

#include "sampler/publish/capture_out.h"

namespace quartz::sampler {

using capture::SectionType;
using EntryOut = CaptureOut<support::MappedVector<unsigned char>>;

namespace {

QUARTZ_NOINSTR void amend_run(EntryOut& out, const RunInfo& info, const AttributionTotals& totals,
                              const ProfileTables& tables, const rt::Runtime& runtime) {
  namespace keys = capture::run_keys;
  auto ns = [](double s) { return static_cast<uint64_t>(s * 1e9 + 0.5); };
  out.begin_counted(SectionType::amended_run);
  uint32_t n = 0;
  key_number(out, &n, keys::kElapsedNs, ns(totals.elapsed_s));
  key_number(out, &n, keys::kSamples, totals.snapshots);
  key_number(out, &n, keys::kThreadSamples, totals.thread_samples);
  key_number(out, &n, keys::kTornSamples, info.torn_samples);
  schedule_keys(out, &n, info);
  key_number(out, &n, keys::kSamplerCpuNs, info.sampler_cpu_ns);
  key_number(out, &n, keys::kDilationRemovedNs, ns(totals.dilation_removed_s));
  key_number(out, &n, keys::kObjectsDropped, runtime.objects.dropped() + tables.dropped_entities());
  key_number(out, &n, keys::kContextsDropped, tables.dropped_contexts());
  starvation_keys(out, &n, totals.starvation);
  out.end_counted(n);
}

QUARTZ_NOINSTR void amend_threads(EntryOut& out, const RunInfo& info, const ProfileTables& tables,
                                  const TableChanges& changes, const rt::Runtime& runtime) {
  const support::MappedVector<uint32_t>& changed = changes.changed(kThreadTable);
  if (changed.size() == 0) return;
  out.begin(SectionType::amended_threads);
  out.u32(tables.runnable_bins_used());
  const size_t count_at = out.position();
  out.u32(0);
  uint32_t n = 0;
  for (size_t k = 0; k < changed.size(); ++k) {
    const uint32_t index = changed[k];
    if (!tables.has_thread(index)) continue;
    const rt::ThreadRecord* r = runtime.history.find(index);
    char name[rt::kThreadNameBytes] = "";
    uint32_t parent = rt::kNoThread;
    int32_t tid = 0;
    uint64_t routine = 0, handle = 0, created = 0, exited = 0;
    if (r) {
      rt::ThreadHistory::copy_name(*r, name);
      parent = r->parent_index.load(std::memory_order_relaxed);
      tid = r->tid.load(std::memory_order_relaxed);
      routine = r->start_routine.load(std::memory_order_relaxed);
      handle = r->handle.load(std::memory_order_relaxed);
      created = r->created_ns.load(std::memory_order_relaxed);
      exited = r->exited_ns.load(std::memory_order_relaxed);
    }
    const ThreadEntry& t = tables.thread_entry(index);
    out.u32(index);
    out.u32(parent == rt::kNoThread ? capture::kNoParent : parent);
    out.i32(tid);
    out.str(name);
    out.u64(routine);
    out.u64(handle);
    out.u64(created > info.start_monotonic_ns ? created - info.start_monotonic_ns : 0);
    out.u64(exited > info.start_monotonic_ns ? exited - info.start_monotonic_ns : 0);
    out.u64(t.cpu_ns);
    out.u64(t.runqueue_ns);
    out.f64(t.starved_startup_s);
    out.f64(t.starved_later_s);
    full_record(out, tables, tables.thread_record(index));
    ++n;
  }
  out.patch_u32(count_at, n);
  out.end();
}

// The changed threads' names' provenance and first procedures, which name a thread offline.
QUARTZ_NOINSTR void amend_thread_routines(EntryOut& out, const ProfileTables& tables,
                                          const TableChanges& changes, const rt::Runtime& runtime) {
  const support::MappedVector<uint32_t>& changed = changes.changed(kThreadTable);
  if (changed.size() == 0) return;
  out.begin(SectionType::amended_thread_routines);
  const size_t count_at = out.position();
  out.u32(0);
  uint32_t n = 0;
  for (size_t k = 0; k < changed.size(); ++k) {
    const uint32_t index = changed[k];
    const rt::ThreadRecord* r = runtime.history.find(index);
    if (!tables.has_thread(index) || !r) continue;
    thread_routines_item(out, index, *r);
    ++n;
  }
  out.patch_u32(count_at, n);
  out.end();
}

QUARTZ_NOINSTR void amend_objects(EntryOut& out, const ProfileTables& tables,
                                  const TableChanges& changes, const rt::Runtime& runtime) {
  const support::MappedVector<uint32_t>& changed = changes.changed(kObjectTable);
  if (changed.size() == 0) return;
  out.begin(SectionType::amended_objects);
  out.u32(tables.runnable_bins_used());
  out.u32(static_cast<uint32_t>(changed.size()));
  for (size_t k = 0; k < changed.size(); ++k) {
    const uint32_t i = changed[k];
    const ObjectEntry& o = tables.object_entry(i);
    const rt::ObjectRecord* r = runtime.objects.find(o.address);
    char name[rt::kObjectNameBytes] = "";
    uint32_t kind = o.kind;
    uint64_t site = 0;
    if (r) {
      rt::ObjectRegistry::copy_name(*r, name);
      site = r->first_site.load(std::memory_order_relaxed);
      const uint32_t registered = r->kind.load(std::memory_order_relaxed);
      if (registered != rt::kKindUnset) kind = registered;
    }
    out.u64(o.address);
    out.u32(kind);
    out.str(name);
    out.u64(site);
    object_figures(out, tables, i);
  }
  out.end();
}

QUARTZ_NOINSTR void amend_procedures(EntryOut& out, const ProfileTables& tables,
                                     const TableChanges& changes) {
  const support::MappedVector<uint32_t>& changed = changes.changed(kProcedureTable);
  if (changed.size() == 0) return;
  out.begin(SectionType::amended_procedures);
  out.u32(tables.runnable_bins_used());
  out.u32(static_cast<uint32_t>(changed.size()));
  for (size_t k = 0; k < changed.size(); ++k) {
    out.u64(tables.procedure_entry(changed[k]).address);
    full_record(out, tables, tables.procedure_record(changed[k]));
  }
  out.end();
}

QUARTZ_NOINSTR void amend_context(EntryOut& out, const ProfileTables& tables, uint32_t id) {
  const ContextNode& node = tables.context_node(id);
  out.u32(id);
  out.u32(node.parent == kNone ? capture::kNoParent : node.parent);
  out.u64(node.address);
  out.u32(node.kind);
  out.f64s(tables.context_record(id), tables.shape().context_size());
  out.f64(tables.context_apart(id).starved);
  out.f64(tables.context_apart(id).taken);
}

// The contexts changed that the logs have, then every one they do not have yet, in order
// (a reader adds a context only as the next one).
QUARTZ_NOINSTR void amend_contexts(EntryOut& out, const ProfileTables& tables,
                                   const TableChanges& changes, uint32_t listed) {
  const support::MappedVector<uint32_t>& changed = changes.changed(kContextTable);
  const uint32_t count = tables.context_count();
  if (changed.size() == 0 && listed == count) return;
  out.begin_counted(SectionType::amended_contexts);
  uint32_t n = 0;
  for (size_t k = 0; k < changed.size(); ++k) {
    if (changed[k] >= listed) continue;
    amend_context(out, tables, changed[k]);
    ++n;
  }
  for (uint32_t id = listed; id < count; ++id) {
    amend_context(out, tables, id);
    ++n;
  }
  out.end_counted(n);
}

}  // namespace

bool AmendmentLog::init() {
  return entry_.reserve(capture::kLogBytes);
}

void AmendmentLog::restart(capture::SharedCaptureHeader& region, uint32_t slot) {
  __atomic_store_n(&region.slots[slot].log_bytes, uint64_t{0}, __ATOMIC_RELEASE);
  full_[slot] = false;
}

size_t AmendmentLog::amend(capture::SharedCaptureHeader& region, const RunInfo& info,
                           const AttributionTotals& totals, const ProfileTables& tables,
                           const TableChanges& changes, rt::Runtime& runtime) {
  entry_.reuse();
  EntryOut out(entry_);
  amend_run(out, info, totals, tables, runtime);
  amend_threads(out, info, tables, changes, runtime);
  amend_thread_routines(out, tables, changes, runtime);
  amend_objects(out, tables, changes, runtime);
  amend_procedures(out, tables, changes);
  amend_contexts(out, tables, changes, contexts_listed_);
  out.begin(SectionType::amended_program);
  out.u32(tables.runnable_bins_used());
  full_record(out, tables, tables.program_record());
  out.end();
  if (!out.ok()) {
    full_[0] = full_[1] = true;  // its changes are gone: no amendment may follow
    return 0;
  }
  const size_t bytes = entry_.size();
  for (uint32_t slot = 0; slot < 2; ++slot) {
    uint64_t& logged = region.slots[slot].log_bytes;
    const uint64_t at = __atomic_load_n(&logged, __ATOMIC_RELAXED);
    if (full_[slot] || bytes > capture::kLogBytes - at) {
      full_[slot] = true;  // a log never has a gap: the amendments after it would be half
      continue;
    }
    unsigned char* log = reinterpret_cast<unsigned char*>(&region) + capture::log_offset(slot);
    memcpy(log + at, entry_.data(), bytes);
    __atomic_store_n(&logged, at + bytes, __ATOMIC_RELEASE);
  }
  contexts_listed_ = tables.context_count();
  return bytes;
}

}  // namespace quartz::sampler

#include "sampler/publish/capture_writer.h"

#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <charconv>
#include <cstddef>
#include <iterator>

#include "format/capture_format.h"
#include "runtime/merged_counts.h"
#include "runtime/runtime.h"
#include "sampler/publish/capture_out.h"
#include "support/safe_file.h"

namespace quartz::sampler {

using namespace quartz::capture;

namespace {

using Out = CaptureOut<CaptureBuffer>;

static_assert(std::size(run_keys::kOpenmpViews) ==
              static_cast<size_t>(rt::OpenmpView::program_tool) + 1);
static_assert(std::size(run_keys::kIttViews) ==
              static_cast<size_t>(rt::IttView::program_collector) + 1);

QUARTZ_NOINSTR void write_run(Out& out, const RunInfo& info, const AttributionTotals& totals,
                              ProfileTables& tables, rt::Runtime& runtime,
                              const rt::MergedCounts& counts, RunText& scratch) {
  out.begin_counted(SectionType::run);
  uint32_t n = 0;
  key_text(out, &n, run_keys::kProgram, info.program);
  key_text(out, &n, run_keys::kArguments, info.arguments);
  if (runtime.options.parent_capture[0]) {
    key_text(out, &n, run_keys::kParentCapture, runtime.options.parent_capture);
  }
  key_text(out, &n, run_keys::kHost, info.host);
  key_number(out, &n, run_keys::kPid, static_cast<uint64_t>(info.pid));
  key_number(out, &n, run_keys::kStartRealtimeNs, info.start_realtime_ns);
  key_number(out, &n, run_keys::kElapsedNs, static_cast<uint64_t>(totals.elapsed_s * 1e9 + 0.5));
  key_number(out, &n, run_keys::kPeriodNs, info.period_ns);
  schedule_keys(out, &n, info);
  if (info.sampler_priority) key_text(out, &n, run_keys::kSamplerPriority, info.sampler_priority);
  key_number(out, &n, run_keys::kWindowSnapshots, info.window_snapshots);
  key_number(out, &n, run_keys::kSamples, totals.snapshots);
  key_number(out, &n, run_keys::kThreadSamples, totals.thread_samples);
  key_number(out, &n, run_keys::kTornSamples, info.torn_samples);
  key_text(out, &n, run_keys::kReserve, info.reserve ? "yes" : "no");
  key_text(out, &n, run_keys::kReservedCores, info.reserved_cores);
  key_text(out, &n, run_keys::kAppCores, info.app_cores);
  key_text(out, &n, run_keys::kSamplerCores, info.sampler_cores);
  key_text(out, &n, run_keys::kTopology, info.topology);
  key_number(out, &n, run_keys::kSamplerCpuNs, info.sampler_cpu_ns);
  if (info.other_cpu_known) key_number(out, &n, run_keys::kOtherCpuNs, info.other_cpu_ns);
  char hook[32];
  snprintf(hook, sizeof hook, "%.3f", info.hook_pair_ns);
  key_text(out, &n, run_keys::kHookPairNs, hook);
  key_number(out, &n, run_keys::kPatchedEntries, runtime.patched_entries);
  key_number(out, &n, run_keys::kRefusedEntries, runtime.refused_entries);
  if (runtime.options.procedures[0]) {
    key_text(out, &n, run_keys::kProcedurePatterns, runtime.options.procedures);
  }
  key_number(out, &n, run_keys::kBudgetPercent, info.budget_percent);
  if (info.cost_trials != 0) key_number(out, &n, run_keys::kCostTrials, info.cost_trials);
  if (runtime.options.baseline_elapsed_ns != 0) {
    key_number(out, &n, run_keys::kBaselineCpuNs, runtime.options.baseline_cpu_ns);
    key_number(out, &n, run_keys::kBaselineElapsedNs, runtime.options.baseline_elapsed_ns);
  }
  if (info.decisions && info.unpatched != 0) {
    char* unpatched = scratch.unpatched;
    size_t used = 0;
    const UnpatchedProcedure* decided = info.decisions;
    for (size_t i = 0; i < info.unpatched; ++i) {
      const int w =
          snprintf(unpatched + used, sizeof scratch.unpatched - used, "%s%lx %lu %lu %d %lu",
                   i ? ";" : "", static_cast<unsigned long>(decided[i].procedure),
                   static_cast<unsigned long>(decided[i].calls),
                   static_cast<unsigned long>(decided[i].at_ns), decided[i].off ? 1 : 0,
                   static_cast<unsigned long>(decided[i].call_ns + 0.5));
      if (w < 0 || used + static_cast<size_t>(w) >= sizeof scratch.unpatched) break;
      used += static_cast<size_t>(w);
    }
    unpatched[used] = '\0';
    key_text(out, &n, run_keys::kUnpatched, unpatched);
    if (info.windows_known) {
      key_number(out, &n, run_keys::kEntryWindows, info.entry_windows);
      key_number(out, &n, run_keys::kWindowReads, info.window_reads);
    }
  }
  key_number(out, &n, run_keys::kDilationRemovedNs,
             static_cast<uint64_t>(totals.dilation_removed_s * 1e9 + 0.5));
  key_text(out, &n, run_keys::kCpuMeasurement, info.cpu_measured ? "schedstat" : "model");
  if (const char* openmp = run_keys::kOpenmpViews[static_cast<size_t>(
          runtime.openmp.load(std::memory_order_relaxed))]) {
    key_text(out, &n, run_keys::kOpenmp, openmp);
  }
  if (const char* itt =
          run_keys::kIttViews[static_cast<size_t>(runtime.itt.load(std::memory_order_relaxed))]) {
    key_text(out, &n, run_keys::kItt, itt);
  }
  key_number(out, &n, run_keys::kCheckpoints, info.checkpoints);
  key_number(out, &n, run_keys::kStackCapacity, runtime.options.geometry.stack_capacity);
  key_number(out, &n, run_keys::kObjectsDropped,
             runtime.objects.dropped() + tables.dropped_entities());
  key_number(out, &n, run_keys::kCallsDropped, runtime.call_graph.dropped());
  key_number(out, &n, run_keys::kContextsDropped, tables.dropped_contexts());
  key_number(out, &n, run_keys::kOpenStackEntries, counts.open_stack_entries());
  starvation_keys(out, &n, totals.starvation);
  if (info.trace) {
    key_number(out, &n, run_keys::kTraceEvents, info.trace_events);
    key_number(out, &n, run_keys::kTraceDropped, info.trace_dropped);
    key_number(out, &n, run_keys::kTraceBytes, info.trace_bytes);
    char event[32];
    snprintf(event, sizeof event, "%.3f", info.trace_event_ns);
    key_text(out, &n, run_keys::kTraceEventNs, event);
    snprintf(event, sizeof event, "%.3f", info.trace_cpu_read_ns);
    key_text(out, &n, run_keys::kTraceCpuReadNs, event);
  }
  out.end_counted(n);
}

struct ModuleWalk {
  Out* out;
  uint32_t count;
  char* program;  // the program's path, read once (a readlink costs ~15 us)
};

QUARTZ_NOINSTR int add_module(dl_phdr_info* info, size_t, void* data) {
  auto* walk = static_cast<ModuleWalk*>(data);
  const char* path = info->dlpi_name ? info->dlpi_name : "";
  if (walk->count == 0 && !path[0]) {
    if (!walk->program[0]) {
      // Through this thread: once the main thread has called pthread_exit, /proc/self/exe
      // (the main thread's) cannot be read.
      ssize_t n = readlink("/proc/thread-self/exe", walk->program, kMaxProgramPath - 1);
      if (n <= 0) n = readlink("/proc/self/exe", walk->program, kMaxProgramPath - 1);
      walk->program[n > 0 ? n : 0] = '\0';
    }
    path = walk->program;
  }
  if (!path[0]) return 0;  // the vDSO and other nameless objects: nothing to symbolize
  walk->out->u32(walk->count++);
  walk->out->u64(info->dlpi_addr);
  walk->out->str(path);
  return 0;
}

// The loader's counts of objects loaded and unloaded so far, from the first object it
// lists (left 0 by a loader that does not keep them).
QUARTZ_NOINSTR int loader_counts(dl_phdr_info* info, size_t size, void* data) {
  auto* counts = static_cast<ModuleCache*>(data);
  if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
    counts->adds = info->dlpi_adds;
    counts->subs = info->dlpi_subs;
  }
  return 1;
}

// The objects loaded change only at dlopen and dlclose: the section is walked again when
// the loader's counts say so, and copied from the last walk otherwise (a walk and its
// paths cost a tenth of a publication).
QUARTZ_NOINSTR void write_modules(Out& out, char* program, ModuleCache& cache) {
  ModuleCache now{};
  dl_iterate_phdr(loader_counts, &now);
  const bool counted = now.adds != 0;
  if (counted && cache.bytes && now.adds == cache.adds && now.subs == cache.subs) {
    out.section_copy(cache.section, cache.bytes);
    return;
  }
  const size_t start = out.position();
  out.begin_counted(SectionType::modules);
  ModuleWalk walk{&out, 0, program};
  dl_iterate_phdr(add_module, &walk);
  out.end_counted(walk.count);
  const size_t bytes = out.position() - start;
  cache.bytes = 0;
  if (counted && out.ok() && bytes <= sizeof cache.section) {
    memcpy(cache.section, out.at(start), bytes);
    cache.bytes = bytes;
    cache.adds = now.adds;
    cache.subs = now.subs;
  }
}

QUARTZ_NOINSTR void write_threads(Out& out, const RunInfo& info, ProfileTables& tables,
                                  rt::Runtime& runtime, const rt::MergedCounts& counts,
                                  double ns_per_tick) {
  out.begin_counted(SectionType::threads);
  uint32_t n = 0;
  for (uint32_t index = 0; index < runtime.history.size(); ++index) {
    const rt::ThreadRecord* r = runtime.history.find(index);
    if (!r || r->phase.load(std::memory_order_acquire) == rt::ThreadPhase::unused) continue;
    const rt::ThreadTotals totals = counts.thread(*r, index);
    char name[rt::kThreadNameBytes];
    rt::ThreadHistory::copy_name(*r, name);
    const uint32_t parent = r->parent_index.load(std::memory_order_relaxed);
    const uint64_t created = r->created_ns.load(std::memory_order_relaxed);
    const uint64_t exited = r->exited_ns.load(std::memory_order_relaxed);
    out.u32(index);
    out.u32(parent == rt::kNoThread ? kNoParent : parent);
    out.i32(r->tid.load(std::memory_order_relaxed));
    out.str(name);
    out.u64(r->start_routine.load(std::memory_order_relaxed));
    out.u64(r->handle.load(std::memory_order_relaxed));
    out.u64(created > info.start_monotonic_ns ? created - info.start_monotonic_ns : 0);
    out.u64(exited > info.start_monotonic_ns ? exited - info.start_monotonic_ns : 0);
    out.u64(totals.calls);
    out.u64(totals.overflows);
    out.u64(totals.mismatches);
    out.u64(static_cast<uint64_t>(static_cast<double>(totals.blocked_ticks) * ns_per_tick));
    out.u64(static_cast<uint64_t>(static_cast<double>(totals.spinning_ticks) * ns_per_tick));
    if (tables.has_thread(index)) {
      out.u64(tables.thread_entry(index).cpu_ns);
      out.u64(tables.thread_entry(index).runqueue_ns);
      full_record(out, tables, tables.thread_record(index));
    } else {
      out.u64(0);
      out.u64(0);
      full_record(out, tables, nullptr);
    }
    ++n;
    out.item_written();
  }
  out.end_counted(n);
}

QUARTZ_NOINSTR void write_thread_routines(Out& out, rt::Runtime& runtime) {
  out.begin_counted(SectionType::thread_routines);
  uint32_t n = 0;
  for (uint32_t index = 0; index < runtime.history.size(); ++index) {
    const rt::ThreadRecord* r = runtime.history.find(index);
    if (!r || r->phase.load(std::memory_order_acquire) == rt::ThreadPhase::unused) continue;
    thread_routines_item(out, index, *r);
    ++n;
  }
  out.end_counted(n);
}

// One part of the contexts' time alone (OneBusyApart), only the contexts that have some.
QUARTZ_NOINSTR void write_context_apart(Out& out, ProfileTables& tables, SectionType type,
                                        double OneBusyApart::*part) {
  out.begin_counted(type);
  uint32_t n = 0;
  for (uint32_t i = 0; i < tables.context_count(); ++i) {
    const double seconds = tables.context_apart(i).*part;
    if (seconds <= 0) continue;
    out.u32(i);
    out.f64(seconds);
    ++n;
  }
  out.end_counted(n);
}

// Only the threads and contexts that have some: most runs starve little.
QUARTZ_NOINSTR void write_starvation(Out& out, ProfileTables& tables, rt::Runtime& runtime) {
  out.begin_counted(SectionType::thread_starvation);
  uint32_t n = 0;
  for (uint32_t index = 0; index < runtime.history.size(); ++index) {
    const rt::ThreadRecord* r = runtime.history.find(index);
    if (!r || r->phase.load(std::memory_order_acquire) == rt::ThreadPhase::unused) continue;
    if (!tables.has_thread(index)) continue;
    const ThreadEntry& t = tables.thread_entry(index);
    if (t.starved_startup_s <= 0 && t.starved_later_s <= 0) continue;
    out.u32(index);
    out.f64(t.starved_startup_s);
    out.f64(t.starved_later_s);
    ++n;
  }
  out.end_counted(n);
  write_context_apart(out, tables, SectionType::context_starvation, &OneBusyApart::starved);
  write_context_apart(out, tables, SectionType::context_taken, &OneBusyApart::taken);
  write_context_apart(out, tables, SectionType::context_waited, &OneBusyApart::waited);
}

// An object's fields up to its exact wait (both objects sections begin alike).
QUARTZ_NOINSTR void write_object_counts(Out& out, const rt::Runtime& runtime,
                                        const rt::MergedCounts& counts, uint64_t address,
                                        uint32_t kind, const rt::ObjectRecord* r,
                                        double ns_per_tick) {
  uint64_t posts = 0, site = 0;
  char name[rt::kObjectNameBytes] = "";
  if (r) {
    posts = r->posts.load(std::memory_order_relaxed);
    site = r->first_site.load(std::memory_order_relaxed);
    rt::ObjectRegistry::copy_name(*r, name);
  }
  const rt::ObjectTotals totals = counts.object(runtime, address, r);
  out.u64(address);
  out.u32(kind);
  out.str(name);
  out.u64(site);
  out.u64(totals.acquisitions);
  out.u64(totals.contended);
  out.u64(posts);
  out.u64(static_cast<uint64_t>(static_cast<double>(totals.wait_ticks) * ns_per_tick));
}

// The build that last listed a registered object (`listed`, by the registry's order).
QUARTZ_NOINSTR uint32_t* listed_mark(const rt::ObjectRegistry& registry,
                                     support::MappedVector<uint32_t>& listed,
                                     const rt::ObjectRecord& r) {
  const uint32_t order = registry.order_of(r);
  return order < listed.size() ? &listed[order] : nullptr;
}

// The objects the snapshots saw, with their figures, then (SectionType::unseen_objects) the
// registered ones they never saw, with their counts only. `listed` (by the registry's
// order) takes `build` for each object written: the program registers objects while a
// capture is built, and a later pass that met one the earlier passes had not (its frames)
// would make a capture no reader takes ("frames of an object not listed").
QUARTZ_NOINSTR void write_objects(Out& out, ProfileTables& tables, const rt::Runtime& runtime,
                                  const rt::MergedCounts& counts, double ns_per_tick,
                                  support::MappedVector<uint32_t>& listed, uint32_t build) {
  const rt::ObjectRegistry& registry = runtime.objects;
  out.begin_counted(SectionType::objects);
  uint32_t n = 0;
  registry.for_each([&](const rt::ObjectRecord& r) {
    const uintptr_t address = r.address.load(std::memory_order_acquire);
    const uint32_t sampled = tables.find_object(address);
    if (sampled == kNone) return;
    if (uint32_t* mark = listed_mark(registry, listed, r)) *mark = build;
    uint32_t kind = r.kind.load(std::memory_order_relaxed);
    if (kind == rt::kKindUnset) kind = tables.object_entry(sampled).kind;
    write_object_counts(out, runtime, counts, address, kind, &r, ns_per_tick);
    object_figures(out, tables, sampled);
    ++n;
    out.item_written();
  });
  // Those only the stacks showed (waited for, never yet acquired when the capture was
  // written).
  for (uint32_t i = 0; i < tables.object_count(); ++i) {
    const ObjectEntry& o = tables.object_entry(i);
    if (runtime.objects.find(o.address)) continue;
    write_object_counts(out, runtime, counts, o.address, o.kind, nullptr, ns_per_tick);
    object_figures(out, tables, i);
    ++n;
    out.item_written();
  }
  out.end_counted(n);
  out.begin_counted(SectionType::unseen_objects);
  n = 0;
  uint32_t seen = 0;  // of the objects section's, in the same order
  registry.for_each([&](const rt::ObjectRecord& r) {
    const uintptr_t address = r.address.load(std::memory_order_acquire);
    uint32_t* mark = listed_mark(registry, listed, r);
    if (mark && *mark == build) {
      ++seen;
      return;
    }
    if (mark) *mark = build;
    out.u32(seen);
    write_object_counts(out, runtime, counts, address, r.kind.load(std::memory_order_relaxed), &r,
                        ns_per_tick);
    ++n;
    out.item_written();
  });
  out.end_counted(n);
}

// The frames of the objects write_objects listed (`listed` holds `build`).
QUARTZ_NOINSTR void write_object_frames(Out& out, const rt::Runtime& runtime,
                                        support::MappedVector<uint32_t>& listed, uint32_t build) {
  out.begin_counted(SectionType::object_frames);
  uint32_t n = 0;
  runtime.objects.for_each([&](const rt::ObjectRecord& r) {
    const uint32_t k = r.frames.load(std::memory_order_acquire);
    const uint32_t* mark = listed_mark(runtime.objects, listed, r);
    if (k == 0 || !mark || *mark != build) return;
    out.u64(r.address.load(std::memory_order_relaxed));
    out.u32(k < rt::kAcquiredFromFrames ? k : rt::kAcquiredFromFrames);
    for (uint32_t i = 0; i < k && i < rt::kAcquiredFromFrames; ++i) {
      out.u64(r.acquired_from[i].load(std::memory_order_relaxed));
    }
    ++n;
    out.item_written();
  });
  out.end_counted(n);
}

QUARTZ_NOINSTR void write_procedures(Out& out, ProfileTables& tables) {
  out.begin(SectionType::procedures);
  out.u32(tables.procedure_count());
  for (uint32_t i = 0; i < tables.procedure_count(); ++i) {
    out.u64(tables.procedure_entry(i).address);
    full_record(out, tables, tables.procedure_record(i));
    out.item_written();
  }
  out.end();
}

QUARTZ_NOINSTR void write_contexts(Out& out, ProfileTables& tables) {
  out.begin(SectionType::contexts);
  out.u32(tables.context_count());
  for (uint32_t i = 0; i < tables.context_count(); ++i) {
    const ContextNode& node = tables.context_node(i);
    out.u32(i);
    out.u32(node.parent == kNone ? kNoParent : node.parent);
    out.u64(node.address);
    out.u32(node.kind);
    out.f64s(tables.context_record(i), tables.shape().context_size());
    out.item_written();
  }
  out.end();
}

QUARTZ_NOINSTR void write_edges(Out& out, rt::Runtime& runtime) {
  out.begin_counted(SectionType::edges);
  uint32_t n = 0;
  rt::MergedCounts::for_each_edge(runtime, [&](uintptr_t caller, uintptr_t callee, uint64_t calls) {
    out.u64(caller);
    out.u64(callee);
    out.u64(calls);
    ++n;
    out.item_written();
  });
  out.end_counted(n);
}

}  // namespace

bool CaptureWriter::init(const rt::Runtime& runtime) {
  const uint32_t objects = runtime.objects.max_records();
  return bytes_.init(runtime.options.output) && counts_.reserve(runtime) &&
         (objects == 0 || (listed_.reserve(objects) && listed_.resize_at_least(objects)));
}

bool CaptureWriter::build(bool final, bool seal, const RunInfo& info,
                          const AttributionTotals& totals, ProfileTables& tables,
                          rt::Runtime& runtime, const std::atomic<bool>* give_up) {
  bytes_.begin();
  Out out(bytes_, give_up);
  FileHeader header{};
  memcpy(header.magic, kFileMagic, sizeof header.magic);
  header.version = kFormatVersion;
  header.flags = final ? uint32_t{kFinal} : 0u;
  header.processors = tables.shape().processors;
  header.runnable_bins = tables.runnable_bins_used();
  out.raw(&header, sizeof header);

  const double ns_per_tick = runtime.clock.ns_per_tick();
  counts_.gather(runtime);
  write_run(out, info, totals, tables, runtime, counts_, run_text_);
  write_modules(out, program_, modules_);
  write_threads(out, info, tables, runtime, counts_, ns_per_tick);
  write_thread_routines(out, runtime);
  ++builds_;
  write_objects(out, tables, runtime, counts_, ns_per_tick, listed_, builds_);
  write_object_frames(out, runtime, listed_, builds_);
  write_procedures(out, tables);
  write_contexts(out, tables);
  write_starvation(out, tables, runtime);
  write_edges(out, runtime);
  out.begin(SectionType::program);
  full_record(out, tables, tables.program_record());
  out.end();
  if (!out.ok()) return false;

  header.section_count = out.sections();
  memcpy(bytes_.data(), &header, sizeof header);
  FileFooter footer{};
  memcpy(footer.magic, kFooterMagic, sizeof footer.magic);
  footer.file_bytes = bytes_.size() + sizeof footer;
  out.raw(&footer, sizeof footer);
  if (!out.ok()) return false;
  if (seal) seal_capture(bytes_.data(), bytes_.size());
  bytes_.publish(runtime.options.output, support::monotonic_ns());
  return true;
}

bool CaptureWriter::publish(const RunInfo& info, const AttributionTotals& totals,
                            ProfileTables& tables, rt::Runtime& runtime,
                            const std::atomic<bool>* give_up) {
  return bytes_.shared() && build(false, /*seal=*/false, info, totals, tables, runtime, give_up);
}

int CaptureWriter::write(bool final, const RunInfo& info, const AttributionTotals& totals,
                         ProfileTables& tables, rt::Runtime& runtime,
                         const std::atomic<bool>* give_up) {
  if (!build(final, /*seal=*/true, info, totals, tables, runtime, give_up)) return kBuildGivenUp;
  return support::replace_file(runtime.options.output, bytes_.data(), bytes_.size());
}

}  // namespace quartz::sampler

// The capture file: what one sampled run writes (DESIGN.md §3 "Files"). Written by the
// in-process sampler (sampler/publish/capture_writer.cpp), read offline by profile/capture.cpp.
// This header is the single definition of the layout; it depends on nothing.
//
//   FileHeader
//   Section*          each: SectionHeader, then `bytes` of payload (CRC-32 in the header)
//   FileFooter        magic, total size, CRC-32 of everything before the footer
//
// Little-endian. Payloads are sequences of fields: u32, u64, i32 (4 bytes), f64, and
// strings (u32 byte count, then the bytes). Arrays of f64 have the lengths below, fixed
// for a file by its processor count P and runnable-thread bins R1.
//
// Records (arrays of f64, seconds):
//   context record (one calling context, self only), 2*(P+1) + 8 values:
//     processor[P+1]  normalized[P+1]  state[4]  runnable_sum[4]
//   full record (procedures, objects, threads, the program), 4*(P+1) + 8 + 4*R1 values:
//     processor_self[P+1]  processor_behalf[P+1]  normalized_self[P+1]
//     normalized_behalf[P+1]  state_self[4]  state_behalf[4]  runnable[4][R1]
// Index i of a P+1 array is "i processors busy" (0: none busy). state[] is indexed by
// ThreadState below and holds thread-seconds spent in that state. runnable_sum[s] is the
// sum over time in state s of the runnable-thread count (divide by state[s] for the mean);
// runnable[s][k] is the time in state s with k runnable threads (last bin: k >= R1-1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace quartz::capture {

inline constexpr char kFileMagic[8] = {'Q', 'U', 'A', 'R', 'T', 'Z', 'C', '1'};
inline constexpr char kFooterMagic[8] = {'Q', 'Z', 'E', 'N', 'D', '\0', '\0', '1'};
inline constexpr uint32_t kFormatVersion = 1;

enum FileFlags : uint32_t {
  kFinal = 1u << 0,  // written when the program ended; otherwise a periodic checkpoint
};

struct FileHeader {
  char magic[8];
  uint32_t version;
  uint32_t flags;
  uint32_t section_count;
  uint32_t processors;     // P
  uint32_t runnable_bins;  // R1
  uint32_t reserved;
};
static_assert(sizeof(FileHeader) == 32);

enum class SectionType : uint32_t {
  run = 1,         // u32 n, then n pairs (string key, string value): see RunKeys
  modules = 2,     // u32 n, then n: u32 id, u64 load_bias, string path
  threads = 3,     // u32 n, then n: ThreadFields, full record
  objects = 4,     // u32 n, then n: ObjectFields, full record
  procedures = 5,  // u32 n, then n: u64 address, full record (calls: sum of its edges)
  contexts = 6,    // u32 n, then n: u32 id, u32 parent, u64 address, u32 kind, context record
  edges = 7,       // u32 n, then n: u64 caller (0: thread root), u64 callee, u64 calls;
                   // an edge may appear more than once: readers add them up
  program = 8,     // full record of the whole program (self: everything)
  // Added later; readers before it skip it. u32 n, then n: u32 index, u32 named (1: the
  // program named the thread, so the threads section's name is its own; 0: inherited from
  // its creator), u32 k, u64 routine[k] (the first procedure it entered at each depth of
  // its own stack, bottom first, when it first went that deep).
  thread_routines = 9,
  // Added later; readers before it skip it. u32 n, then n: u64 address, u32 k,
  // u64 frame[k]: return addresses of the call chain that first acquired the object,
  // innermost first (frame[0] is the objects section's first_site).
  object_frames = 10,
  // Added later; readers before it skip it. Processor time the program left idle for want of
  // threads at work (start-up and wind-down starvation, run keys kStarved*), charged to the
  // threads that were running then, in proportion to their running shares: u32 n, then n:
  // u32 index, f64 startup_s (before the program first had P threads at work at once),
  // f64 later_s (after it).
  thread_starvation = 11,
  // Added later; readers before it skip it. Of a calling context's own normalized time with
  // one processor busy (bin 1), the part whose other processors had no thread to run (each
  // snapshot's share: min(1, starved processors / (P - 1))): u32 n, then n: u32 context
  // id, f64 seconds. Contexts not listed have none.
  context_starvation = 12,
  // Added later; readers before it skip it. Of a calling context's own normalized time with
  // one processor busy (bin 1), the part whose other processors the program's other threads
  // were ready for (runnable, not running: the processors were taken by other processes, or
  // being woken), of what starvation left (each snapshot's share: min(1 - starved share,
  // min(idle - starved, others' ready) / (P - 1))): u32 n, then n: u32 context id,
  // f64 seconds. Contexts not listed have none.
  context_taken = 13,
  // Added later; readers before it skip it, and then refuse the object_frames of these
  // objects (frames of an object not listed). Objects no snapshot saw (acquired, never seen
  // held or waited for): the objects section's fields up to exact_wait_ns, their figures
  // all 0, which there would take ~500 bytes an object. u32 n, then n: u32 after (how many
  // of the objects section's come before it in the order the program first used them),
  // u64 address, u32 kind, string name, u64 first_site, u64 acquisitions, u64 contended,
  // u64 posts, u64 exact_wait_ns; by `after`, ascending. Written after the objects section,
  // before object_frames.
  unseen_objects = 14,
  // Added later; readers before them skip them. Amendments: what the sampler's tables
  // gained after the capture was built, logged at each snapshot and moved in before the
  // footer by whoever writes a published capture out (shared_capture.h), when the program
  // ended without writing its final capture. Each may come any number of times, after the
  // other sections, in the order logged; an item replaces the one of the same key (a later
  // one wins) or adds one. The runtime's counts (calls, acquisitions, call edges, unseen
  // objects) are not amended: they stay as the capture had them. A section with full
  // records starts with u32 R1', the runnable-thread bins of its records: bins from the
  // file's R1 - 1 up fold into its last ("k >= R1 - 1").
  amended_run = 15,         // as run: its keys replace the run section's
  amended_threads = 16,     // u32 R1', u32 n, then n: u32 index, u32 parent, i32 tid, string name,
                            // u64 start_routine, u64 handle, u64 created_ns, u64 exited_ns,
                            // u64 cpu_ns, u64 run_queue_ns, f64 starved_startup_s,
                            // f64 starved_later_s, full record
  amended_objects = 17,     // u32 R1', u32 n, then n: u64 address, u32 kind, string name,
                            // u64 first_site, f64 wait_spinning_s, f64 wait_blocked_s, f64 hold_s,
                            // u32 bins, f64 queue[bins], full record
  amended_procedures = 18,  // u32 R1', u32 n, then n: u64 address, full record
  amended_contexts = 19,    // u32 n, then n: u32 id, u32 parent, u64 address, u32 kind, context
                            // record, f64 one_busy_starved_s, f64 one_busy_taken_s; an id not
                            // listed before is the next one
  amended_program = 20,     // u32 R1', full record
  amended_thread_routines = 21,  // as thread_routines, of threads listed before
  // Added later; readers before it skip it. Of a calling context's own normalized time with
  // one processor busy (bin 1), the part whose other processors' threads were waiting for
  // the slowest of a team (capture::waits_for_team), of what starvation and taken processors
  // left (each snapshot's share: min(1 - starved share - taken share, such waiters /
  // (P - 1))): a load imbalance, not a serial bottleneck. u32 n, then n: u32 context id,
  // f64 seconds. Not amended: an amended context keeps what the capture had.
  context_waited = 22,
};
inline constexpr uint32_t kSectionTypeCount = 22;
// Sections of the amendment log.
inline constexpr bool is_amendment(uint32_t type) {
  return type >= uint32_t(SectionType::amended_run) &&
         type <= uint32_t(SectionType::amended_thread_routines);
}

struct SectionHeader {
  uint32_t type;
  uint32_t reserved;
  uint64_t bytes;
  uint32_t crc32;
  uint32_t reserved2;
};
static_assert(sizeof(SectionHeader) == 24);

struct FileFooter {
  char magic[8];
  uint64_t file_bytes;  // including the footer
  uint32_t crc32;       // of every byte before the footer
  uint32_t reserved;
};
static_assert(sizeof(FileFooter) == 24);

// Thread states, as indices into state[] arrays (DESIGN.md §2).
enum ThreadState : uint32_t { kBusy = 0, kSpinning = 1, kBlocked = 2, kReady = 3 };
inline constexpr uint32_t kStateCount = 4;

// Entry kinds of contexts and objects (the runtime's EntryKind values).
enum Kind : uint32_t {
  kProcedure = 0,
  kMutex,
  kRwlockRead,
  kRwlockWrite,
  kSpinlock,
  kCondition,
  kBarrier,
  kSemaphore,
  kJoin,
  kSpinRegion,
  // OpenMP (GNU libgomp's entry points, runtime/interpose_openmp.cpp); since format 0.1's
  // kinds 0..9, so older readers name them "object".
  kOmpRegionEnd,  // a parallel region's end: team threads done with their share wait
  kOmpBarrier,    // an explicit barrier, or a worksharing loop's or sections' end
  kOmpCritical,   // a critical section (unnamed, named) or libgomp's atomic lock
  kOmpLock,       // omp_lock_t, omp_nest_lock_t
  kOmpIdle,       // a team thread between parallel regions
  kOmpTaskWait,   // taskwait, taskgroup (LLVM libomp, runtime/openmp_tool.cpp)
  // oneTBB, through its ITT notifications (runtime/itt_collector.cpp)
  kTbbWait,                    // a thread between its tasks of an algorithm or a task group
  kTbbIdle,                    // a worker out of every algorithm
  kUnknownKind = 0xffffffffu,  // named, never used
};
inline constexpr uint32_t kKindCount = 18;
// Their names, as reports, their JSON and the viewer print them: the one list of them.
inline constexpr const char* kKindNames[kKindCount] = {
    "procedure",    "mutex",     "rwlock(read)", "rwlock(write)", "spinlock",       "condition",
    "barrier",      "semaphore", "join",         "spin region",   "omp region end", "omp barrier",
    "omp critical", "omp lock",  "omp idle",     "omp task wait", "tbb wait",       "tbb idle"};
constexpr const char* kind_name(uint32_t kind) {
  return kind < kKindCount ? kKindNames[kind] : "object";
}
// Objects at which the threads of a team that finished their share wait for the slowest
// (context_waited): what they wait for is the team's imbalance.
constexpr bool waits_for_team(uint32_t kind) {
  return kind == kBarrier || kind == kOmpRegionEnd || kind == kOmpBarrier || kind == kOmpTaskWait ||
         kind == kTbbWait;
}
// Objects one thread holds at a time, or readers together: a waiter queues behind a holder.
constexpr bool is_lock(uint32_t kind) {
  return kind == kMutex || kind == kRwlockRead || kind == kRwlockWrite || kind == kSpinlock ||
         kind == kOmpCritical || kind == kOmpLock;
}
inline constexpr uint32_t kNoParent = 0xffffffffu;  // contexts directly under the root

// Thread fields, in order:
//   u32 index, u32 parent (kNoParent if unknown), i32 tid, string name, u64 start_routine,
//   u64 handle (its pthread_t: what a join of it waits on),
//   u64 created_ns, u64 exited_ns (0: still running; both relative to the run's start),
//   u64 calls, u64 stack_overflows, u64 unmatched_exits, u64 exact_blocked_ns,
//   u64 exact_spinning_ns, u64 cpu_ns, u64 run_queue_ns
// Object fields, in order:
//   u64 address, u32 kind, string name, u64 first_site, u64 acquisitions, u64 contended,
//   u64 posts, u64 exact_wait_ns, f64 wait_spinning_s, f64 wait_blocked_s, f64 hold_s,
//   u32 queue_bins, f64 queue[queue_bins] (time with k threads waiting while in use)

// Keys of the run section (values are decimal or text).
namespace run_keys {
inline constexpr const char* kProgram = "program";
inline constexpr const char* kArguments = "arguments";  // separated by '\x1f'
// With --follow-exec: the capture of the program that started this one (fork and exec, or
// exec in place); absent for the program `quartz run` started.
inline constexpr const char* kParentCapture = "parent_capture";
inline constexpr const char* kHost = "host";
inline constexpr const char* kPid = "pid";
inline constexpr const char* kStartRealtimeNs = "start_realtime_ns";
inline constexpr const char* kElapsedNs = "elapsed_ns";
inline constexpr const char* kPeriodNs = "period_ns";
// The schedule the sampler kept (sampler/measure/period.h): the longest period it
// lengthened to (absent: before 2026-11-29), the snapshots due by it, those taken more than
// half a period late and those lost (skipped after a wake-up more than a period late).
inline constexpr const char* kPeriodLongestNs = "period_longest_ns";
inline constexpr const char* kSnapshotsDue = "snapshots_due";
inline constexpr const char* kSnapshotsLate = "snapshots_late";
inline constexpr const char* kSnapshotsLost = "snapshots_lost";
// The sampler's processor time in its snapshots' walks over the threads (their stacks and
// clocks), not their windows' measurement and attribution nor publishing.
inline constexpr const char* kSnapshotWalkNs = "snapshot_walk_ns";
// The sampler thread's scheduling: "realtime" (SCHED_FIFO), "normal", or "normal, not
// permitted" when it asked for real time and was refused.
inline constexpr const char* kSamplerPriority = "sampler_priority";
inline constexpr const char* kPriorityRealtime = "realtime";
inline constexpr const char* kPriorityNormal = "normal";
inline constexpr const char* kPriorityRefused = "normal, not permitted";
inline constexpr const char* kWindowSnapshots = "window_snapshots";
inline constexpr const char* kSamples = "samples";
inline constexpr const char* kThreadSamples = "thread_samples";
inline constexpr const char* kTornSamples = "torn_samples";
inline constexpr const char* kReserve = "reserve";  // "yes" or "no"
inline constexpr const char* kReservedCores = "reserved_cores";
inline constexpr const char* kAppCores = "app_cores";
inline constexpr const char* kSamplerCores = "sampler_cores";
inline constexpr const char* kTopology = "topology";
inline constexpr const char* kSamplerCpuNs = "sampler_cpu_ns";
// Processor time other processes took from the program's processors (absent: not measured).
inline constexpr const char* kOtherCpuNs = "other_cpu_ns";
// What one call costs the program: through a patched entry when entries are patched, else
// through the compiler's hooks (calibrated).
inline constexpr const char* kHookPairNs = "hook_pair_ns";
// Patched entries turned on at start-up (0 or absent: the compiler's hooks), and those
// found that could not be.
inline constexpr const char* kPatchedEntries = "patched_entries";
inline constexpr const char* kRefusedEntries = "refused_entries";
// QUARTZ_PROCEDURES, when only the entries of the functions it matches were patched.
inline constexpr const char* kProcedurePatterns = "procedure_patterns";
// The overhead budget (`quartz run --budget`), percent; 0 or absent: none.
inline constexpr const char* kBudgetPercent = "budget_percent";
// Procedures whose entries the budget turned off, each "<address hex> <calls> <at ns> <off
// 0|1> <ns a call cost, as a trial measured it; 0: not measured>" (the last field absent
// before 2026-11-28), separated by ';' (overhead/overhead_budget.h).
inline constexpr const char* kUnpatched = "unpatched";
// Windows in which the turned-off entries were on again, and the stack reads made in them
// (overhead/entry_windows.h): their procedures' time since is estimated from those reads.
// Entries the budget tried: switched off and on to measure what their calls cost the
// program (overhead/cost_trial.h).
inline constexpr const char* kCostTrials = "cost_trials";
inline constexpr const char* kEntryWindows = "entry_windows";
inline constexpr const char* kWindowReads = "window_reads";
inline constexpr const char* kDilationRemovedNs = "dilation_removed_ns";
// One run of the program without the profiler (`quartz run --baseline`): its processor
// time (all its threads, user and system) and elapsed time; absent: not measured.
inline constexpr const char* kBaselineCpuNs = "baseline_cpu_ns";
inline constexpr const char* kBaselineElapsedNs = "baseline_elapsed_ns";
inline constexpr const char* kCpuMeasurement = "cpu_measurement";  // "schedstat" or "model"
// How the program's OpenMP runtime was seen: its entry points interposed (GNU libgomp),
// LLVM libomp's tools interface, or the program's own OMPT tool took it (its waits are
// work); absent: no OpenMP.
inline constexpr const char* kOpenmp = "openmp";
inline constexpr const char* kOpenmpLibgomp = "libgomp";
inline constexpr const char* kOpenmpOmpt = "ompt";
inline constexpr const char* kOpenmpProgramTool = "program tool";
// The values by the runtime's rt::OpenmpView, whose `none` writes no key.
inline constexpr const char* kOpenmpViews[] = {nullptr, kOpenmpLibgomp, kOpenmpOmpt,
                                               kOpenmpProgramTool};
// Whether ITT notifications (oneTBB's) came to libquartz's collector, or the program named
// its own in INTEL_LIBITTNOTIFY64; absent: none came.
inline constexpr const char* kItt = "itt";
inline constexpr const char* kIttCollector = "collector";
inline constexpr const char* kIttProgramCollector = "program collector";
// The values by the runtime's rt::IttView, whose `none` writes no key.
inline constexpr const char* kIttViews[] = {nullptr, kIttCollector, kIttProgramCollector};
inline constexpr const char* kCheckpoints = "checkpoints";
inline constexpr const char* kStackCapacity = "stack_capacity";
inline constexpr const char* kObjectsDropped = "objects_dropped";
inline constexpr const char* kCallsDropped = "calls_dropped";
inline constexpr const char* kContextsDropped = "contexts_dropped";
// Profile-stack entries of the threads running when the capture was written: procedures
// not returned from, objects waited for or held (0 at the end of a run whose threads all
// returned from everything).
inline constexpr const char* kOpenStackEntries = "open_stack_entries";
// Set by readers of an amended capture (amended_* sections): the elapsed time its counts
// cover (calls, acquisitions, call edges: those of the capture the amendments changed).
inline constexpr const char* kCountsElapsedNs = "counts_elapsed_ns";
// Present when the run was traced (`quartz run --trace`; the trace is "<capture>.trace").
inline constexpr const char* kTraceEvents = "trace_events";
inline constexpr const char* kTraceDropped = "trace_dropped";  // refused by full queues
inline constexpr const char* kTraceBytes = "trace_bytes";
inline constexpr const char* kTraceEventNs = "trace_event_ns";  // cost of one event, calibrated
inline constexpr const char* kTraceCpuReadNs = "trace_cpu_read_ns";  // of a CPU clock reading
// Start-up and wind-down starvation (absent in older captures: not measured). Processor
// time idle because fewer threads were at work than processors (a thread is at work while
// it exists, except while it waits in a join), while a thread other than the first that
// has been busy was at work (sampler/attribution.h). In processor-nanoseconds: before the
// program first had P threads at work, after it last had, and in between.
inline constexpr const char* kStarvedStartupNs = "starved_startup_ns";
inline constexpr const char* kStarvedBetweenNs = "starved_between_ns";
inline constexpr const char* kStarvedWinddownNs = "starved_winddown_ns";
// When the program first and last had P threads at work (since the run's start; absent
// when it never had).
inline constexpr const char* kFirstFullNs = "first_full_ns";
inline constexpr const char* kLastFullNs = "last_full_ns";
}  // namespace run_keys

// Array lengths of the two record shapes.
constexpr size_t context_record_size(uint32_t processors) {
  return 2 * (size_t{processors} + 1) + 2 * kStateCount;
}
constexpr size_t full_record_size(uint32_t processors, uint32_t runnable_bins) {
  return 4 * (size_t{processors} + 1) + 2 * kStateCount + kStateCount * size_t{runnable_bins};
}

// CRC-32 (IEEE 802.3, reflected, as zlib), for sections, the whole file and trace chunks;
// eight bytes at a time through eight tables ("slicing-by-8"): traces run to hundreds of MB,
// and a byte at a time would be a tenth of the predictor's time.
struct Crc32Tables {
  uint32_t t[8][256];
  constexpr Crc32Tables() : t() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int bit = 0; bit < 8; ++bit) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i) {
      for (int k = 1; k < 8; ++k) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xffu];
    }
  }
};
inline constexpr Crc32Tables kCrc32Tables{};

constexpr uint32_t crc32_update(uint32_t crc, const unsigned char* data, size_t n) {
  const auto& t = kCrc32Tables.t;
  crc = ~crc;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const uint32_t lo = crc ^ (uint32_t{data[i]} | uint32_t{data[i + 1]} << 8 |
                               uint32_t{data[i + 2]} << 16 | uint32_t{data[i + 3]} << 24);
    crc = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^
          t[3][data[i + 4]] ^ t[2][data[i + 5]] ^ t[1][data[i + 6]] ^ t[0][data[i + 7]];
  }
  for (; i < n; ++i) crc = (crc >> 8) ^ t[0][(crc ^ data[i]) & 0xffu];
  return ~crc;
}

// Sets the CRC of every section whose payload lies inside the `size` bytes, then the
// footer's size and CRC. The runtime seals what it writes to a file; the captures it
// publishes to `quartz run` at every snapshot are sealed by whoever writes them out
// (sealing them would be half of a publication's cost: every byte read twice).
inline void seal_capture(unsigned char* bytes, size_t size) {
  if (size < sizeof(FileHeader) + sizeof(FileFooter)) return;
  const size_t footer_at = size - sizeof(FileFooter);
  size_t at = sizeof(FileHeader);
  while (footer_at - at >= sizeof(SectionHeader)) {
    SectionHeader section;
    memcpy(&section, bytes + at, sizeof section);
    const size_t payload = at + sizeof section;
    if (section.bytes > footer_at - payload) break;
    section.crc32 = crc32_update(0, bytes + payload, section.bytes);
    memcpy(bytes + at, &section, sizeof section);
    at = payload + section.bytes;
  }
  FileFooter footer;
  memcpy(&footer, bytes + footer_at, sizeof footer);
  footer.file_bytes = size;
  footer.crc32 = crc32_update(0, bytes, footer_at);
  memcpy(bytes + footer_at, &footer, sizeof footer);
}

}  // namespace quartz::capture

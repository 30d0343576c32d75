// One record per thread the program ever ran, by thread index: who created it, its name,
// when it was created, started and ended, and its final counters. Running threads' live
// values are in their blocks; records hold what outlives a block. Memory grows with the
// number of threads ever created (192 bytes each), in mapped chunks.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>

#include "support/attributes.h"

namespace quartz::rt {

inline constexpr uint32_t kThreadNameBytes = 16;  // as the kernel's comm
inline constexpr uint32_t kNamedByAnnotation = 2;
inline constexpr uint32_t kNoThread = 0xffffffffu;
// The thread's own first procedures kept (ThreadRecord::routines): std::thread's own
// trampolines take five levels before the program's callable.
inline constexpr uint32_t kThreadRoutines = 8;

enum class ThreadPhase : uint32_t { unused = 0, created, running, exited };

struct alignas(support::kCacheLine) ThreadRecord {
  std::atomic<ThreadPhase> phase{ThreadPhase::unused};
  std::atomic<uint32_t> parent_index{kNoThread};
  std::atomic<pid_t> tid{0};
  std::atomic<uint32_t> exit_kind{0};  // 1: returned, 2: pthread_exit; 0 while running
  std::atomic<uintptr_t> start_routine{0};
  std::atomic<uint64_t> handle{0};  // its pthread_t: joins of it wait on this address
  std::atomic<uint64_t> created_ns{0};
  std::atomic<uint64_t> exited_ns{0};
  std::atomic<uint64_t> calls{0};  // at exit
  std::atomic<uint64_t> overflows{0};
  std::atomic<uint64_t> mismatches{0};
  std::atomic<uint64_t> blocked_ticks{0};
  std::atomic<uint64_t> spinning_ticks{0};
  std::atomic<uint64_t> name_words[kThreadNameBytes / 8]{};
  // 1 once the program named the thread (pthread_setname_np, quartz_name_thread, or a new
  // kernel name seen at its end); 0 while it has the name it inherited from its creator;
  // kNamedByAnnotation when named through ITT, which leaves the kernel's name as it was.
  std::atomic<uint32_t> named{0};
  // Signals sent to it with pthread_kill while tracing (trace_format.h kThreadSignals).
  std::atomic<uint32_t> signals_sent{0};
  // The bottom of the thread's own stack (above what it inherited): the first
  // `routine_count` entries, as they were when it first reached kThreadRoutines deep (or
  // at its last new call if never). Offline, the first of the program's own procedures
  // names a thread whose start routine is a library's (std::thread's trampolines).
  std::atomic<uint32_t> routine_count{0};
  std::atomic<uintptr_t> routines[kThreadRoutines]{};
};

class ThreadHistory {
 public:
  static constexpr uint32_t kMaxThreads = 1024 * 4096;  // kChunkRecords x kMaxChunks

  constexpr ThreadHistory() = default;

  // The record for `index`, mapping its chunk on first use; null past the limit or when
  // memory is exhausted.
  QUARTZ_NOINSTR ThreadRecord* at(uint32_t index);
  // The record for `index` if its chunk exists.
  QUARTZ_NOINSTR const ThreadRecord* find(uint32_t index) const;
  // One past the highest index handed out.
  QUARTZ_NOINSTR uint32_t size() const { return next_index_.load(std::memory_order_acquire); }

  // Hands out thread indices in creation order; 0 is reserved for the main thread.
  QUARTZ_NOINSTR uint32_t next_index() {
    return next_index_.fetch_add(1, std::memory_order_acq_rel);
  }
  QUARTZ_NOINSTR static void set_name(ThreadRecord& record, const char* name);
  QUARTZ_NOINSTR static void copy_name(const ThreadRecord& record, char* out);
  // The name the program gave the thread (set_name, and marks it named).
  QUARTZ_NOINSTR static void set_given_name(ThreadRecord& record, const char* name);
  // A name the program's annotations gave (the kernel's is left as it was: not a rename
  // behind our back at the thread's end).
  QUARTZ_NOINSTR static void set_annotated_name(ThreadRecord& record, const char* name);

  // Forked child: the surviving thread becomes index 0 and numbering starts again.
  QUARTZ_NOINSTR void reset_after_fork();

 private:
  static constexpr uint32_t kChunkRecords = 1024;
  static constexpr uint32_t kMaxChunks = 4096;
  static_assert(kChunkRecords * kMaxChunks == kMaxThreads);
  std::atomic<ThreadRecord*> chunks_[kMaxChunks]{};
  std::atomic<uint32_t> next_index_{1};
};

}  // namespace quartz::rt

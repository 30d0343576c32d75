// The trace file: the synchronization events of a run recorded with `quartz run --trace`
// (DESIGN.md §3 "Trace for the what-if extension"), next to its capture as
// "<capture>.trace". Written by the in-process sampler as it drains the threads' queues
// (sampler/publish/trace_writer.cpp), read offline by profile/trace_reader.cpp. This header is the
// single definition of the layout and of the event types; it depends on nothing.
//
//   FileHeader
//   Chunk*        each: ChunkHeader, then `bytes` of payload (CRC-32 in the header)
//
// Chunks are appended as the run goes; a run killed mid-write leaves a torn last chunk,
// which readers detect and stop before. The last chunk of a complete trace is an end chunk.
//
// Events payload: thread blocks, each
//     varint thread_index, u32 record_count, then record_count records:
//     u8 type, then by type (all varints; "time" is zig-zag, in ns since the run's start,
//     relative to the previous record of the block, the first relative to 0):
//       sync event types: u8 kind, time, object, sequence, aux, hooks
//         (hooks: hook events of the thread since its previous sync event)
//       kSample:  time, cpu_ns (the thread's CPU clock), runqueue_ns + 1 (0: not read),
//                 context + 1 (0: none; ids of the capture's contexts section)
//       kDropped: count (events the thread's full queue refused since the last report)
//       kCpu:     time, cpu_ns (the thread's own reading of its CPU clock, right after the
//                 sync event before it)
// End payload: varint events, varint dropped, varint threads.
// Little-endian; varints are LEB128 (7 bits a byte, low first).
#pragma once

#include <cstdint>

namespace quartz::trace {

inline constexpr char kFileMagic[8] = {'Q', 'U', 'A', 'R', 'T', 'Z', 'T', '1'};
// Version 2 added lock_fed and lock_feeds (issue 38): a version-1 trace replays without them.
inline constexpr uint32_t kFormatVersion = 2;
inline constexpr uint32_t kOldestFormatVersion = 1;
inline constexpr uint32_t kChunkMagic = 0x4b435451;  // "QTCK"

struct FileHeader {
  char magic[8];
  uint32_t version;
  uint32_t reserved;
};
static_assert(sizeof(FileHeader) == 16);

enum class ChunkType : uint32_t { events = 1, end = 2 };

struct ChunkHeader {
  uint32_t magic;
  uint32_t type;
  uint32_t bytes;
  uint32_t crc32;  // of the payload (capture_format.h's crc32_update)
};
static_assert(sizeof(ChunkHeader) == 16);

// What each record says. `object` is a synchronization object's address unless noted;
// `sequence` numbers an object's operations so that offline code can pair them exactly
// (which release an acquisition waited for, which post a semaphore wait consumed); 0 means
// unknown (the object found no room in the runtime's tables).
enum class Type : uint8_t {
  thread_start = 1,  // first event of a thread; object: parent index (kNoThread if none)
  thread_exit = 2,   // its last
  create = 3,        // object: the new thread's index; before the real pthread_create
  join_begin = 4,    // object: the joined thread's index (kNoThread if unknown)
  join_end = 5,      // object: as join_begin
  lock_request = 6,  // a lock that had to be waited for; the acquire follows
  lock_acquire = 7,  // sequence: acquisitions so far, this one included (for a read lock:
                     // the write epoch); aux: for a write lock of a rwlock, the read
                     // acquisitions of the previous epoch, whose releases it followed
  lock_release = 8,  // sequence: as the matching acquire
  cond_wait = 9,     // sequence: signals of the condition so far; a lock_release of the
                     // mutex precedes it
  cond_wake = 10,    // sequence: signals so far; the latest woke it (none if unchanged);
                     // a lock_acquire of the mutex follows
  cond_signal = 11,  // sequence: this signal's number; aux: the acquisition of the mutex the
                     // thread took last (the critical section it signals in or after; 0: none)
  cond_broadcast = 12,
  barrier_arrive = 13,  // sequence: arrivals before this one; aux: the barrier's count (0: unknown)
  barrier_depart = 14,  // sequence: the generation (arrival / count)
  sem_post = 15,        // sequence: this post's number (1, 2, ...)
  sem_wait_begin = 16,  // a semaphore wait that had to block
  sem_acquire = 17,     // sequence: this wait's number (1, 2, ...); aux: initial value
  spin_begin = 18,      // a spin region of quartz.h
  spin_end = 19,
  process_end = 20,  // the program is ending (exit or return from main), on this thread
  lock_fed = 21,     // before a lock_request or lock_acquire of the mutex of the thread's
                     // latest condition wait (but the one ending that wait): object the
                     // condition, sequence the aux of its latest signal, the critical
                     // section this one may have needed (a consumer that found its item
                     // queued, which a signal followed)
  lock_feeds = 22,   // before a lock_release of a mutex by a thread that signalled a
                     // condition right after its previous critical section (a producer that
                     // notifies after unlocking): object the condition, sequence the
                     // acquisition released, which the condition's waiters may follow
                     // (lock_fed) before its signal
  sample = 32,       // the sampler's reading of the thread (see above)
  dropped = 33,
  cpu = 34,  // the thread's reading of its CPU clock (object: ns, in the queue)
};

inline constexpr uint32_t kNoThread = 0xffffffffu;

// Signals a thread sends with pthread_kill (to a thread) or kill (to its own process) and
// another takes in a wait (sigwait, sigwaitinfo, sigtimedwait, sigsuspend) are recorded as
// a semaphore's posts and acquisitions (pending signals hand over as a semaphore's count
// does): object kThreadSignals | the receiving thread's index, or kThreadSignals |
// kNoThread for the process's; addresses no object has (x86-64's are below 2^47). A
// post's sequence numbers the signals sent there; an acquisition's is the number sent when
// the wait returned (0: none seen, a signal from outside the process).
inline constexpr uint64_t kThreadSignals = 0xffff000000000000ull;
inline constexpr uint64_t kProcessSignals = kThreadSignals | kNoThread;

// `kind` of sync events: the capture's object kinds (capture_format.h Kind).
inline bool is_sync_event(Type type) {
  return static_cast<uint8_t>(type) >= 1 && static_cast<uint8_t>(type) <= 22;
}

}  // namespace quartz::trace

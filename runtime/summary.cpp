#include "runtime/summary.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime/mapped_memory.h"
#include "runtime/runtime.h"

namespace quartz::rt {
namespace {

const char* const kKindNames[kEntryKindCount] = {
    "procedure", "mutex",   "rwlock_read", "rwlock_write", "spinlock",
    "condition", "barrier", "semaphore",   "join",         "spin_region"};

QUARTZ_NOINSTR const char* kind_name(uint32_t kind) {
  return kind < kEntryKindCount ? kKindNames[kind] : "unknown";  // named, never used
}

// Buffered writes to a file descriptor; no stdio, whose locks the program may hold.
class Writer {
 public:
  QUARTZ_NOINSTR explicit Writer(int fd) : fd_(fd) {}
  QUARTZ_NOINSTR ~Writer() { flush(); }
  __attribute__((format(printf, 2, 3), no_instrument_function)) void line(const char* format,
                                                                           ...) {
    va_list args;
    va_start(args, format);
    char text[1024];
    int n = vsnprintf(text, sizeof(text) - 1, format, args);
    va_end(args);
    if (n < 0) return;
    if (n > static_cast<int>(sizeof(text) - 2)) n = sizeof(text) - 2;
    text[n++] = '\n';
    if (used_ + static_cast<size_t>(n) > sizeof(buffer_)) flush();
    memcpy(buffer_ + used_, text, static_cast<size_t>(n));
    used_ += static_cast<size_t>(n);
  }
  QUARTZ_NOINSTR void flush() {
    size_t done = 0;
    while (done < used_) {
      const ssize_t n = write(fd_, buffer_ + done, used_ - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    used_ = 0;
  }

 private:
  int fd_;
  size_t used_ = 0;
  char buffer_[16384];
};

// The exported symbol at exactly `address`, or "?" (static functions have no dynamic
// symbol; the capture's symbolizer finds those offline).
QUARTZ_NOINSTR const char* symbol_at(uintptr_t address) {
  Dl_info info;
  if (address && dladdr(reinterpret_cast<void*>(address), &info) && info.dli_sname &&
      reinterpret_cast<uintptr_t>(info.dli_saddr) == address) {
    return info.dli_sname;
  }
  return "?";
}

// A scratch table summing counts by (a, b), in mapped memory.
class PairSums {
 public:
  struct Row {
    uintptr_t a, b;
    uint64_t n;
    bool used;
  };
  QUARTZ_NOINSTR explicit PairSums(uint32_t capacity_log2)
      : capacity_(uint32_t{1} << capacity_log2),
        rows_(static_cast<Row*>(map_zeroed(sizeof(Row) * capacity_))) {}
  QUARTZ_NOINSTR ~PairSums() {
    if (rows_) munmap(rows_, sizeof(Row) * capacity_);
  }
  QUARTZ_NOINSTR void add(uintptr_t a, uintptr_t b, uint64_t n) {
    if (!rows_ || n == 0) return;
    uint32_t i = static_cast<uint32_t>(((a * 31) ^ b) * 0x9E3779B97F4A7C15ull >> 40) &
                 (capacity_ - 1);
    for (uint32_t probe = 0; probe < capacity_; ++probe, i = (i + 1) & (capacity_ - 1)) {
      Row& r = rows_[i];
      if (!r.used) r = Row{a, b, 0, true};
      if (r.a == a && r.b == b) {
        r.n += n;
        return;
      }
    }
  }
  QUARTZ_NOINSTR uint64_t get(uintptr_t a, uintptr_t b) const {
    uint64_t n = 0;
    each([&](const Row& r) {
      if (r.a == a && r.b == b) n = r.n;
    });
    return n;
  }
  template <typename F>
  QUARTZ_NOINSTR void each(F f) const {
    for (uint32_t i = 0; rows_ && i < capacity_; ++i) {
      if (rows_[i].used) f(rows_[i]);
    }
  }

 private:
  uint32_t capacity_;
  Row* rows_;
};

QUARTZ_NOINSTR void write_threads(Runtime& rt, Writer& out, double ns_per_tick) {
  // Live values come from blocks, by index; finished threads from their records.
  const uint32_t count = rt.history.size();
  for (uint32_t index = 0; index < count; ++index) {
    const ThreadRecord* record = rt.history.find(index);
    if (!record || record->phase.load(std::memory_order_acquire) == ThreadPhase::unused) continue;
    const ThreadPhase phase = record->phase.load(std::memory_order_acquire);
    const ThreadTotals totals = thread_totals(rt, *record, index);
    char name[kThreadNameBytes];
    ThreadHistory::copy_name(*record, name);
    for (char* c = name; *c; ++c) {
      if (*c == ' ') *c = '_';
    }
    const uint32_t parent = record->parent_index.load(std::memory_order_relaxed);
    out.line(
        "thread index=%u parent=%d tid=%d name=%s phase=%s calls=%llu overflows=%llu "
        "mismatches=%llu blocked_ns=%.0f spinning_ns=%.0f depth=%u start=%s",
        index, parent == kNoThread ? -1 : static_cast<int>(parent),
        record->tid.load(std::memory_order_relaxed), name[0] ? name : "-",
        phase == ThreadPhase::exited    ? "exited"
        : phase == ThreadPhase::running ? "running"
                                        : "created",
        static_cast<unsigned long long>(totals.calls),
        static_cast<unsigned long long>(totals.overflows),
        static_cast<unsigned long long>(totals.mismatches), totals.blocked_ticks * ns_per_tick,
        totals.spinning_ticks * ns_per_tick, totals.depth,
        symbol_at(record->start_routine.load(std::memory_order_relaxed)));
  }
}

// Threads waiting for each object now, as their stacks show.
QUARTZ_NOINSTR void count_waiters(Runtime& rt, PairSums& waiters) {
  rt.threads.for_each([&](ThreadSlot& slot, SlotStatus status) {
    ThreadBlock* b = slot.block.load(std::memory_order_acquire);
    if (!b || status != SlotStatus::live) return;
    EntryValue entries[256];
    uint32_t depth = 0, true_depth = 0;
    for (int attempt = 0; attempt < 100; ++attempt) {
      if (b->stack.read(entries, 256, &depth, &true_depth)) break;
      depth = 0;
    }
    for (uint32_t i = 0; i < depth; ++i) {
      if (tag_role(entries[i].tag) == EntryRole::waiting) waiters.add(entries[i].address, 0, 1);
    }
  });
}

QUARTZ_NOINSTR void write_objects(Runtime& rt, Writer& out, double ns_per_tick) {
  PairSums waiters(10);
  count_waiters(rt, waiters);
  for (uint32_t i = 0; i < rt.objects.capacity(); ++i) {
    const ObjectRecord& r = rt.objects.record(i);
    const uintptr_t address = r.address.load(std::memory_order_acquire);
    if (!address) continue;
    uint64_t acquisitions = r.acquisitions.load(std::memory_order_relaxed);
    uint64_t contended = r.contended.load(std::memory_order_relaxed);
    uint64_t wait = r.wait_ticks.load(std::memory_order_relaxed);
    rt.threads.for_each([&](ThreadSlot& slot, SlotStatus) {
      ThreadBlock* b = slot.block.load(std::memory_order_acquire);
      if (!b) return;
      for (uint32_t j = 0; j < b->objects.capacity(); ++j) {
        const ObjectCountSlot& s = b->objects.slot(j);
        if (s.address.load(std::memory_order_relaxed) != address) continue;
        acquisitions += s.acquisitions.load(std::memory_order_relaxed);
        contended += s.contended.load(std::memory_order_relaxed);
        wait += s.wait_ticks.load(std::memory_order_relaxed);
      }
    });
    char name[kObjectNameBytes];
    ObjectRegistry::copy_name(r, name);
    for (char* c = name; *c; ++c) {
      if (*c == ' ') *c = '_';
    }
    const uintptr_t site = r.first_site.load(std::memory_order_relaxed);
    out.line(
        "object address=%#lx kind=%s name=%s site=%#lx acquisitions=%llu contended=%llu "
        "wait_ns=%.0f waiters=%llu",
        static_cast<unsigned long>(address), kind_name(r.kind.load(std::memory_order_relaxed)),
        name[0] ? name : "-", static_cast<unsigned long>(site),
        static_cast<unsigned long long>(acquisitions), static_cast<unsigned long long>(contended),
        wait * ns_per_tick, static_cast<unsigned long long>(waiters.get(address, 0)));
  }
}

QUARTZ_NOINSTR void write_calls(Runtime& rt, Writer& out) {
  PairSums edges(18);
  for (uint32_t i = 0; i < rt.call_graph.capacity(); ++i) {
    const CallGraphRecord& r = rt.call_graph.record(i);
    if (r.state.load(std::memory_order_acquire) != 2) continue;
    edges.add(r.caller.load(std::memory_order_relaxed), r.callee.load(std::memory_order_relaxed),
              r.calls.load(std::memory_order_relaxed));
  }
  rt.threads.for_each([&](ThreadSlot& slot, SlotStatus) {
    ThreadBlock* b = slot.block.load(std::memory_order_acquire);
    if (!b) return;
    for (uint32_t i = 0; i < b->edges.capacity(); ++i) {
      const CallEdgeSlot& s = b->edges.slot(i);
      edges.add(s.caller.load(std::memory_order_relaxed),
                s.callee.load(std::memory_order_acquire),
                s.calls.load(std::memory_order_relaxed));
    }
  });
  PairSums procedures(16);
  edges.each([&](const PairSums::Row& e) {
    procedures.add(e.b, 0, e.n);
    out.line("edge caller=%#lx caller_symbol=%s callee=%#lx callee_symbol=%s calls=%llu",
             static_cast<unsigned long>(e.a), e.a ? symbol_at(e.a) : "<root>",
             static_cast<unsigned long>(e.b), symbol_at(e.b),
             static_cast<unsigned long long>(e.n));
  });
  procedures.each([&](const PairSums::Row& p) {
    out.line("procedure address=%#lx symbol=%s calls=%llu", static_cast<unsigned long>(p.a),
             symbol_at(p.a), static_cast<unsigned long long>(p.n));
  });
}

}  // namespace

void write_summary(Runtime& rt, const char* path) {
  const bool to_stderr = strcmp(path, "-") == 0;
  const int fd = to_stderr ? STDERR_FILENO : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  // Threads finishing while we read stay readable until we are done.
  rt.threads.attach_reader();
  {
    Writer out(fd);
    out.line("quartz-summary 1");
    out.line("process pid=%d threads=%u slots=%u objects_dropped=%llu calls_dropped=%llu",
             getpid(), rt.history.size(), rt.threads.slot_count(),
             static_cast<unsigned long long>(rt.objects.dropped()),
             static_cast<unsigned long long>(rt.call_graph.dropped()));
    const double ns_per_tick = rt.clock.ns_per_tick();
    write_threads(rt, out, ns_per_tick);
    write_objects(rt, out, ns_per_tick);
    write_calls(rt, out);
  }
  rt.threads.detach_reader();
  if (!to_stderr) close(fd);
}

}  // namespace quartz::rt

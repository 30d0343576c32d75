#include "runtime/thread_history.h"

#include <sys/mman.h>

#include <cstring>
#include <new>

#include "support/mapped_memory.h"

namespace quartz::rt {

ThreadRecord* ThreadHistory::at(uint32_t index) {
  const uint32_t chunk = index / kChunkRecords;
  if (chunk >= kMaxChunks) return nullptr;
  ThreadRecord* records = chunks_[chunk].load(std::memory_order_acquire);
  if (!records) {
    const size_t bytes = sizeof(ThreadRecord) * kChunkRecords;
    void* memory = support::map_zeroed(bytes);
    if (!memory) return nullptr;
    auto* fresh = new (memory) ThreadRecord[kChunkRecords];
    if (chunks_[chunk].compare_exchange_strong(records, fresh, std::memory_order_acq_rel)) {
      records = fresh;
    } else {
      munmap(memory, bytes);  // another thread mapped it first; `records` is theirs
    }
  }
  return &records[index % kChunkRecords];
}

const ThreadRecord* ThreadHistory::find(uint32_t index) const {
  const uint32_t chunk = index / kChunkRecords;
  if (chunk >= kMaxChunks) return nullptr;
  const ThreadRecord* records = chunks_[chunk].load(std::memory_order_acquire);
  return records ? &records[index % kChunkRecords] : nullptr;
}

void ThreadHistory::set_name(ThreadRecord& record, const char* name) {
  uint64_t words[kThreadNameBytes / 8] = {};
  std::strncpy(reinterpret_cast<char*>(words), name, kThreadNameBytes - 1);
  for (uint32_t i = 0; i < kThreadNameBytes / 8; ++i) {
    record.name_words[i].store(words[i], std::memory_order_relaxed);
  }
}

void ThreadHistory::set_given_name(ThreadRecord& record, const char* name) {
  set_name(record, name);
  record.named.store(1, std::memory_order_relaxed);
}

void ThreadHistory::set_annotated_name(ThreadRecord& record, const char* name) {
  set_name(record, name);
  record.named.store(kNamedByAnnotation, std::memory_order_relaxed);
}

void ThreadHistory::copy_name(const ThreadRecord& record, char* out) {
  uint64_t words[kThreadNameBytes / 8];
  for (uint32_t i = 0; i < kThreadNameBytes / 8; ++i) {
    words[i] = record.name_words[i].load(std::memory_order_relaxed);
  }
  std::memcpy(out, words, kThreadNameBytes);
  out[kThreadNameBytes - 1] = '\0';
}

void ThreadHistory::reset_after_fork() {
  for (auto& chunk : chunks_) {
    ThreadRecord* records = chunk.load(std::memory_order_relaxed);
    if (!records) continue;
    for (uint32_t i = 0; i < kChunkRecords; ++i) {
      records[i].phase.store(ThreadPhase::unused, std::memory_order_relaxed);
    }
  }
  next_index_.store(1, std::memory_order_relaxed);
}

}  // namespace quartz::rt

#include "runtime/trace_queue.h"

#include <new>

namespace quartz::rt {

TraceQueue* TraceQueue::create_in(void* memory, uint32_t capacity) {
  auto* storage = reinterpret_cast<TraceEvent*>(static_cast<char*>(memory) + sizeof(TraceQueue));
  return new (memory) TraceQueue(capacity, storage);
}

}  // namespace quartz::rt

#include "runtime/return_stack.h"

#include <pthread.h>

#include "runtime/runtime.h"

namespace quartz::rt {

__thread ReturnStack t_returns __attribute__((tls_model("initial-exec")));
std::atomic<uintptr_t> g_return_trampoline{0};

void ReturnStack::learn_stack_bounds() {
  // pthread_getattr_np reads /proc/self/maps for the main thread (with the C library's
  // allocator): the runtime is busy meanwhile, so nothing it reaches comes back here.
  const uint8_t in_runtime = t_local.in_runtime;
  t_local.in_runtime = 1;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* base = nullptr;
    size_t size = 0;
    if (pthread_attr_getstack(&attr, &base, &size) == 0 && size != 0) {
      stack_low_ = reinterpret_cast<uintptr_t>(base);
      stack_high_ = stack_low_ + size;
    }
    pthread_attr_destroy(&attr);
  }
  if (stack_high_ == 0) stack_low_ = stack_high_ = 1;  // known: nothing
  t_local.in_runtime = in_runtime;
}

void ReturnStack::restore_all(uintptr_t trampoline) {
  for (uint32_t i = depth_; i > 0; --i) {
    ReturnRecord& r = records_[i - 1];
    if (!r.restored && *r.slot == trampoline) {
      *r.slot = r.original;
      r.restored = true;
    }
  }
}

void ReturnStack::reinstate(uintptr_t trampoline, uint32_t from) {
  for (uint32_t i = from; i < depth_; ++i) {
    ReturnRecord& r = records_[i];
    if (r.restored && *r.slot == r.original) {
      *r.slot = trampoline;
      r.restored = false;
    }
  }
}

void restore_return_addresses() {
  const uintptr_t trampoline = g_return_trampoline.load(std::memory_order_relaxed);
  if (trampoline != 0) t_returns.restore_all(trampoline);
}

void reinstate_return_addresses() {
  const uintptr_t trampoline = g_return_trampoline.load(std::memory_order_relaxed);
  if (trampoline != 0) t_returns.reinstate(trampoline);
}

}  // namespace quartz::rt

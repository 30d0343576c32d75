#include "sampler/window.h"

namespace quartz::sampler {

bool Window::init(uint32_t max_snapshots, uint32_t max_samples, uint32_t max_threads) {
  return snapshots_.reserve(max_snapshots) && samples_.reserve(max_samples) &&
         threads_.reserve(max_threads) && scratch_.reserve(max_threads) &&
         scratch_.resize_at_least(max_threads);
}

void Window::clear() {
  // Refilled at once: keep the pages (giving them back cost a page fault per page).
  snapshots_.reuse();
  samples_.reuse();
  threads_.reuse();
}

bool Window::assign(const Window& other) {
  return snapshots_.assign(other.snapshots_) && samples_.assign(other.samples_) &&
         threads_.assign(other.threads_);
}

void Window::carry_last_snapshot() {
  if (snapshots_.size() == 0) return;
  const SnapshotRecord last = snapshots_[snapshots_.size() - 1];
  // Threads of the carried samples, renumbered in the order the samples meet them.
  for (uint32_t i = 0; i < last.count; ++i) {
    ThreadSample s = samples_[last.first + i];
    const WindowThread old = threads_[s.window_thread];
    s.window_thread = i;  // each thread appears once per snapshot: thread i is sample i's
    samples_[i] = s;
    WindowThread fresh{};
    fresh.thread = old.thread;
    fresh.tid = old.tid;
    fresh.track = old.track;
    scratch_[i] = fresh;
  }
  snapshots_.reuse();
  samples_.reuse();
  threads_.reuse();
  snapshots_.append();
  snapshots_[0] = SnapshotRecord{last.duration_ns, 0, last.count, last.entries_off};
  for (uint32_t i = 0; i < last.count; ++i) {
    samples_.append();
    WindowThread* t = threads_.append();
    *t = scratch_[i];
  }
}

bool Window::begin_snapshot(uint64_t duration_ns, bool entries_off) {
  SnapshotRecord* s = snapshots_.append();
  if (!s) return false;
  *s = SnapshotRecord{duration_ns, static_cast<uint32_t>(samples_.size()), 0, entries_off};
  return true;
}

bool Window::add_sample(const ThreadSample& sample) {
  ThreadSample* slot = samples_.append();
  if (!slot || snapshots_.size() == 0) return false;
  *slot = sample;
  ++snapshots_[snapshots_.size() - 1].count;
  return true;
}

WindowThread* Window::thread(uint32_t thread_index, uint32_t* position, bool* created) {
  // Windows hold few threads, mostly in the same order every snapshot: search from the
  // position the caller remembers, then everywhere.
  *created = false;
  const size_t n = threads_.size();
  if (*position < n && threads_[*position].thread == thread_index) return &threads_[*position];
  for (size_t i = 0; i < n; ++i) {
    if (threads_[i].thread == thread_index) {
      *position = static_cast<uint32_t>(i);
      return &threads_[i];
    }
  }
  WindowThread* t = threads_.append();
  if (!t) return nullptr;
  *t = WindowThread{};
  t->thread = thread_index;
  *position = static_cast<uint32_t>(n);
  *created = true;
  return t;
}

}  // namespace quartz::sampler

// A growable array in mapped memory for the in-process sampler, which must not call the
// program's malloc (it may be instrumented, may lock, may not survive fork). Reserves a
// large virtual range once and lets the kernel back pages as they are touched, so
// elements never move and references stay valid. T must be trivially constructible from
// zeroed memory.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "support/attributes.h"

namespace quartz::support {

template <typename T>
class MappedVector {
  static_assert(std::is_trivially_destructible_v<T>);

 public:
  MappedVector() = default;
  MappedVector(const MappedVector&) = delete;
  MappedVector& operator=(const MappedVector&) = delete;
  QUARTZ_NOINSTR ~MappedVector() { release(); }

  // Reserves room for `max_elements`; false when the address space is not available.
  QUARTZ_NOINSTR bool reserve(size_t max_elements) {
    release();
    const size_t bytes = max_elements * sizeof(T);
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return false;
    data_ = static_cast<T*>(p);
    capacity_ = max_elements;
    size_ = 0;
    return true;
  }

  // Appends an element (zeroed, unless reuse() left old values); null when full.
  QUARTZ_NOINSTR T* append() {
    if (size_ == capacity_) return nullptr;
    return &data_[size_++];
  }
  // Takes back the last element appended.
  QUARTZ_NOINSTR void pop_back() {
    if (size_) --size_;
  }
  // Grows to at least `n` zeroed elements; false when the reservation is too small.
  QUARTZ_NOINSTR bool resize_at_least(size_t n) {
    if (n > capacity_) return false;
    if (n > size_) size_ = n;
    return true;
  }
  // Forgets the elements and gives their pages back (the range stays reserved).
  QUARTZ_NOINSTR void clear() {
    if (data_ && size_) madvise(data_, size_ * sizeof(T), MADV_DONTNEED);
    size_ = 0;
  }
  // Becomes a copy of `other`'s elements; false when its reservation is too small.
  QUARTZ_NOINSTR bool assign(const MappedVector& other) {
    if (other.size_ > capacity_) return false;
    if (other.size_) memcpy(static_cast<void*>(data_), other.data_, other.size_ * sizeof(T));
    size_ = other.size_;
    return true;
  }
  // Forgets the elements but keeps their pages, for a buffer refilled at once. Elements
  // appended later hold old values, not zeros.
  QUARTZ_NOINSTR void reuse() { size_ = 0; }

  QUARTZ_NOINSTR void swap(MappedVector& other) {
    T* d = data_;
    size_t c = capacity_, s = size_;
    data_ = other.data_;
    capacity_ = other.capacity_;
    size_ = other.size_;
    other.data_ = d;
    other.capacity_ = c;
    other.size_ = s;
  }

  QUARTZ_ALWAYS_INLINE T& operator[](size_t i) { return data_[i]; }
  QUARTZ_ALWAYS_INLINE const T& operator[](size_t i) const { return data_[i]; }
  QUARTZ_ALWAYS_INLINE size_t size() const { return size_; }
  QUARTZ_ALWAYS_INLINE size_t capacity() const { return capacity_; }
  QUARTZ_ALWAYS_INLINE T* data() { return data_; }
  QUARTZ_ALWAYS_INLINE const T* data() const { return data_; }

 private:
  QUARTZ_NOINSTR void release() {
    if (data_) munmap(data_, capacity_ * sizeof(T));
    data_ = nullptr;
    capacity_ = size_ = 0;
  }

  T* data_ = nullptr;
  size_t capacity_ = 0;
  size_t size_ = 0;
};

}  // namespace quartz::support

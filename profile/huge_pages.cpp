// The offline tools' operator new (linked into `quartz` and `quartz-view`, never into the
// runtime): a block of 4 MiB or more is given to the kernel's transparent huge pages where
// they are to be asked for (`madvise`, Debian's default). A run of millions of contexts
// lives in a few arrays of hundreds of megabytes, and with 4 KiB pages opening one in the
// viewer spent a sixth of its time in page faults and more in TLB misses: 2 M contexts
// opened in 3.4-3.9 s with huge pages against 6.1-6.2 s (docs/performance.md "Huge runs").
// glibc maps such a block on its own, so the advice covers that block alone.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <new>

namespace {

constexpr std::size_t kAdvisedBytes = std::size_t{4} << 20;

void advise_huge_pages(void* block, std::size_t bytes) {
  static const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t start = reinterpret_cast<uintptr_t>(block) / page * page;
  const uintptr_t end = reinterpret_cast<uintptr_t>(block) + bytes;
  // Advice only: where the kernel has no huge pages, nothing changes.
  madvise(reinterpret_cast<void*>(start), end - start, MADV_HUGEPAGE);
}

}  // namespace

void* operator new(std::size_t bytes) {
  void* block = std::malloc(bytes != 0 ? bytes : 1);
  if (block == nullptr) throw std::bad_alloc();
  if (bytes >= kAdvisedBytes) advise_huge_pages(block, bytes);
  return block;
}

void operator delete(void* block) noexcept {
  std::free(block);
}

void operator delete(void* block, std::size_t) noexcept {
  std::free(block);
}

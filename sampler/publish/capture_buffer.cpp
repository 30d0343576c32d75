#include "sampler/publish/capture_buffer.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/capture_format.h"
#include "runtime/run_status.h"
#include "support/safe_file.h"

namespace quartz::sampler {

using capture::SharedCaptureHeader;

namespace {

// The region `quartz run` made for this process, or null. Its descriptor is closed at once:
// the program never sees one of ours.
QUARTZ_NOINSTR SharedCaptureHeader* map_shared_region() {
  const char* path = getenv("QUARTZ_SHARED_CAPTURE");
  if (!path || !*path) return nullptr;
  const int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st {};
  void* region = MAP_FAILED;
  // `quartz run` sized it (a size set here could pass the program's file-size limit).
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
      static_cast<size_t>(st.st_size) == capture::kSharedRegionBytes) {
    region = mmap(nullptr, capture::kSharedRegionBytes, PROT_READ | PROT_WRITE,
                  MAP_SHARED | MAP_NORESERVE, fd, 0);
  }
  close(fd);
  if (region == MAP_FAILED) return nullptr;
  auto* header = static_cast<SharedCaptureHeader*>(region);
  // Made for this process (the pid `quartz run` started; an exec keeps it): any other
  // process, a program this one started, leaves it alone.
  if (memcmp(header->magic, capture::kSharedMagic, sizeof header->magic) != 0 ||
      header->pid != getpid()) {
    munmap(region, capture::kSharedRegionBytes);
    return nullptr;
  }
  return header;
}

}  // namespace

bool CaptureBuffer::init(const char* output) {
  // 4 GiB of address space, backed only as written.
  if (!own_.reserve(capture::kSlotBytes) && !own_.reserve(size_t{1} << 28)) return false;
  shared_ = map_shared_region();
  write_previous_image(output);
  return true;
}

void CaptureBuffer::write_previous_image(const char* output) {
  if (!shared_) return;
  const uint32_t published = __atomic_load_n(&shared_->published, __ATOMIC_ACQUIRE);
  if (published != 1 && published != 2) return;
  const capture::SharedSlot& slot = shared_->slots[published - 1];
  if (!slot.path[0] || strcmp(slot.path, output) == 0 || slot.bytes > capture::kSlotBytes) return;
  // The program this process was before an exec (--follow-exec): its image ended without
  // writing a final capture, and this one is about to publish over it.
  unsigned char* bytes =
      reinterpret_cast<unsigned char*>(shared_) + capture::slot_offset(published - 1);
  const size_t size = capture::take_slot_amendments(*shared_, published - 1);
  capture::seal_capture(bytes, size);  // published unsealed
  if (const int error = support::replace_file(slot.path, bytes, size)) {
    rt::note_write_failed(rt::RunFile::capture, slot.path, error);
  }
  __atomic_store_n(&shared_->published, 0u, __ATOMIC_RELEASE);
}

bool CaptureBuffer::shared() const {
  return shared_ && shared_->pid == getpid();
}

uint32_t CaptureBuffer::next_slot() const {
  return __atomic_load_n(&shared_->published, __ATOMIC_ACQUIRE) == 1 ? 1 : 0;
}

void CaptureBuffer::begin() {
  in_slot_ = shared();
  if (in_slot_) {
    slot_ = next_slot();
    data_ = reinterpret_cast<unsigned char*>(shared_) + capture::slot_offset(slot_);
    capacity_ = capture::kSlotBytes;
  } else {
    own_.clear();
    data_ = own_.data();
    capacity_ = own_.capacity();
  }
  size_ = 0;
}

bool CaptureBuffer::resize_at_least(size_t n) {
  if (n > capacity_) return false;
  if (!in_slot_ && !own_.resize_at_least(n)) return false;
  if (n > size_) size_ = n;
  return true;
}

void CaptureBuffer::publish(const char* path, uint64_t monotonic_ns) {
  if (!in_slot_) return;
  capture::SharedSlot& slot = shared_->slots[slot_];
  slot.bytes = size_;
  slot.monotonic_ns = monotonic_ns;
  const size_t n = strnlen(path, sizeof slot.path - 1);
  memcpy(slot.path, path, n);
  slot.path[n] = '\0';
  ++shared_->generation;
  __atomic_store_n(&shared_->published, slot_ + 1, __ATOMIC_RELEASE);
}

}  // namespace quartz::sampler

#include "cli/capture_rescue.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "format/capture_format.h"
#include "profile/capture.h"

namespace quartz::cli {

using capture::SharedCaptureHeader;

CaptureRescue::CaptureRescue() {
  const int fd = memfd_create("quartz-capture", MFD_CLOEXEC);
  if (fd < 0) return;
  // Sized here, where SIGXFSZ is ignored: the program's runtime never resizes it. Sparse:
  // memory is used only as the runtime writes captures.
  void* region = MAP_FAILED;
  if (ftruncate(fd, static_cast<off_t>(capture::kSharedRegionBytes)) == 0) {
    region = mmap(nullptr, capture::kSharedRegionBytes, PROT_READ | PROT_WRITE,
                  MAP_SHARED | MAP_NORESERVE, fd, 0);
  }
  if (region == MAP_FAILED) {
    close(fd);
    return;
  }
  fd_ = fd;
  header_ = static_cast<SharedCaptureHeader*>(region);
  std::memcpy(header_->magic, capture::kSharedMagic, sizeof header_->magic);
}

CaptureRescue::~CaptureRescue() {
  if (header_) munmap(header_, capture::kSharedRegionBytes);
  if (fd_ >= 0) close(fd_);
}

std::string CaptureRescue::path() const {
  if (!active()) return "";
  return "/proc/" + std::to_string(getpid()) + "/fd/" + std::to_string(fd_);
}

void CaptureRescue::claim_for_this_process() const {
  if (header_) header_->pid = getpid();
}

std::optional<CaptureRescue::Published> CaptureRescue::latest() const {
  if (!active()) return std::nullopt;
  const uint32_t published = __atomic_load_n(&header_->published, __ATOMIC_ACQUIRE);
  if (published != 1 && published != 2) return std::nullopt;
  const capture::SharedSlot& slot = header_->slots[published - 1];
  if (slot.bytes == 0 || slot.bytes > capture::kSlotBytes) return std::nullopt;
  const size_t size = capture::take_slot_amendments(*header_, published - 1);
  return Published{std::string(slot.path, strnlen(slot.path, sizeof slot.path)),
                   reinterpret_cast<unsigned char*>(header_) + capture::slot_offset(published - 1),
                   size};
}

bool write_published(const CaptureRescue::Published& capture, const std::string& path,
                     std::string* error) {
  capture::seal_capture(capture.data, capture.bytes);
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(capture.data),
              static_cast<std::streamsize>(capture.bytes));
    out.close();
    if (!out) {
      *error = std::strerror(errno);
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      return false;
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    *error = std::strerror(errno);
    return false;
  }
  return true;
}

void write_unfinished_followed_capture(const std::string& output, const CaptureRescue& rescue) {
  const std::optional<CaptureRescue::Published> published = rescue.latest();
  if (!published || published->path.rfind(output + ".exec-", 0) != 0) return;
  try {
    if (profile::read_capture(published->path).final) return;
  } catch (const std::exception&) {
    // None yet, or a partial one: replaced.
  }
  std::string error;
  if (!write_published(*published, published->path, &error)) {
    std::cerr << "quartz: run: cannot write " << published->path << ": " << error << "\n";
  }
}

}  // namespace quartz::cli

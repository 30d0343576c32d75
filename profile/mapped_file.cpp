#include "profile/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <new>

#include "profile/capture.h"

namespace quartz::profile {
namespace {

// Gives the whole pages of a mapping of `size` bytes at `data`, from `from` (a page
// boundary) to before `offset`, back to the kernel: a file's are read again from the page
// cache, anonymous memory's are gone. Returns where they end.
size_t give_back_pages(unsigned char* data, size_t size, size_t from, size_t offset) {
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t end = std::min(offset, size) / page * page;
  if (data == nullptr || end <= from) return from;
  madvise(data + from, end - from, MADV_DONTNEED);
  return end;
}

}  // namespace

MappedFile::MappedFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw CaptureError(path + ": cannot open: " + std::strerror(errno));
  struct stat status {};
  if (fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
    close(fd);
    throw CaptureError(path + ": not a regular file");
  }
  size_ = static_cast<size_t>(status.st_size);
  if (size_ > 0) {
    void* mapped = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    const int error = errno;
    close(fd);
    if (mapped == MAP_FAILED) throw CaptureError(path + ": cannot map: " + std::strerror(error));
    data_ = static_cast<const unsigned char*>(mapped);
  } else {
    close(fd);
  }
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) munmap(const_cast<unsigned char*>(data_), size_);
}

void MappedFile::release_before(size_t offset) const {
  give_back_pages(const_cast<unsigned char*>(data_), size_, 0, offset);
}

CaptureBytes::CaptureBytes(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_regular_file(path, error)) {
    mapped_.emplace(path);
  } else {
    read_ = read_capture_bytes(path);
  }
}

std::span<const unsigned char> CaptureBytes::bytes() const {
  return mapped_ ? mapped_->bytes() : std::span<const unsigned char>(read_);
}

ParseOptions CaptureBytes::giving_back() const {
  ParseOptions options;
  if (mapped_) options.release = [this](size_t offset) { mapped_->release_before(offset); };
  return options;
}

OwnedCaptureBytes::OwnedCaptureBytes(size_t size) : size_(size) {
  if (size_ == 0) return;
  void* mapped = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) throw std::bad_alloc();
  data_ = static_cast<unsigned char*>(mapped);
  madvise(data_, size_, MADV_HUGEPAGE);  // as the heap's big blocks (huge_pages.cpp)
}

OwnedCaptureBytes::~OwnedCaptureBytes() {
  if (data_ != nullptr) munmap(data_, size_);
}

void OwnedCaptureBytes::drop_before(size_t offset) {
  dropped_ = give_back_pages(data_, size_, dropped_, offset);
}

ParseOptions OwnedCaptureBytes::dropping() {
  ParseOptions options;
  options.done = [this](size_t offset) { drop_before(offset); };
  return options;
}

}  // namespace quartz::profile

// The offline tools' operator new asks the kernel for transparent huge pages for big blocks
// (profile/huge_pages.cpp). The truth is the kernel's: the flags of the mapping that holds
// the block in /proc/self/smaps ("hg": advised to use huge pages).
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace {

// The VmFlags of the mapping of /proc/self/smaps that holds `address`; "" when none does.
std::string mapping_flags(const void* address) {
  const auto at = reinterpret_cast<uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t start = 0, end = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> start >> dash >> end && dash == '-') {
      inside = start <= at && at < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line.substr(8) + " ";
    }
  }
  return "";
}

TEST(HugePages, ABigBlockIsAdvisedToUseHugePagesAndASmallOneIsNot) {
  if (!QUARTZ_HUGE_PAGES) GTEST_SKIP() << "a sanitizer's allocator, left as it is";
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) {
    GTEST_SKIP() << "this kernel has no transparent huge pages";
  }
  const std::unique_ptr<char[]> big(new char[size_t{64} << 20]);
  const std::unique_ptr<char[]> small(new char[size_t{1} << 20]);
  const std::string big_flags = mapping_flags(big.get() + (size_t{32} << 20));
  ASSERT_FALSE(big_flags.empty()) << "no mapping holds the block";
  EXPECT_NE(big_flags.find(" hg "), std::string::npos) << big_flags;
  EXPECT_EQ(mapping_flags(small.get()).find(" hg "), std::string::npos);
}

}  // namespace

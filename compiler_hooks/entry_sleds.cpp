#include "compiler_hooks/entry_sleds.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "runtime/mapped_vector.h"

namespace quartz::hooks {
namespace {

constexpr char kSectionName[] = "__patchable_function_entries";
constexpr size_t kMaxSleds = size_t{1} << 22;

// Every patched entry, sorted once patching is done: unpatch_entry's index.
rt::MappedVector<uintptr_t> g_sleds;

QUARTZ_NOINSTR bool read_exactly(int fd, void* out, size_t size, off_t offset) {
  auto* p = static_cast<char*>(out);
  while (size > 0) {
    const ssize_t n = pread(fd, p, size, offset);
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
    offset += n;
  }
  return true;
}

// Where an object's entry list is in memory: from its section headers, which are in the
// file only. {0, 0} when it has none.
struct EntryList {
  uintptr_t address = 0;
  size_t count = 0;
};

QUARTZ_NOINSTR EntryList find_entry_list(const char* path, uintptr_t load_bias) {
  EntryList list;
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return list;
  Elf64_Ehdr header;
  if (read_exactly(fd, &header, sizeof header, 0) && memcmp(header.e_ident, ELFMAG, SELFMAG) == 0 &&
      header.e_ident[EI_CLASS] == ELFCLASS64 && header.e_shentsize == sizeof(Elf64_Shdr) &&
      header.e_shstrndx < header.e_shnum) {
    Elf64_Shdr names;
    const off_t table = static_cast<off_t>(header.e_shoff);
    if (read_exactly(fd, &names, sizeof names,
                     table + off_t{header.e_shstrndx} * off_t{sizeof(Elf64_Shdr)})) {
      for (uint32_t i = 0; i < header.e_shnum; ++i) {
        Elf64_Shdr section;
        if (!read_exactly(fd, &section, sizeof section, table + off_t{i} * off_t{sizeof section})) {
          break;
        }
        if (section.sh_type != SHT_PROGBITS || !(section.sh_flags & SHF_ALLOC) ||
            section.sh_size % sizeof(uintptr_t) != 0 || section.sh_name >= names.sh_size) {
          continue;
        }
        char name[sizeof kSectionName];
        if (!read_exactly(fd, name, sizeof name,
                          static_cast<off_t>(names.sh_offset + section.sh_name)) ||
            memcmp(name, kSectionName, sizeof name) != 0) {
          continue;
        }
        list.address = load_bias + section.sh_addr;
        list.count = section.sh_size / sizeof(uintptr_t);
        break;
      }
    }
  }
  close(fd);
  return list;
}

struct Patching {
  EntryTrampolines trampolines;
  SledCounts counts;
};

// The length of the no-op instruction at `code` (at most `left` bytes), 0 if it is not one:
// 90, or 0f 1f /0 with its address bytes (nopl, nopw), after 66 or 2e prefixes.
QUARTZ_NOINSTR uint32_t nop_length(const uint8_t* code, uint32_t left) {
  uint32_t n = 0;
  while (n < left && (code[n] == 0x66 || code[n] == 0x2e)) ++n;
  if (n < left && code[n] == 0x90) return n + 1;
  if (n + 3 > left || code[n] != 0x0f || code[n + 1] != 0x1f || (code[n + 2] & 0x38) != 0) {
    return 0;
  }
  const uint8_t modrm = code[n + 2];
  const uint32_t mod = modrm >> 6, rm = modrm & 7;
  n += 3;
  if (mod != 3 && rm == 4) ++n;  // a SIB byte
  if (mod == 1) n += 1;
  if (mod == 2 || (mod == 0 && rm == 5)) n += 4;
  return n <= left ? n : 0;
}

// An entry as the compiler leaves it: no-ops only (gcc writes 15 one-byte ones, clang a
// few long ones).
QUARTZ_NOINSTR bool is_fresh(const uint8_t* sled) {
  for (uint32_t at = 0; at < rt::kEntryBytes;) {
    const uint32_t n = nop_length(sled + at, rt::kEntryBytes - at);
    if (n == 0) return false;
    at += n;
  }
  return true;
}

QUARTZ_NOINSTR bool in_executable_segment(const dl_phdr_info* info, uintptr_t sled) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
    const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (sled >= start && sled + rt::kEntryBytes <= start + ph.p_memsz) return true;
  }
  return false;
}

// Makes the object's code writable while it is patched (and executable all along: a
// library's constructor thread may run it).
QUARTZ_NOINSTR bool protect_code(const dl_phdr_info* info, int protection) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  bool ok = true;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
    const uintptr_t start = (info->dlpi_addr + ph.p_vaddr) & ~(page - 1);
    const uintptr_t end = info->dlpi_addr + ph.p_vaddr + ph.p_memsz;
    ok &= mprotect(reinterpret_cast<void*>(start), end - start, protection) == 0;
  }
  return ok;
}

QUARTZ_NOINSTR void set_head(uint8_t* sled, uint16_t head) {
  __atomic_store_n(reinterpret_cast<uint16_t*>(sled), head, __ATOMIC_RELEASE);
}

QUARTZ_NOINSTR int patch_object(dl_phdr_info* info, size_t, void* data) {
  auto& patching = *static_cast<Patching*>(data);
  const char* path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : nullptr;
  if (path == nullptr) {
    static bool main_done = false;  // the first object without a name is the program
    if (main_done) return 0;
    main_done = true;
    path = "/proc/self/exe";
  }
  const EntryList list = find_entry_list(path, info->dlpi_addr);
  if (list.count == 0) return 0;
  if (!protect_code(info, PROT_READ | PROT_WRITE | PROT_EXEC)) {
    patching.counts.refused += static_cast<uint32_t>(list.count);
    protect_code(info, PROT_READ | PROT_EXEC);
    return 0;
  }
  const auto* entries = reinterpret_cast<const uintptr_t*>(list.address);
  for (size_t i = 0; i < list.count; ++i) {
    const uintptr_t address = entries[i];
    auto* sled = reinterpret_cast<uint8_t*>(address);
    // A two-byte store across a cache line is not atomic: such an entry could not be
    // turned off safely later.
    if (!in_executable_segment(info, address) || (address & 63) == 63 || !is_fresh(sled)) {
      ++patching.counts.refused;
      continue;
    }
    uintptr_t* kept = g_sleds.append();
    if (kept == nullptr) {
      ++patching.counts.refused;
      continue;
    }
    *kept = address;
    const bool after_endbr = in_executable_segment(info, address - 4) &&
                             memcmp(sled - 4, rt::kEndbr64, sizeof rt::kEndbr64) == 0;
    write_entry(sled, after_endbr ? patching.trampolines.after_endbr : patching.trampolines.plain);
    ++patching.counts.patched;
  }
  protect_code(info, PROT_READ | PROT_EXEC);
  return 0;
}

QUARTZ_NOINSTR bool is_patched_sled(uintptr_t address) {
  const uintptr_t* begin = g_sleds.data();
  const uintptr_t* end = begin + g_sleds.size();
  return begin != nullptr && std::binary_search(begin, end, address);
}

}  // namespace

void write_entry(uint8_t* sled, uintptr_t trampoline) {
  set_head(sled, rt::kEntryOff);
  memcpy(sled + 2, rt::kEntryCall, sizeof rt::kEntryCall);  // movabs $trampoline, %r11
  memcpy(sled + 4, &trampoline, sizeof trampoline);
  sled[12] = 0x41;  // call *%r11
  sled[13] = 0xff;
  sled[14] = 0xd3;
  set_head(sled, rt::kEntryOn);
}

SledCounts patch_entries(const EntryTrampolines& trampolines) {
  Patching patching{trampolines, {}};
  if (!g_sleds.reserve(kMaxSleds)) return patching.counts;
  dl_iterate_phdr(patch_object, &patching);
  std::sort(g_sleds.data(), g_sleds.data() + g_sleds.size());
  return patching.counts;
}

bool unpatch_entry(uintptr_t procedure) {
  uintptr_t sled = procedure;
  if (!is_patched_sled(sled)) {
    sled = procedure + sizeof rt::kEndbr64;  // the function starts with endbr64
    if (!is_patched_sled(sled)) return false;
  }
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  // The head never crosses a page: patching refused entries whose head crosses a line.
  auto* start = reinterpret_cast<void*>(sled & ~(page - 1));
  if (mprotect(start, page, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) return false;
  set_head(reinterpret_cast<uint8_t*>(sled), rt::kEntryOff);
  mprotect(start, page, PROT_READ | PROT_EXEC);
  return true;
}

}  // namespace quartz::hooks

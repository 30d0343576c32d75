#include "compiler_hooks/entry_sleds.h"

#include <elf.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "support/code_segments.h"
#include "support/mapped_vector.h"
#include "support/never_destroyed.h"

namespace quartz::hooks {
namespace {

constexpr char kSectionName[] = "__patchable_function_entries";
constexpr size_t kMaxSleds = size_t{1} << 22;

// Every patched entry, sorted once patching is done: unpatch_entry's index. The sampler
// switches entries until the process is gone, through exit's destructors.
constinit support::NeverDestroyed<support::MappedVector<uintptr_t>> g_sleds_storage;
support::MappedVector<uintptr_t>& g_sleds = g_sleds_storage.value;

// The executable segments that hold patched entries, page-aligned: switch_entries makes
// the pages between two entries of one segment writable with them (its pages are code
// alike), so that switching the entries of a window costs one mprotect pair, not one per
// page that holds some.
struct CodeSegment {
  uintptr_t start, end;
};
constexpr size_t kMaxSegments = 1024;
constinit support::NeverDestroyed<support::MappedVector<CodeSegment>> g_segments_storage;
support::MappedVector<CodeSegment>& g_segments = g_segments_storage.value;
// Entries of one segment further apart than this are switched by mprotect calls of their
// own: the kernel walks every page of a range it changes.
constexpr uintptr_t kJoinedGapBytes = uintptr_t{2} << 20;

// An object's file, mapped read-only while its entries are patched: its section headers and
// symbols are in the file only.
class MappedFile {
 public:
  QUARTZ_NOINSTR explicit MappedFile(const char* path) {
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st {};
    if (fstat(fd, &st) == 0 && st.st_size > static_cast<off_t>(sizeof(Elf64_Ehdr))) {
      void* p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED) {
        data_ = static_cast<const uint8_t*>(p);
        size_ = static_cast<size_t>(st.st_size);
      }
    }
    close(fd);
  }
  QUARTZ_NOINSTR ~MappedFile() {
    if (data_) munmap(const_cast<uint8_t*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // The `count` objects of type T at `offset`, or null when the file is too short.
  template <typename T>
  QUARTZ_NOINSTR const T* at(uint64_t offset, uint64_t count = 1) const {
    if (!data_ || offset > size_ || count > (size_ - offset) / sizeof(T)) return nullptr;
    return reinterpret_cast<const T*>(data_ + offset);
  }
  // The section headers of a 64-bit ELF file, or null.
  QUARTZ_NOINSTR const Elf64_Shdr* sections(uint32_t* count) const {
    const auto* header = at<Elf64_Ehdr>(0);
    if (!header || memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 ||
        header->e_ident[EI_CLASS] != ELFCLASS64 || header->e_shentsize != sizeof(Elf64_Shdr)) {
      return nullptr;
    }
    *count = header->e_shnum;
    return at<Elf64_Shdr>(header->e_shoff, header->e_shnum);
  }
  QUARTZ_NOINSTR uint32_t names_index() const { return at<Elf64_Ehdr>(0)->e_shstrndx; }
  // The NUL-terminated string at `offset` of the string table `table`, or null.
  QUARTZ_NOINSTR const char* string(const Elf64_Shdr& table, uint64_t offset) const {
    if (offset >= table.sh_size) return nullptr;
    const char* s = at<char>(table.sh_offset + offset, table.sh_size - offset);
    return s && memchr(s, '\0', table.sh_size - offset) ? s : nullptr;
  }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// Where an object's entry list is in memory ({0, 0} when it has none).
struct EntryList {
  uintptr_t address = 0;
  size_t count = 0;
};

QUARTZ_NOINSTR EntryList find_entry_list(const MappedFile& file, uintptr_t load_bias) {
  uint32_t count = 0;
  const Elf64_Shdr* sections = file.sections(&count);
  if (!sections || file.names_index() >= count) return {};
  const Elf64_Shdr& names = sections[file.names_index()];
  for (uint32_t i = 0; i < count; ++i) {
    const Elf64_Shdr& section = sections[i];
    if (section.sh_type != SHT_PROGBITS || !(section.sh_flags & SHF_ALLOC) ||
        section.sh_size % sizeof(uintptr_t) != 0) {
      continue;
    }
    const char* name = file.string(names, section.sh_name);
    if (name && strcmp(name, kSectionName) == 0) {
      return {load_bias + section.sh_addr, section.sh_size / sizeof(uintptr_t)};
    }
  }
  return {};
}

// With QUARTZ_PROCEDURES: the entries of the functions whose symbol (as the object names
// it: mangled, for C++) matches one of its comma-separated glob patterns, in `selected`
// (their addresses, sorted). The symbol table when the object has one, else its dynamic
// symbols.
QUARTZ_NOINSTR void select_by_name(const MappedFile& file, uintptr_t load_bias,
                                   const char* patterns,
                                   support::MappedVector<uintptr_t>& selected) {
  selected.reuse();
  uint32_t count = 0;
  const Elf64_Shdr* sections = file.sections(&count);
  if (!sections) return;
  const Elf64_Shdr* symbols = nullptr;
  for (uint32_t i = 0; i < count; ++i) {
    if (sections[i].sh_type == SHT_SYMTAB) symbols = &sections[i];
    if (sections[i].sh_type == SHT_DYNSYM && !symbols) symbols = &sections[i];
  }
  if (!symbols || symbols->sh_link >= count) return;
  const Elf64_Shdr& names = sections[symbols->sh_link];
  const uint64_t n = symbols->sh_size / sizeof(Elf64_Sym);
  const auto* table = file.at<Elf64_Sym>(symbols->sh_offset, n);
  if (!table) return;
  char pattern[256];
  for (uint64_t i = 0; i < n; ++i) {
    if (ELF64_ST_TYPE(table[i].st_info) != STT_FUNC || table[i].st_value == 0) continue;
    const char* name = file.string(names, table[i].st_name);
    if (!name) continue;
    for (const char* p = patterns; *p;) {
      const char* end = strchrnul(p, ',');
      const size_t length = static_cast<size_t>(end - p);
      if (length > 0 && length < sizeof pattern) {
        memcpy(pattern, p, length);
        pattern[length] = '\0';
        if (fnmatch(pattern, name, 0) == 0) {
          if (uintptr_t* kept = selected.append()) *kept = load_bias + table[i].st_value;
          break;
        }
      }
      p = *end ? end + 1 : end;
    }
  }
  std::sort(selected.data(), selected.data() + selected.size());
}

struct Patching {
  EntryTrampolines trampolines;
  const char* procedures;                      // QUARTZ_PROCEDURES, or empty: every entry
  support::MappedVector<uintptr_t>* selected;  // scratch for select_by_name
  SledCounts counts;
};

QUARTZ_NOINSTR bool contains(const support::MappedVector<uintptr_t>& sorted, uintptr_t address) {
  return sorted.size() != 0 &&
         std::binary_search(sorted.data(), sorted.data() + sorted.size(), address);
}

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
  bool inside = false;
  support::for_each_code_segment(info, [&](uintptr_t start, uintptr_t end) {
    inside |= sled >= start && sled + rt::kEntryBytes <= end;
  });
  return inside;
}

// Makes the object's code writable while it is patched (and executable all along: a
// library's constructor thread may run it).
QUARTZ_NOINSTR bool protect_code(const dl_phdr_info* info, int protection) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  bool ok = true;
  support::for_each_code_segment(info, [&](uintptr_t start, uintptr_t end) {
    const uintptr_t first = start & ~(page - 1);
    ok &= mprotect(reinterpret_cast<void*>(first), end - first, protection) == 0;
  });
  return ok;
}

// Turns a patched entry on or off: one byte, so whatever writes it, a thread running through
// the entry sees one state or the other.
QUARTZ_NOINSTR void set_switch(uint8_t* sled, bool on) {
  __atomic_store_n(sled + rt::kEntrySwitch, on ? rt::kEntryOn : rt::kEntryOff, __ATOMIC_RELEASE);
}

// Set once the kernel refused a write through /proc/self/mem (proc_mem.force_override, a
// security module): entries are switched by mprotect from then on.
std::atomic<bool> g_memory_file_refused{false};

// Writes the switch byte of each entry at `sleds` through /proc/self/mem: the kernel writes
// the page as a debugger's breakpoint is written, its protection unchanged, so no processor
// running the program is interrupted to flush it (an mprotect pair is, at 300-400 us a
// switch). Returns how many were written. Open only while it writes, as the sampler's other
// files are; moved up to a descriptor the program is unlikely to name (a dup2 onto ours in
// between would otherwise take our write into the program's file).
QUARTZ_NOINSTR size_t write_switches(const uintptr_t* sleds, size_t count, bool on) {
  if (g_memory_file_refused.load(std::memory_order_relaxed)) return 0;
  int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
  if (fd < 0) return 0;
  constexpr int kHighDescriptor = 1000;
  const int high = fcntl(fd, F_DUPFD_CLOEXEC, kHighDescriptor);
  if (high >= 0) {
    close(fd);
    fd = high;
  }
  const uint8_t value = on ? rt::kEntryOn : rt::kEntryOff;
  size_t written = 0;
  while (written < count &&
         pwrite(fd, &value, 1, static_cast<off_t>(sleds[written] + rt::kEntrySwitch)) == 1) {
    ++written;
  }
  if (written < count) g_memory_file_refused.store(true, std::memory_order_relaxed);
  close(fd);
  return written;
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
  const MappedFile file(path);
  const EntryList list = find_entry_list(file, info->dlpi_addr);
  if (list.count == 0) return 0;
  if (patching.procedures[0]) {
    select_by_name(file, info->dlpi_addr, patching.procedures, *patching.selected);
  }
  uintptr_t low = UINTPTR_MAX, high = 0;
  support::for_each_code_segment(info, [&](uintptr_t start, uintptr_t end) {
    low = std::min(low, start);
    high = std::max(high, end);
  });
  uint8_t* const stubs = low < high ? map_stubs(patching.trampolines, low, high) : nullptr;
  if (stubs == nullptr || mprotect(stubs, kStubPage, PROT_READ | PROT_EXEC) != 0 ||
      !protect_code(info, PROT_READ | PROT_WRITE | PROT_EXEC)) {
    patching.counts.refused += static_cast<uint32_t>(list.count);
    protect_code(info, PROT_READ | PROT_EXEC);
    return 0;
  }
  const auto* entries = reinterpret_cast<const uintptr_t*>(list.address);
  for (size_t i = 0; i < list.count; ++i) {
    const uintptr_t address = entries[i];
    auto* sled = reinterpret_cast<uint8_t*>(address);
    // Its first two no-ops become a jump in one store (write_entry), not atomic across a
    // cache line.
    if (!in_executable_segment(info, address) || (address & 63) == 63 || !is_fresh(sled)) {
      ++patching.counts.refused;
      continue;
    }
    const bool after_endbr = in_executable_segment(info, address - 4) &&
                             memcmp(sled - 4, rt::kEndbr64, sizeof rt::kEndbr64) == 0;
    if (patching.procedures[0] &&
        !contains(*patching.selected, after_endbr ? address - 4 : address)) {
      ++patching.counts.unselected;
      continue;
    }
    uintptr_t* kept = g_sleds.size() < g_sleds.capacity() ? g_sleds.append() : nullptr;
    if (kept == nullptr || !write_entry(sled, stubs + (after_endbr ? kStubBytes : 0))) {
      if (kept) g_sleds.pop_back();
      ++patching.counts.refused;
      continue;
    }
    *kept = address;
    ++patching.counts.patched;
  }
  protect_code(info, PROT_READ | PROT_EXEC);
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  support::for_each_code_segment(info, [&](uintptr_t start, uintptr_t end) {
    CodeSegment* segment = g_segments.append();
    if (segment) *segment = CodeSegment{start & ~(page - 1), (end + page - 1) & ~(page - 1)};
  });
  return 0;
}

QUARTZ_NOINSTR bool is_patched_sled(uintptr_t address) {
  return contains(g_sleds, address);
}

}  // namespace

bool write_entry(uint8_t* sled, const uint8_t* stub) {
  const auto after_jump = reinterpret_cast<intptr_t>(sled + rt::kEntryJumpEnd);
  const int64_t distance = reinterpret_cast<intptr_t>(stub) - after_jump;
  if (distance != static_cast<int32_t>(distance)) return false;
  const auto rel32 = static_cast<int32_t>(distance);
  // A thread may run through it meanwhile (a library constructor's): the no-ops become a
  // jump over the rest first, in one store.
  const uint16_t jump_over = rt::kShortJump | uint16_t{rt::kEntryOff} << 8;
  __atomic_store_n(reinterpret_cast<uint16_t*>(sled), jump_over, __ATOMIC_RELEASE);
  memcpy(sled + 2, rt::kLoadBody, sizeof rt::kLoadBody);
  sled[rt::kEntryJump] = rt::kJumpRel32;
  memcpy(sled + rt::kEntryJump + 1, &rel32, sizeof rel32);
  sled[rt::kEntryBytes - 1] = 0xcc;  // never reached
  set_switch(sled, true);
  return true;
}

uint8_t* map_stubs(const EntryTrampolines& trampolines, uintptr_t low, uintptr_t high) {
  constexpr uintptr_t kStep = uintptr_t{1} << 20;
  constexpr uintptr_t kReach = (uintptr_t{1} << 31) - 2 * kStep;  // a rel32 from anywhere in
  uint8_t* page = nullptr;                                        // [low, high) reaches it
  for (uintptr_t k = 1; page == nullptr && k * kStep < kReach; ++k) {
    for (const uintptr_t hint :
         {(high & ~(kStep - 1)) + k * kStep, (low & ~(kStep - 1)) - k * kStep}) {
      if (hint + kReach < high || hint > low + kReach) continue;
      void* p = mmap(reinterpret_cast<void*>(hint), kStubPage, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
      if (p == MAP_FAILED) continue;
      if (reinterpret_cast<uintptr_t>(p) != hint) {  // an older kernel took it as a hint
        munmap(p, kStubPage);
        continue;
      }
      page = static_cast<uint8_t*>(p);
      break;
    }
  }
  if (page == nullptr) return nullptr;
  // jmp *0(%rip), then the address: one stub per trampoline.
  const uintptr_t targets[] = {trampolines.plain, trampolines.after_endbr};
  for (size_t i = 0; i < 2; ++i) {
    uint8_t* stub = page + i * kStubBytes;
    const uint8_t jump[] = {0xff, 0x25, 0, 0, 0, 0};
    memcpy(stub, jump, sizeof jump);
    memcpy(stub + sizeof jump, &targets[i], sizeof targets[i]);
  }
  return page;
}

SledCounts patch_entries(const EntryTrampolines& trampolines, const char* procedures) {
  support::MappedVector<uintptr_t> selected;
  Patching patching{trampolines, procedures, &selected, {}};
  if (!g_sleds.reserve(kMaxSleds) || !g_segments.reserve(kMaxSegments) ||
      (procedures[0] && !selected.reserve(kMaxSleds))) {
    return patching.counts;
  }
  dl_iterate_phdr(patch_object, &patching);
  std::sort(g_sleds.data(), g_sleds.data() + g_sleds.size());
  return patching.counts;
}

uintptr_t entry_of(uintptr_t procedure) {
  if (is_patched_sled(procedure)) return procedure;
  const uintptr_t after_endbr = procedure + sizeof rt::kEndbr64;  // it starts with endbr64
  return is_patched_sled(after_endbr) ? after_endbr : 0;
}

size_t switch_entries(const uintptr_t* sleds, size_t count, bool on) {
  size_t switched = write_switches(sleds, count, on);
  if (switched == count) return switched;
  sleds += switched;
  count -= switched;
  // Else by mprotect. The pages of one executable segment are code alike: one mprotect pair
  // for a run of them. Each call interrupts every processor running the program to flush
  // the range.
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  for (size_t first = 0; first < count;) {
    const uintptr_t start = sleds[first] & ~(page - 1);
    const CodeSegment* segment = nullptr;
    for (size_t i = 0; i < g_segments.size() && segment == nullptr; ++i) {
      if (start >= g_segments[i].start && start < g_segments[i].end) segment = &g_segments[i];
    }
    uintptr_t end = start + page;
    size_t last = first;
    while (last < count) {
      const uintptr_t next = sleds[last] & ~(page - 1);
      const bool joined =
          segment != nullptr && next < segment->end && next - end <= kJoinedGapBytes;
      if (next > end && !joined) break;
      end = std::max(end, next + page);
      ++last;
    }
    auto* run = reinterpret_cast<void*>(start);
    if (mprotect(run, end - start, PROT_READ | PROT_WRITE | PROT_EXEC) == 0) {
      for (size_t i = first; i < last; ++i) set_switch(reinterpret_cast<uint8_t*>(sleds[i]), on);
      switched += last - first;
      mprotect(run, end - start, PROT_READ | PROT_EXEC);
    }
    first = last;
  }
  return switched;
}

bool unpatch_entry(uintptr_t procedure) {
  const uintptr_t sled = entry_of(procedure);
  return sled != 0 && switch_entries(&sled, 1, false) == 1;
}

}  // namespace quartz::hooks

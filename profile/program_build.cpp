#include "profile/program_build.h"

#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace quartz::profile {

namespace {

std::string hex(const unsigned char* bytes, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) out += {kDigits[bytes[i] >> 4], kDigits[bytes[i] & 15]};
  return out;
}

// The compiler of the program's own code among the .comment strings: every object linked
// in adds its compiler's, and the C runtime's start files are GCC's even in a clang build.
std::string own_compiler(const std::vector<std::string>& comments) {
  for (const std::string& comment : comments) {
    if (!comment.starts_with("GCC:")) return comment;
  }
  return comments.empty() ? "" : comments.front();
}

}  // namespace

ProgramBuild read_program_build(const std::string& path) {
  ProgramBuild build;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return build;
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  size_t names = 0;
  if (elf != nullptr && elf_getshdrstrndx(elf, &names) == 0) {
    std::vector<std::string> comments;
    for (Elf_Scn* section = elf_nextscn(elf, nullptr); section != nullptr;
         section = elf_nextscn(elf, section)) {
      GElf_Shdr header;
      if (gelf_getshdr(section, &header) == nullptr) continue;
      const char* name = elf_strptr(elf, names, header.sh_name);
      Elf_Data* data = elf_getdata(section, nullptr);
      if (name == nullptr || data == nullptr || data->d_buf == nullptr) continue;
      const auto* bytes = static_cast<const char*>(data->d_buf);
      if (header.sh_type == SHT_NOTE) {
        GElf_Nhdr note;
        size_t at = 0, name_at = 0, desc_at = 0;
        while ((at = gelf_getnote(data, at, &note, &name_at, &desc_at)) > 0) {
          if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
              std::memcmp(bytes + name_at, "GNU", 4) == 0) {
            build.build_id =
                hex(reinterpret_cast<const unsigned char*>(bytes + desc_at), note.n_descsz);
          }
        }
      } else if (std::strcmp(name, ".comment") == 0) {
        for (size_t at = 0; at < data->d_size;) {
          const size_t n = strnlen(bytes + at, data->d_size - at);
          std::string comment(bytes + at, n);
          if (!comment.empty() &&
              std::find(comments.begin(), comments.end(), comment) == comments.end())
            comments.push_back(comment);
          at += n + 1;
        }
      }
    }
    build.compiler = own_compiler(comments);
  }
  elf_end(elf);
  close(fd);
  return build;
}

}  // namespace quartz::profile

// Offline symbolizer: maps an address in an executable or shared library on disk to the
// function containing it and its source position (elfutils libdwfl, no process needed).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

namespace quartz::profile {

struct SourceSymbol {
  std::string function;  // demangled name ("ns::Class::method(int)"), or "" if unknown
  std::string file;      // source file path from DWARF, "" if no debug info
  int line = 0;          // 0 if unknown
};

// Opens each module once, on first use, and keeps it until destroyed; separate debug files
// are found the way elfutils finds them (.gnu_debuglink, /usr/lib/debug/.build-id, and
// debuginfod when DEBUGINFOD_URLS is set). Not thread-safe: use one per thread.
class Symbolizer {
 public:
  Symbolizer();
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;
  Symbolizer(Symbolizer&&) noexcept;
  Symbolizer& operator=(Symbolizer&&) noexcept;

  // `elf_address` is an address in the ELF file's own virtual address space (runtime address
  // minus the module's load bias, i.e. minus dl_iterate_phdr's dlpi_addr).
  //
  // Returns the function containing it: from DWARF (the out-of-line function, not a function
  // inlined into it), else from .symtab/.dynsym (static functions included). With debug info,
  // file:line is
  //  - at a function's entry (a procedure address from -finstrument-functions): the line of
  //    the function's declaration (DW_AT_decl_line), else the line of the entry address;
  //  - inside code inlined into the function: the line in the function of the outermost
  //    inlined call, so that file:line always lies in `function`;
  //  - elsewhere: the line of the address. For a return address, pass the address minus 1
  //    to get the line of the call.
  // An unreadable file or unknown address gives an empty SourceSymbol.
  SourceSymbol symbolize(const std::string& module_path, uint64_t elf_address) noexcept;

  // The function's entry address (elf address) for an address inside it, if known.
  std::optional<uint64_t> function_entry(const std::string& module_path,
                                         uint64_t elf_address) noexcept;

 private:
  class Module;
  Module& module(const std::string& path);

  // Keyed by the path as given; a module that could not be opened stays, empty.
  std::unordered_map<std::string, std::unique_ptr<Module>> modules_;
};

}  // namespace quartz::profile

#include "profile/symbolizer.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "profile/system_code.h"

namespace quartz::profile {

namespace {

// The callbacks must outlive every Dwfl that uses them. The standard debuginfo search
// follows .gnu_debuglink and build ids (and debuginfod when DEBUGINFOD_URLS is set).
const Dwfl_Callbacks kOfflineCallbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = nullptr,
};

struct DwflEnd {
  void operator()(Dwfl* session) const { dwfl_end(session); }
};

// One address range of code, in the DWARF's address space, and the DIE it belongs to: a
// function (one split into hot and cold parts has two ranges) or a compilation unit.
struct CodeRange {
  Dwarf_Addr low = 0, high = 0;  // [low, high)
  Dwarf_Die die;
};

struct Resolution {
  SourceSymbol symbol;
  std::optional<uint64_t> entry;  // ELF address
};

// Moves `die` to its next sibling; returns 0 when there is one.
int next_sibling(Dwarf_Die* die) {
  Dwarf_Die next;
  const int result = dwarf_siblingof(die, &next);
  if (result == 0) *die = next;
  return result;
}

bool is_mangled(const char* name) {
  return name[0] == '_' && name[1] == 'Z';
}

// The function a compiler's copy of it stands for: gcc's clones (".constprop.0", ".isra.0",
// ".part.0", ".cold", which __cxa_demangle shows as " [clone .constprop.0]") are the
// function the source defines. With patched entries a clone is a procedure of its own.
std::string without_clone_suffix(std::string name) {
  const size_t clone = name.find(" [clone .");
  if (clone != std::string::npos) return name.substr(0, clone);
  for (const char* suffix : {".constprop.", ".isra.", ".part.", ".cold", ".lto_priv."}) {
    const size_t at = name.find(suffix);
    if (at != std::string::npos && at > 0) return name.substr(0, at);
  }
  return name;
}

// Only names with the "_Z" prefix: __cxa_demangle also decodes type names, so it would turn
// a C function called "f" into "float".
std::string demangle(const char* name) {
  if (!is_mangled(name)) return without_clone_suffix(name);
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> demangled(
      abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
  return without_clone_suffix(status == 0 && demangled ? std::string(demangled.get())
                                                       : std::string(name));
}

const char* string_attribute(Dwarf_Die* die, unsigned int name) {
  Dwarf_Attribute attribute;
  // Follows DW_AT_abstract_origin (out-of-line copies of inline functions, clones) and
  // DW_AT_specification (members defined outside their class).
  return dwarf_formstring(dwarf_attr_integrate(die, name, &attribute));
}

const char* linkage_name(Dwarf_Die* function) {
  const char* name = string_attribute(function, DW_AT_linkage_name);
  return name != nullptr ? name : string_attribute(function, DW_AT_MIPS_linkage_name);
}

std::optional<Dwarf_Addr> entry_pc(Dwarf_Die* function) {
  Dwarf_Addr entry = 0;
  if (dwarf_entrypc(function, &entry) == 0) return entry;
  // Only DW_AT_ranges: compilers list the part holding the entry first.
  Dwarf_Addr base = 0, start = 0, end = 0;
  if (dwarf_ranges(function, 0, &base, &start, &end) > 0) return start;
  return std::nullopt;
}

// DWARF file names are absolute or relative to the unit's compilation directory.
std::string source_path(Dwarf_Die* unit, const char* name) {
  if (name == nullptr) return {};
  const std::filesystem::path path(name);
  if (path.is_absolute()) return name;
  Dwarf_Attribute attribute;
  const char* directory = dwarf_formstring(dwarf_attr(unit, DW_AT_comp_dir, &attribute));
  if (directory == nullptr) return name;
  return (std::filesystem::path(directory) / path).lexically_normal().string();
}

// The file named by a DW_AT_decl_file or DW_AT_call_file attribute: an index into its unit's
// file table. (Not dwarf_decl_file: elfutils 0.188 refuses index 0, which DWARF 5 allows and
// clang uses for the primary source file.)
std::string file_attribute_path(Dwarf_Attribute* attribute) {
  Dwarf_Word index = 0;
  if (attribute == nullptr || dwarf_formudata(attribute, &index) != 0) return {};
  Dwarf_Die unit;
  Dwarf_Half version = 0;
  if (dwarf_cu_die(attribute->cu, &unit, &version, nullptr, nullptr, nullptr, nullptr,
                   nullptr) == nullptr ||
      (index == 0 && version < 5)) {  // before DWARF 5, 0 means no file
    return {};
  }
  Dwarf_Files* files = nullptr;
  size_t file_count = 0;
  if (dwarf_getsrcfiles(&unit, &files, &file_count) != 0 || index >= file_count) return {};
  return source_path(&unit, dwarf_filesrc(files, index, nullptr, nullptr));
}

// Appends the code ranges of `die` (DW_AT_low_pc/high_pc or DW_AT_ranges).
void add_code_ranges(Dwarf_Die* die, std::vector<CodeRange>& ranges) {
  Dwarf_Addr base = 0, start = 0, end = 0;
  ptrdiff_t offset = 0;
  while ((offset = dwarf_ranges(die, offset, &base, &start, &end)) > 0) {
    if (start < end) ranges.push_back({start, end, *die});
  }
}

void sort_by_start(std::vector<CodeRange>& ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const CodeRange& a, const CodeRange& b) { return a.low < b.low; });
}

// The DIE whose code contains `pc`, in ranges sorted by start, or null.
const Dwarf_Die* find_code(const std::vector<CodeRange>& ranges, Dwarf_Addr pc) {
  auto after = std::upper_bound(ranges.begin(), ranges.end(), pc,
                                [](Dwarf_Addr a, const CodeRange& r) { return a < r.low; });
  // Ranges of distinct functions (or units) do not overlap in practice; look a few ranges
  // back anyway and prefer the smallest, should one enclose another (nested functions).
  const CodeRange* best = nullptr;
  for (int i = 0; i < 4 && after != ranges.begin(); ++i) {
    --after;
    if (pc < after->high &&
        (best == nullptr || after->high - after->low < best->high - best->low)) {
      best = &*after;
    }
  }
  return best != nullptr ? &best->die : nullptr;
}

// Every function with code below `scope`: at unit level, in namespaces and classes, and
// nested in other functions (GNU C nested functions).
void collect_functions(Dwarf_Die* scope, std::vector<CodeRange>& functions) {
  Dwarf_Die child;
  for (int more = dwarf_child(scope, &child); more == 0; more = next_sibling(&child)) {
    switch (dwarf_tag(&child)) {
      case DW_TAG_subprogram:
        add_code_ranges(&child, functions);
        collect_functions(&child, functions);
        break;
      case DW_TAG_namespace:
      case DW_TAG_module:
      case DW_TAG_class_type:
      case DW_TAG_structure_type:
      case DW_TAG_union_type:
      case DW_TAG_lexical_block:
        collect_functions(&child, functions);
        break;
      default:
        break;
    }
  }
}

bool has_code_attributes(Dwarf_Die* die) {
  return dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges) ||
         dwarf_hasattr(die, DW_AT_entry_pc);
}

// The outermost inlined call inside `scope` (through lexical blocks) whose code contains `pc`.
bool find_outermost_inline(Dwarf_Die* scope, Dwarf_Addr pc, Dwarf_Die* inlined) {
  Dwarf_Die child;
  for (int more = dwarf_child(scope, &child); more == 0; more = next_sibling(&child)) {
    const int tag = dwarf_tag(&child);
    if (tag == DW_TAG_inlined_subroutine) {
      if (dwarf_haspc(&child, pc) > 0) {
        *inlined = child;
        return true;
      }
    } else if (tag == DW_TAG_lexical_block) {
      // A block without addresses of its own may still hold inlined calls.
      if (dwarf_haspc(&child, pc) > 0 || !has_code_attributes(&child)) {
        if (find_outermost_inline(&child, pc, inlined)) return true;
      }
    }
  }
  return false;
}

// Whether an inlined call is of an OpenMP construct's body, as clang outlines it.
bool is_openmp_body(Dwarf_Die* inlined) {
  Dwarf_Attribute attribute;
  const char* name = dwarf_formstring(dwarf_attr_integrate(inlined, DW_AT_name, &attribute));
  return name != nullptr && std::string_view(name).starts_with(".omp_outlined.");
}

// The file and line of an inlined call (DW_AT_call_file, DW_AT_call_line).
bool call_position(Dwarf_Die* inlined, SourceSymbol& symbol) {
  Dwarf_Attribute file_attribute, line_attribute;
  Dwarf_Word line = 0;
  if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_line, &line_attribute), &line) != 0) {
    return false;
  }
  std::string file = file_attribute_path(dwarf_attr(inlined, DW_AT_call_file, &file_attribute));
  if (file.empty()) return false;
  symbol.file = std::move(file);
  symbol.line = static_cast<int>(line);
  return true;
}

// The function's declaration (DW_AT_decl_file, DW_AT_decl_line), following
// DW_AT_specification and DW_AT_abstract_origin.
bool declaration_position(Dwarf_Die* function, SourceSymbol& symbol) {
  int line = 0;
  if (dwarf_decl_line(function, &line) != 0 || line <= 0) return false;
  Dwarf_Attribute attribute;
  std::string file =
      file_attribute_path(dwarf_attr_integrate(function, DW_AT_decl_file, &attribute));
  if (file.empty()) return false;
  symbol.file = std::move(file);
  symbol.line = line;
  return true;
}

void line_table_position(Dwarf_Die* unit, Dwarf_Addr pc, SourceSymbol& symbol) {
  Dwarf_Line* row = dwarf_getsrc_die(unit, pc);
  if (row == nullptr) return;
  int line = 0;
  if (dwarf_lineno(row, &line) != 0) return;
  symbol.file = source_path(unit, dwarf_linesrc(row, nullptr, nullptr));
  symbol.line = line;
}

// Compilers outline an OpenMP construct's body into an artificial function with no
// declaration line, whose entry's line is the pragma's. gcc names it after the enclosing
// function, "main._omp_fn.3" (Quartz pushes only parallel regions' bodies: the runtime's
// GOMP_parallel wrappers); clang ".omp_outlined..3", and a task's entry
// ".omp_task_entry..4". They read "omp_parallel@file.c:LINE" and "omp_task@file.c:LINE"
// (one word: reports that shorten a name drop what comes before its last space, as a
// return type). Returns the name's prefix, or null when the name is not an outlined body.
const char* openmp_outlined_prefix(const std::string& name) {
  if (name.starts_with(".omp_outlined.")) return "omp_parallel@";
  if (name.starts_with(".omp_task_entry.")) return "omp_task@";
  if (name.starts_with(".omp.") || name.starts_with(".omp_")) return "omp@";
  const size_t at = name.rfind("._omp_fn.");
  if (at == std::string::npos || at == 0 || at + 9 == name.size()) return nullptr;
  const bool numbered = std::all_of(name.begin() + static_cast<std::ptrdiff_t>(at + 9), name.end(),
                                    [](char c) { return c >= '0' && c <= '9'; });
  return numbered ? "omp_parallel@" : nullptr;
}

}  // namespace

// One ELF file and the debug information libdwfl found for it.
class Symbolizer::Module {
 public:
  explicit Module(const std::string& path);
  Resolution resolve(uint64_t elf_address);

 private:
  // Function and position from DWARF, when it covers `address` (libdwfl address).
  void resolve_from_dwarf(Dwarf_Addr address, Resolution& out);
  // Functions from the symbol table (.symtab, or .dynsym when stripped).
  void resolve_from_symbols(Dwarf_Addr address, Resolution& out);
  // The name of the function symbol starting at `address` (libdwfl address), or null.
  const char* symbol_at(Dwarf_Addr address);
  std::string function_name(Dwarf_Die* function, std::optional<Dwarf_Addr> entry);
  // The compilation unit with code at `address` (libdwfl address), and its bias.
  bool find_unit(Dwarf_Addr address, Dwarf_Die* unit, Dwarf_Addr* dwarf_bias);
  const std::vector<CodeRange>& unit_functions(Dwarf_Die* unit);

  std::unique_ptr<Dwfl, DwflEnd> session_;
  Dwfl_Module* elf_ = nullptr;  // null when the file could not be read as ELF
  // libdwfl address = ELF address + bias_ (0: the module is reported at its own addresses;
  // kept so that nothing depends on it).
  Dwarf_Addr bias_ = 0;
  // A system library (the C and C++ libraries...): named from its symbol table only. Its
  // separate debug information, when installed, is compressed: reading it cost 150 ms a
  // run (pipeline, libc6-dbg) for lines nobody reads (reports fold system code).
  bool symbols_only_ = false;
  // Per compilation unit (by the offset of its DIE), its functions' code ranges sorted by
  // start, built on the first lookup in that unit.
  std::unordered_map<Dwarf_Off, std::vector<CodeRange>> functions_by_unit_;
  // Code ranges of every unit, sorted by start, built on the first address that
  // .debug_aranges does not cover (clang emits none; elfutils 0.188 needs it).
  std::optional<std::vector<CodeRange>> unit_ranges_;
  Dwarf_Addr unit_ranges_bias_ = 0;
};

Symbolizer::Module::Module(const std::string& path) : session_(dwfl_begin(&kOfflineCallbacks)) {
  if (!session_) return;
  // Base 0, added to the segments' addresses: libdwfl addresses are the file's own.
  Dwfl_Module* elf = dwfl_report_elf(session_.get(), path.c_str(), path.c_str(), -1, 0, true);
  dwfl_report_end(session_.get(), nullptr, nullptr);
  GElf_Addr bias = 0;
  if (elf == nullptr || dwfl_module_getelf(elf, &bias) == nullptr) {
    session_.reset();
    return;
  }
  elf_ = elf;
  bias_ = bias;
  symbols_only_ = is_system_library(path);
}

Resolution Symbolizer::Module::resolve(uint64_t elf_address) {
  Resolution out;
  if (elf_ == nullptr) return out;
  const Dwarf_Addr address = elf_address + bias_;
  if (!symbols_only_) resolve_from_dwarf(address, out);
  if (out.symbol.function.empty()) resolve_from_symbols(address, out);
  // Padding between functions has line-table rows but belongs to nothing.
  if (out.symbol.function.empty()) return {};
  return out;
}

void Symbolizer::Module::resolve_from_dwarf(Dwarf_Addr address, Resolution& out) {
  Dwarf_Addr dwarf_bias = 0;  // libdwfl address = DWARF address + dwarf_bias
  Dwarf_Die unit;
  if (!find_unit(address, &unit, &dwarf_bias)) return;
  const Dwarf_Addr pc = address - dwarf_bias;

  const Dwarf_Die* found_function = find_code(unit_functions(&unit), pc);
  if (found_function == nullptr) {
    // Code without a function entry (assembly): the line table may still know it, and
    // the symbol table its name.
    line_table_position(&unit, pc, out.symbol);
    return;
  }
  Dwarf_Die function = *found_function;
  std::optional<Dwarf_Addr> entry = entry_pc(&function);  // libdwfl address
  if (entry) *entry += dwarf_bias;
  out.symbol.function = function_name(&function, entry);
  if (entry) out.entry = *entry - bias_;
  // By the name before demangling: gcc's C++ bodies ("_Z4ssori._omp_fn.1") demangle to a
  // clone of the enclosing function, "ssor(int) [clone ._omp_fn.1]".
  const char* raw_name = string_attribute(&function, DW_AT_name);
  const char* outlined =
      entry ? openmp_outlined_prefix(raw_name != nullptr ? raw_name : out.symbol.function)
            : nullptr;
  if (outlined) {
    SourceSymbol pragma;
    line_table_position(&unit, *entry - dwarf_bias, pragma);
    if (pragma.line > 0) {
      out.symbol.function = outlined + std::filesystem::path(pragma.file).filename().string() +
                            ":" + std::to_string(pragma.line);
    }
  }

  if (entry && address == *entry && declaration_position(&function, out.symbol)) return;
  Dwarf_Die inlined;
  bool found = find_outermost_inline(&function, pc, &inlined);
  // clang inlines an OpenMP construct's body (".omp_outlined._debug__") into the function it
  // outlined: that code is the function's own, placed by the calls inlined into the body.
  while (found && is_openmp_body(&inlined)) {
    Dwarf_Die body = inlined;
    found = find_outermost_inline(&body, pc, &inlined);
  }
  if (found && call_position(&inlined, out.symbol)) return;
  line_table_position(&unit, pc, out.symbol);
  // Line 0 is DWARF's "no source line" (clang gives it to code it generates, such as
  // sanitizer checks): the function's own declaration is the nearest honest place.
  if (out.symbol.line == 0) declaration_position(&function, out.symbol);
}

std::string Symbolizer::Module::function_name(Dwarf_Die* function,
                                              std::optional<Dwarf_Addr> entry) {
  if (const char* linkage = linkage_name(function)) return demangle(linkage);
  // GCC gives no linkage name to functions with internal linkage (static, anonymous
  // namespace): their symbol has it, qualified and with the parameter types.
  if (entry) {
    const char* symbol = symbol_at(*entry);
    if (symbol != nullptr && is_mangled(symbol)) return demangle(symbol);
  }
  // C, and C++ functions with C linkage (main, extern "C").
  const char* name = string_attribute(function, DW_AT_name);
  return name != nullptr ? name : "";
}

const char* Symbolizer::Module::symbol_at(Dwarf_Addr address) {
  GElf_Off offset = 0;
  GElf_Sym symbol;
  const char* name =
      dwfl_module_addrinfo(elf_, address, &offset, &symbol, nullptr, nullptr, nullptr);
  if (name == nullptr || offset != 0) return nullptr;
  const int type = GELF_ST_TYPE(symbol.st_info);
  return type == STT_FUNC || type == STT_GNU_IFUNC ? name : nullptr;
}

void Symbolizer::Module::resolve_from_symbols(Dwarf_Addr address, Resolution& out) {
  GElf_Off offset = 0;
  GElf_Sym symbol;
  const char* name =
      dwfl_module_addrinfo(elf_, address, &offset, &symbol, nullptr, nullptr, nullptr);
  if (name == nullptr || name[0] == '\0') return;
  const int type = GELF_ST_TYPE(symbol.st_info);
  if (type != STT_FUNC && type != STT_GNU_IFUNC) return;
  out.symbol.function = demangle(name);
  if (!out.entry) out.entry = address - offset - bias_;
}

bool Symbolizer::Module::find_unit(Dwarf_Addr address, Dwarf_Die* unit, Dwarf_Addr* dwarf_bias) {
  if (Dwarf_Die* found = dwfl_module_addrdie(elf_, address, dwarf_bias)) {
    *unit = *found;
    return true;
  }
  if (!unit_ranges_) {
    std::vector<CodeRange> ranges;
    Dwarf_Die* next = nullptr;
    while ((next = dwfl_module_nextcu(elf_, next, &unit_ranges_bias_)) != nullptr) {
      add_code_ranges(next, ranges);
    }
    sort_by_start(ranges);
    unit_ranges_ = std::move(ranges);
  }
  const Dwarf_Die* found = find_code(*unit_ranges_, address - unit_ranges_bias_);
  if (found == nullptr) return false;
  *unit = *found;
  *dwarf_bias = unit_ranges_bias_;
  return true;
}

const std::vector<CodeRange>& Symbolizer::Module::unit_functions(Dwarf_Die* unit) {
  const Dwarf_Off key = dwarf_dieoffset(unit);
  auto it = functions_by_unit_.find(key);
  if (it != functions_by_unit_.end()) return it->second;
  std::vector<CodeRange> functions;
  collect_functions(unit, functions);
  sort_by_start(functions);
  return functions_by_unit_.emplace(key, std::move(functions)).first->second;
}

Symbolizer::Symbolizer() = default;
Symbolizer::~Symbolizer() = default;
Symbolizer::Symbolizer(Symbolizer&&) noexcept = default;
Symbolizer& Symbolizer::operator=(Symbolizer&&) noexcept = default;

Symbolizer::Module& Symbolizer::module(const std::string& path) {
  auto it = modules_.find(path);
  if (it == modules_.end()) it = modules_.emplace(path, std::make_unique<Module>(path)).first;
  return *it->second;
}

SourceSymbol Symbolizer::symbolize(const std::string& module_path, uint64_t elf_address) noexcept {
  try {
    return module(module_path).resolve(elf_address).symbol;
  } catch (...) {  // std::bad_alloc
    return {};
  }
}

std::optional<uint64_t> Symbolizer::function_entry(const std::string& module_path,
                                                   uint64_t elf_address) noexcept {
  try {
    return module(module_path).resolve(elf_address).entry;
  } catch (...) {  // std::bad_alloc
    return std::nullopt;
  }
}

}  // namespace quartz::profile

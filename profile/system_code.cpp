#include "profile/system_code.h"

#include <filesystem>

namespace quartz::profile {

namespace {

bool starts_with_any(const std::string& text, std::initializer_list<const char*> prefixes) {
  for (const char* prefix : prefixes) {
    if (text.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

}  // namespace

bool is_system_library(const std::string& module_path) {
  return starts_with_any(module_path, {"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/"});
}

bool is_system_source(const std::string& file) {
  // clang names the headers it found through its own directory unnormalized:
  // /usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/bits/std_thread.h
  const std::string normal = file.find("/..") == std::string::npos
                                 ? file
                                 : std::filesystem::path(file).lexically_normal().string();
  return starts_with_any(normal, {"/usr/include/", "/usr/lib/gcc/", "/usr/lib/llvm-"});
}

bool is_system_code(const Symbol& symbol) {
  if (symbol.function.empty()) return false;
  if (!symbol.file.empty()) return is_system_source(symbol.file);
  return is_system_library(symbol.module);
}

bool is_system_procedure(const Run& run, uint64_t address) {
  const auto it = run.symbols.find(address);
  return it != run.symbols.end() && is_system_code(it->second);
}

}  // namespace quartz::profile

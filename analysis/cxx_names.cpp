#include "analysis/cxx_names.h"

#include <cctype>
#include <string_view>

namespace quartz::analysis {

namespace {

constexpr std::string_view kAnonymous = "(anonymous namespace)::";

std::string without_anonymous(std::string name) {
  for (size_t at; (at = name.find(kAnonymous)) != std::string::npos;) {
    name.erase(at, kAnonymous.size());
  }
  return name;
}

// Whether the bracket at `i` is part of an operator's name ("operator()", "operator<",
// "operator<<"), not a list.
bool in_operator_name(const std::string& name, size_t i) {
  auto preceded_by = [&](std::string_view what) {
    return i >= what.size() && name.compare(i - what.size(), what.size(), what) == 0;
  };
  if (name[i] == '(') return preceded_by("operator");
  return preceded_by("operator") || preceded_by("operator<");
}

// Whether the bracket at `i` opens a list of the name before it (template arguments,
// parameters), not a parenthesis of the text ("mutex@f() (file.cpp:3)").
bool follows_name(const std::string& name, size_t i) {
  if (i == 0) return false;
  const char before = name[i - 1];
  if (std::isalnum(static_cast<unsigned char>(before)) || before == '_' || before == '>' ||
      before == ')') {
    return true;
  }
  size_t start = i;  // after an operator's name ("operator<(" opens its parameters)
  while (start > 0 &&
         std::string_view("<>=!+-*/%&|^~[],").find(name[start - 1]) != std::string_view::npos) {
    --start;
  }
  return start < i && start >= 8 && name.compare(start - 8, 8, "operator") == 0;
}

// Every outermost group opened by `open` (outside lambdas' braces) replaced by
// `replacement`; an empty group stays.
std::string elide_groups(const std::string& name, char open, char close,
                         const std::string& replacement) {
  std::string out;
  int depth = 0, braces = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (depth == 0) {
      if (c == '{') ++braces;
      if (c == '}' && braces > 0) --braces;
      const bool opens =
          c == open && braces == 0 && follows_name(name, i) && !in_operator_name(name, i);
      if (opens && i + 1 < name.size() && name[i + 1] != close) {
        depth = 1;
        out += replacement;
        continue;
      }
      out += c;
      continue;
    }
    if (c == open) ++depth;
    if (c == close) --depth;
  }
  return out;
}

bool qualifier_at(const std::string& name, size_t at) {
  for (std::string_view q : {"const", "volatile", "&"}) {
    if (name.compare(at, q.size(), q) == 0) return true;
  }
  return false;
}

// The part of `name` after its last top-level space: drops a return type ("void f()").
std::string after_return_type(const std::string& name) {
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '<' || c == '(' || c == '{') ++depth;
    if ((c == '>' || c == ')' || c == '}') && depth > 0) --depth;
    if (c == ' ' && depth == 0 && !qualifier_at(name, i + 1)) start = i + 1;
  }
  return name.substr(start);
}

// Where the last top-level "::" starts (before the function's own name), or npos.
size_t last_qualifier(const std::string& name) {
  int depth = 0;
  size_t last = std::string::npos;
  for (size_t i = 0; i + 1 < name.size(); ++i) {
    const char c = name[i];
    if (c == '<' || c == '(' || c == '{') ++depth;
    if ((c == '>' || c == ')' || c == '}') && depth > 0) --depth;
    if (c == ':' && name[i + 1] == ':' && depth == 0) last = i++;
  }
  return last;
}

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

std::string fit_name(const std::string& name, size_t width) {
  if (name.size() <= width) return name;
  std::string shorter = without_anonymous(name);
  if (shorter.size() <= width) return shorter;
  shorter = elide_groups(shorter, '<', '>', "<...>");
  if (shorter.size() <= width) return shorter;
  shorter = elide_groups(shorter, '(', ')', "(...)");
  if (shorter.size() <= width) return shorter;
  shorter = after_return_type(shorter);
  if (shorter.size() <= width) return shorter;
  if (ends_with(shorter, " const")) shorter.erase(shorter.size() - 6);
  if (shorter.size() <= width) return shorter;
  // Cut in the qualifiers, keeping the function's own name ("std::thread::_Sta...::_M_run()").
  const size_t last = last_qualifier(shorter);
  if (last != std::string::npos && shorter.size() - last + 3 + 8 <= width) {
    return shorter.substr(0, width - (shorter.size() - last) - 3) + "..." + shorter.substr(last);
  }
  return width > 3 ? shorter.substr(0, width - 3) + "..." : shorter.substr(0, width);
}

std::string bare_name(const std::string& name) {
  std::string bare = without_anonymous(name);
  for (std::string_view qualifier : {" const", " volatile", " &&", " &"}) {
    if (ends_with(bare, qualifier)) bare.erase(bare.size() - qualifier.size());
  }
  bare = elide_groups(bare, '<', '>', "");
  bare = elide_groups(bare, '(', ')', "");
  if (ends_with(bare, "()") && !ends_with(bare, "operator()")) bare.erase(bare.size() - 2);
  bare = after_return_type(bare);
  if (ends_with(bare, "}::operator()")) bare.erase(bare.size() - 12);  // a lambda
  return bare;
}

std::string readable_generated_name(const std::string& name, const std::string& file) {
  const bool generated = name.rfind("_GLOBAL__sub_I_", 0) == 0 ||
                         name.rfind("__cxx_global_var_init", 0) == 0 ||
                         name.rfind("__static_initialization_and_destruction_", 0) == 0;
  if (!generated) return name;
  return "static initialisation of " + (file.empty() ? name : file);
}

bool is_lambda(const std::string& name) {
  if (name.find("{lambda(") != std::string::npos) return true;
  // clang: an unnamed type "$_N" whose call operator this is.
  const size_t call = name.find("::operator()");
  if (call == std::string::npos) return false;
  const size_t type = name.rfind("$_", call);
  return type != std::string::npos && type + 2 < call &&
         name.find_first_not_of("0123456789", type + 2) == call;
}

}  // namespace quartz::analysis

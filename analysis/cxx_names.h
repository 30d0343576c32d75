// C++ names made short: demangled names run to hundreds of characters of template
// arguments and parameter lists. The text report fits them to its columns; JSON keeps them
// whole.
#pragma once

#include <cstddef>
#include <string>

namespace quartz::analysis {

// `name` in at most `width` characters: whole if it fits, else without
// "(anonymous namespace)::", then with template arguments as "<...>", then with parameter
// lists as "(...)", and at last cut, ending in "...".
std::string fit_name(const std::string& name, size_t width);

// The name of a procedure as its source calls it: no namespace "(anonymous namespace)",
// return type, template arguments, parameter list or qualifiers ("sort_records" for
// "(anonymous namespace)::sort_records(int)"; "main::{lambda()#1}" for a lambda's
// operator()). Names threads after their routine.
std::string bare_name(const std::string& name);

// The name the compiler gave code of its own that runs a file's static initialisers before
// main ("_GLOBAL__sub_I_main" and "__static_initialization_and_destruction_0(int, int)"
// from gcc, "_GLOBAL__sub_I_file.cpp" and "__cxx_global_var_init.1" from clang), as a
// reader would say it: "static initialisation of FILE" (`file`, the source file's base
// name; the symbol's own when empty). `name` itself for every other name.
std::string readable_generated_name(const std::string& name, const std::string& file);

// Whether a demangled name is a lambda's call operator, as gcc names them
// ("main::{lambda()#1}::operator()() const") or clang ("main::$_1::operator()() const").
bool is_lambda(const std::string& name);

}  // namespace quartz::analysis

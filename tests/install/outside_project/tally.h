// Code that app.cpp and tally.cpp both hold: the inline function below and std::vector<long>'s
// out-of-line code. Each object file has its own copy (a COMDAT group) and the link keeps
// one, as in any C++ program of more than one file; with gcc's patched entries, each entry's
// record must go or stay with its copy (compiler_hooks/gcc_as/as).
#pragma once

#include <vector>

// A procedure of its own in each object (noinline), as header code often is.
__attribute__((noinline)) inline long tally(const std::vector<long>& values) {
  long sum = 0;
  for (long value : values) sum += value;
  return sum;
}

// The squares of 0 .. count - 1, tallied (tally.cpp).
long tally_of_squares(long count);

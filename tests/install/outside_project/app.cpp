// A program instrumented from outside Quartz's source tree. It sorts with std::vector and
// std::sort, whose code comes from the standard library's headers (inlined or not), ROUNDS
// times (argument; 40 by default: a few hundred milliseconds, well past the sampler's
// start), tallies each round's values and, once, squares (tally.cpp: code that both files
// hold), and prints which libquartz.so is mapped into it, as the kernel lists its mappings.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "tally.h"

// A procedure of its own (noinline: called from one place, gcc would inline it, and with
// patched entries only the procedures left after inlining are seen).
__attribute__((noinline)) static std::vector<long> sorted_values(long count) {
  std::vector<long> values;
  for (long i = 0; i < count; ++i) values.push_back((i * 7919) % count);
  std::sort(values.begin(), values.end());
  return values;
}

static std::string mapped_runtime() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    const size_t path = line.find('/');
    if (path != std::string::npos && line.find("/libquartz.so") != std::string::npos) {
      return line.substr(path);
    }
  }
  return "none";
}

int main(int argc, char** argv) {
  const long rounds = argc > 1 ? std::atol(argv[1]) : 40;
  long checksum = 0;
  for (long round = 0; round < rounds; ++round) checksum += tally(sorted_values(100000));
  checksum += tally_of_squares(100000);
  std::printf("runtime: %s\nchecksum: %ld\n", mapped_runtime().c_str(), checksum);
  return 0;
}

// What every target checks of a rejected input: a one-line message, as the command prints it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

namespace quartz::fuzz {

inline void check_one_line(const std::exception& error) {
  const char* message = error.what();
  if (message[0] == '\0' || std::strchr(message, '\n') != nullptr) {
    std::fprintf(stderr, "error message is not one line: '%s'\n", message);
    std::abort();
  }
}

}  // namespace quartz::fuzz

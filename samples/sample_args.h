/* Command-line flags of the sample programs: "--name VALUE" integers with bounds. */
#ifndef QUARTZ_SAMPLE_ARGS_H
#define QUARTZ_SAMPLE_ARGS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sample_flag {
  const char* name;
  long* value;
  long min, max;
};

/* Returns 0 (after printing why) on an unknown flag, a missing or bad value. */
static inline int parse_sample_flags(int argc, char** argv, struct sample_flag* flags, size_t n) {
  for (int i = 1; i < argc; i += 2) {
    size_t f = 0;
    while (f < n && strcmp(argv[i], flags[f].name) != 0) f++;
    if (f == n) {
      fprintf(stderr, "%s: unknown flag %s\n", argv[0], argv[i]);
      return 0;
    }
    char* end = NULL;
    long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
    if (i + 1 >= argc || *end != '\0' || v < flags[f].min || v > flags[f].max) {
      fprintf(stderr, "%s: %s needs a number from %ld to %ld\n", argv[0], argv[i], flags[f].min,
              flags[f].max);
      return 0;
    }
    *flags[f].value = v;
  }
  return 1;
}

#endif

/* A C program of a user's Make project. It names its thread through quartz/quartz.h and is
 * linked to libquartz (pkg-config), so it is profiled when run with QUARTZ_OUTPUT set, without
 * `quartz run`; it prints which libquartz.so is mapped into it, as the kernel lists them. */
#include <quartz/quartz.h>
#include <stdio.h>
#include <string.h>

/* noinline: called from one place, gcc would inline it (patched entries see what is left). */
__attribute__((noinline)) static long count_primes(long limit) {
  long count = 0;
  for (long n = 2; n < limit; ++n) {
    long d = 2;
    while (d * d <= n && n % d != 0) ++d;
    if (d * d > n) ++count;
  }
  return count;
}

static void print_mapped_runtime(void) {
  FILE* maps = fopen("/proc/self/maps", "r");
  char line[4096];
  while (maps && fgets(line, sizeof line, maps)) {
    const char* path = strchr(line, '/');
    if (path && strstr(line, "/libquartz.so")) {
      printf("runtime: %s", path);
      fclose(maps);
      return;
    }
  }
  if (maps) fclose(maps);
  printf("runtime: none\n");
}

int main(void) {
  quartz_name_thread("counter-main");
  printf("primes: %ld\n", count_primes(2000000));
  print_mapped_runtime();
  return 0;
}

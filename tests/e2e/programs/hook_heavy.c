/* Threads that never sleep and make millions of calls the profiler hooks: `hook_heavy
 * THREADS CALLS`. Each thread calls a small procedure CALLS times, then reads its own
 * schedstat (time on a processor, time on the run queue) and its wall clock since its
 * start; what neither explains is the time the kernel had it asleep. main prints per thread
 *   thread TID LIFE_NS SLEPT_NS
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct Life {
  long calls;
  int64_t life_ns, slept_ns;
  pid_t tid;
  double result;
};

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

__attribute__((noinline)) double step(double x) {
  for (int k = 0; k < 20; k++) x = x * 1.0000001 + 1e-9;
  return x;
}

static void* work(void* arg) {
  struct Life* life = arg;
  const int64_t start = now_ns();
  double x = 1;
  for (long i = 0; i < life->calls; i++) x = step(x);
  life->result = x;
  unsigned long long run_ns = 0, wait_ns = 0;
  FILE* f = fopen("/proc/thread-self/schedstat", "r");
  if (!f || fscanf(f, "%llu %llu", &run_ns, &wait_ns) != 2) run_ns = wait_ns = 0;
  if (f) fclose(f);
  life->life_ns = now_ns() - start;
  life->slept_ns = life->life_ns - (int64_t)run_ns - (int64_t)wait_ns;
  life->tid = gettid();
  return NULL;
}

int main(int argc, char** argv) {
  const int threads = argc > 1 ? atoi(argv[1]) : 2;
  const long calls = argc > 2 ? atol(argv[2]) : 10000000;
  if (threads < 1 || threads > 64 || calls < 0) return 2;
  pthread_t ids[64];
  struct Life lives[64] = {{0}};
  for (int i = 0; i < threads; i++) {
    lives[i].calls = calls;
    pthread_create(&ids[i], NULL, work, &lives[i]);
  }
  double sum = 0;
  for (int i = 0; i < threads; i++) {
    pthread_join(ids[i], NULL);
    sum += lives[i].result;
  }
  for (int i = 0; i < threads; i++) {
    printf("thread %d %lld %lld\n", (int)lives[i].tid, (long long)lives[i].life_ns,
           (long long)lives[i].slept_ns);
  }
  printf("sum=%g\n", sum);
  return 0;
}

/* serial_init: the Quartz paper's "Verify" case — a cheap-looking serial routine that
 * normalized processor time exposes.
 *
 * main runs a serial phase: init_data() computes I ms, then log_message() is called L
 * times (each formats a line with snprintf, writes it to /dev/null and computes U
 * microseconds). Then T worker threads run the parallel phase: K distinct procedures
 * kernel_0 .. kernel_<K-1>, each computing M ms, dealt round-robin to the workers.
 * All costs are processor time (thread CPU clock), so they hold when threads outnumber
 * processors. Truth, by construction, with the defaults on 2 processors:
 *   - log_message uses ~0.095 s of processor time (90 us of compute and some formatting
 *     and writing per call), under 5% of the program's ~2.2 s;
 *   - each kernel uses 0.17 s, more than log_message (ranks above it by processor time)
 *     but less than twice it; kernels run with 2 processors busy, log_message with 1, so
 *     by normalized time log_message (~0.095 s) ranks above every kernel (~0.085 s);
 *   - the serial phase has 1 processor busy, the parallel phase min(T, P).
 * Prints its measured truth: serial_s, parallel_s (wall), log_cpu_s (log_message's
 * processor time), kernel_cpu_s / kernel_cpu_min_s / kernel_cpu_max_s (per kernel: mean,
 * least, most), total_cpu_s (the process's processor time at the end), elapsed_s.
 *
 *   serial_init [--threads T] [--kernels K] [--kernel-ms M] [--log-lines L] [--log-us U]
 *               [--init-ms I]
 *   defaults:    2             16            140            1000          90
 *                50
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sample_args.h"
#include "sample_work.h"

#define MAX_THREADS 64
#define MAX_KERNELS 16

static long threads = 2, kernels = 16, kernel_ms = 140, log_lines = 1000, log_us = 90, init_ms = 50;
static int log_fd = -1;
static long log_write_errors = 0;
static double kernel_cpu_s[MAX_KERNELS];

SAMPLE_PROCEDURE void init_data(void) {
  compute(init_ms * 1000);
}

/* The print routine: formatting and writing are cheap; the compute makes each call cost a
 * known U microseconds, as a real logger's locale, buffering and locking would. */
SAMPLE_PROCEDURE void log_message(long line) {
  char text[128];
  int n =
      snprintf(text, sizeof text, "serial_init: record %ld of %ld verified\n", line + 1, log_lines);
  if (write(log_fd, text, (size_t)n) != n) log_write_errors++;
  compute(log_us);
}

/* One distinct procedure per kernel (each has its own symbol); each records its own
 * processor time. */
#define KERNEL(n)                                               \
  void kernel_##n(void) {                                       \
    double start = clock_s(CLOCK_THREAD_CPUTIME_ID);            \
    compute(kernel_ms * 1000);                                  \
    kernel_cpu_s[n] = clock_s(CLOCK_THREAD_CPUTIME_ID) - start; \
  }
KERNEL(0)
KERNEL(1)
KERNEL(2)
KERNEL(3)
KERNEL(4)
KERNEL(5)
KERNEL(6)
KERNEL(7)
KERNEL(8)
KERNEL(9)
KERNEL(10)
KERNEL(11)
KERNEL(12)
KERNEL(13)
KERNEL(14)
KERNEL(15)

void (*const kernel_table[MAX_KERNELS])(void) = {
    kernel_0, kernel_1, kernel_2,  kernel_3,  kernel_4,  kernel_5,  kernel_6,  kernel_7,
    kernel_8, kernel_9, kernel_10, kernel_11, kernel_12, kernel_13, kernel_14, kernel_15};

/* Worker w runs kernels w, w + T, w + 2T, ... */
SAMPLE_PROCEDURE void* worker(void* arg) {
  long w = (long)(size_t)arg;
  char name[16];
  snprintf(name, sizeof name, "worker_%ld", w);
  pthread_setname_np(pthread_self(), name);
  for (long k = w; k < kernels; k += threads) kernel_table[k]();
  return NULL;
}

int main(int argc, char** argv) {
  double start = now_us();
  struct sample_flag flags[] = {
      {"--threads", &threads, 1, MAX_THREADS}, {"--kernels", &kernels, 1, MAX_KERNELS},
      {"--kernel-ms", &kernel_ms, 0, 100000},  {"--log-lines", &log_lines, 0, 100000000},
      {"--log-us", &log_us, 0, 10000000},      {"--init-ms", &init_ms, 0, 100000},
  };
  if (!parse_sample_flags(argc, argv, flags, sizeof flags / sizeof flags[0])) return 2;
  log_fd = open("/dev/null", O_WRONLY);
  if (log_fd < 0) {
    perror("serial_init: /dev/null");
    return 1;
  }

  /* Serial phase. */
  init_data();
  double log_start_s = clock_s(CLOCK_THREAD_CPUTIME_ID);
  for (long i = 0; i < log_lines; i++) log_message(i);
  double log_cpu_s = clock_s(CLOCK_THREAD_CPUTIME_ID) - log_start_s;
  double parallel_start = now_us();

  /* Parallel phase. */
  pthread_t ids[MAX_THREADS];
  for (long t = 0; t < threads; t++) {
    if (pthread_create(&ids[t], NULL, worker, (void*)(size_t)t) != 0) {
      fprintf(stderr, "serial_init: cannot create thread %ld\n", t);
      return 1;
    }
  }
  for (long t = 0; t < threads; t++) pthread_join(ids[t], NULL);
  double end = now_us();
  close(log_fd);

  double kernel_sum_s = 0, kernel_min_s = kernel_cpu_s[0], kernel_max_s = kernel_cpu_s[0];
  for (long k = 0; k < kernels; k++) {
    kernel_sum_s += kernel_cpu_s[k];
    if (kernel_cpu_s[k] < kernel_min_s) kernel_min_s = kernel_cpu_s[k];
    if (kernel_cpu_s[k] > kernel_max_s) kernel_max_s = kernel_cpu_s[k];
  }
  printf("serial_s=%.6f\n", (parallel_start - start) / 1e6);
  printf("parallel_s=%.6f\n", (end - parallel_start) / 1e6);
  printf("log_cpu_s=%.6f\n", log_cpu_s);
  printf("kernel_cpu_s=%.6f\n", kernel_sum_s / kernels);
  printf("kernel_cpu_min_s=%.6f\n", kernel_min_s);
  printf("kernel_cpu_max_s=%.6f\n", kernel_max_s);
  printf("total_cpu_s=%.6f\n", clock_s(CLOCK_PROCESS_CPUTIME_ID));
  printf("elapsed_s=%.6f\n", (now_us() - start) / 1e6);
  return log_write_errors == 0 ? 0 : 1;
}

/* io_wait: threads that alternate computing and waiting for "I/O" in the kernel.
 *
 * Each of T workers repeats R times: do_compute() for C ms of processor time, then
 * wait_for_io() for about I ms. wait_for_io makes no pthread call: by default it writes a
 * request byte to its own "device" thread's pipe and blocks in read() on the reply pipe,
 * which that thread writes I ms later (it sleeps with nanosleep in between); with
 * --sleep 1 it calls nanosleep(I ms) itself and no device threads run. Truth, by
 * construction:
 *   - do_compute is busy T * R * C ms in all; wait_for_io is not busy: its T * R * I ms
 *     are spent blocked in the kernel (neither busy nor ready) and use no processor time;
 *   - the device threads are blocked in the kernel (read, nanosleep) nearly all the time;
 *   - elapsed is about R * (C + I) when T <= P (defaults: 50 * 20 ms = 1.0 s).
 * Prints its measured truth: compute_s, io_s (wall time in do_compute and in wait_for_io,
 * each summed over the workers), io_cpu_s (the workers' CPU time in wait_for_io),
 * elapsed_s.
 *
 *   io_wait [--threads T] [--compute-ms C] [--io-ms I] [--rounds R] [--sleep 0|1]
 *   defaults: 2           10             10          50          0 (pipe)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "sample_args.h"
#include "sample_work.h"

#define MAX_THREADS 64

static long compute_ms = 10, io_ms = 10, rounds = 50, sleep_mode = 0;

/* One worker's pipes to its device thread: request[1] -> device, reply[1] -> worker. */
struct io_channel {
  int request[2];
  int reply[2];
};
static struct io_channel channels[MAX_THREADS];
/* Per worker: wall time in do_compute and wait_for_io, CPU time in wait_for_io, in s. */
static double compute_s[MAX_THREADS], io_s[MAX_THREADS], io_cpu_s[MAX_THREADS];

/* Sleeps `ms` milliseconds in the kernel, resuming after signals. */
SAMPLE_PROCEDURE void sleep_ms(long ms) {
  struct timespec left = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&left, &left) != 0 && errno == EINTR) {
  }
}

/* Reads or writes one byte, retrying after signals. Returns 1, or 0 at end of file or on
 * an error. */
SAMPLE_PROCEDURE int read_byte(int fd, char* byte) {
  ssize_t n;
  while ((n = read(fd, byte, 1)) < 0 && errno == EINTR) {
  }
  return n == 1;
}

SAMPLE_PROCEDURE int write_byte(int fd, char byte) {
  ssize_t n;
  while ((n = write(fd, &byte, 1)) < 0 && errno == EINTR) {
  }
  return n == 1;
}

/* Worker i's device: answers each request I ms after it arrives, until the worker closes
 * its end of the request pipe. */
SAMPLE_PROCEDURE void* io_device(void* arg) {
  long i = (long)(size_t)arg;
  char name[16];
  snprintf(name, sizeof name, "io_device_%ld", i);
  pthread_setname_np(pthread_self(), name);
  char byte;
  while (read_byte(channels[i].request[0], &byte)) {
    sleep_ms(io_ms);
    if (!write_byte(channels[i].reply[1], byte)) break;
  }
  return NULL;
}

SAMPLE_PROCEDURE void do_compute(void) {
  compute(compute_ms * 1000);
}

/* Blocks in the kernel for about I ms, without any pthread call. */
SAMPLE_PROCEDURE void wait_for_io(long i) {
  if (sleep_mode) {
    sleep_ms(io_ms);
    return;
  }
  char byte = 'r';
  if (!write_byte(channels[i].request[1], byte) || !read_byte(channels[i].reply[0], &byte)) {
    fprintf(stderr, "io_wait: device %ld stopped answering\n", i);
    exit(1);
  }
}

SAMPLE_PROCEDURE void* worker(void* arg) {
  long i = (long)(size_t)arg;
  char name[16];
  snprintf(name, sizeof name, "worker_%ld", i);
  pthread_setname_np(pthread_self(), name);
  for (long r = 0; r < rounds; r++) {
    double t0 = now_us();
    do_compute();
    double t1 = now_us(), cpu1 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    wait_for_io(i);
    io_cpu_s[i] += clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu1;
    double t2 = now_us();
    compute_s[i] += (t1 - t0) / 1e6;
    io_s[i] += (t2 - t1) / 1e6;
  }
  if (!sleep_mode) close(channels[i].request[1]); /* ends its device */
  return NULL;
}

int main(int argc, char** argv) {
  double start = now_us();
  long threads = 2;
  struct sample_flag flags[] = {
      {"--threads", &threads, 1, MAX_THREADS}, {"--compute-ms", &compute_ms, 0, 100000},
      {"--io-ms", &io_ms, 0, 100000},          {"--rounds", &rounds, 1, 1000000},
      {"--sleep", &sleep_mode, 0, 1},
  };
  if (!parse_sample_flags(argc, argv, flags, sizeof flags / sizeof flags[0])) return 2;

  pthread_t devices[MAX_THREADS], workers[MAX_THREADS];
  if (!sleep_mode) {
    for (long t = 0; t < threads; t++) {
      if (pipe(channels[t].request) != 0 || pipe(channels[t].reply) != 0) {
        perror("io_wait: pipe");
        return 1;
      }
      if (pthread_create(&devices[t], NULL, io_device, (void*)(size_t)t) != 0) {
        fprintf(stderr, "io_wait: cannot create device thread %ld\n", t);
        return 1;
      }
    }
  }
  for (long t = 0; t < threads; t++) {
    if (pthread_create(&workers[t], NULL, worker, (void*)(size_t)t) != 0) {
      fprintf(stderr, "io_wait: cannot create thread %ld\n", t);
      return 1;
    }
  }
  for (long t = 0; t < threads; t++) pthread_join(workers[t], NULL);
  if (!sleep_mode) {
    for (long t = 0; t < threads; t++) {
      pthread_join(devices[t], NULL);
      close(channels[t].request[0]);
      close(channels[t].reply[0]);
      close(channels[t].reply[1]);
    }
  }

  double total_compute_s = 0, total_io_s = 0, total_io_cpu_s = 0;
  for (long t = 0; t < threads; t++) {
    total_compute_s += compute_s[t];
    total_io_s += io_s[t];
    total_io_cpu_s += io_cpu_s[t];
  }
  printf("compute_s=%.6f\n", total_compute_s);
  printf("io_s=%.6f\n", total_io_s);
  printf("io_cpu_s=%.6f\n", total_io_cpu_s);
  printf("elapsed_s=%.6f\n", (now_us() - start) / 1e6);
  return 0;
}

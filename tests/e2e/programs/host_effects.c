/* What a profiled program can observe of the profiler: it prints its descriptors, signal
 * dispositions and mask at the start and end of main, whether errno survived its work,
 * and lines of fully buffered output (lost if it is killed before exit flushes them).
 *
 *   host_effects MODE MS [FILE]
 *     exit      work MS ms, print, return 0 from main
 *     _exit     work MS ms, print, fflush, _exit(0)
 *     abort     work MS ms, print, abort()
 *     exec      work MS ms, print, fflush, exec /bin/true (which is not profiled)
 *     sigwait   block SIGTERM, a thread sigwait()s for it, main sends it to the process;
 *               prints "sigwait_got=15", returns 0
 *     handler   SIGTERM handler that exits 7; work until it comes (MS: upper bound)
 *     forever   work until killed (MS: upper bound)
 *     touch     create FILE, then as "exit"
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile long sink;
static volatile sig_atomic_t terminated;

void step(long i) {
  sink += i;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

void work(int ms) {
  const double end = now_ms() + ms;
  while (now_ms() < end && !terminated) {
    for (long i = 0; i < 10000; i++) step(i);
  }
}

/* The descriptors open now, without the one listing them: 0..255, 1 when open. */
static void list_fds(char open_now[256]) {
  memset(open_now, 0, 256);
  DIR* dir = opendir("/proc/self/fd");
  struct dirent* e;
  while (dir && (e = readdir(dir))) {
    const int fd = atoi(e->d_name);
    if (e->d_name[0] != '.' && fd != dirfd(dir) && fd < 256) open_now[fd] = 1;
  }
  if (dir) closedir(dir);
}

/* "0,1,2": the descriptors that stay open (in three listings 2 ms apart; a profiler's
 * file open for the microseconds of a write is not one). */
static void print_fds(const char* key) {
  char open_now[256], kept[256];
  list_fds(kept);
  for (int round = 0; round < 2; round++) {
    usleep(2000);
    list_fds(open_now);
    for (int fd = 0; fd < 256; fd++) kept[fd] = kept[fd] && open_now[fd];
  }
  printf("%s=", key);
  int first = 1;
  for (int fd = 0; fd < 256; fd++) {
    if (!kept[fd]) continue;
    printf(first ? "%d" : ",%d", fd);
    first = 0;
  }
  printf("\n");
}

/* One letter per signal 1..64: D default, I ignored, H handled, then B where blocked. */
static void print_signals(const char* key) {
  char text[2 * 65] = {0};
  sigset_t mask;
  pthread_sigmask(SIG_SETMASK, NULL, &mask);
  for (int s = 1; s <= 64; s++) {
    struct sigaction a;
    char c = '?';
    if (sigaction(s, NULL, &a) == 0) {
      c = a.sa_handler == SIG_DFL ? 'D' : a.sa_handler == SIG_IGN ? 'I' : 'H';
    }
    text[2 * (s - 1)] = c;
    text[2 * (s - 1) + 1] = sigismember(&mask, s) == 1 ? 'B' : '-';
  }
  printf("%s=%s\n", key, text);
}

static void on_term(int signal) {
  (void)signal;
  terminated = 1;
}

static void* wait_for_term(void* arg) {
  sigset_t* set = arg;
  int got = 0;
  sigwait(set, &got);
  printf("sigwait_got=%d\n", got);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const char* mode = argv[1];
  const int ms = atoi(argv[2]);
  print_fds("fds_start");
  print_signals("signals_start");
  for (int i = 0; i < 100; i++) printf("line %d of the program's own output\n", i);

  if (strcmp(mode, "touch") == 0 && argc > 3) {
    FILE* f = fopen(argv[3], "w");
    if (f) fclose(f);
  }
  if (strcmp(mode, "sigwait") == 0) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    pthread_t waiter;
    pthread_create(&waiter, NULL, wait_for_term, &set);
    work(ms);
    kill(getpid(), SIGTERM);
    pthread_join(waiter, NULL);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
  } else if (strcmp(mode, "handler") == 0 || strcmp(mode, "forever") == 0) {
    if (strcmp(mode, "handler") == 0) signal(SIGTERM, on_term);
    printf("ready\n");
    fflush(stdout);
    work(ms);
    if (terminated) {
      printf("terminated\n");
      exit(7);
    }
  } else {
    errno = 4242; /* the runtime's writes (checkpoints during the work) must keep it */
    work(ms);
    printf("errno_kept=%d\n", errno == 4242);
  }
  print_fds("fds_end");
  print_signals("signals_end");
  if (strcmp(mode, "_exit") == 0) {
    fflush(stdout);
    _exit(0);
  }
  if (strcmp(mode, "abort") == 0) {
    fflush(stdout);
    abort();
  }
  if (strcmp(mode, "exec") == 0) {
    fflush(stdout);
    execl("/bin/true", "true", (char*)NULL);
    return 1;
  }
  return 0;
}

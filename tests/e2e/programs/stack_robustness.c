/* Profile-stack robustness, one mode per run:
 *   deep      mutual recursion 2000 deep (ping/pong), beyond any small capacity
 *   repeat    immediate recursion 100000 deep (folded into one entry)
 *   longjmp   longjmp out of 50 instrumented frames, 1000 times
 *   signals   a 5 kHz SIGPROF handler runs instrumented code while main recurses
 * Every mode prints what it did; after main returns every stack must be empty again.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static volatile long sink;

int pong(int n);
int ping(int n) {
  return n == 0 ? 0 : pong(n - 1) + 1;
}
int pong(int n) {
  return n == 0 ? 0 : ping(n - 1) + 1;
}

long repeat(long n) {
  return n == 0 ? 0 : repeat(n - 1) + 1;
}

static jmp_buf escape;
void dive(int n) {
  if (n < 0) return;
  if (n == 0) longjmp(escape, 1);
  dive(n - 1);
  sink++;
}
void jump_from_depth(void) {
  if (setjmp(escape) == 0) dive(50);
}

static volatile long ticks_handled;
void on_tick_work(int n) {
  sink += n;
}
void on_tick(int sig) {
  (void)sig;
  on_tick_work(1);
  ticks_handled++;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "deep";
  if (strcmp(mode, "deep") == 0) {
    printf("depth=%d\n", ping(2000));
  } else if (strcmp(mode, "repeat") == 0) {
    printf("depth=%ld\n", repeat(100000));
  } else if (strcmp(mode, "longjmp") == 0) {
    for (int i = 0; i < 1000; i++) jump_from_depth();
    printf("jumps=1000\n");
  } else if (strcmp(mode, "signals") == 0) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_tick;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);
    struct itimerval timer = {{0, 200}, {0, 200}};
    setitimer(ITIMER_PROF, &timer, NULL);
    // ITIMER_PROF counts processor time at the kernel's tick: on a busy machine 0.5 s of
    // wall time may bring fewer ticks than the test wants, so run on until it has them.
    const double start = now_s();
    long rounds = 0;
    while (now_s() < start + 0.5 || (ticks_handled < 200 && now_s() < start + 10)) {
      ping(20);
      repeat(20);
      rounds++;
    }
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &off, NULL);
    printf("ticks=%ld\n", ticks_handled);
    printf("rounds=%ld\n", rounds);
  }
  return 0;
}

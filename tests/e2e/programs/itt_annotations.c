/* A program annotated with Intel's ITT API as ittnotify's static part would do it: it loads
 * the collector named in INTEL_LIBITTNOTIFY64, hands it a table of entry points
 * (__itt_api_init) and calls through the pointers the collector filled, the others left at
 * stubs. Two threads, each named "annotated worker", take a lock of their own making (a
 * flag they spin on) 50 times each, announced as the sync object "jobs_lock": prepare,
 * acquired, and releasing around 1 ms of work inside.
 *
 * Prints collector=loaded|none, filled=N (entry points the collector filled),
 * acquisitions=100, held_s (the time inside, summed, by the program's clock).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The layout ittnotify's static part hands a collector (Linux, x86-64). */
#pragma pack(push, 8)
struct api_info {
  const char* name;
  void** function;
  void* init_function;
  void* null_function;
  int group;
};
struct itt_global {
  unsigned char magic[8];
  unsigned long version_major, version_minor, version_build;
  volatile long api_initialized, mutex_initialized, atomic_counter;
  pthread_mutex_t mutex;
  void* library;
  void* error_handler;
  const char** dll_path;
  struct api_info* api_list;
  struct itt_global* next;
};
#pragma pack(pop)

enum { kGroupThread = 1 << 2, kGroupSync = 1 << 4, kGroupMark = 1 << 3 };

static void stub_name(const char* name) {
  (void)name;
}
static void stub_create(void* o, const char* t, const char* n, int a) {
  (void)o, (void)t, (void)n, (void)a;
}
static void stub_object(void* o) {
  (void)o;
}
static int stub_mark_create(const char* n) {
  (void)n;
  return 0;
}

static void (*thread_set_name)(const char*) = stub_name;
static void (*sync_create)(void*, const char*, const char*, int) = stub_create;
static void (*sync_prepare)(void*) = stub_object;
static void (*sync_acquired)(void*) = stub_object;
static void (*sync_releasing)(void*) = stub_object;
static int (*mark_create)(const char*) = stub_mark_create; /* no collector fills it */

#define ENTRY(name, stub, group) \
  { "__itt_" #name, (void**)&name, (void*)stub, (void*)stub, group }
static struct api_info api[] = {
    ENTRY(thread_set_name, stub_name, kGroupThread),
    ENTRY(sync_create, stub_create, kGroupSync),
    ENTRY(sync_prepare, stub_object, kGroupSync),
    ENTRY(sync_acquired, stub_object, kGroupSync),
    ENTRY(sync_releasing, stub_object, kGroupSync),
    ENTRY(mark_create, stub_mark_create, kGroupMark),
    {NULL, NULL, NULL, NULL, 0},
};
static struct itt_global global = {.api_list = api};

static atomic_int jobs_lock;
static double held_s;
static long acquisitions;

static double now_s(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void* worker(void* arg) {
  (void)arg;
  thread_set_name("annotated worker");
  for (int i = 0; i < 50; i++) {
    sync_prepare(&jobs_lock);
    int expected = 0;
    while (!atomic_compare_exchange_weak(&jobs_lock, &expected, 1)) expected = 0;
    sync_acquired(&jobs_lock);
    const double entered = now_s(CLOCK_MONOTONIC), cpu = now_s(CLOCK_THREAD_CPUTIME_ID);
    while (now_s(CLOCK_THREAD_CPUTIME_ID) - cpu < 0.001) {
    }
    held_s += now_s(CLOCK_MONOTONIC) - entered;
    acquisitions++;
    sync_releasing(&jobs_lock);
    atomic_store(&jobs_lock, 0);
  }
  return NULL;
}

int main(void) {
  const char* path = getenv("INTEL_LIBITTNOTIFY64");
  void* collector = path ? dlopen(path, RTLD_LAZY) : NULL;
  void (*init)(struct itt_global*, int) =
      collector ? (void (*)(struct itt_global*, int))dlsym(collector, "__itt_api_init") : NULL;
  if (init) init(&global, -1);
  int filled = 0;
  for (struct api_info* a = api; a->name; a++) filled += *a->function != a->null_function;
  sync_create(&jobs_lock, "user lock", "jobs_lock", 2);
  pthread_t threads[2];
  for (int i = 0; i < 2; i++) pthread_create(&threads[i], NULL, worker, NULL);
  for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
  printf("collector=%s\nfilled=%d\nacquisitions=%ld\nheld_s=%.6f\n", init ? "loaded" : "none",
         filled, acquisitions, held_s);
  return 0;
}

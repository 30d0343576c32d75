/* An instrumented program with its own malloc family, serialised by a pthread mutex,
 * and an instrumented constructor that locks: the runtime resolves its symbols, and
 * the program allocates and locks, before any constructor of ours has run. Must neither
 * deadlock nor crash, and its mutex and allocator calls must be counted.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;
static char* heap;
static size_t heap_used;
static const size_t kHeapBytes = 256u << 20;

static void* bump(size_t n) {
  pthread_mutex_lock(&heap_lock);
  if (!heap)
    heap = mmap(NULL, kHeapBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  n = (n + 15) & ~(size_t)15;
  void* p = NULL;
  if (heap_used + n + 16 <= kHeapBytes) {
    *(size_t*)(heap + heap_used) = n;
    p = heap + heap_used + 16;
    heap_used += n + 16;
  }
  pthread_mutex_unlock(&heap_lock);
  return p;
}

void* malloc(size_t n) {
  return bump(n);
}
void* calloc(size_t count, size_t n) {
  return bump(count * n);
} /* mmap memory is zeroed */
void free(void* p) {
  (void)p;
}
void* realloc(void* p, size_t n) {
  void* q = bump(n);
  if (p && q) {
    size_t old = *(size_t*)((char*)p - 16);
    memcpy(q, p, old < n ? old : n);
  }
  return q;
}
void* memalign(size_t align, size_t n) {
  char* p = bump(n + align);
  return p ? (void*)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1)) : NULL;
}
int posix_memalign(void** out, size_t align, size_t n) {
  *out = memalign(align, n);
  return *out ? 0 : 12;
}
void* aligned_alloc(size_t align, size_t n) {
  return memalign(align, n);
}

static void* touched;
__attribute__((constructor)) void early_constructor(void) {
  touched = malloc(64);
}

void* worker(void* arg) {
  for (int i = 0; i < 100; i++) free(malloc(32));
  return arg;
}

int main(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  printf("touched=%d\n", touched != NULL);
  return touched ? 0 : 1;
}

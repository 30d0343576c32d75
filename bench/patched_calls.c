/* Calls of a procedure left after inlining, for hooks_bench: this file is compiled twice,
 * plain and with patched entries (-fpatchable-function-entry=15, bench/CMakeLists.txt),
 * its names suffixed by CALLS_SUFFIX. */
#define CALLS_NAME2(name, suffix) name##_##suffix
#define CALLS_NAME(name, suffix) CALLS_NAME2(name, suffix)

__attribute__((noinline)) void CALLS_NAME(leaf, CALLS_SUFFIX)(void) {
  __asm__ volatile("" ::: "memory");
}

/* n calls of the leaf from one caller, as a loop in a program makes them. */
__attribute__((noinline)) void CALLS_NAME(call_leaf, CALLS_SUFFIX)(long n) {
  for (long i = 0; i < n; i++) CALLS_NAME(leaf, CALLS_SUFFIX)();
}

__attribute__((noinline)) void CALLS_NAME(other_leaf, CALLS_SUFFIX)(void) {
  __asm__ volatile("" ::: "memory");
}

/* n calls from one caller to two leaves in turn, as a loop calling two procedures makes
 * them. */
__attribute__((noinline)) void CALLS_NAME(call_two_leaves, CALLS_SUFFIX)(long n) {
  for (long i = 0; i < n; i += 2) {
    CALLS_NAME(leaf, CALLS_SUFFIX)();
    CALLS_NAME(other_leaf, CALLS_SUFFIX)();
  }
}

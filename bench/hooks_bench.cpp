// Microbenchmarks of the hot paths, called through function pointers so that every
// variant pays the same call: Quartz's hooks against empty hooks, a call through a patched
// entry against a plain call, and Quartz's mutex wrappers against glibc's mutex functions.
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <pthread.h>

#include <cstdio>
#include <cstdlib>

namespace {

using Hook = void (*)(void*, void*);
using MutexFn = int (*)(pthread_mutex_t*);

struct Functions {
  Hook quartz_enter, quartz_exit, empty_enter, empty_exit;
  MutexFn quartz_lock, quartz_unlock, libc_lock, libc_unlock;
};

void* must(void* p, const char* what) {
  if (!p) {
    std::fprintf(stderr, "hooks_bench: cannot find %s: %s\n", what, dlerror());
    std::exit(2);
  }
  return p;
}

const Functions& functions() {
  static const Functions f = [] {
    Functions f{};
    // Linked first, libquartz's definitions are the defaults.
    f.quartz_enter = reinterpret_cast<Hook>(
        must(dlsym(RTLD_DEFAULT, "__cyg_profile_func_enter"), "quartz enter"));
    f.quartz_exit =
        reinterpret_cast<Hook>(must(dlsym(RTLD_DEFAULT, "__cyg_profile_func_exit"), "quartz exit"));
    f.quartz_lock =
        reinterpret_cast<MutexFn>(must(dlsym(RTLD_DEFAULT, "pthread_mutex_lock"), "quartz lock"));
    f.quartz_unlock = reinterpret_cast<MutexFn>(
        must(dlsym(RTLD_DEFAULT, "pthread_mutex_unlock"), "quartz unlock"));
    void* empty = must(dlopen(QUARTZ_EMPTY_HOOKS, RTLD_NOW | RTLD_LOCAL), "empty hooks library");
    f.empty_enter =
        reinterpret_cast<Hook>(must(dlsym(empty, "__cyg_profile_func_enter"), "empty enter"));
    f.empty_exit =
        reinterpret_cast<Hook>(must(dlsym(empty, "__cyg_profile_func_exit"), "empty exit"));
    void* libc = must(dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD), "libc");
    f.libc_lock = reinterpret_cast<MutexFn>(must(dlsym(libc, "pthread_mutex_lock"), "libc lock"));
    f.libc_unlock =
        reinterpret_cast<MutexFn>(must(dlsym(libc, "pthread_mutex_unlock"), "libc unlock"));
    return f;
  }();
  return f;
}

__attribute__((noinline)) void procedure_a() {
  benchmark::ClobberMemory();
}
__attribute__((noinline)) void procedure_b() {
  benchmark::ClobberMemory();
}

void hook_pairs(benchmark::State& state, Hook enter, Hook exit) {
  void* a = reinterpret_cast<void*>(&procedure_a);
  void* b = reinterpret_cast<void*>(&procedure_b);
  enter(a, nullptr);  // a caller on the stack, as in a real program
  for (auto _ : state) {
    enter(b, nullptr);
    exit(b, nullptr);
  }
  exit(a, nullptr);
  state.SetItemsProcessed(state.iterations());
}

void BM_HookPair_Empty(benchmark::State& state) {
  hook_pairs(state, functions().empty_enter, functions().empty_exit);
}
void BM_HookPair_Quartz(benchmark::State& state) {
  hook_pairs(state, functions().quartz_enter, functions().quartz_exit);
}
BENCHMARK(BM_HookPair_Empty)->Threads(1)->Threads(2);
BENCHMARK(BM_HookPair_Quartz)->Threads(1)->Threads(2);

// Recursion folded into one entry: enter/exit of the procedure already on top.
void BM_HookPair_QuartzRepeat(benchmark::State& state) {
  const Functions& f = functions();
  void* a = reinterpret_cast<void*>(&procedure_a);
  f.quartz_enter(a, nullptr);
  for (auto _ : state) {
    f.quartz_enter(a, nullptr);
    f.quartz_exit(a, nullptr);
  }
  f.quartz_exit(a, nullptr);
}
BENCHMARK(BM_HookPair_QuartzRepeat);

// A call of a procedure whose entry the runtime patched (the default mode), against the same
// call without: entry trampoline, return address taken, return trampoline. Per call.
extern "C" void call_leaf_patched(long n);
extern "C" void call_leaf_plain(long n);
constexpr long kCallsPerIteration = 1000;

void calls(benchmark::State& state, void (*call_leaf)(long)) {
  for (auto _ : state) call_leaf(kCallsPerIteration);
  state.SetItemsProcessed(state.iterations() * kCallsPerIteration);
}
void BM_Call_Plain(benchmark::State& state) {
  calls(state, call_leaf_plain);
}
void BM_Call_Patched(benchmark::State& state) {
  calls(state, call_leaf_patched);
}
BENCHMARK(BM_Call_Plain)->Threads(1)->Threads(2);
BENCHMARK(BM_Call_Patched)->Threads(1)->Threads(2);

// A loop calling two procedures in turn: each call's edge is not the one its caller's entry
// counted last.
extern "C" void call_two_leaves_patched(long n);
extern "C" void call_two_leaves_plain(long n);
void BM_CallTwoCallees_Plain(benchmark::State& state) {
  calls(state, call_two_leaves_plain);
}
void BM_CallTwoCallees_Patched(benchmark::State& state) {
  calls(state, call_two_leaves_patched);
}
BENCHMARK(BM_CallTwoCallees_Plain);
BENCHMARK(BM_CallTwoCallees_Patched);

pthread_mutex_t g_shared = PTHREAD_MUTEX_INITIALIZER;

void mutex_pairs(benchmark::State& state, MutexFn lock, MutexFn unlock, bool shared) {
  pthread_mutex_t own = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_t* m = shared ? &g_shared : &own;
  for (auto _ : state) {
    lock(m);
    benchmark::ClobberMemory();
    unlock(m);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_MutexPair_Libc(benchmark::State& state) {
  mutex_pairs(state, functions().libc_lock, functions().libc_unlock, false);
}
void BM_MutexPair_Quartz(benchmark::State& state) {
  mutex_pairs(state, functions().quartz_lock, functions().quartz_unlock, false);
}
void BM_MutexPairShared_Libc(benchmark::State& state) {
  mutex_pairs(state, functions().libc_lock, functions().libc_unlock, true);
}
void BM_MutexPairShared_Quartz(benchmark::State& state) {
  mutex_pairs(state, functions().quartz_lock, functions().quartz_unlock, true);
}
BENCHMARK(BM_MutexPair_Libc)->Threads(1)->Threads(2);
BENCHMARK(BM_MutexPair_Quartz)->Threads(1)->Threads(2);
BENCHMARK(BM_MutexPairShared_Libc)->Threads(2);
BENCHMARK(BM_MutexPairShared_Quartz)->Threads(2);

}  // namespace

BENCHMARK_MAIN();

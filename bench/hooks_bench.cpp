// Microbenchmarks of the hot paths, called through function pointers so that every
// variant pays the same call: Quartz's hooks against empty hooks, a call through a patched
// entry against a plain call, and Quartz's lock wrappers (mutex, spinlock, rwlock) against
// the C library's own functions, in the same process.
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <pthread.h>

#include <cstdio>
#include <cstdlib>

namespace {

using Hook = void (*)(void*, void*);
using MutexFn = int (*)(pthread_mutex_t*);
using SpinFn = int (*)(pthread_spinlock_t*);
using RwlockFn = int (*)(pthread_rwlock_t*);

// A lock's functions, Quartz's wrappers or the C library's.
struct LockFunctions {
  MutexFn lock, unlock;
  SpinFn spin_lock, spin_unlock;
  RwlockFn read_lock, write_lock, rw_unlock;
};

struct Functions {
  Hook quartz_enter, quartz_exit, empty_enter, empty_exit;
  LockFunctions quartz, libc;
};

// `from`'s lock functions (RTLD_DEFAULT: libquartz's, linked first).
LockFunctions lock_functions(void* from, const char* whose) {
  auto find = [&](const char* name) {
    void* p = dlsym(from, name);
    if (!p) {
      std::fprintf(stderr, "hooks_bench: cannot find %s's %s: %s\n", whose, name, dlerror());
      std::exit(2);
    }
    return p;
  };
  return {reinterpret_cast<MutexFn>(find("pthread_mutex_lock")),
          reinterpret_cast<MutexFn>(find("pthread_mutex_unlock")),
          reinterpret_cast<SpinFn>(find("pthread_spin_lock")),
          reinterpret_cast<SpinFn>(find("pthread_spin_unlock")),
          reinterpret_cast<RwlockFn>(find("pthread_rwlock_rdlock")),
          reinterpret_cast<RwlockFn>(find("pthread_rwlock_wrlock")),
          reinterpret_cast<RwlockFn>(find("pthread_rwlock_unlock"))};
}

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
    f.quartz = lock_functions(RTLD_DEFAULT, "quartz");
    void* empty = must(dlopen(QUARTZ_EMPTY_HOOKS, RTLD_NOW | RTLD_LOCAL), "empty hooks library");
    f.empty_enter =
        reinterpret_cast<Hook>(must(dlsym(empty, "__cyg_profile_func_enter"), "empty enter"));
    f.empty_exit =
        reinterpret_cast<Hook>(must(dlsym(empty, "__cyg_profile_func_exit"), "empty exit"));
    f.libc = lock_functions(must(dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD), "libc"), "libc");
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

// lock(o), unlock(o) a pair, on each of `kObjects` objects in turn (the one object: the
// same each time).
template <size_t kObjects = 1, typename Lock>
void lock_pairs(benchmark::State& state, int (*lock)(Lock*), int (*unlock)(Lock*), Lock* objects) {
  size_t i = 0;
  for (auto _ : state) {
    lock(&objects[i]);
    benchmark::ClobberMemory();
    unlock(&objects[i]);
    if constexpr (kObjects > 1) i = (i + 1) % kObjects;
  }
  state.SetItemsProcessed(state.iterations());
}

void mutex_pairs(benchmark::State& state, const LockFunctions& f, bool shared) {
  pthread_mutex_t own = PTHREAD_MUTEX_INITIALIZER;
  lock_pairs(state, f.lock, f.unlock, shared ? &g_shared : &own);
}
void BM_MutexPair_Libc(benchmark::State& state) {
  mutex_pairs(state, functions().libc, false);
}
void BM_MutexPair_Quartz(benchmark::State& state) {
  mutex_pairs(state, functions().quartz, false);
}
void BM_MutexPairShared_Libc(benchmark::State& state) {
  mutex_pairs(state, functions().libc, true);
}
void BM_MutexPairShared_Quartz(benchmark::State& state) {
  mutex_pairs(state, functions().quartz, true);
}
BENCHMARK(BM_MutexPair_Libc)->Threads(1)->Threads(2);
BENCHMARK(BM_MutexPair_Quartz)->Threads(1)->Threads(2);
BENCHMARK(BM_MutexPairShared_Libc)->Threads(2);
BENCHMARK(BM_MutexPairShared_Quartz)->Threads(2);

void spin_pairs(benchmark::State& state, const LockFunctions& f) {
  pthread_spinlock_t own;
  pthread_spin_init(&own, PTHREAD_PROCESS_PRIVATE);
  lock_pairs(state, f.spin_lock, f.spin_unlock, &own);
}
void BM_SpinPair_Libc(benchmark::State& state) {
  spin_pairs(state, functions().libc);
}
void BM_SpinPair_Quartz(benchmark::State& state) {
  spin_pairs(state, functions().quartz);
}
BENCHMARK(BM_SpinPair_Libc);
BENCHMARK(BM_SpinPair_Quartz);

void rwlock_pairs(benchmark::State& state, const LockFunctions& f, bool write) {
  pthread_rwlock_t own = PTHREAD_RWLOCK_INITIALIZER;
  lock_pairs(state, write ? f.write_lock : f.read_lock, f.rw_unlock, &own);
}
void BM_RwlockReadPair_Libc(benchmark::State& state) {
  rwlock_pairs(state, functions().libc, false);
}
void BM_RwlockReadPair_Quartz(benchmark::State& state) {
  rwlock_pairs(state, functions().quartz, false);
}
void BM_RwlockWritePair_Libc(benchmark::State& state) {
  rwlock_pairs(state, functions().libc, true);
}
void BM_RwlockWritePair_Quartz(benchmark::State& state) {
  rwlock_pairs(state, functions().quartz, true);
}
BENCHMARK(BM_RwlockReadPair_Libc);
BENCHMARK(BM_RwlockReadPair_Quartz);
BENCHMARK(BM_RwlockWritePair_Libc);
BENCHMARK(BM_RwlockWritePair_Quartz);

// A lock-heavy program's pattern (PARSEC's dedup: a mutex per chunk): each pair on the next
// of 65,536 mutexes, more than a thread's table of objects counts before the process-wide
// one (2^8 by default). Last: after it, a new object of this thread is past its table too.
void many_mutex_pairs(benchmark::State& state, const LockFunctions& f) {
  constexpr size_t kMutexes = 65536;
  static pthread_mutex_t* mutexes = [] {
    auto* m = new pthread_mutex_t[kMutexes];
    for (size_t i = 0; i < kMutexes; ++i) pthread_mutex_init(&m[i], nullptr);
    return m;
  }();
  lock_pairs<kMutexes>(state, f.lock, f.unlock, mutexes);
}
void BM_MutexPairMany_Libc(benchmark::State& state) {
  many_mutex_pairs(state, functions().libc);
}
void BM_MutexPairMany_Quartz(benchmark::State& state) {
  many_mutex_pairs(state, functions().quartz);
}
BENCHMARK(BM_MutexPairMany_Libc);
BENCHMARK(BM_MutexPairMany_Quartz);

}  // namespace

BENCHMARK_MAIN();

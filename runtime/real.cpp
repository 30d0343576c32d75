#include "runtime/real.h"

#include <dlfcn.h>

namespace quartz::rt::real {

#define QUARTZ_DEFINE_REAL(name, version, bootstrap) decltype(::name)* name = bootstrap;
QUARTZ_REAL_FUNCTIONS(QUARTZ_DEFINE_REAL)
#undef QUARTZ_DEFINE_REAL

namespace {
template <typename F>
QUARTZ_NOINSTR F* lookup(const char* name, const char* version) {
  void* symbol = version ? dlvsym(RTLD_NEXT, name, version) : nullptr;
  if (!symbol) symbol = dlsym(RTLD_NEXT, name);
  return reinterpret_cast<F*>(symbol);
}
}  // namespace

bool resolve_real_functions() {
#define QUARTZ_RESOLVE(name, version, bootstrap) \
  if (auto* f = lookup<decltype(::name)>(#name, version)) name = f;
  QUARTZ_REAL_FUNCTIONS(QUARTZ_RESOLVE)
#undef QUARTZ_RESOLVE
  resolve_openmp_functions();
  return pthread_create && pthread_join && pthread_mutex_lock && pthread_mutex_unlock &&
         pthread_mutex_trylock && pthread_cond_wait && pthread_exit;
}

}  // namespace quartz::rt::real

// libquartz_itt.so: the ITT collector the runtimes load (INTEL_LIBITTNOTIFY64, which
// libquartz sets: runtime/itt_collector.cpp). A library of its own, not libquartz.so
// itself: a program this one starts inherits the variable and not the preload, and must
// not be profiled by loading it; here it finds no libquartz and leaves every notification
// off.
#include <dlfcn.h>

#include "runtime/itt_abi.h"

extern "C" __attribute__((visibility("default"))) void __itt_api_init(void* global,
                                                                      unsigned int groups) {
  using Init = void (*)(void*, unsigned int);
  if (auto init = reinterpret_cast<Init>(dlsym(RTLD_DEFAULT, "quartz_runtime_itt_init"))) {
    init(global, groups);
    return;
  }
  auto* runtime = static_cast<quartz::rt::itt::Global*>(global);
  if (runtime == nullptr || runtime->api_list == nullptr) return;
  for (quartz::rt::itt::ApiInfo* api = runtime->api_list; api->name != nullptr; ++api) {
    if (api->function != nullptr) *api->function = api->null_function;
  }
}

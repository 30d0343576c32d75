// The collector's side of Intel's ITT notification API (ittnotify), as the static part
// that oneTBB, libomp and programs built with ittnotify carry calls it (Linux, x86-64;
// ITT 3.18-3.20, one layout). Only what a collector reads or returns: the runtime hands
// its table of entry points to __itt_api_init, and the collector fills the pointers of
// those it implements. Names follow the API's, so that its documentation applies.
#pragma once

#include <cstdint>

namespace quartz::rt::itt {

#pragma pack(push, 8)
// What __itt_domain_create returns. A call that takes a domain is skipped while `flags`
// is 0; oneTBB sets it to 1 itself.
struct Domain {
  volatile int flags;
  const char* name;
  void* wide_name;
  int extra1;
  void* extra2;
  Domain* next;
};

// What __itt_string_handle_create returns: a name, given back by pointer (task names).
struct StringHandle {
  const char* text;
  void* wide_text;
  int extra1;
  void* extra2;
  StringHandle* next;
};

// An instance id (a task, a task group): passed by value.
struct Id {
  unsigned long long d1, d2, d3;
};

// One entry point of the runtime's table: its name ("__itt_sync_prepare"), the pointer the
// runtime calls through, and the stub to leave there when the collector has none.
struct ApiInfo {
  const char* name;
  void** function;
  void* init_function;
  void* null_function;
  int group;
};

// The runtime's state, of which a collector reads the table (ends at a null name).
struct Global {
  unsigned char magic[8];
  unsigned long version_major, version_minor, version_build;
  volatile long api_initialized, mutex_initialized, atomic_counter;
  unsigned char mutex[40];  // pthread_mutex_t
  void* library;
  void* error_handler;
  const char** dll_path;
  ApiInfo* api_list;
  Global* next;
};
#pragma pack(pop)
static_assert(sizeof(Domain) == 48 && sizeof(StringHandle) == 40 && sizeof(Id) == 24);
static_assert(__builtin_offsetof(Global, api_list) == 120);

// The groups an entry belongs to: the same names appear twice, once as `sync` and once as
// `fsync` (libomp calls both for one lock).
inline constexpr int kGroupSync = 1 << 4;
inline constexpr int kGroupFsync = 1 << 5;

using Caller = void*;  // __itt_caller: an opaque token

}  // namespace quartz::rt::itt

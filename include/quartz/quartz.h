/* Quartz public API, for C and C++.
 *
 * Mark busy-waiting that Quartz cannot see (your own spin loops), and give objects and
 * threads names for the report. Every call is a harmless no-op when the program runs
 * without the Quartz runtime: the functions are weak references, resolved only when
 * libquartz is preloaded or linked.
 */
#ifndef QUARTZ_QUARTZ_H
#define QUARTZ_QUARTZ_H

#ifdef __cplusplus
extern "C" {
#endif

/* Runtime entry points (weak: null when the runtime is absent). */
void quartz_runtime_spin_begin(const volatile void* object) __attribute__((weak));
void quartz_runtime_spin_end(const volatile void* object) __attribute__((weak));
void quartz_runtime_name_object(const volatile void* object, const char* name)
    __attribute__((weak));
void quartz_runtime_name_thread(const char* name) __attribute__((weak));

/* The calling thread busy-waits from spin_begin to the matching spin_end: the time counts
 * as spinning (DESIGN.md §2), charged to `object` (any address identifying what is
 * awaited; NULL charges the region to its call site). Regions may not nest. */
__attribute__((no_instrument_function, unused)) static inline void quartz_spin_begin(
    const volatile void* object) {
  if (quartz_runtime_spin_begin) quartz_runtime_spin_begin(object);
}
__attribute__((no_instrument_function, unused)) static inline void quartz_spin_end(
    const volatile void* object) {
  if (quartz_runtime_spin_end) quartz_runtime_spin_end(object);
}

/* Names a synchronization object (a mutex, condition, barrier... or any address given to
 * quartz_spin_begin) in reports; up to 47 bytes are kept. */
__attribute__((no_instrument_function, unused)) static inline void quartz_name_object(
    const volatile void* object, const char* name) {
  if (quartz_runtime_name_object) quartz_runtime_name_object(object, name);
}

/* Names the calling thread in reports (up to 15 bytes, as the kernel keeps). */
__attribute__((no_instrument_function, unused)) static inline void quartz_name_thread(
    const char* name) {
  if (quartz_runtime_name_thread) quartz_runtime_name_thread(name);
}

#ifdef __cplusplus
}
#endif

#endif /* QUARTZ_QUARTZ_H */

/* The floor for -finstrument-functions: hooks that do nothing. Quartz's hooks are
 * measured against these, preloaded or linked the same way. */
__attribute__((no_instrument_function)) void __cyg_profile_func_enter(void* fn, void* site) {
  (void)fn;
  (void)site;
}
__attribute__((no_instrument_function)) void __cyg_profile_func_exit(void* fn, void* site) {
  (void)fn;
  (void)site;
}

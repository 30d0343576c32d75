# quartz_instrument(target): builds `target` with -finstrument-functions so Quartz sees its
# procedures, and with -g so it can name them by file and line (a Release build has no -g;
# -g changes no generated code). Link libquartz too (instead of preloading) with LINK_RUNTIME.
function(quartz_instrument target)
  cmake_parse_arguments(ARG "LINK_RUNTIME" "" "" ${ARGN})
  target_compile_options(${target} PRIVATE -finstrument-functions -g)
  if(ARG_LINK_RUNTIME)
    target_link_libraries(${target} PRIVATE quartz)
  endif()
endfunction()

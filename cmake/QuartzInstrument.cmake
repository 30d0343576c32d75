# Instrumenting a target for Quartz, in this source tree and from the installed package
# (QuartzConfig.cmake includes this file).
#
#   quartz_instrument(target [LINK_RUNTIME] [KEEP_SYSTEM] [MODE patch|hooks|inlined])
#   target_link_libraries(target PRIVATE Quartz::instrument)   # the same flags, as a target
#
# Builds `target` so that Quartz sees its procedures' entries and exits, and with -g so it
# can name them by file and line (a Release build has no -g; -g changes no generated code).
# MODE (default: QUARTZ_INSTRUMENT_MODE, itself patch by default) chooses how:
#   patch    -fpatchable-function-entry: every function left after inlining gets an entry
#            the runtime patches while the program runs (docs/user-guide.md, section 1);
#            gcc assembles through QUARTZ_GCC_AS_DIR's `as` (compiler_hooks/gcc_as/as);
#   hooks    the compiler's hooks: clang's after inlining
#            (-finstrument-functions-after-inlining); gcc's in every function, inlined ones
#            too (-finstrument-functions: gcc has no after-inlining mode);
#   inlined  the compiler's hooks in every function, inlined ones too (INLINED, the older
#            spelling, means this).
# LINK_RUNTIME also links libquartz (Quartz::runtime) instead of preloading it.

# Once per directory: Quartz::instrument, like the package's imported targets, is seen in the
# directory that found the package and below it.
include_guard(DIRECTORY)

set(QUARTZ_INSTRUMENT_MODE patch CACHE STRING
    "How Quartz sees procedures by default: patch, hooks or inlined")
set_property(CACHE QUARTZ_INSTRUMENT_MODE PROPERTY STRINGS patch hooks inlined)

# With the compiler's hooks, code from these directories gets none unless KEEP_SYSTEM: the C
# library's and the C++ standard library's headers, and the compilers' own, so that inlined
# std:: code costs nothing. gcc matches them as substrings of each function's file. The
# wrappers quartz-cc and quartz-c++ are configured from this same list.
function(quartz_system_header_dirs out_var)
  set(${out_var} /usr/include/ /usr/lib/gcc/ /usr/lib/llvm- PARENT_SCOPE)
endfunction()

# The compile options of an instrumented target, generator expressions included:
#   quartz_instrument_options(OUT_VAR [KEEP_SYSTEM] [MODE mode])
# clang has no exclusion list; after inlining, inlined system headers' code has no hooks.
function(quartz_instrument_options out_var)
  cmake_parse_arguments(ARG "KEEP_SYSTEM;INLINED" "MODE" "" ${ARGN})
  set(mode ${QUARTZ_INSTRUMENT_MODE})
  if(ARG_MODE)
    set(mode ${ARG_MODE})
  endif()
  if(ARG_INLINED)
    set(mode inlined)
  endif()
  set(is_gcc "$<OR:$<COMPILE_LANG_AND_ID:C,GNU>,$<COMPILE_LANG_AND_ID:CXX,GNU>>")
  if(mode STREQUAL "patch")
    # gcc assembles through compiler_hooks/gcc_as/as, which puts each entry's record with
    # its function (gcc 12 cannot link C++ otherwise).
    set(${out_var} -fpatchable-function-entry=15 -g "$<${is_gcc}:-B${QUARTZ_GCC_AS_DIR}/>"
        PARENT_SCOPE)
    return()
  elseif(mode STREQUAL "inlined")
    set(options -finstrument-functions -g)
  elseif(mode STREQUAL "hooks")
    set(options "$<IF:${is_gcc},-finstrument-functions,-finstrument-functions-after-inlining>"
                -g)
  else()
    message(FATAL_ERROR "quartz_instrument: MODE ${mode}: expected patch, hooks or inlined")
  endif()
  if(NOT ARG_KEEP_SYSTEM)
    quartz_system_header_dirs(dirs)
    list(JOIN dirs "$<COMMA>" excluded)
    list(APPEND options "$<${is_gcc}:-finstrument-functions-exclude-file-list=${excluded}>")
  endif()
  set(${out_var} ${options} PARENT_SCOPE)
endfunction()

function(quartz_instrument target)
  cmake_parse_arguments(ARG "LINK_RUNTIME;KEEP_SYSTEM;INLINED" "MODE" "" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "quartz_instrument: unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  set(flags)
  if(ARG_KEEP_SYSTEM)
    list(APPEND flags KEEP_SYSTEM)
  endif()
  if(ARG_INLINED)
    list(APPEND flags INLINED)
  endif()
  if(ARG_MODE)
    list(APPEND flags MODE ${ARG_MODE})
  endif()
  quartz_instrument_options(options ${flags})
  target_compile_options(${target} PRIVATE ${options})
  if(ARG_LINK_RUNTIME)
    target_link_libraries(${target} PRIVATE Quartz::runtime)
  endif()
endfunction()

if(NOT TARGET Quartz::instrument)
  add_library(Quartz::instrument INTERFACE IMPORTED)
  quartz_instrument_options(quartz_default_options)
  set_target_properties(Quartz::instrument PROPERTIES
                        INTERFACE_COMPILE_OPTIONS "${quartz_default_options}")
  unset(quartz_default_options)
endif()

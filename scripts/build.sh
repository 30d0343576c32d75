#!/bin/sh
# Configures and builds Quartz into a build directory, Release unless told otherwise.
#   scripts/build.sh [BUILD_DIR] [CMAKE_ARGS...]      (default: build)
#   QUARTZ_TARGETS="a b" scripts/build.sh ...          builds only those targets
# Warnings are errors here (the README's commands and CI), not in a user's own cmake build.
set -eu
cd "$(dirname "$0")/.."
dir=${1:-build}
[ $# -gt 0 ] && shift
# A compiler cache when there is one (scripts/install-deps.sh installs it): a tree built
# before from the same checkout is rebuilt from it. No CCACHE_BASEDIR: it makes the
# compilers' paths relative, and with them __FILE__ and the debug information's file names,
# which the symbolizer's tests hold against each other.
# Depend mode: a miss compiles once, without running the preprocessor first (the compiler's
# own -MD list of headers is what a later hit checks), so a cold cache costs little.
launcher=""
if command -v ccache >/dev/null 2>&1; then
  launcher="-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
  export CCACHE_DEPEND=1
fi
# shellcheck disable=SC2086
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DQUARTZ_WERROR=ON $launcher "$@" >/dev/null
targets=""
for t in ${QUARTZ_TARGETS:-}; do targets="$targets --target $t"; done
# shellcheck disable=SC2086
cmake --build "$dir" -j "$(nproc)" $targets

#!/bin/sh
# Configures and builds Quartz into a build directory.
#   scripts/build.sh [BUILD_DIR] [CMAKE_ARGS...]      (default: build, RelWithDebInfo)
# Warnings are errors here (the README's commands and CI), not in a user's own cmake build.
set -eu
cd "$(dirname "$0")/.."
dir=${1:-build}
[ $# -gt 0 ] && shift
cmake -S . -B "$dir" -G Ninja -DQUARTZ_WERROR=ON "$@" >/dev/null
cmake --build "$dir" -j "$(nproc)"

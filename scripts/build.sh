#!/bin/sh
# Configures and builds Quartz into a build directory.
#   scripts/build.sh [BUILD_DIR] [CMAKE_ARGS...]      (default: build, RelWithDebInfo)
set -eu
cd "$(dirname "$0")/.."
dir=${1:-build}
[ $# -gt 0 ] && shift
cmake -S . -B "$dir" -G Ninja "$@" >/dev/null
cmake --build "$dir" -j "$(nproc)"

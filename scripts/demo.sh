#!/bin/sh
# The main job: installs what is missing, builds, runs a bundled threaded sample under the
# Quartz runtime and prints what the runtime saw.
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh build
echo "== lock_contention under libquartz (4 threads, one hot lock) =="
QUARTZ_SUMMARY=- LD_PRELOAD="$PWD/build/lib/libquartz.so" build/samples/lock_contention

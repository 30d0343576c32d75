#!/bin/sh
# The clang ASan+UBSan tree, build-asan/: every test but the viewer's, and the readers'
# fuzz targets (fuzz/, run by scripts/fuzz.sh). One definition for test.sh and fuzz.sh.
#   QUARTZ_TARGETS="a b" scripts/build-asan.sh      builds only those targets
set -eu
cd "$(dirname "$0")/.."
CC=clang CXX=clang++ ./scripts/build.sh build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_UNITY_BUILD=ON \
  -DQUARTZ_SANITIZE=address -DQUARTZ_FUZZ=ON -DQUARTZ_BUILD_BENCH=OFF -DQUARTZ_BUILD_VIEWER=OFF \
  -DQUARTZ_INSTRUMENT_MODE=hooks

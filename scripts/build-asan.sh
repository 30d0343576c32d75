#!/bin/sh
# The clang ASan+UBSan tree, build-asan/: every test but the viewer's, and the readers'
# fuzz targets (fuzz/, run by scripts/fuzz.sh). One definition for test.sh and fuzz.sh.
#   QUARTZ_TARGETS="a b" scripts/build-asan.sh      builds only those targets
# At -O1, as ASan's authors advise: in CI on a slow 2-processor machine its tests ran 380 s
# at -O0 and 119 s at -O1, for 83 s more of compile; and -O1 found an unset bool that -O0
# read as false. Line tables are all a sanitizer's report and the symbolizer's tests need:
# a cold build took 255 s against 290 s with full debug information.
set -eu
cd "$(dirname "$0")/.."
CC=clang CXX=clang++ ./scripts/build.sh build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_UNITY_BUILD=ON \
  -DCMAKE_UNITY_BUILD_BATCH_SIZE=32 -DQUARTZ_SANITIZE=address -DQUARTZ_FUZZ=ON -DQUARTZ_BUILD_BENCH=OFF \
  -DQUARTZ_BUILD_VIEWER=OFF \
  -DQUARTZ_INSTRUMENT_MODE=hooks -DCMAKE_C_FLAGS_DEBUG="-gline-tables-only -O1" \
  -DCMAKE_CXX_FLAGS_DEBUG="-gline-tables-only -O1"

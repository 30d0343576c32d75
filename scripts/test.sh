#!/bin/sh
# Installs what is missing, builds, and runs every test: the release build (unit and
# end-to-end), an ASan+UBSan build (unit and end-to-end) and a TSan build (unit and
# offline-library tests: TSan cannot host the preloaded runtime's interposition; the viewer
# is single-threaded Qt code, tested in the other two).
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
jobs=$(nproc)

./scripts/build.sh build
# The profile tests measure time: let the kernel write the build out before they run.
sync
ctest --test-dir build -j "$jobs" --output-on-failure

./scripts/build.sh build-asan -DQUARTZ_SANITIZE=address -DQUARTZ_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=Debug
sync
# The preloaded runtime comes before the program's own ASan runtime in the library list.
ASAN_OPTIONS=verify_asan_link_order=0 \
  ctest --test-dir build-asan -j "$jobs" --output-on-failure

./scripts/build.sh build-tsan -DQUARTZ_SANITIZE=thread -DQUARTZ_BUILD_BENCH=OFF -DQUARTZ_BUILD_VIEWER=OFF
ctest --test-dir build-tsan -L "unit|profile" -j "$jobs" --output-on-failure
echo "all tests passed"

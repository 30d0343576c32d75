#!/bin/sh
# Installs what is missing, builds, and runs every test, with both compilers:
#   build/       gcc, Release as users build it: every test, the accuracy tests (figures held
#                against the programs' own clocks, label "accuracy") one at a time after the
#                functional ones, at most two of them skipped; benchmarks built, not run;
#                then the smallest of the real programs (bench/real_programs.py);
#   build-clang/ clang, Release as users build it: the end-to-end and install tests (programs
#                built by clang through quartz-cc, the runtime and sampler as clang optimizes
#                them); the layers' own tests run under clang in build-asan/, and neither the
#                viewer nor the benchmarks are built;
#   build-asan/  clang, ASan+UBSan, procedures seen through the compiler's hooks (the Release
#                tree sees them through patched entries): the functional tests but the
#                viewer's (single-threaded Qt code), then a short run of the readers'
#                fuzzers, built in the same tree (scripts/fuzz.sh);
#   build-tsan/  clang, TSan: the runtime's, the sampler's and the offline analysis's unit
#                tests (TSan cannot host the preloaded runtime's interposition; the analysis
#                replays a trace's configurations on several threads).
# All four are unity builds (CMAKE_UNITY_BUILD, batches of 32 files), which more than halves
# their compile time; the sampler is compiled file by file in each (sampler/CMakeLists.txt).
# Warnings are errors in all three (scripts/build.sh); every C and C++ file is formatted by
# .clang-format (scripts/check-format.sh).
set -eu
cd "$(dirname "$0")/.."
started=$(date +%s)
# Each stage's end and the time so far (docs/performance.md "CI time" is read from these).
stage_done() { echo "test.sh: $1 done at $(($(date +%s) - started)) s"; }
./scripts/install-deps.sh
./scripts/check-format.sh
stage_done "install and format checks"
jobs=$(nproc)
# Unity batches of 32 files: a cold release build took 230 s against 339 s in batches of 8.
unity="-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=32"

./scripts/build.sh build $unity
stage_done "release build"
# The profile tests measure time: let the kernel write the build out before they run.
sync
./scripts/run-tests.sh build -j "$jobs" -LE accuracy
./scripts/run-tests.sh build --max-skips 2 -L accuracy
stage_done "release tests"
# A real program (bench/real_programs.py --smallest: pbzip2 from Debian's archive) built
# plain and instrumented: its output unchanged under `quartz run`, and the run's figures
# possible (`quartz check`).
python3 bench/real_programs.py --build build --smallest
stage_done "real program"

CC=clang CXX=clang++ ./scripts/build.sh build-clang $unity -DQUARTZ_BUILD_BENCH=OFF \
  -DQUARTZ_BUILD_VIEWER=OFF -DQUARTZ_BUILD_UNIT_TESTS=OFF
stage_done "clang release build"
sync
./scripts/run-tests.sh build-clang -j "$jobs" -LE accuracy
stage_done "clang release tests"

./scripts/build-asan.sh
stage_done "ASan build"
sync
# The preloaded runtime comes before the program's own ASan runtime in the library list.
ASAN_OPTIONS=verify_asan_link_order=0 ./scripts/run-tests.sh build-asan -j "$jobs" -LE accuracy
stage_done "ASan tests"
./scripts/fuzz.sh  # 20 s, the three readers at once (docs/performance.md "Fuzzing")
stage_done "fuzzing"

CC=clang CXX=clang++ QUARTZ_TARGETS="support_tests runtime_tests sampler_tests analysis_tests" \
  ./scripts/build.sh build-tsan $unity -DQUARTZ_SANITIZE=thread -DQUARTZ_BUILD_BENCH=OFF \
  -DQUARTZ_BUILD_VIEWER=OFF
# Only those four are built: -L unit leaves out the other test programs' not-built markers.
./scripts/run-tests.sh build-tsan -L unit -j "$jobs"
stage_done "TSan build and tests"
echo "all tests passed"

#!/bin/sh
# Fuzzes what Quartz reads from disk: captures, traces and stores (fuzz/, libFuzzer).
#   scripts/fuzz.sh [SECONDS]      the three targets at once for SECONDS (default 20; CI
#                                  runs the default)
# Builds the targets in the clang ASan tree, build-asan/ (scripts/build-asan.sh), makes a
# seed corpus from two sample runs (build/'s quartz and samples: built here if missing) and
# runs the targets on it. New inputs the fuzzer finds are kept in build-asan/corpus/TARGET,
# so a later run goes on from there; a crash leaves its input in build-asan/crash-* and
# fails the script.
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-20}

if ! [ -x build/bin/quartz ] || ! [ -x build/samples/lock_contention ] ||
  ! [ -x build/samples/pipeline ] || ! [ -x build/tests/e2e/abrupt_end ]; then
  # A new build/ without the viewer (no Qt needed); an existing one keeps its options.
  options=""
  [ -f build/CMakeCache.txt ] || options="-DQUARTZ_BUILD_VIEWER=OFF -DQUARTZ_BUILD_BENCH=OFF"
  # shellcheck disable=SC2086
  QUARTZ_TARGETS="quartz_cli quartz lock_contention pipeline abrupt_end" ./scripts/build.sh build $options
fi
QUARTZ_TARGETS=fuzzers ./scripts/build-asan.sh

# Seeds: a mutex sample's and a condition-variable sample's capture and trace, short runs.
seeds=build-asan/seeds
rm -rf "$seeds"
mkdir -p "$seeds/capture_fuzzer" "$seeds/trace_reader_fuzzer" "$seeds/store_fuzzer"
run_sample() {  # NAME ARGS...
  name=$1
  shift
  build/bin/quartz run -q --trace --no-import -o "$seeds/$name.capture" -- \
    "build/samples/$name" "$@" >/dev/null
  cp "$seeds/$name.capture" "$seeds/capture_fuzzer/$name"
  cp "$seeds/$name.capture.trace" "$seeds/trace_reader_fuzzer/$name"
  # store_fuzzer.cpp's input: u32 length, capture, u32 length, trace (little-endian).
  {
    u32le "$(wc -c <"$seeds/$name.capture")"
    cat "$seeds/$name.capture"
    u32le "$(wc -c <"$seeds/$name.capture.trace")"
    cat "$seeds/$name.capture.trace"
  } >"$seeds/store_fuzzer/$name"
}
u32le() {
  # shellcheck disable=SC2059  # the format is the bytes
  printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $(($1 & 255)) $(($1 >> 8 & 255)) \
    $(($1 >> 16 & 255)) $(($1 >> 24 & 255)))"
}
run_sample lock_contention --threads 3 --iterations 200
run_sample pipeline --items 100 --item-us 200
# An amended capture (capture_format.h, amended_*): 1,000 mutexes make one too big to
# publish every 0.5 ms period, and a SIGKILL leaves quartz run the log to move in.
build/bin/quartz run -q --no-import --period-us 500 -o "$seeds/amended.capture" -- \
  build/tests/e2e/abrupt_end kill 200 1000 >/dev/null 2>&1 || true
cp "$seeds/amended.capture" "$seeds/capture_fuzzer/amended"

# The three at once: each gets two thirds of a 2-processor machine for the time given.
targets="capture_fuzzer trace_reader_fuzzer store_fuzzer"
for target in $targets; do
  mkdir -p "build-asan/corpus/$target"
  # A damaged length must not cost a reader a gigabyte, nor any input 10 s.
  # The tree's shared ASan runtime comes after libFuzzer's C++ library in the list.
  (cd build-asan && ASAN_OPTIONS=verify_asan_link_order=0 exec "bin/$target" -max_total_time="$seconds" -rss_limit_mb=1024 \
    -timeout=10 -print_final_stats=1 "corpus/$target" "seeds/$target" 2>"$target.log") &
  eval "pid_$target=$!"
done
echo "fuzzing $targets for ${seconds}s"
failed=""
for target in $targets; do
  if wait "$(eval echo "\$pid_$target")"; then
    printf '%s: ' "$target"
    grep -E 'stat::number_of_executed_units|stat::new_units_added' "build-asan/$target.log" |
      tr '\n' ' '
    echo
  else
    tail -n 60 "build-asan/$target.log"
    echo "$target failed: build-asan/$target.log" >&2
    failed="$failed $target"
  fi
done
[ -z "$failed" ] || exit 1
echo "fuzzing found nothing"

#!/usr/bin/env bash
# Time to result (issue 13 item 5): what `quartz run` adds to the program's own wall time
# beyond the runtime's dilation, i.e. its start, the wait for the capture, symbolising and
# the import into a store. Each sample run under the runtime alone (LD_PRELOAD, writing
# the same capture), then under `quartz run` with the import; the difference of the
# medians of REPEAT runs is quartz run's own time.
#   bench/time_to_result.sh [BUILD_DIR]        (REPEAT=5)
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
repeat=${REPEAT:-5}
quartz=$build/bin/quartz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
now() { date +%s.%N; }
timed() { local t0 t1; t0=$(now); "$@" > /dev/null 2>&1; t1=$(now); echo "$t1 - $t0" | bc -l; }

echo "### Time to result (median of $repeat)"
echo
echo "| program | runtime alone | quartz run (store) | quartz run's own | capture |"
echo "|---|---:|---:|---:|---:|"
for s in serial_init lock_contention imbalance pipeline spin_vs_block io_wait client_server; do
  alone=() run=()
  for ((r = 0; r < repeat; r++)); do
    alone+=("$(timed env LD_PRELOAD="$build/lib/libquartz.so" QUARTZ_OUTPUT="$work/a.qcap" \
      "$build/samples/$s")")
    rm -f "$work/s.db"*
    run+=("$(timed "$quartz" run -q --store "$work/s.db" -o "$work/r.qcap" -- "$build/samples/$s")")
  done
  a=$(printf '%s\n' "${alone[@]}" | median)
  q=$(printf '%s\n' "${run[@]}" | median)
  printf '| %s | %.3f s | %.3f s | %.3f s | %d KB |\n' "$s" "$a" "$q" "$(echo "$q - $a" | bc -l)" \
    "$(($(stat -c %s "$work/r.qcap") / 1024))"
done

# The runtime's own start and end, which every run pays: an empty program built with the
# wrapper, run bare, under the runtime alone, and under quartz run without the import.
printf 'int main(void) { return 0; }\n' > "$work/empty.c"
"$build/bin/quartz-cc" -O2 -o "$work/empty" "$work/empty.c"
bare=() alone=() run=()
for ((r = 0; r < repeat; r++)); do
  bare+=("$(timed "$work/empty")")
  alone+=("$(timed env LD_PRELOAD="$build/lib/libquartz.so" QUARTZ_OUTPUT="$work/e.qcap" \
    "$work/empty")")
  run+=("$(timed "$quartz" run -q --no-import -o "$work/e.qcap" -- "$work/empty")")
done
echo
echo "| empty program | bare | runtime alone | quartz run --no-import |"
echo "|---|---:|---:|---:|"
printf '| wall time | %.1f ms | %.1f ms | %.1f ms |\n' \
  "$(printf '%s\n' "${bare[@]}" | median | awk '{print $1 * 1000}')" \
  "$(printf '%s\n' "${alone[@]}" | median | awk '{print $1 * 1000}')" \
  "$(printf '%s\n' "${run[@]}" | median | awk '{print $1 * 1000}')"

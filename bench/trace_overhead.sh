#!/usr/bin/env bash
# What tracing adds to a lock-heavy program (docs/performance.md): lock_loop's ns per
# lock/unlock pair profiled without and with --trace, the events the trace kept and
# dropped, events per second sustained per thread, and bytes per event on disk.
#
#   bench/trace_overhead.sh [BUILD_DIR]     (REPEAT=5 PAIRS=1000000 by default)
set -euo pipefail
build=${1:-build}
quartz=$build/bin/quartz
repeat=${REPEAT:-5}
pairs=${PAIRS:-1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
# trace_key CAPTURE KEY: events, dropped or bytes, from the report's JSON.
trace_key() { "$quartz" report --json "$1" | python3 -c "import json,sys; print(json.load(sys.stdin)['trace']['$2'])"; }

echo "### Tracing a lock loop (lock_loop: ${pairs} pairs per thread; median of ${repeat})"
echo
echo "| threads, mutex | capacity | ns/pair profiled | ns/pair traced | added | events kept | dropped | M events/s/thread | bytes/event |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for config in "1 own" "2 own" "2 shared"; do
  set -- $config
  for capacity in 16384 4194304; do
    plain=() traced=() kept=0 dropped=0 bytes=0
    for ((r = 0; r < repeat; r++)); do
      plain+=("$("$quartz" run -q --no-import -o "$work/p.qcap" -- "$build/bench/lock_loop" "$1" "$pairs" "$2")")
      traced+=("$("$quartz" run -q --no-import --trace --trace-capacity "$capacity" -o "$work/t.qcap" -- \
        "$build/bench/lock_loop" "$1" "$pairs" "$2")")
      kept=$(trace_key "$work/t.qcap" events)
      dropped=$(trace_key "$work/t.qcap" dropped)
      bytes=$(trace_key "$work/t.qcap" bytes)
    done
    p=$(printf '%s\n' "${plain[@]}" | median)
    t=$(printf '%s\n' "${traced[@]}" | median)
    awk -v c="$1 $2" -v cap="$capacity" -v p="$p" -v t="$t" -v k="$kept" -v d="$dropped" -v b="$bytes" \
      'BEGIN { printf "| %s | %d | %.1f | %.1f | %+.1f | %d | %d | %.1f | %.1f |\n", c, cap, p, t, t - p, k, d, 2000 / t, b / (k > 0 ? k : 1) }'
  done
done

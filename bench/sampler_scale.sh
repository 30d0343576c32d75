#!/usr/bin/env bash
# The sampler from 1 to 4,096 threads runnable at once (issue 39): a snapshot's walk over
# the threads, per thread, the period the schedule kept, the snapshots taken of those due,
# the sampler's whole processor time (publishing and its builder thread included) against
# the elapsed time, and the workers' processor time against their own CPU clocks.
# tests/e2e/programs/many_threads.c: N threads released at once, each computing until its
# own clock advanced CPU_US (about 3 s of processor time in all, at least 1 ms a thread).
# Then thread churn: 10,000 threads created and ended 1,000 at a time, against a plain run.
# Each figure is the median of REPEAT runs.
#   bench/sampler_scale.sh [BUILD_DIR]        (REPEAT=3, THREADS="1 16 64 256 1024 4096")
set -euo pipefail
build=${1:-build}
repeat=${REPEAT:-3}
counts=${THREADS:-"1 16 64 256 1024 4096"}
quartz=$build/bin/quartz
program=$build/tests/e2e/many_threads
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

echo "### The sampler by threads runnable at once (median of $repeat)"
echo
echo "| threads | walk per thread | period kept | snapshots taken of due | sampler CPU of elapsed | workers' processor time vs own clocks | elapsed vs plain |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for n in $counts; do
  cpu_us=$((3000000 / n))
  ((cpu_us < 1000)) && cpu_us=1000
  walk=() kept=() taken=() sampler=() error=() slow=()
  for ((r = 0; r < repeat; r++)); do
    plain=$("$program" "$n" "$cpu_us" | sed -n 's/^wall_ns=//p')
    out=$("$quartz" run -q --no-import -o "$work/m.qcap" -- "$program" "$n" "$cpu_us")
    "$quartz" report --json "$work/m.qcap" > "$work/m.json"
    read -r w k t s e d < <(python3 - "$work/m.json" "$out" "$plain" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
own = dict(l.split("=") for l in sys.argv[2].split())
s = r["sampling"]
workers = sum(t["processor_s"] for t in r["threads"] if t["index"] != 0)
print(1e6 * s["walk_s"] / max(1, s["thread_samples"]), 1e3 * s["period_kept_s"],
      100 * s["samples"] / max(1, s["snapshots_due"]), 100 * s["sampler_cpu_s"] / r["elapsed_s"],
      100 * (workers / (int(own["threads_cpu_ns"]) * 1e-9) - 1),
      int(own["wall_ns"]) / int(sys.argv[3]))
PY
)
    walk+=("$w") kept+=("$k") taken+=("$t") sampler+=("$s") error+=("$e") slow+=("$d")
  done
  printf '| %s | %.2f us | %.1f ms | %.0f%% | %.1f%% | %+.1f%% | x%.2f |\n' "$n" \
    "$(printf '%s\n' "${walk[@]}" | median)" "$(printf '%s\n' "${kept[@]}" | median)" \
    "$(printf '%s\n' "${taken[@]}" | median)" "$(printf '%s\n' "${sampler[@]}" | median)" \
    "$(printf '%s\n' "${error[@]}" | median)" "$(printf '%s\n' "${slow[@]}" | median)"
done

# Thread churn at scale: 10,000 threads of 1 ms of processor time each, created and ended
# 1,000 at a time (tests/e2e/programs/thread_churn.c), against a plain run.
churn=$build/tests/e2e/thread_churn
slow=()
for ((r = 0; r < repeat; r++)); do
  plain=$("$churn" 10000 1000 1000 | sed -n 's/^wall_ns=//p')
  profiled=$("$quartz" run -q --no-import -o "$work/c.qcap" -- "$churn" 10000 1000 1000 |
    sed -n 's/^wall_ns=//p')
  slow+=("$(echo "$profiled / $plain" | bc -l)")
done
echo
printf 'Thread churn (10,000 threads of 1 ms, 1,000 alive at a time): elapsed x%.2f of plain\n' \
  "$(printf '%s\n' "${slow[@]}" | median)"

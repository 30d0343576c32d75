#!/usr/bin/env bash
# Resolution against perturbation, by sampling period: what the default period is chosen
# from (DESIGN.md §3 "Sampler").
#   - slowdown: a CPU-bound program (imbalance: 2 threads, 0.3 s and 0.6 s of processor
#     time) under `quartz run --period-us P`, elapsed against a plain run;
#   - resolution: serial_init's serial share as measured (time with one processor busy)
#     against the program's own timing of its serial phase, in percentage points, and the
#     logging routine's normalized time against its processor time (it runs alone);
#   - the sampler's own processor time, % of elapsed.
# Each cell is the median of REPEAT runs.
#   bench/sampler_periods.sh [BUILD_DIR]        (REPEAT=5, PERIODS="100 250 500 1000 2000 5000")
set -euo pipefail
build=${1:-build}
repeat=${REPEAT:-5}
periods=${PERIODS:-"100 250 500 1000 2000 5000"}
quartz=$build/bin/quartz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
field() { grep "^$1=" | cut -d= -f2; }

plain=()
for ((r = 0; r < repeat; r++)); do
  plain+=("$("$build/samples/imbalance" --threads 2 --unit-ms 300 | field elapsed_s)")
done
plain_median=$(printf '%s\n' "${plain[@]}" | median)

echo "### Sampling period: resolution against perturbation (median of $repeat)"
echo
echo "| period | slowdown of a CPU-bound program | serial share error | log_message normalized / processor | sampler CPU |"
echo "|---:|---:|---:|---:|---:|"
for p in $periods; do
  slow=() err=() ratio=() cpu=()
  for ((r = 0; r < repeat; r++)); do
    e=$("$quartz" run -q --no-import -o "$work/i.qcap" --period-us "$p" -- \
          "$build/samples/imbalance" --threads 2 --unit-ms 300 | field elapsed_s)
    slow+=("$(echo "100 * ($e / $plain_median - 1)" | bc -l)")
    out=$("$quartz" run -q --no-import -o "$work/s.qcap" --period-us "$p" -- "$build/samples/serial_init")
    truth=$(echo "$(echo "$out" | field serial_s) / $(echo "$out" | field elapsed_s)" | bc -l)
    "$quartz" report --json "$work/s.qcap" > "$work/s.json"
    read -r measured log_ratio sampler < <(python3 - "$work/s.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
log = next(p for p in r["procedures"] if p["name"] == "log_message")
print(r["parallelism_s"][1] / r["elapsed_s"], log["normalized_s"] / max(log["processor_s"], 1e-9),
      100 * r["sampling"]["sampler_cpu_s"] / r["elapsed_s"])
PY
)
    err+=("$(echo "100 * ($measured - $truth)" | bc -l)")
    ratio+=("$log_ratio")
    cpu+=("$sampler")
  done
  printf '| %s us | %+.2f%% | %+.2f points | %.3f | %.2f%% |\n' "$p" \
    "$(printf '%s\n' "${slow[@]}" | median)" "$(printf '%s\n' "${err[@]}" | median)" \
    "$(printf '%s\n' "${ratio[@]}" | median)" "$(printf '%s\n' "${cpu[@]}" | median)"
done
echo
echo "plain imbalance run: ${plain_median} s"

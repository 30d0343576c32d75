#!/usr/bin/env bash
# How well the "one processor busy" share of serial_init matches the serial phase the
# program times itself (its serial_s / elapsed_s), over N runs under `quartz run`.
#   bench/serial_share.sh [BUILD_DIR] [RUNS]        (default: build, 10)
set -euo pipefail
build=${1:-build}
runs=${2:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "run  program_serial_share  quartz_one_busy_share  difference_points"
for i in $(seq "$runs"); do
  rm -f "$work/s.db"
  out=$("$build/bin/quartz" run -q --store "$work/s.db" -- "$build/samples/serial_init")
  "$build/bin/quartz" report --json --store "$work/s.db" >"$work/r.json"
  OUT="$out" python3 - "$work/r.json" "$i" <<'PY'
import json, os, re, sys
report = json.load(open(sys.argv[1]))
values = dict(re.findall(r"(\w+)=([\d.]+)", os.environ["OUT"]))
serial = float(values["serial_s"]) / float(values["elapsed_s"])
measured = report["parallelism_s"][1] / report["elapsed_s"]
print(f"{sys.argv[2]:>3}  {serial:20.3f}  {measured:21.3f}  {100 * (measured - serial):+17.1f}")
PY
done | tee "$work/rows"
awk 'NR>0 {print $4}' "$work/rows" | sort -g | awk '{v[NR]=$1} END {print "median " v[int((NR+1)/2)] " points, max " v[NR] " points"}'

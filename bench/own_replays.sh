#!/usr/bin/env bash
# How close programs replay their own recordings (issue 38 item 2): each is recorded REPEAT
# times with `quartz run --trace`, then `quartz predict --json` replays the recorded
# configuration as it ran (recorded_s: each processor less the sampler's share) and alone
# (base_s: what the what-ifs are compared with), each against the elapsed time the program
# prints (main's start to its end). Quiet machine; one line a recording, then the range.
#   bench/own_replays.sh [BUILD_DIR]   (REPEAT=6, PROGRAMS="producer_consumers thread_pool")
set -euo pipefail
build=${1:-build}
repeat=${REPEAT:-6}
programs=${PROGRAMS:-"producer_consumers thread_pool"}
quartz=$build/bin/quartz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for program in $programs; do
  for _ in $(seq "$repeat"); do
    rm -f "$work"/run.db*
    out=$("$quartz" run -q --trace --store "$work/run.db" -- "$build/tests/e2e/$program")
    elapsed=$(sed -n 's/^elapsed_s=//p' <<<"$out")
    "$quartz" predict --store "$work/run.db" --json --no-save |
      python3 -c '
import json, sys
p, own = json.load(sys.stdin), float(sys.argv[2])
print("%s own %.3f s  as recorded %+.1f%%  alone %+.1f%%  sampler %.1f%%  others %.1f%%" % (
    sys.argv[1], own, 100 * (p["recorded_s"] / own - 1), 100 * (p["base_s"] / own - 1),
    100 * p["sampler_share"], 100 * (p["other_share"] or 0)))' "$program" "$elapsed"
  done | tee "$work/lines"
  awk -v p="$program" '{sub("%", "", $7); v[NR] = $7 + 0}
    END {lo = hi = v[1]; for (i in v) {if (v[i] < lo) lo = v[i]; if (v[i] > hi) hi = v[i]}
         printf "%s: as recorded %+.1f to %+.1f%%\n", p, lo, hi}' "$work/lines"
done

#!/usr/bin/env bash
# The predictor on a trace of many objects (issue 9 item 8: 100,000 objects, 2,000,000
# events, under 2 s): tests/e2e/programs/many_objects.c takes 125,000 mutexes in four threads twice
# over (2,000,000 events), recorded with --trace; then `quartz predict --cores 1` (one grouping)
# and `quartz predict` (the recorded configuration and the critical path) are timed, with their
# peak memory (GNU time's %M, from wait4).
#   bench/predict_scale.sh [BUILD_DIR]        (ROUNDS=2 OBJECTS=125000)
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
rounds=${ROUNDS:-2}
objects=${OBJECTS:-125000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$build/bin/quartz" run -q --trace --trace-capacity 4194304 --store s.db -- \
  "$build/tests/e2e/many_objects" "$rounds" "$objects" > /dev/null
for question in "--cores 1" ""; do
  # shellcheck disable=SC2086
  /usr/bin/time -f "%e s, %M KB peak" -o time.txt \
    "$build/bin/quartz" predict $question --json --store s.db > p.json
  python3 - "$question" "$(cat time.txt)" <<'PY'
import json, sys
p = json.load(open("p.json"))
t = p["trace"]
print(f"quartz predict {sys.argv[1] or '(no question)'}: {t['events']} events, "
      f"{sys.argv[2]}")
PY
done

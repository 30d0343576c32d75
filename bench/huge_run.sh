#!/bin/sh
# Huge runs (issue 10 item 6): a capture of CONTEXTS calling contexts (default 8,100,000:
# the 1.07 GB capture of the issue; bench/huge_capture.cpp) imported, reported as text and
# as JSON, and opened by the viewer, each timed with its peak memory (GNU time's maximum
# resident set). Targets: import and report under 30 s and 1.5x the capture's size in
# memory; the viewer under 10 s and 2x. Figures in docs/performance.md "Huge runs".
#   bench/huge_run.sh [BUILD_DIR] [CONTEXTS]
set -eu
build=$(cd "${1:-build}" && pwd)
contexts=${2:-8100000}
work=$(mktemp -d /tmp/quartz-huge.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$build/bench/huge_capture" "$contexts" "$work/huge.qcap" >/dev/null
bytes=$(stat -c %s "$work/huge.qcap")
awk -v n="$contexts" -v b="$bytes" 'BEGIN { printf "capture: %d contexts, %.2f GB\n", n, b / 1e9 }'
printf '%-22s %9s %9s %9s\n' step seconds "peak GB" "x capture"
# Each step may map at most 6x the capture's size and 2 GB (never the whole machine): one
# beyond it fails, and says so, rather than pushing the machine into swap or the OOM killer.
limit_kb=$((bytes * 6 / 1024 + 2097152))  # and 2 GB for the libraries mapped (Qt)
measure() {
  name=$1
  shift
  (ulimit -v "$limit_kb" && /usr/bin/time -f '%e %M' -o "$work/time" "$@") >/dev/null \
    2>"$work/err" || {
    echo "$name failed under $((limit_kb / 1048576)) GB of address space: $(tail -1 "$work/err")"
    return 0
  }
  read -r seconds kb <"$work/time"
  awk -v name="$name" -v s="$seconds" -v kb="$kb" -v b="$bytes" \
    'BEGIN { printf "%-22s %9.1f %9.2f %9.2f\n", name, s, kb * 1024 / 1e9, kb * 1024 / b }'
}
measure "quartz import" "$build/bin/quartz" import --store "$work/huge.db" "$work/huge.qcap"
measure "quartz report" "$build/bin/quartz" report --store "$work/huge.db"
measure "quartz report --json" "$build/bin/quartz" report --json --store "$work/huge.db"
if [ -x "$build/bin/quartz-view" ]; then
  QT_QPA_PLATFORM=offscreen measure "quartz-view (shown)" "$build/bin/quartz-view" \
    "$work/huge.qcap" --screenshot "$work/view.png"
fi

#!/bin/sh
# Runs a build tree's tests with ctest and says which were skipped:
#   scripts/run-tests.sh BUILD_DIR [--max-skips N] [CTEST_ARGS...]
# A test skips itself when the machine cannot hold its figure (another process took the
# processors) or lacks what it needs (a tool, root, a second processor). Every skip is
# listed at the end; more than N (default: no limit) fail the run, so that a busy machine
# cannot pass the accuracy tests by skipping them.
set -eu
dir=$1
shift
max_skips=""
if [ "${1:-}" = "--max-skips" ]; then
  max_skips=$2
  shift 2
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
ctest --test-dir "$dir" --output-on-failure "$@" >"$log" 2>&1 || status=$?
cat "$log"
skipped=$(grep -E '^[[:space:]]+[0-9]+ - .* \(Skipped\)$' "$log" | sed 's/^[[:space:]]*[0-9]* - //' || true)
count=$(printf '%s' "$skipped" | grep -c . || true)
if [ "$count" -gt 0 ]; then
  echo "run-tests: $count skipped in $dir ($*):"
  printf '%s\n' "$skipped" | sed 's/^/  /'
fi
if [ "$status" -ne 0 ]; then exit "$status"; fi
if [ -n "$max_skips" ] && [ "$count" -gt "$max_skips" ]; then
  echo "run-tests: more than $max_skips skipped: their figures were not checked" >&2
  exit 1
fi

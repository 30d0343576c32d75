#!/usr/bin/env bash
# The store on a PostgreSQL server against the same runs in an SQLite file (issue 40): the
# time `quartz report` takes to read a run from each (the median of REPEAT), straight from
# the server and through its connection pooler, and the time `quartz push` takes to copy
# RUNS runs from a file to the server, on a throwaway server (scripts/pg-server.sh) on this
# machine's Unix sockets.
#   bench/store_server.sh [BUILD_DIR]        (REPEAT=15, RUNS=100)
set -euo pipefail
build=${1:-build}
repeat=${REPEAT:-15}
runs=${RUNS:-100}
quartz=$(cd "$build" && pwd)/bin/quartz
samples=$(cd "$build" && pwd)/samples
scripts=$(cd "$(dirname "$0")/../scripts" && pwd)
work=$(mktemp -d)
chmod 755 "$work"  # the server runs as the postgres user
trap '"$scripts/pg-server.sh" stop "$work/server" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
cd "$work"
uris=$("$scripts/pg-server.sh" start "$work/server")
uri=$(echo "$uris" | sed -n 1p)     # straight to the server
pooled=$(echo "$uris" | sed -n 2p)  # through its pooler (PgBouncer, session mode)

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
seconds() { local start=$(date +%s.%N); "$@" >/dev/null; echo "$(date +%s.%N) - $start" | bc; }

# lock_contention, pairs traced, a run of 50,000 mutexes (a 6 MB capture), and short runs of
# imbalance: RUNS in all.
"$quartz" run -q --store runs.db -- "$samples/lock_contention" >/dev/null
"$quartz" run -q --trace --store runs.db -- "$samples/pairs" >/dev/null
"$quartz" run -q --store runs.db -- "$(dirname "$samples")/tests/e2e/many_objects" 2 50000 1 \
  >/dev/null
for ((i = 0; i < runs - 3; i++)); do
  "$quartz" run -q --store runs.db -- "$samples/imbalance" --threads 2 --unit-ms 2 >/dev/null
done

push_s=$(seconds "$quartz" push --store runs.db --to "$uri")
again_s=$(seconds "$quartz" push --store runs.db --to "$uri")

# The median of $repeat runs of a command from store $1, one after another (a server's
# backend ends after its client: its exit is part of the next command's time).
median_of() {
  local store=$1 times=()
  shift
  for ((r = 0; r < repeat; r++)); do times+=("$(seconds "$quartz" "$1" --store "$store" "${@:2}")"); done
  printf '%s\n' "${times[@]}" | median
}
row() {
  local label=$1 f s p
  shift
  f=$(median_of runs.db "$@")
  s=$(median_of "$uri" "$@")
  p=$(median_of "$pooled" "$@")
  printf '| %s | %.1f ms | %.1f ms (x%.2f) | %.1f ms (x%.2f) |\n' "$label" \
    "$(echo "$f * 1000" | bc)" "$(echo "$s * 1000" | bc)" "$(echo "$s / $f" | bc -l)" \
    "$(echo "$p * 1000" | bc)" "$(echo "$p / $f" | bc -l)"
}

echo "### The store on a server against a file (median of $repeat)"
echo
echo "| what | SQLite file | PostgreSQL server | through PgBouncer |"
echo "|---|---:|---:|---:|"
for run in 1 2 3; do
  for what in report "report --json" diagnose; do
    # shellcheck disable=SC2086
    row "$what of run $run" $what "$run"
  done
done
row "list of $runs runs" list
echo
printf 'push of %s runs to the server: %.1f s; again (every run already there): %.1f s\n' \
  "$runs" "$push_s" "$again_s"

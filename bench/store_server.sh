#!/usr/bin/env bash
# The store on a PostgreSQL server against the same runs in an SQLite file (issue 40): the
# time `quartz report` takes to read a run from each (the median of REPEAT), and the time
# `quartz push` takes to copy RUNS runs from a file to the server, on a throwaway server
# (scripts/pg-server.sh) on this machine's Unix socket.
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
uri=$("$scripts/pg-server.sh" start "$work/server")

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

echo "### The store on a server against a file (median of $repeat)"
echo
echo "| what | SQLite file | PostgreSQL server | server / file |"
echo "|---|---:|---:|---:|"
for run in 1 2 3; do
  for what in report "report --json" diagnose; do
    file=() server=()
    for ((r = 0; r < repeat; r++)); do
      file+=("$(seconds "$quartz" $what --store runs.db "$run")")
      server+=("$(seconds "$quartz" $what --store "$uri" "$run")")
    done
    f=$(printf '%s\n' "${file[@]}" | median)
    s=$(printf '%s\n' "${server[@]}" | median)
    printf '| %s of run %s | %.1f ms | %.1f ms | x%.2f |\n' "$what" "$run" \
      "$(echo "$f * 1000" | bc)" "$(echo "$s * 1000" | bc)" "$(echo "$s / $f" | bc -l)"
  done
done
l_file=() l_server=()
for ((r = 0; r < repeat; r++)); do
  l_file+=("$(seconds "$quartz" list --store runs.db)")
  l_server+=("$(seconds "$quartz" list --store "$uri")")
done
f=$(printf '%s\n' "${l_file[@]}" | median)
s=$(printf '%s\n' "${l_server[@]}" | median)
printf '| list of %s runs | %.1f ms | %.1f ms | x%.2f |\n' "$runs" "$(echo "$f * 1000" | bc)" \
  "$(echo "$s * 1000" | bc)" "$(echo "$s / $f" | bc -l)"
echo
printf 'push of %s runs to the server: %.1f s; again (every run already there): %.1f s\n' \
  "$runs" "$push_s" "$again_s"

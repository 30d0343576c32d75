#!/usr/bin/env bash
# Whole-program dilation: each sample's elapsed time run plainly (its instrumentation
# calls glibc's empty hooks) and under `quartz run` (hooks, wrappers, sampler, capture);
# and one call-heavy program (call_loop, 2 threads x 20 M calls) plain, under `quartz run`,
# gprof (-pg) and `uftrace record`, side by side. Median of REPEAT runs.
#   bench/dilation.sh [BUILD_DIR]        (REPEAT=5)
set -euo pipefail
build=${1:-build}
repeat=${REPEAT:-5}
quartz=$build/bin/quartz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
now() { date +%s.%N; }
timed() { local t0 t1; t0=$(now); "$@" > /dev/null 2>&1; t1=$(now); echo "$t1 - $t0" | bc -l; }

echo "### Whole-program dilation (median of $repeat)"
echo
echo "| program | plain | under quartz run | dilation |"
echo "|---|---:|---:|---:|"
for s in serial_init lock_contention imbalance pipeline spin_vs_block io_wait client_server; do
  plain=() profiled=()
  for ((r = 0; r < repeat; r++)); do
    plain+=("$(timed "$build/samples/$s")")
    profiled+=("$(timed "$quartz" run -q --no-import -o "$work/c.qcap" -- "$build/samples/$s")")
  done
  p=$(printf '%s\n' "${plain[@]}" | median)
  q=$(printf '%s\n' "${profiled[@]}" | median)
  printf '| %s | %.3f s | %.3f s | %+.1f%% |\n' "$s" "$p" "$q" "$(echo "100 * ($q / $p - 1)" | bc -l)"
done

calls=20000000
declare -A t
for ((r = 0; r < repeat; r++)); do
  t[plain]+="$(timed "$build/bench/call_loop_plain" 2 $calls) "
  t[quartz]+="$(timed "$quartz" run -q --no-import -o "$work/l.qcap" -- "$build/bench/call_loop_instrumented" 2 $calls) "
  t[gprof]+="$(cd "$work" && timed "$OLDPWD/$build/bench/call_loop_pg" 2 $calls) "
  if command -v uftrace >/dev/null; then
    t[uftrace]+="$(timed uftrace record --no-pager -d "$work/u.data" "$build/bench/call_loop_pg" 2 $calls) "
    rm -rf "$work/u.data"
  fi
done
echo
echo "Call-heavy program: call_loop, 2 threads x $calls calls each"
echo
echo "| tool | elapsed | dilation |"
echo "|---|---:|---:|"
base=$(tr ' ' '\n' <<<"${t[plain]}" | grep . | median)
for k in plain quartz gprof uftrace; do
  [ -n "${t[$k]:-}" ] || continue
  v=$(tr ' ' '\n' <<<"${t[$k]}" | grep . | median)
  printf '| %s | %.3f s | %+.0f%% |\n' "$k" "$v" "$(echo "100 * ($v / $base - 1)" | bc -l)"
done

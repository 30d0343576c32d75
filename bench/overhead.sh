#!/usr/bin/env bash
# Whole-program overhead, every configuration measured side by side in one run:
#   - ns added per instrumented call pair: plain vs empty hooks vs Quartz hooks (preloaded
#     and linked), gprof (-pg) and uftrace record, with 1 and 2 threads;
#   - ns added per mutex lock/unlock pair by the Quartz wrappers, uncontended (own mutex
#     per thread) with 1 and 2 threads, and contended (one mutex, 2 threads).
# Each cell is the median of REPEAT runs, interleaved so that drift hits every variant.
#
#   bench/overhead.sh [BUILD_DIR]      (REPEAT=7 CALLS=50000000 PAIRS=20000000 by default)
set -euo pipefail
build=${1:-build}
bench=$build/bench
lib=$build/lib/libquartz.so
repeat=${REPEAT:-7}
calls=${CALLS:-50000000}
uftrace_calls=${UFTRACE_CALLS:-1000000}
pairs=${PAIRS:-20000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# run_variant NAME THREADS: prints ns per call for one run.
run_variant() {
  local name=$1 threads=$2
  case $name in
    plain)          "$bench/call_loop_plain" "$threads" "$calls" ;;
    empty-preload)  LD_PRELOAD=$bench/libempty_hooks.so "$bench/call_loop_instrumented" "$threads" "$calls" ;;
    quartz-preload) LD_PRELOAD=$lib "$bench/call_loop_instrumented" "$threads" "$calls" ;;
    empty-linked)   "$bench/call_loop_empty_linked" "$threads" "$calls" ;;
    quartz-linked)  "$bench/call_loop_quartz_linked" "$threads" "$calls" ;;
    gprof)          (cd "$work" && "$OLDPWD/$bench/call_loop_pg" "$threads" "$calls") ;;
    uftrace)        uftrace record --no-pager -d "$work/uftrace.data" "$bench/call_loop_pg" \
                      "$threads" "$uftrace_calls" 2>/dev/null | tail -1
                    rm -rf "$work/uftrace.data" ;;
  esac
}

variants=(plain empty-preload quartz-preload empty-linked quartz-linked gprof)
command -v uftrace >/dev/null && variants+=(uftrace)

declare -A samples
for ((r = 0; r < repeat; r++)); do
  for threads in 1 2; do
    for v in "${variants[@]}"; do
      samples[$v,$threads]+="$(run_variant "$v" "$threads") "
    done
  done
done

declare -A med
for key in "${!samples[@]}"; do
  med[$key]=$(tr ' ' '\n' <<<"${samples[$key]}" | grep . | median)
done

echo "### Call overhead (call_loop: ${calls} calls per thread, uftrace ${uftrace_calls}; median of ${repeat})"
echo
echo "| configuration | ns/call, 1 thread | added | ns/call, 2 threads | added |"
echo "|---|---:|---:|---:|---:|"
for v in "${variants[@]}"; do
  printf '| %s | %.2f | %+.2f | %.2f | %+.2f |\n' "$v" \
    "${med[$v,1]}" "$(echo "${med[$v,1]} - ${med[plain,1]}" | bc -l)" \
    "${med[$v,2]}" "$(echo "${med[$v,2]} - ${med[plain,2]}" | bc -l)"
done
echo
printf 'Quartz above the empty-hook floor: preloaded %+.2f / %+.2f ns, linked %+.2f / %+.2f ns (1 / 2 threads)\n' \
  "$(echo "${med[quartz-preload,1]} - ${med[empty-preload,1]}" | bc -l)" \
  "$(echo "${med[quartz-preload,2]} - ${med[empty-preload,2]}" | bc -l)" \
  "$(echo "${med[quartz-linked,1]} - ${med[empty-linked,1]}" | bc -l)" \
  "$(echo "${med[quartz-linked,2]} - ${med[empty-linked,2]}" | bc -l)"
echo

declare -A locks
for ((r = 0; r < repeat; r++)); do
  for setup in "1 own" "2 own" "2 shared"; do
    read -r threads mode <<<"$setup"
    locks[plain,$threads,$mode]+="$("$bench/lock_loop" "$threads" "$pairs" "$mode") "
    locks[quartz,$threads,$mode]+="$(LD_PRELOAD=$lib "$bench/lock_loop" "$threads" "$pairs" "$mode") "
  done
done
echo "### Mutex lock/unlock overhead (lock_loop: ${pairs} pairs per thread; median of ${repeat})"
echo
echo "| case | plain ns/pair | Quartz ns/pair | added ns | added % |"
echo "|---|---:|---:|---:|---:|"
for setup in "1 own" "2 own" "2 shared"; do
  read -r threads mode <<<"$setup"
  p=$(tr ' ' '\n' <<<"${locks[plain,$threads,$mode]}" | grep . | median)
  q=$(tr ' ' '\n' <<<"${locks[quartz,$threads,$mode]}" | grep . | median)
  label="$threads thread(s), $([ "$mode" = own ] && echo uncontended || echo contended)"
  printf '| %s | %.2f | %.2f | %+.2f | %+.1f%% |\n' "$label" "$p" "$q" \
    "$(echo "$q - $p" | bc -l)" "$(echo "100 * ($q - $p) / $p" | bc -l)"
done

#!/bin/sh
# make_project_test.sh PREFIX WORK_DIR CXX_ID: a Make project outside this tree (make_project/)
# built with the wrappers and quartz.pc installed in PREFIX: `counter` linked to libquartz and
# run without `quartz run`, `sorter` preloaded: in the default mode (patched entries), and
# with gcc's hooks keeping the standard library (QUARTZ_INSTRUMENT=hooks
# QUARTZ_INSTRUMENT_SYSTEM=1; CXX_ID GNU: clang has no such option).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/install/common.sh
. "$here/common.sh"
prefix=$(realpath "$1") work=$2 cxx_id=$3
quartz="$prefix/bin/quartz"
PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$(echo "$prefix"/lib/*/pkgconfig | tr ' ' :)"
export PKG_CONFIG_PATH
rm -rf "$work"
mkdir -p "$work/default" "$work/system"
cd "$work"
make -s -C default -f "$here/make_project/Makefile" CC="$prefix/bin/quartz-cc" \
  CXX="$prefix/bin/quartz-c++"
QUARTZ_INSTRUMENT=hooks QUARTZ_INSTRUMENT_SYSTEM=1 make -s -C system \
  -f "$here/make_project/Makefile" sorter CXX="$prefix/bin/quartz-c++"

QUARTZ_OUTPUT=counter.qcap default/counter >counter.out
expect_runtime_under counter.out "$prefix"
"$quartz" import --store counter.db counter.qcap >/dev/null
"$quartz" report --store counter.db --json >counter.json
"$here/check_report.py" counter.json --procedure count_primes \
  "counter.c:$(definition_line "$here/make_project/counter.c" count_primes)"
grep -q '"counter-main"' counter.json || fail "counter.json: no thread named counter-main"

at="app.cpp:$(definition_line "$here/outside_project/app.cpp" sorted_values)"
# Defined in a header both files include: the copy the link kept (tally.h); and a procedure
# of the file whose copy was thrown away.
tally_at="tally.h:$(definition_line "$here/outside_project/tally.h" tally)"
squares_at="tally.cpp:$(definition_line "$here/outside_project/tally.cpp" tally_of_squares)"
# Every std:: call hooked costs about ten times as much: fewer rounds (app.cpp).
for build in default:40 system:4; do
  rounds=${build#*:} build=${build%:*}
  "$quartz" run -q --store "$build.db" -- "$build/sorter" "$rounds" >"$build.out"
  expect_runtime_under "$build.out" "$prefix"
  # Every frame: what instrumentation hooked, not what the report folds by default.
  "$quartz" report --store "$build.db" --json --all-frames >"$build.json"
  # The default, patched entries, sees what is left out of line: unchecked. gcc's hooks
  # with QUARTZ_INSTRUMENT_SYSTEM=1 see the standard library.
  standard_library=""
  [ "$build" = default ] || standard_library=yes
  [ "$cxx_id" = GNU ] || standard_library=""
  "$here/check_report.py" "$build.json" --procedure "sorted_values(long)" "$at" \
    --procedure "tally(std::vector<long, std::allocator<long> > const&)" "$tally_at" \
    --procedure "tally_of_squares(long)" "$squares_at" \
    ${standard_library:+--standard-library "$standard_library"}
done
echo "installed wrappers and quartz.pc: ok"

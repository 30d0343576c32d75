#!/bin/sh
# cmake_project_test.sh PREFIX WORK_DIR CXX CXX_ID: the CMake package installed in PREFIX, used
# by a project outside this tree (outside_project/): find_package(Quartz), quartz_instrument()
# with and without KEEP_SYSTEM and with LINK_RUNTIME, and the Quartz:: targets. Each program
# is profiled with the installed quartz only, and says which libquartz.so it loaded.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/install/common.sh
. "$here/common.sh"
prefix=$(realpath "$1") work=$2 cxx=$3 cxx_id=$4
quartz="$prefix/bin/quartz"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
cmake -S "$here/outside_project" -B build -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" >configure.log ||
  fail "configure: $(cat configure.log)"
cmake --build build >build.log || fail "build: $(cat build.log)"
at="app.cpp:$(definition_line "$here/outside_project/app.cpp" sorted_values)"
# Defined in a header both files include: the copy the link kept (tally.h); and a procedure
# of the file whose copy was thrown away.
tally_at="tally.h:$(definition_line "$here/outside_project/tally.h" tally)"
squares_at="tally.cpp:$(definition_line "$here/outside_project/tally.cpp" tally_of_squares)"
# gcc's hooks leave the standard library's code out unless KEEP_SYSTEM; clang has no such
# option. Patched entries (app_targets, app_linked) see what is left out of line: unchecked.
without=no with=yes
[ "$cxx_id" = GNU ] || without="" with=""

# profile PROGRAM STANDARD_LIBRARY ROUNDS: under `quartz run` (libquartz preloaded).
profile() {
  "$quartz" run -q --store "$1.db" -- "build/$1" "$3" >"$1.out"
  expect_runtime_under "$1.out" "$prefix"
  # Every frame: what instrumentation hooked, not what the report folds by default.
  "$quartz" report --store "$1.db" --json --all-frames >"$1.json"
  "$here/check_report.py" "$1.json" --procedure "sorted_values(long)" "$at" \
    --procedure "tally(std::vector<long, std::allocator<long> > const&)" "$tally_at" \
    --procedure "tally_of_squares(long)" "$squares_at" ${2:+--standard-library "$2"}
}
profile app "$without" 40
# Every std:: call hooked costs about ten times as much: fewer rounds.
profile app_keep_system "$with" 4
profile app_targets "" 40

# Linked: the runtime comes from the installed library's path, without `quartz run`.
QUARTZ_OUTPUT=app_linked.qcap build/app_linked >app_linked.out
expect_runtime_under app_linked.out "$prefix"
"$quartz" import --store app_linked.db app_linked.qcap >/dev/null
"$quartz" report --store app_linked.db --json --all-frames >app_linked.json
"$here/check_report.py" app_linked.json --procedure "sorted_values(long)" "$at" \
  --procedure "tally(std::vector<long, std::allocator<long> > const&)" "$tally_at" \
    --procedure "tally_of_squares(long)" "$squares_at"
echo "installed CMake package: ok"

#!/bin/sh
# Installs the Debian 12 packages Quartz needs to build, test and benchmark (libomp-dev:
# LLVM's OpenMP runtime and its tools interface, omp-tools.h; libtbb-dev: oneTBB, for the
# sample seen through its ITT notifications; libbz2-dev:
# pbzip2 in bench/real_programs.py; its other programs need only zlib1g-dev; gdb: the
# end-to-end tests print the stacks of a program that hangs before they kill it; libpq-dev:
# the store on a PostgreSQL server, postgresql and pgbouncer: the throwaway server its tests
# start, and a connection pooler in front of it).
# Run as root on a fresh machine; safe to run again.
set -eu
packages="
  build-essential cmake ninja-build ccache pkg-config clang libclang-rt-dev clang-format
  libomp-dev libtbb-dev
  libhwloc-dev hwloc libunwind-dev libboost-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  libsqlite3-dev sqlite3 libpq-dev postgresql pgbouncer libdw-dev nlohmann-json3-dev robin-map-dev
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev qt6-svg-dev libgl-dev xvfb xauth
  uftrace binutils gdb
  zlib1g-dev golang-go python3
  libbz2-dev
  go-md2man debootstrap
"
# From npm, for the export tests: Chrome DevTools' trace model, which loads the chrome-trace
# export, and flamegraph.pl's JavaScript port, which draws the collapsed stacks (Debian 12
# packages no flame graph tool).
npm_packages="@paulirish/trace_engine@0.0.65 flamegraph@0.1.0"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
command -v npm >/dev/null 2>&1 || missing="$missing npm"
npm_missing=""
for p in $npm_packages; do
  [ -d "$(npm root -g 2>/dev/null)/${p%@*}" ] || npm_missing="$npm_missing $p"
done
[ -z "$missing" ] && [ -z "$npm_missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "install-deps: missing packages:$missing$npm_missing (run this script as root)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if [ -n "$missing" ]; then
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing
fi
# shellcheck disable=SC2086
[ -z "$npm_missing" ] || npm install -g --no-audit --no-fund $npm_missing

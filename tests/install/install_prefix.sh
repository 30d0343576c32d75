#!/bin/sh
# install_prefix.sh BUILD_DIR PREFIX: cmake --install into a fresh PREFIX, for the tests that
# use Quartz from there.
set -eu
rm -rf "$2"
cmake --install "$1" --prefix "$2" >/dev/null

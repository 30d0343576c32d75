#!/bin/sh
# Fails, naming the files, when a tracked C or C++ file is not formatted by .clang-format.
#   scripts/check-format.sh          check          scripts/check-format.sh --fix   format them
set -eu
cd "$(dirname "$0")/.."
files=$(git ls-files '*.c' '*.cpp' '*.h')
if [ "${1:-}" = "--fix" ]; then
  # shellcheck disable=SC2086
  clang-format -i $files
  exit 0
fi
# One clang-format for every file (one per file took half a minute); each unformatted line is an
# error "FILE:LINE:COLUMN: error: code should be clang-formatted". Anything else it says is
# a failure of its own.
# shellcheck disable=SC2086
said=$(clang-format --dry-run -Werror $files 2>&1 >/dev/null) || true
bad=$(printf '%s\n' "$said" | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' |
  sort -u | tr '\n' ' ')
if [ -n "$bad" ]; then
  echo "check-format: not formatted by .clang-format (run scripts/check-format.sh --fix): $bad" >&2
  exit 1
fi
if [ -n "$said" ]; then
  printf 'check-format: clang-format failed:\n%s\n' "$said" >&2
  exit 1
fi

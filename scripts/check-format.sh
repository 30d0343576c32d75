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
bad=""
for f in $files; do
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad="$bad $f"
done
if [ -n "$bad" ]; then
  echo "check-format: not formatted by .clang-format (run scripts/check-format.sh --fix):$bad" >&2
  exit 1
fi

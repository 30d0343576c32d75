# shellcheck shell=sh
# Shared by the install tests (sourced): what a user's program says and where its source is.

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# definition_line FILE FUNCTION: the line where FILE defines FUNCTION (reports give this line).
definition_line() {
  grep -n "^[a-z_].*[ *]$2(.*) {$" "$1" | head -n 1 | cut -d: -f1
}

# expect_runtime_under OUTPUT PREFIX: the program's output (its "runtime:" line, read from its
# /proc/self/maps) shows it loaded the libquartz.so installed under PREFIX.
expect_runtime_under() {
  mapped=$(sed -n 's/^runtime: //p' "$1")
  case "$mapped" in
    "$(realpath "$2")"/*/libquartz.so) ;;
    *) fail "$1: libquartz.so mapped from '$mapped', not from under $2" ;;
  esac
}

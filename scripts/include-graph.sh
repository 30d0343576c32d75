#!/bin/sh
# Prints which folders each folder's sources include (docs/design.md "Layers"): the layers'
# picture, read off the code. The sampler's three jobs count as folders of their own.
set -eu
cd "$(dirname "$0")/.."
git ls-files '*.c' '*.cpp' '*.h' | grep -vE '^(tests|bench|samples|fuzz)/' | while read -r f; do
  from=$(dirname "$f" | sed -E 's#^(sampler/[a-z_]+)/.*#\1#; s#^(viewer|cli|analysis|profile)/.*#\1#')
  grep -ohE '#include "[a-z_]+(/[a-z_]+)?/' "$f" | sed -E 's/#include "//; s#/$##' |
    while read -r to; do
      case "$to" in sampler/*) ;; */*) to=${to%%/*} ;; esac
      [ -d "$to" ] || to=${to%%/*}
      [ "$to" = "$from" ] || echo "$from $to"
    done
done | sort -u | awk '{d[$1] = d[$1] " " $2 "/"} END {for (k in d) printf "%-18s->%s\n", k "/", d[k]}' | sort

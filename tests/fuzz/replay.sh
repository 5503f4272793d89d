#!/usr/bin/env bash
# Replays every fuzz target's seed corpus and kept crashes (tests/fuzz/corpus/<target>/,
# tests/fuzz/crashes/<target>/) through its gcc build: seconds, part of `make test`.
# usage: tests/fuzz/replay.sh BUILD_DIR TARGET...
set -euo pipefail
build=$1
shift
here=$(dirname "$0")
for t in "$@"; do
  inputs=("$here/corpus/$t")
  [ -d "$here/crashes/$t" ] && inputs+=("$here/crashes/$t")
  [ "$t" = weights ] && inputs+=("$here/../../eval/weights" "$here/../fixtures")
  ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 "$build/fuzz-$t" "${inputs[@]}"
done

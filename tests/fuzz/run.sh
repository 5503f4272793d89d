#!/usr/bin/env bash
# Runs each libFuzzer target for SECONDS from its seed corpus (tests/fuzz/corpus/<target>/,
# grown in build/fuzz/corpus-<target>/); a crash is kept in tests/fuzz/crashes/<target>/ to be
# committed as a regression input. Prints executions and the result per target.
# usage: tests/fuzz/run.sh BUILD_DIR SECONDS TARGET...
set -uo pipefail
build=$1 seconds=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
status=0
printf '%-8s %12s %10s %8s  %s\n' target executions "exec/s" corpus result
for t in "$@"; do
  corpus="$build/corpus-$t"
  mkdir -p "$corpus" "$here/crashes/$t"
  seeds=("$here/corpus/$t")
  [ "$t" = weights ] && seeds+=("$here/../../eval/weights" "$here/../fixtures")
  log="$build/fuzz-$t.log"
  ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 "$build/fuzz-$t" -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=4096 \
    -artifact_prefix="$here/crashes/$t/" "$corpus" "${seeds[@]}" >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  size=$(find "$corpus" -type f | wc -l)
  if [ "$rc" -eq 0 ]; then result=ok; else result="CRASH (see $log)"; status=1; fi
  printf '%-8s %12s %10s %8s  %s\n' "$t" "${runs:-?}" "${speed:-?}" "$size" "$result"
done
exit $status

#!/usr/bin/env bash
# Probe speed and table compression of a built database (default: the ≤6-piece Brazilian one
# that scripts/bench-gen.sh builds). Prints probes per second on one thread and on all, with a
# warm cache and a cold one (and, for positions without a capture, a one-ply search: what a
# position left out of the tables would cost), then per piece count the stored bytes of
# win/draw/loss values and of distances (positions per byte), against LZ4 and xz -9 on the raw
# 2-bit values and against storing only the smaller slice of each unit.
# usage: scripts/bench-probe.sh [DB_DIR] [POSITIONS]
set -euo pipefail
db=${1:-build/bench-db/brazilian-6}
positions=${2:-1000000}
[ -f "$db/damas-db.txt" ] || { echo "error: no database in $db (build one: scripts/bench-gen.sh, or damas gen)" >&2; exit 1; }
make -s build/rel/probe-bench
raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
# Random access latency bounds the propagation and the warm probes: it tells machines apart.
make -s build/rel/mem-latency
echo "memory: $(build/rel/mem-latency)"
build/rel/probe-bench "$db" "$positions" "$raw"
echo
printf '%-7s %16s %14s %10s\n' pieces "raw 2-bit bytes" "xz -9 bytes" "pos/byte"
for f in "$raw"/raw-*.bin; do
  pieces=$(basename "$f" .bin | cut -d- -f2)
  size=$(stat -c %s "$f")
  [ "$size" -gt 0 ] || continue
  xz_bytes=$(xz -9 -T0 -c "$f" | wc -c)
  # Four positions a byte (each slice padded to a whole byte: at most 3 positions off).
  printf '%-7s %16s %14s %10.1f\n' "$pieces" "$size" "$xz_bytes" "$(awk -v s="$size" -v x="$xz_bytes" 'BEGIN { print 4 * s / x }')"
done

#!/usr/bin/env bash
# Database generation speed: every variant to PIECES (default 5) pieces, then BIG_VARIANT to
# BIG_PIECES (default brazilian, 6), each from scratch with all cores. Prints wall time,
# positions per second, peak memory and size on disk, and verifies the big build.
# usage: scripts/bench-gen.sh [PIECES] [BIG_VARIANT] [BIG_PIECES]   (env: DAMAS, BENCH_DIR)
set -euo pipefail
pieces=${1:-5}
big_variant=${2:-brazilian}
big_pieces=${3:-6}
damas=${DAMAS:-./damas}
dir=${BENCH_DIR:-build/bench-db}
[ -x "$damas" ] || { echo "error: $damas not found; run make first" >&2; exit 1; }
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/ {print $2}') GiB"
printf '%-14s %6s %14s %9s %12s %10s %10s\n' variant pieces positions seconds "M pos/s" "peak MiB" "disk MiB"
run() {
  local v=$1 p=$2 out="$dir/$1-$2"
  rm -rf "$out"
  local line
  line=$("$damas" gen --variant "$v" --pieces "$p" --out "$out" 2>&1 | grep '^done:')
  local positions secs peak
  positions=$(sed -E 's/.* ([0-9]+) positions in.*/\1/' <<<"$line")
  secs=$(sed -E 's/.* positions in ([0-9.]+) s.*/\1/' <<<"$line")
  peak=$(sed -E 's/.*peak memory ([0-9]+) MiB.*/\1/' <<<"$line")
  printf '%-14s %6s %14s %9s %12.2f %10s %10s\n' "$v" "$p" "$positions" "$secs" \
    "$(awk -v n="$positions" -v s="$secs" 'BEGIN { print n / s / 1e6 }')" "$peak" "$(du -sm "$out" | cut -f1)"
}
for v in brazilian russian spanish czech italian american international; do run "$v" "$pieces"; done
run "$big_variant" "$big_pieces"
"$damas" verify --db "$dir/$big_variant-$big_pieces"

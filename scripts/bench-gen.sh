#!/usr/bin/env bash
# Database generation speed: every variant to PIECES (default 5) pieces, then BIG_VARIANT to
# BIG_PIECES (default brazilian, 6), each from scratch with all cores. Prints wall time,
# positions per second, peak memory, size on disk and where the time went (the phases summed
# over the units; each build's progress lines are kept in BENCH_DIR/VARIANT-PIECES.log), and
# verifies the big build; the big build's rate is also given by the units' number of pieces.
# usage: scripts/bench-gen.sh [PIECES] [BIG_VARIANT] [BIG_PIECES]   (env: DAMAS, BENCH_DIR)
set -euo pipefail
pieces=${1:-5}
big_variant=${2:-brazilian}
big_pieces=${3:-6}
damas=${DAMAS:-./damas}
dir=${BENCH_DIR:-build/bench-db}
[ -x "$damas" ] || { echo "error: $damas not found; run make first" >&2; exit 1; }
mkdir -p "$dir"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/ {print $2}') GiB"
# Random access latency bounds the propagation and the warm probes: it tells machines apart.
make -s build/rel/mem-latency
echo "memory: $(build/rel/mem-latency)"
printf '%-14s %6s %14s %9s %12s %10s %10s  %s\n' variant pieces positions seconds "M pos/s" "peak MiB" "disk MiB" \
  "init / propagation / tables / writing (s)"
run() {   # variant pieces; the build's progress lines go to $dir/VARIANT-PIECES.log
  local v=$1 p=$2 out="$dir/$1-$2" log="$dir/$1-$2.log"
  rm -rf "$out"
  "$damas" gen --variant "$v" --pieces "$p" --out "$out" >"$log" 2>&1 ||
    { echo "error: damas gen --variant $v --pieces $p failed; see $log" >&2; exit 1; }
  local line positions secs peak phases
  line=$(grep '^done:' "$log")
  positions=$(sed -E 's/.* ([0-9]+) positions in.*/\1/' <<<"$line")
  secs=$(sed -E 's/.* positions in ([0-9.]+) s.*/\1/' <<<"$line")
  peak=$(sed -E 's/.*peak memory ([0-9]+) MiB.*/\1/' <<<"$line")
  # Each unit's line ends "solved (init X s, N levels Y s, tables Z s, write W s, ...)".
  phases=$(grep -oE 'init [0-9.]+ s, [0-9]+ levels [0-9.]+ s, tables [0-9.]+ s, write [0-9.]+ s' "$log" |
    awk '{ i += $2; l += $6; t += $9; w += $12 } END { printf "%.1f / %.1f / %.1f / %.1f", i, l, t, w }')
  printf '%-14s %6s %14s %9s %12.2f %10s %10s  %s\n' "$v" "$p" "$positions" "$secs" \
    "$(awk -v n="$positions" -v s="$secs" 'BEGIN { print n / s / 1e6 }')" "$peak" "$(du -sm "$out" | cut -f1)" "$phases"
}
# The units solved in one build, by their number of pieces: positions, seconds and rate, so
# that the largest units' rate compares with the smaller ones' on the same machine and run.
by_pieces() {   # log
  awk '/ solved \(/ {
      u = $0; sub(/^\[ *[0-9]+\/ *[0-9]+\] /, "", u); split(u, f, " ")
      n = split(f[1], c, /[mk-]/); p = 0; for (i = 1; i <= n; i++) p += c[i]
      pos[p] += f[2]; sec[p] += f[4]; units[p]++ }
    END { for (p in pos) printf "  %d pieces: %d units, %.0f positions, %.1f s, %.2f M pos/s\n",
            p, units[p], pos[p], sec[p], (sec[p] > 0 ? pos[p] / sec[p] / 1e6 : 0) }' "$1" | sort -n -k1
}
for v in brazilian russian spanish czech italian american international; do run "$v" "$pieces"; done
run "$big_variant" "$big_pieces"
by_pieces "$dir/$big_variant-$big_pieces.log"
"$damas" verify --db "$dir/$big_variant-$big_pieces"

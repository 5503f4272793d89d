#!/usr/bin/env bash
# One build split over 1, 2 and 4 ranks (--split: every unit solved by all ranks together),
# the machine's cores shared among the ranks (at least one thread each; 4 ranks oversubscribe a
# 2-core machine), optionally under --max-memory SIZE a rank. Prints the wall time and each
# rank's peak memory, and checks that the files of every run are the same.
# usage: scripts/bench-split.sh [VARIANT] [PIECES] [MAX_MEMORY]   (default brazilian 6 1600M;
#        env: DAMAS_MPI, BENCH_DIR, RANKS (default "1 2 4"))
set -euo pipefail
variant=${1:-brazilian}
pieces=${2:-6}
max_memory=${3:-1600M}
damas=${DAMAS_MPI:-build/mpi/damas}
dir=${BENCH_DIR:-build/bench-split}
[ -x "$damas" ] || { echo "error: $damas not found; run make build/mpi/damas first" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
cores=$(nproc)
echo "machine: $cores cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/ {print $2}') GiB;" \
  "$variant up to $pieces pieces, --split --max-memory $max_memory"
mkdir -p "$dir"
printf '%-6s %8s %9s  %s\n' ranks threads seconds "peak memory of each rank (MiB)"
first=""
for ranks in ${RANKS:-1 2 4}; do
  threads=$((cores / ranks > 0 ? cores / ranks : 1))
  out="$dir/$ranks" log="$dir/$ranks.log"
  rm -rf "$out"
  mpirun --bind-to none -np "$ranks" "$damas" gen --variant "$variant" --pieces "$pieces" --out "$out" --split \
    --max-memory "$max_memory" --threads "$threads" >"$log" 2>&1 ||
    { echo "error: $ranks ranks failed; see $log" >&2; exit 1; }
  secs=$(sed -nE 's/^done:.* positions in ([0-9.]+) s.*/\1/p' "$log")
  peaks=$(sed -nE 's/^rank [0-9]+:.*peak memory ([0-9]+) MiB$/\1/p' "$log" | paste -sd' ')
  printf '%-6s %8s %9s  %s\n' "$ranks" "$threads" "$secs" "$peaks"
  sums=$(cd "$out" && sha256sum ./*.h5)
  if [ -z "$first" ]; then
    first=$sums
  elif [ "$sums" != "$first" ]; then
    echo "error: the files of $ranks ranks differ from those of the first run" >&2; exit 1
  fi
done
echo "files identical in every run"

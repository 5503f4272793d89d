#!/usr/bin/env bash
# Cluster generation on one machine: VARIANT (default russian) to PIECES (default 5) pieces,
# built from scratch by 1 rank and by 2 ranks of the MPI build, one OpenMP thread each, the 2
# ranks sharing out units and then splitting every unit (--split), and by 1 rank with 2
# threads for comparison. Prints wall time, speed-up and efficiency against one rank, the work
# per rank, and checks that the 2-rank files equal the 1-rank ones.
# usage: scripts/bench-mpi.sh [VARIANT] [PIECES]   (env: DAMAS_MPI, BENCH_DIR)
set -euo pipefail
variant=${1:-russian}
pieces=${2:-5}
damas=${DAMAS_MPI:-build/mpi/damas}
dir=${BENCH_DIR:-build/bench-mpi}
[ -x "$damas" ] || { echo "error: $damas not found; run make build/mpi/damas first" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $variant up to $pieces pieces"
run() {   # ranks threads [--split] -> seconds on stdout, files in $dir/RxT[-split], log beside
  local ranks=$1 threads=$2 name="$1x$2${3:+-split}"
  rm -rf "$dir/$name"
  mpirun --bind-to none -np "$ranks" "$damas" gen --variant "$variant" --pieces "$pieces" --out "$dir/$name" \
    --threads "$threads" ${3:+"$3"} >"$dir/log-$name" 2>&1
  sed -nE 's/^done:.* positions in ([0-9.]+) s.*/\1/p' "$dir/log-$name"
}
calc() { awk "BEGIN { print $1 }"; }
mkdir -p "$dir"
t1=$(run 1 1)
t2=$(run 2 1)
t2s=$(run 2 1 --split)
t12=$(run 1 2)
printf '%-22s %9s %9s %11s\n' run seconds speed-up efficiency
printf '%-22s %9s %9s %11s\n' "1 rank x 1 thread" "$t1" 1.00 100%
printf '%-22s %9s %9.2f %10.0f%%\n' "2 ranks x 1 thread" "$t2" "$(calc "$t1/$t2")" "$(calc "100*$t1/$t2/2")"
printf '%-22s %9s %9.2f %10.0f%%\n' "2 ranks x 1, --split" "$t2s" "$(calc "$t1/$t2s")" "$(calc "100*$t1/$t2s/2")"
printf '%-22s %9s %9.2f %10.0f%%\n' "1 rank x 2 threads" "$t12" "$(calc "$t1/$t12")" "$(calc "100*$t1/$t12/2")"
echo "work per rank (2 ranks):"
grep '^rank ' "$dir/log-2x1"
echo "work per rank (2 ranks, --split):"
grep '^rank ' "$dir/log-2x1-split"
for run in 2x1 2x1-split; do
  if [ "$(cd "$dir/1x1" && sha256sum ./*.h5)" = "$(cd "$dir/$run" && sha256sum ./*.h5)" ]; then
    echo "$run files identical to 1-rank files"
  else
    echo "error: $run files differ from 1-rank files" >&2; exit 1
  fi
done

#!/usr/bin/env bash
# Cluster generation through mpirun: usage `tests/mpi.sh MPI_DAMAS PLAIN_DAMAS`.
# Units built by 2 and 3 ranks (oversubscribed) are byte-identical to a single-process build;
# a rank killed mid-run ends the job with an error (no hang), and relaunching finishes only the
# missing units, again byte-identical. The same with --split (units shared among the ranks),
# and with --split --low-memory.
set -u
mpi_damas=$1 damas=$2
source "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Every rank may use every core; without this Open MPI pins each rank to one core.
mpi=(timeout 300 mpirun --bind-to none)
sums() { (cd "$1" && sha256sum ./*.h5 | sort -k2); }
same() { [ "$(sums "$1")" = "$(sums "$2")" ]; }

for v in russian american; do
  "$damas" gen --variant "$v" --pieces 4 --out "$work/$v-1" 2>/dev/null
  check "mpi2_$v" 0 "done: $v" -- "${mpi[@]}" -np 2 "$mpi_damas" gen --variant "$v" --pieces 4 --out "$work/$v-2" --threads 1
  if same "$work/$v-1" "$work/$v-2"; then ok; else fail "mpi2_$v: not byte-identical to one process"; fi
  check "mpi3_$v" 0 "done: $v" -- "${mpi[@]}" -np 3 --oversubscribe "$mpi_damas" gen --variant "$v" --pieces 4 \
    --out "$work/$v-3" --threads 1
  if same "$work/$v-1" "$work/$v-3"; then ok; else fail "mpi3_$v: not byte-identical to one process"; fi
done

# --split: every unit solved by all ranks together, each owning a share of its positions.
for v in russian american; do
  check "split2_$v" 0 "rank 1: " -- "${mpi[@]}" -np 2 "$mpi_damas" gen --variant "$v" --pieces 4 \
    --out "$work/$v-s2" --threads 1 --split
  if same "$work/$v-1" "$work/$v-s2"; then ok; else fail "split2_$v: not byte-identical to one process"; fi
  check "split3_$v" 0 "done: $v" -- "${mpi[@]}" -np 3 --oversubscribe "$mpi_damas" gen --variant "$v" --pieces 4 \
    --out "$work/$v-s3" --threads 1 --split
  if same "$work/$v-1" "$work/$v-s3"; then ok; else fail "split3_$v: not byte-identical to one process"; fi
done

# Relaunching a finished job does nothing and says so.
check mpi_all_on_disk 0 "23/ 23] m2k0-m2k0" -- "${mpi[@]}" -np 2 "$mpi_damas" gen --variant russian --pieces 4 \
  --out "$work/russian-2" --threads 1
# The low-memory plan with several ranks: only with --split (units shared out whole are held
# whole); with --split, each rank reads the units the top ones promote into from the shared
# directory, and the files are the same.
check mpi_low_memory_needs_split 1 "error: --low-memory with several ranks needs --split" -- "${mpi[@]}" -np 2 \
  "$mpi_damas" gen --variant russian --pieces 3 --out "$work/russian-lowmem" --low-memory
check split_low_memory 0 "rank 1: " -- "${mpi[@]}" -np 2 "$mpi_damas" gen --variant russian --pieces 4 \
  --out "$work/russian-sl" --threads 1 --split --low-memory
if same "$work/russian-1" "$work/russian-sl"; then ok; else fail "split_low_memory: not byte-identical to one process"; fi
# Another variant's directory: every rank refuses before any work.
check mpi_other_variant 1 "holds a russian database" -- "${mpi[@]}" -np 2 "$mpi_damas" gen --variant american \
  --pieces 3 --out "$work/russian-2"

# Kill one rank part-way: the job ends with an error, not a hang; the relaunch keeps what was done
# and gives the same files. kill_and_resume NAME DIR [GEN OPTIONS...]
"$damas" gen --variant international --pieces 4 --out "$work/intl-1" 2>/dev/null
kill_and_resume() {
  local name=$1 dir=$2
  shift 2
  "${mpi[@]}" -np 2 "$mpi_damas" gen --variant international --pieces 4 --out "$dir" --threads 1 "$@" \
    >"$work/$name.log" 2>&1 &
  local launcher=$! victim rc done_before kept out
  for _ in $(seq 1 400); do
    [ "$(ls "$dir"/*.h5 2>/dev/null | wc -l)" -ge 16 ] && break
    sleep 0.05
  done
  victim=$(pgrep -P "$launcher" -f "damas gen" | head -1)
  victim=$(pgrep -P "${victim:-0}" -f "damas gen" | tail -1)
  [ -n "$victim" ] && kill -9 "$victim"
  wait "$launcher"
  rc=$?
  if [ -n "$victim" ] && [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; then ok; else
    fail "${name}_kill: killed rank pid '${victim}', mpirun exit $rc (want an error, not a timeout): $(tail -5 "$work/$name.log")"; fi
  done_before=$(ls "$dir"/*.h5 | wc -l)
  out=$("${mpi[@]}" -np 2 "$mpi_damas" gen --variant international --pieces 4 --out "$dir" --threads 1 "$@" 2>&1)
  kept=$(grep -c "on disk" <<<"$out")
  if [ "$kept" -eq "$done_before" ] && same "$work/intl-1" "$dir"; then ok; else
    fail "${name}_resume: $done_before units on disk, $kept kept; identical: $(same "$work/intl-1" "$dir" && echo yes || echo no)"; fi
}
# International ≤4 has slices above 2^20 positions: those are solved and written in shares.
check split3_international 0 "rank 2: " -- "${mpi[@]}" -np 3 --oversubscribe "$mpi_damas" gen --variant international \
  --pieces 4 --out "$work/intl-s3" --threads 1 --split
if same "$work/intl-1" "$work/intl-s3"; then ok; else fail "split3_international: not byte-identical to one process"; fi
# A split that would not fit under --max-memory (a cap a process) is refused before it starts,
# with the figure a rank needs.
check split_max_memory_refused 1 "GiB a rank, 2 of the 2 ranks on this machine" -- "${mpi[@]}" -np 2 "$mpi_damas" \
  gen --variant russian --pieces 4 --out "$work/russian-cap" --threads 1 --split --max-memory 100M
kill_and_resume mpi "$work/intl-2"
kill_and_resume split "$work/intl-s" --split
kill_and_resume split_low_memory "$work/intl-sl" --split --low-memory
finish

#!/usr/bin/env bash
# Trains the shipped weights of every 8x8 variant (eval/weights/<variant>.h5) and checks each
# against the compiled-in weights in a paired match, printing the README's table.
# usage: scripts/train-all.sh [GENERATIONS] [GAMES] [NODES] [MATCH_GAMES]
set -euo pipefail
generations=${1:-10}
games=${2:-400}
nodes=${3:-1000}
match_games=${4:-1000}
damas=${DAMAS:-./damas}
out=${OUT:-eval/weights}
mkdir -p "$out"
printf '| variant | training | games | W/D/L | Elo ± 95%% |\n|---|---|---|---|---|\n' >"$out/results.md"
for v in brazilian russian spanish czech italian american; do
  start=$(date +%s)
  "$damas" train --variant "$v" --generations "$generations" --games "$games" --nodes "$nodes" --seed 1 \
    --out "$out/$v.h5" 2>&1 | grep -E '^(generation|trained)' | tr '\r' '\n' | grep -v '^$' >"$out/$v.train.txt"
  rm -f "$out/$v.pdn"   # the self-play games are large; the log and weights are kept
  took=$(( $(date +%s) - start ))
  result=$("$damas" match --variant "$v" --a "$out/$v.h5" --b builtin --games "$match_games" --nodes "$nodes" \
    --seed 2 --threads "$(nproc)")
  echo "$result"
  wdl=$(sed -nE 's/^A wins ([0-9]+), draws ([0-9]+), losses ([0-9]+).*/\1\/\2\/\3/p' <<<"$result")
  elo=$(sed -nE 's/^Elo A - B: (.*)$/\1/p' <<<"$result")
  printf '| %s | %d s | %d | %s | %s |\n' "$v" "$took" "$match_games" "$wdl" "$elo" >>"$out/results.md"
done
cat "$out/results.md"

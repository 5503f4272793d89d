#!/usr/bin/env bash
# Trains the shipped weights of the 8x8 variants (eval/weights/<variant>.h5) and checks each
# against the compiled-in weights in a paired match, appending a line to
# eval/weights/results.md (the README's table).
# usage: scripts/train-all.sh [GENERATIONS] [GAMES] [NODES] [MATCH_GAMES]
# env:   VARIANTS (default: the six 8x8 variants), SEED (1), CONTINUE=1 to start from the
#        weights already in eval/weights (else from the compiled-in ones), ACCEPT_GAMES (200)
set -euo pipefail
generations=${1:-10}
games=${2:-400}
nodes=${3:-1000}
match_games=${4:-1000}
damas=${DAMAS:-./damas}
out=${OUT:-eval/weights}
seed=${SEED:-1}
mkdir -p "$out"
[ -f "$out/results.md" ] ||
  printf '| variant | training | games | W/D/L | Elo ± 95%% |\n|---|---|---|---|---|\n' >"$out/results.md"
for v in ${VARIANTS:-brazilian russian spanish czech italian american}; do
  start=$(date +%s)
  from=()
  if [ "${CONTINUE:-0}" = 1 ] && [ -f "$out/$v.h5" ]; then
    cp "$out/$v.h5" "$out/$v.from.h5"
    from=(--from "$out/$v.from.h5")
  fi
  "$damas" train --variant "$v" --generations "$generations" --games "$games" --nodes "$nodes" --seed "$seed" \
    --match-games "${ACCEPT_GAMES:-200}" "${from[@]}" --out "$out/$v.h5" 2>&1 |
    tr '\r' '\n' | grep -E '^(generation [0-9]+/[0-9]+: [0-9]+ games|trained)' >>"$out/$v.train.txt"
  rm -f "$out/$v.pdn" "$out/$v.from.h5"   # the self-play games are large; the log and weights are kept
  took=$(( $(date +%s) - start ))
  result=$("$damas" match --variant "$v" --a "$out/$v.h5" --b builtin --games "$match_games" --nodes "$nodes" \
    --seed 2 --threads "$(nproc)")
  echo "$result"
  wdl=$(sed -nE 's/^A wins ([0-9]+), draws ([0-9]+), losses ([0-9]+).*/\1\/\2\/\3/p' <<<"$result")
  elo=$(sed -nE 's/^Elo A - B: (.*)$/\1/p' <<<"$result")
  label="$generations x $games games, seed $seed${from:+, continued}"
  printf '| %s | %s, %d s | %d | %s | %s |\n' "$v" "$label" "$took" "$match_games" "$wdl" "$elo" >>"$out/results.md"
done
cat "$out/results.md"

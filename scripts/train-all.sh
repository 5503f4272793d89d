#!/usr/bin/env bash
# Trains the shipped weights (eval/weights/<variant>.h5) of each variant at scale: self-play
# into a data set until it holds POSITIONS positions (resumable: a rerun goes on where the last
# one stopped), a fit of the weights to it, and a paired match of the result against the
# compiled-in weights, appended to eval/weights/results.md (the README's table).
# usage: scripts/train-all.sh [POSITIONS] [NODES] [MATCH_GAMES]
# env:   VARIANTS (default: international and the six 8x8 variants), DATA (the data sets'
#        directory, default /var/tmp/damas-train), WEIGHTS (the self-play weights, default
#        builtin), SEED (1), LAMBDA (0), EPOCHS (30), OUT (eval/weights), DBS (a directory whose
#        <variant> subdirectories are endgame databases: self-play labels and ends games with
#        them), FROM (a directory of weight files <variant>.h5: a generation from them, played
#        with them, fitted from them and matched against them, into OUT, another directory;
#        the Spanish and Italian generation 1: FROM=eval/weights OUT=new DBS=dbs LAMBDA=0.5
#        EPOCHS=12 scripts/train-all.sh 10000000 1000 1000)
set -euo pipefail
positions=${1:-10000000}
nodes=${2:-2000}
match_games=${3:-400}
damas=${DAMAS:-./damas}
out=${OUT:-eval/weights}
data=${DATA:-/var/tmp/damas-train}
seed=${SEED:-1}
mkdir -p "$out" "$data"
if [ -n "${FROM:-}" ] && [ "$(realpath "$FROM")" = "$(realpath "$out")" ]; then
  echo "error: OUT must differ from FROM (the new weights are matched against the old)" >&2
  exit 2
fi
[ -f "$out/results.md" ] ||
  printf '| variant | positions | self-play, fit | games | W/D/L | Elo ± 95%% |\n|---|---|---|---|---|---|\n' >"$out/results.md"
for v in ${VARIANTS:-international brazilian russian spanish czech italian american}; do
  start=$(date +%s)
  db=()
  if [ -n "${DBS:-}" ] && [ -d "$DBS/$v" ]; then db=(--db "$DBS/$v"); fi
  from=()
  against=builtin
  play=${WEIGHTS:-builtin}
  if [ -n "${FROM:-}" ]; then from=(--from "$FROM/$v.h5"); against=$FROM/$v.h5; play=$FROM/$v.h5; fi
  "$damas" selfplay --variant "$v" --data "$data/$v.data.h5" --positions "$positions" --nodes "$nodes" \
    --weights "$play" --seed "$seed" "${db[@]}" 2>&1 | tail -1
  played=$(date +%s)
  "$damas" fit --variant "$v" --data "$data/$v.data.h5" --lambda "${LAMBDA:-0}" --epochs "${EPOCHS:-30}" \
    --seed "$seed" "${from[@]}" --out "$out/$v.h5" 2>"$out/$v.fit.txt"
  took="$((played - start)) s, $(($(date +%s) - played)) s"
  result=$("$damas" match --variant "$v" --a "$out/$v.h5" --b "$against" --games "$match_games" --nodes "$nodes" \
    --seed 2 --threads "$(nproc)")
  echo "$result"
  wdl=$(sed -nE 's/^A wins ([0-9]+), draws ([0-9]+), losses ([0-9]+).*/\1\/\2\/\3/p' <<<"$result")
  elo=$(sed -nE 's/^Elo A - B: (.*)$/\1/p' <<<"$result")
  printf '| %s | %s at %s nodes%s | %s | %d | %s | %s |\n' "$v" "$positions" "$nodes" "${db:+, with ${db[1]}}" \
    "$took" "$match_games" "$wdl" "$elo" >>"$out/results.md"
done
cat "$out/results.md"

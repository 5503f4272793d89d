#!/usr/bin/env bash
# The main job on built-in defaults: build the ≤5-piece endgame database of a variant, tune
# the evaluation by self-play using it, plot the training, and say where everything is.
# usage: scripts/run.sh [VARIANT] [OUT_DIR]   (defaults: russian, run/)
set -euo pipefail
variant=${1:-russian}
out=${2:-run}
damas=${DAMAS:-./damas}
[ -x "$damas" ] || { echo "error: $damas not found; run make first" >&2; exit 1; }
mkdir -p "$out/db" "$out/weights"
db="$out/db/$variant"
echo "== endgame database: $variant, up to 5 pieces, in $db"
"$damas" gen --variant "$variant" --pieces 5 --out "$db"
"$damas" info --db "$db" | tail -2
echo "== self-play training with the database (a few minutes)"
"$damas" train --variant "$variant" --db "$db" --games 300 --generations 4 --nodes 1000 --match-games 200 \
  --out "$out/weights/$variant.h5"
bash scripts/plot-training.sh "$out/weights/$variant.csv" "$out/weights/$variant.png"
cat <<DONE
== done
database:  $db  (damas probe --db $db "FEN")
explorer:  $damas serve --db $db   (then open http://127.0.0.1:8080/)
weights:   $out/weights/$variant.h5  (damas analyze --variant $variant --weights $out/weights/$variant.h5 "FEN")
games:     $out/weights/$variant.pdn
log:       $out/weights/$variant.csv
plot:      $out/weights/$variant.png
DONE

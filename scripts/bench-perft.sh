#!/usr/bin/env bash
# Perft speed: each variant's start position (depth 10 on 8x8, 8 on 10x10) and the published
# test positions, on one core. Every count is checked against the published figure.
# usage: scripts/bench-perft.sh [path/to/damas]
set -euo pipefail
damas=${1:-./damas}
[ -x "$damas" ] || { echo "error: $damas not found; run make first" >&2; exit 1; }

printf '%-14s %-18s %-5s %5s %13s %8s %12s  %s\n' variant position mode depth leaves seconds "M leaves/s" check
status=0
run() { # variant position mode depth expected [fen]
  local variant=$1 name=$2 mode=$3 depth=$4 want=$5 fen=${6:-}
  local args=(perft --variant "$variant" --json "$depth")
  [ -n "$fen" ] && args+=(--fen "$fen")
  [ "$mode" = keep ] && args+=(--keep)
  local out leaves secs
  out=$("$damas" "${args[@]}")
  leaves=$(sed -E 's/.*"leaves":([0-9]+).*/\1/' <<<"$out")
  secs=$(sed -E 's/.*"seconds":([0-9.]+).*/\1/' <<<"$out")
  local check=ok
  [ "$leaves" = "$want" ] || { check="MISMATCH (published $want)"; status=1; }
  printf '%-14s %-18s %-5s %5s %13s %8s %12.1f  %s\n' "$variant" "$name" "$mode" "$depth" "$leaves" "$secs" \
    "$(awk -v n="$leaves" -v s="$secs" 'BEGIN { print (s > 0 ? n / s / 1e6 : 0) }')" "$check"
}

run brazilian     start drop 10 21560022
run russian       start drop 10 22444032
run spanish       start drop 10 17743464
run czech         start drop 10 18368918
run italian       start drop 10 17761384
run american      start drop 10 18391564
run international start drop 8 6483961
run italian       "Gilbert 1" keep 13 10833722 "W:W30,26,27,22,23,24,17,18,20:B14,15,16,9,11,5,6,1,3"
run italian       "Gilbert 2" keep 10 77920042 "B:W30,21,22,17,20,K6:B25,28,9,5,1,3"
run italian       "Gilbert 3" keep 9 130562037 "W:WK27,K28,17,20,9,K12,8:B21,24,K19,K13,14,K11,4"
run international Random178 drop 8 86724219 "B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46"
run international Woldouby drop 14 58360286 "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38"
run international AllKings drop 10 58381162 "W:WK31,K32,K33,K34,K35,K36,K37,K38,K39,K40,K41,K42,K43,K44,K45,K46,K47,K48,K49,K50:BK1,K2,K3,K4,K5,K6,K7,K8,K9,K10,K11,K12,K13,K14,K15,K16,K17,K18,K19,K20"
run international AlmostPromotion drop 8 138362698 "W:W6,7,8,9,10:B41,42,43,44,45"
run international FrontRows keep 12 34907917 "W:B16,17,18,19,20:W31,32,33,34,35"
exit $status

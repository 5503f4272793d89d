#!/usr/bin/env bash
# Profile training for the release build (Makefile, PGO=1): runs the instrumented binary on
# the work damas spends its time on — the search bench of every variant, a ≤4-piece build and
# its verification, probes — so that GCC lays out the release build for it.
# usage: scripts/train-profile.sh INSTRUMENTED_DAMAS
set -euo pipefail
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$bin" bench >/dev/null
"$bin" gen --variant brazilian --pieces 4 --out "$dir/db" >/dev/null 2>&1
"$bin" verify --variant brazilian --db "$dir/db" >/dev/null
"$bin" probe --variant brazilian --db "$dir/db" "W:WK4,K29:B1,K15" "B:W22,K3:BK8,12" >/dev/null

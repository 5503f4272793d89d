#!/usr/bin/env bash
# The installed library: examples/probe.c built against PREFIX with pkg-config (shared and
# static), and the Python module over libdamas.so, both answering as `damas probe` does.
# usage: tests/embed.sh PREFIX   (after make install PREFIX=...)
set -u
prefix=$1
work=$(mktemp -d /tmp/damas-embed-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/lib.sh"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
damas="$prefix/bin/damas"
here=$(cd "$(dirname "$0")/.." && pwd)

check installed_binary 0 "done: russian" -- "$damas" gen --variant russian --pieces 3 --out "$work/db"
check pkg_config 0 "-ldamas" -- pkg-config --libs damas
# shellcheck disable=SC2046
check example_builds_shared 0 "" -- cc -Wall -Werror "$here/examples/probe.c" $(pkg-config --cflags --libs damas) \
  -Wl,-rpath,"$prefix/lib" -o "$work/probe"
# shellcheck disable=SC2046
check example_builds_static 0 "" -- cc -fopenmp "$here/examples/probe.c" -I"$prefix/include" "$prefix/lib/libdamas.a" \
  $(pkg-config --static --libs-only-L --libs-only-l damas | sed 's/-ldamas//') -o "$work/probe-static"
check example_probes 0 "e3-d4        win 5" -- "$work/probe" "$work/db" "W:WKc3,e3:Bd8"
check example_static_probes 0 "W:WKc3,e3:Bd8, russian database up to 3 pieces: win in 5 plies" -- \
  "$work/probe-static" "$work/db" "W:WKc3,e3:Bd8"
check example_bad_fen 2 "error: " -- "$work/probe" "$work/db" "W:Wz9:B1"
check example_no_db 1 "error: " -- "$work/probe" "$work/nothing" "W:Wc3:Bd8"

# Every move line of the example equals damas probe --json; the Python module's answers too.
fens="W:WKc3,e3:Bd8 B:Wc3,e3:Bd8 W:Wa1,Kh8:Bb6 B:WKa1:Bb6,Kh4 W:Wc3:Bd4"
out=$(PYTHONPATH="$prefix/share/damas/python" python3 - "$damas" "$work/db" "$work/probe" $fens 2>&1 <<'PY'
import json, subprocess, sys
import damas_probe
damas, db, example, fens = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
handle = damas_probe.open(db)
assert handle.variant == "russian" and handle.pieces == 3, (handle.variant, handle.pieces)
for fen in fens:
    want = json.loads(subprocess.run([damas, "probe", "--db", db, "--json", fen], capture_output=True, text=True).stdout)
    got = handle.probe(fen)
    assert got == want, (fen, got, want)
    assert handle.moves(fen) == want["moves"]
    lines = subprocess.run([example, db, fen], capture_output=True, text=True).stdout.splitlines()[1:]
    moves = [l.split() for l in lines]
    assert moves == [[m["move"], m["wdl"]] + ([str(m["dtw"])] if m["dtw"] is not None else []) for m in want["moves"]], (fen, moves)
for bad, kind in (("W:Wz9:B1", ValueError), ("W:Wa1,c1,e1:Bb8,d8", LookupError)):
    try:
        handle.probe(bad)
        raise AssertionError(f"{bad}: no {kind.__name__}")
    except kind:
        pass
try:
    damas_probe.open("/nonexistent")
    raise AssertionError("no OSError for a missing database")
except OSError:
    pass
handle.close()
print("python ok")
PY
)
if [ "$out" = "python ok" ]; then ok; else fail "python module: $out"; fi
finish

#!/usr/bin/env bash
# Endgame databases through the command line: every variant built and verified, a killed run
# resumed to identical bytes, foreign and damaged files refused, files read by h5dump.
# usage: tests/db.sh path/to/damas [pieces]   (pieces: 4 by default)
set -u
damas=$(realpath "${1:-./damas}")
pieces=${2:-4}
work=$(mktemp -d /tmp/damas-db-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/lib.sh"

sums() { (cd "$1" && sha256sum ./*.h5 | sort -k2); }

for v in brazilian russian spanish czech italian american international; do
  check "gen_$v" 0 "done: $v" -- "$damas" gen --variant "$v" --pieces "$pieces" --out "$work/$v"
  check "verify_$v" 0 "positions consistent" -- "$damas" verify --variant "$v" --db "$work/$v"
done
# The bytes gen writes, against the checksums committed in tests/golden/: a change in what gen
# writes shows in review. After an intended change: (cd DIR && sha256sum */*.h5 */damas-db.txt
# | sort -k2) > tests/golden/db-4-pieces.sha256, DIR holding the seven ≤4 databases.
if [ "$pieces" -eq 4 ]; then
  golden="$(dirname "$0")/golden/db-4-pieces.sha256"
  got=$(cd "$work" && sha256sum ./*/*.h5 ./*/damas-db.txt | sed 's|  \./|  |' | sort -k2)
  if [ "$got" = "$(cat "$golden")" ]; then ok; else
    fail "golden checksums: $(diff <(echo "$got") "$golden" | head -5)"; fi
fi
check gen_optional_capture 0 "done" -- "$damas" gen --variant spanish --optional-capture --pieces 3 --out "$work/opt"
check verify_optional_capture 0 "consistent" -- "$damas" verify --db "$work/opt"
check gen_into_a_finished_directory_says_so 0 "already holds every unit up to 3 pieces" -- \
  "$damas" gen --variant spanish --optional-capture --pieces 3 --out "$work/opt"
# Time left: no estimate from the first unit's fixed costs, nothing left after the last unit.
out=$("$damas" gen --variant russian --pieces 3 --out "$work/eta" 2>&1)
if grep -q '^\[  1/  9\].*left ?  solved' <<<"$out" && grep -q '^\[  9/  9\].*left 0 s  solved' <<<"$out"; then
  ok; else fail "time left: $out"; fi

# American king v king and two kings v king: the published counts.
check info_american_kkk 0 '"name":"m0k2-m0k1","us_men":0,"us_kings":2,"them_men":0,"them_kings":1,"positions":14880,"wins":14846,"draws":34,"losses":0,' -- \
  "$damas" info --db "$work/american" --json
check info_table 0 "american, " -- "$damas" info --db "$work/american"
check info_json 0 '{"name":"m0k1-m0k1","us_men":0,"us_kings":1,"them_men":0,"them_kings":1,"positions":992,"wins":230,"draws":654,"losses":108,"max_dtw":11,"bytes":' -- \
  "$damas" info --db "$work/american" --json

# Same command, different threads, another day: the same bytes.
"$damas" gen --variant russian --pieces "$pieces" --out "$work/russian-1t" --threads 1 2>/dev/null
if [ "$(sums "$work/russian")" = "$(sums "$work/russian-1t")" ]; then ok; else fail "gen is not byte-identical across thread counts"; fi

# Kill a run part-way, resume: nothing redone that was complete, and identical bytes.
"$damas" gen --variant russian --pieces "$pieces" --out "$work/killed" 2>/dev/null &
pid=$!
for _ in $(seq 1 100); do
  [ "$(ls "$work/killed"/*.h5 2>/dev/null | wc -l)" -ge 10 ] && break
  sleep 0.05
done
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
done_before=$(ls "$work/killed"/*.h5 | wc -l)
out=$("$damas" gen --variant russian --pieces "$pieces" --out "$work/killed" 2>&1)
kept=$(grep -c "on disk" <<<"$out")
if [ "$kept" -eq "$done_before" ] && [ "$(sums "$work/russian")" = "$(sums "$work/killed")" ]; then ok; else
  fail "resume after kill: $done_before units were on disk, $kept kept; identical: $([ "$(sums "$work/russian")" = "$(sums "$work/killed")" ] && echo yes || echo no)"; fi

# Probing: value, moves and line, in text and JSON, from arguments and standard input.
check probe_win_in_one 0 "value: win in 1 ply (1 move)" -- "$damas" probe --db "$work/american" "W:W18,K1:B14"
check probe_json 0 '{"variant":"american","fen":"W:WK1,18:B14","wdl":"win","dtw":1,"bestmove":"18x9","moves":[{"move":"18x9","from":"18","to":"9","capture":true,"wdl":"win","dtw":1,"fen":"B:WK1,9:B"}],"line":["18x9"]}' -- \
  "$damas" probe --db "$work/american" --json "W:W18,K1:B14"
check probe_draw_no_line 0 '"wdl":"draw","dtw":null,"bestmove":"14x23","moves":[{"move":"14x23","from":"14","to":"23","capture":true,"wdl":"draw","dtw":null,"fen":"W:WK1:B23"}],"line":[]}' -- \
  "$damas" probe --db "$work/american" --json "B:W18,K1:B14"
out=$(printf 'W:W18,K1:B14\n\nW:WK1,K2:BK32\n' | "$damas" probe --db "$work/american" --json)
if [ "$(grep -c '"wdl":"win"' <<<"$out")" -eq 2 ]; then ok; else fail "probe_stdin: $out"; fi
check probe_stdin_nul_byte 2 "error: line 2 of the input holds a NUL byte" -- \
  bash -c "printf 'W:W18,K1:B14\nW:W18\\0,K1:B14\n' | '$damas' probe --db '$work/american'"
check probe_bad_fen 2 '"error":"' -- "$damas" probe --db "$work/american" --json "W:W18,K1:B14" "W:W99:B1"
check probe_beyond 1 "is not in the database" -- "$damas" probe --db "$work/american" "W:W25,26,27:B5,6,7"
check probe_other_variant 1 "american" -- "$damas" probe --variant russian --db "$work/american" "W:W18:B14"
check probe_no_db 1 "error: /tmp is not a damas database" -- "$damas" probe --db /tmp "W:W18:B14"

# Foreign and damaged databases: a clear error, exit 1, never a crash.
cp -r "$work/russian" "$work/holed" && rm "$work/holed/m1k0-m1k0.h5"
check info_names_a_missing_unit 1 "lacks 1 unit file with fewer pieces, m1k0-m1k0.h5" -- "$damas" info --db "$work/holed"
check verify_names_a_missing_unit 1 "m1k0-m1k0.h5" -- "$damas" verify --db "$work/holed"
check gen_into_other_variant 1 "error: $work/american holds a american database" -- \
  "$damas" gen --variant russian --pieces 2 --out "$work/american"
check verify_as_other_variant 1 "not russian" -- "$damas" verify --variant russian --db "$work/american"
check verify_not_a_database 1 "error: /tmp is not a damas database" -- "$damas" verify --db /tmp
# One unit at a time (what verify does by itself when the tables do not fit in memory).
check verify_low_memory_says_so 0 "verifying one unit at a time" -- "$damas" verify --db "$work/american" --low-memory
check verify_low_memory_passes 0 "positions consistent" -- "$damas" verify --db "$work/american" --low-memory
cp -r "$work/russian" "$work/truncated"
unit="$work/truncated/m0k1-m1k1.h5"
truncate -s 3000 "$unit"
check verify_truncated 1 "m0k1-m1k1.h5" -- "$damas" verify --db "$work/truncated"
check info_truncated 1 "m0k1-m1k1.h5" -- "$damas" info --db "$work/truncated"
cp -r "$work/russian" "$work/flipped"
unit="$work/flipped/m0k1-m1k1.h5"
size=$(stat -c %s "$unit")
printf '\xff\xff\xff\xff' | dd of="$unit" bs=1 seek=$((size - 200)) conv=notrunc status=none
check verify_flipped 1 "m0k1-m1k1" -- "$damas" verify --db "$work/flipped"
check verify_low_memory_flipped 1 "m0k1-m1k1" -- "$damas" verify --db "$work/flipped" --low-memory
# Some units only (either slice's name), with a line per unit checked.
check verify_unit_reports_it 0 "[  1/  1] m0k1-m1k1" -- "$damas" verify --db "$work/american" --unit m0k1-m1k1
check verify_unit_flipped 1 "slice m0k1-m1k1" -- "$damas" verify --db "$work/flipped" --unit m1k1-m0k1
check verify_one_slice_unit 0 "ok: 1 slices, 992 positions consistent" -- \
  "$damas" verify --db "$work/american" --unit m0k1-m0k1
check verify_unit_absent 1 "error: unit m2k2-m2k2 is not in" -- "$damas" verify --db "$work/american" --unit m2k2-m2k2
check verify_pieces 0 "ok: 12 slices" -- "$damas" verify --db "$work/american" --pieces 3
check verify_pieces_absent 1 "holds no unit of 7 pieces" -- "$damas" verify --db "$work/american" --pieces 7
check verify_unit_malformed 2 "not a slice name" -- "$damas" verify --db "$work/american" --unit kings
check probe_flipped 1 "m0k1-m1k1.h5: slice m0k1-m1k1" -- "$damas" probe --db "$work/flipped" "W:WK1:B14,K32"

# A full disk: a clear error, exit 1, no partial unit, the finished units intact.
mkdir -p "$work/tiny"
if mount -t tmpfs -o size=1m tmpfs "$work/tiny" 2>/dev/null; then
  check gen_full_disk 1 "(disk full?)" -- "$damas" gen --variant russian --pieces 4 --out "$work/tiny/db"
  check verify_after_full_disk 0 "positions consistent" -- "$damas" verify --db "$work/tiny/db"
  if ls "$work/tiny/db" | grep -q '\.tmp$'; then fail "a temporary unit file was left on the full disk"; else ok; fi
  umount "$work/tiny"
else
  echo "skipped: full-disk check (cannot mount a tmpfs here)"
fi

# Other tools read the files: h5dump with Debian's LZ4 filter plugin (values two bits each,
# four to a byte: draw draw draw draw = 85; the first bytes of index scheme 2).
plugins=$(dirname "$(dpkg -L hdf5-filter-plugin 2>/dev/null | grep -m1 'libh5lz4.so')")
check h5dump_reads_lz4 0 "(0): 64, 85, 85, 85, 85, 85, 85, 85, 160" -- \
  env HDF5_PLUGIN_PATH="$plugins" h5dump -d /m0k1-m0k1/wdl "$work/american/m0k1-m0k1.h5"
# and h5py (Debian's python3-h5py, the same plugin): the values and the distances decode, with
# the slice's attributes.
check h5py_reads_lz4 0 "[64, 85, 85, 85] 248 992 american" -- \
  env HDF5_PLUGIN_PATH="$plugins" /usr/bin/python3 -c '
import sys, h5py
g = h5py.File(sys.argv[1], "r")["m0k1-m0k1"]
w, d = g["wdl"][:], g["dtw"][:]
assert len(d) == int(g.attrs["positions"]), len(d)
print(list(w[:4]), len(w), int(g.attrs["positions"]), g.attrs["variant"].decode() if isinstance(g.attrs["variant"], bytes) else g.attrs["variant"])
' "$work/american/m0k1-m0k1.h5"
# and h5py with hdf5plugin, as its users open files (Debian's python3-hdf5plugin names the
# filters and loads Debian's builds of them from HDF5's default plugin directory, no variable
# set): the datasets' filter is the one hdf5plugin calls LZ4.
check h5py_hdf5plugin_reads_lz4 0 "lz4 32004 [64, 85, 85, 85] 992" -- \
  env -u HDF5_PLUGIN_PATH /usr/bin/python3 -c '
import sys, h5py, hdf5plugin
g = h5py.File(sys.argv[1], "r")["m0k1-m0k1"]
assert all(str(hdf5plugin.LZ4_ID) in g[n]._filters for n in ("wdl", "dtw")), g["wdl"]._filters
w, d = g["wdl"][:], g["dtw"][:]
assert len(d) == int(g.attrs["positions"])
print("lz4", hdf5plugin.LZ4_ID, list(w[:4]), int(g.attrs["positions"]))
' "$work/american/m0k1-m0k1.h5"
# A distances chunk is LZ4 blocks of 16 KiB (docs/FORMAT.md): the plugin reads those too (the
# largest slice's first chunk, which holds more than one block).
check h5py_reads_lz4_blocks 0 "decoded all" -- \
  env HDF5_PLUGIN_PATH="$plugins" /usr/bin/python3 -c '
import os, sys, struct, h5py
best = None
for name in sorted(os.listdir(sys.argv[1])):
    if name.endswith(".h5"):
        for g in h5py.File(os.path.join(sys.argv[1], name), "r").values():
            if "dtw" in g and (best is None or g.attrs["positions"] > best.attrs["positions"]):
                best = g
d = best["dtw"]
_, raw = d.id.read_direct_chunk((0,))
size, block = struct.unpack(">QI", raw[:12])
assert size > block, (size, block)
assert len(d[:]) == int(best.attrs["positions"])
print(best.name, "blocks", -(-size // block), "decoded all")
' "$work/american"

# The explorer: its API answers as probe --json does, bad requests get errors, and the page
# works in headless Chromium (tests/serve.py, tests/explorer.py).
here=$(dirname "$0")
for t in "serve.py $work/russian $work/american $work/international" "explorer.py $work/russian $work/spanish"; do
  # shellcheck disable=SC2086
  if out=$(python3 "$here/${t%% *}" "$damas" ${t#* } 2>&1); grep -q " 0 failed" <<<"$out"; then ok; else
    fail "${t%% *}: $out"; fi
done

finish

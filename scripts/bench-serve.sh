#!/usr/bin/env bash
# Load and abuse of `damas serve` on loopback (tools/http-load.c): 16 clients x 2,000 probes of
# random positions on kept-alive connections (requests/s, p50/p99 latency, errors), then 1,000
# malformed requests, after which the server must still answer.
# usage: scripts/bench-serve.sh [DB_DIR] [CLIENTS] [PROBES]   (default: a ≤5 Russian database,
# built into build/bench-db/russian-5 if missing)
set -euo pipefail
db=${1:-build/bench-db/russian-5}
clients=${2:-16}
probes=${3:-2000}
make -s damas build/rel/http-load
[ -f "$db/damas-db.txt" ] || ./damas gen --variant russian --pieces 5 --out "$db" >/dev/null
work=$(mktemp -d)
./damas serve --db "$db" --port 0 --threads "$(nproc)" >"$work/out" 2>"$work/err" &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do grep -q serving "$work/out" && break; sleep 0.1; done
url=$(awk '{print $2; exit}' "$work/out")
port=$(sed 's|.*:\([0-9]*\)/$|\1|' <<<"$url")
# Random positions of 2 to the database's piece count, some beyond it or illegal (404/400).
python3 - "$url" "$work/fens" <<'PY'
import json, random, sys, urllib.request
v = json.load(urllib.request.urlopen(sys.argv[1] + "api/variants"))["variants"][0]
labels = [s["label"] for s in v["squares"]]
rng = random.Random(1)
with open(sys.argv[2], "w") as f:
    for _ in range(20000):
        n = rng.randint(2, v["pieces"])
        sq = rng.sample(labels, n)
        k = rng.randint(1, n - 1)
        side = lambda s: ",".join(("K" if rng.random() < 0.3 else "") + x for x in s)
        f.write(f"{rng.choice('WB')}:W{side(sq[:k])}:B{side(sq[k:])}\n")
PY
variant=$(python3 -c "import json,urllib.request;print(json.load(urllib.request.urlopen('${url}api/variants'))['variants'][0]['name'])")
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); server: $(nproc) threads; $db"
build/rel/http-load "$port" probe "$clients" "$probes" "$work/fens" "$variant"
build/rel/http-load "$port" abuse 1000 1
kill -0 $server && echo "server still running"

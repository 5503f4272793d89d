#!/usr/bin/env python3
"""`damas serve`: its API answers equal `damas probe --json`, and bad requests get errors.

usage: tests/serve.py path/to/damas DB_DIR [DB_DIR ...]   (each a database of another variant)

Starts the server on a free port with every database given, then:
  - 150 random positions of each variant: GET /api/probe equals `damas probe --json` on the
    same FEN (the JSON objects compared as data);
  - /api/variants lists every variant with its squares;
  - bad requests: malformed FEN, over-long FEN, NUL byte, unknown and unserved variant, a
    position beyond the database, unknown path, POST, a path climbing out of the tree: each
    the right status with a JSON error; the server still answers afterwards.
Prints "N passed, N failed" and exits non-zero on any failure.
"""
import json
import random
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

from checks import check, finish

damas, dirs = sys.argv[1], sys.argv[2:]


def get(base, path, method="GET", data=None):
    req = urllib.request.Request(base + path, method=method, data=data)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers.get("Content-Type"), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type"), e.read()


def random_fens(variant, squares, pieces, count, rng):
    """FENs of 2..pieces pieces on the variant's squares (some illegal, e.g. a man on its
    promotion row: the two answers must agree on those too)."""
    labels = [s["label"] for s in squares]
    fens = []
    for _ in range(count):
        n = rng.randint(2, pieces)
        chosen = rng.sample(labels, n)
        white = [("K" if rng.random() < 0.4 else "") + s for s in chosen[: max(1, n // 2)]]
        black = [("K" if rng.random() < 0.4 else "") + s for s in chosen[max(1, n // 2):]]
        fens.append(f"{rng.choice('WB')}:W{','.join(white)}:B{','.join(black)}")
    return fens


server = subprocess.Popen([damas, "serve", "--port", "0", "--threads", "4"] + [a for d in dirs for a in ("--db", d)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
try:
    first = server.stdout.readline()
    check("serving_line", first.startswith("serving http://127.0.0.1:"), first)
    base = first.split()[1].rstrip("/")

    status, ctype, body = get(base, "/api/variants")
    variants = json.loads(body)["variants"]
    check("variants_listed", status == 200 and len(variants) == len(dirs), body[:200])
    rng = random.Random(7)
    for v, d in zip(variants, dirs):
        check(f"squares_{v['name']}", len(v["squares"]) == v["board"] ** 2 // 2, len(v["squares"]))
        fens = random_fens(v["name"], v["squares"], v["pieces"], 150, rng) + [v["example"]]
        cli = subprocess.run([damas, "probe", "--db", d, "--json"], input="\n".join(fens) + "\n",
                             capture_output=True, text=True).stdout.splitlines()
        check(f"cli_lines_{v['name']}", len(cli) == len(fens), f"{len(cli)} lines for {len(fens)} FENs")
        same = answered = 0
        for fen, line in zip(fens, cli):
            q = urllib.parse.urlencode({"variant": v["name"], "fen": fen})
            status, ctype, body = get(base, "/api/probe?" + q)
            api, want = json.loads(body), json.loads(line)
            answered += "error" not in want
            if api == want and (status == 200) == ("error" not in want) and ctype == "application/json":
                same += 1
            else:
                check(f"api_equals_cli_{v['name']}", False, f"{fen}: HTTP {status} {body[:300]} vs {line[:300]}")
        check(f"api_equals_cli_{v['name']}_all", same == len(fens), f"{same}/{len(fens)}")
        check(f"api_answers_{v['name']}", answered >= 100, f"only {answered} positions answered")

    name = variants[0]["name"]
    size = variants[0]["board"] ** 2 // 2
    served = {v["name"] for v in variants}
    unserved = next(n for n in ("czech", "italian", "brazilian", "russian") if n not in served)

    def probe(fen, variant=name, extra=""):
        return get(base, "/api/probe?" + urllib.parse.urlencode({"variant": variant, "fen": fen}) + extra)

    for label, (status, ctype, body), want in [
        ("malformed_fen", probe("W:W99:B1"), 400),
        ("garbage_fen", probe("not a fen at all"), 400),
        ("long_fen", probe("W:W" + "1," * 400 + ":B2"), 400),
        ("nul_in_fen", get(base, f"/api/probe?variant={name}&fen=W:W1%00:B2"), 400),
        ("bad_utf8", get(base, f"/api/probe?variant={name}&fen=%ff%fe%fd"), 400),
        ("unknown_variant", probe("W:W1:B2", "nosuch"), 400),
        ("variant_not_served", probe("W:W1:B2", unserved), 404),
        ("beyond_database", probe(f"W:W{size - 11}-{size}:B1-12"), 404),
        ("no_fen", get(base, f"/api/probe?variant={name}"), 400),
        ("bad_optional_flag", probe("W:W1:B2", name, "&optional-capture=maybe"), 400),
        ("unknown_path", get(base, "/nosuch"), 404),
        ("climbing_path", get(base, "/../../etc/passwd"), 404),
        ("post", get(base, "/api/probe", "POST", b"x" * 1000), 405),
    ]:
        ok = status == want and ctype == "application/json" and "error" in json.loads(body)
        check(label, ok, f"HTTP {status} {ctype} {body[:200]}")

    status, ctype, body = get(base, "/")
    check("page", status == 200 and ctype.startswith("text/html") and b"explorer.js" in body, status)
    status, ctype, body = get(base, "/explorer.js")
    check("script", status == 200 and ctype.startswith("text/javascript"), status)
    status, _, _ = get(base, "/api/probe?" + urllib.parse.urlencode({"variant": name, "fen": variants[0]["example"]}))
    check("still_answering", status == 200 and server.poll() is None, status)
finally:
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
check("stops_on_sigterm", server.returncode == 0, f"exit {server.returncode}: {server.stderr.read()[-300:]}")
finish()

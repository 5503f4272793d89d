#!/usr/bin/env python3
"""Plays one full game against `damas hub` through the Hub protocol, as a GUI would: the
handshake, then for every ply `pos` (start position plus the moves so far), `level`, `go think`,
reading `info` lines until `done`. Both sides are the engine. Ends when the engine reports the
position has no legal move (the game is over) or after MAX_PLIES plies.
usage: tests/hub_game.py DAMAS VARIANT START_POSITION"""
import subprocess
import sys

MAX_PLIES = 160


def main():
    damas, variant, start = sys.argv[1], sys.argv[2], sys.argv[3]
    p = subprocess.Popen([damas, "hub"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(line):
        p.stdin.write(line + "\n")
        p.stdin.flush()

    def read_until(word):
        lines = []
        while True:
            line = p.stdout.readline()
            if not line:
                sys.exit("engine closed its output before '%s'; got %r" % (word, lines))
            line = line.strip()
            lines.append(line)
            if line.split(" ")[0] == word:
                return lines

    send("hub")
    handshake = read_until("wait")
    assert handshake[0].startswith("id name=damas"), handshake
    assert any(l.startswith("param name=variant") for l in handshake), handshake
    send("set-param name=variant value=" + variant)
    send("init")
    assert read_until("ready")[-1] == "ready"
    send("ping")
    assert read_until("pong")[-1] == "pong"
    send("new-game")
    moves = []
    while len(moves) < MAX_PLIES:
        send('pos pos=%s moves="%s"' % (start, " ".join(moves)))
        send("level depth=3")
        send("go think")
        lines = read_until("done")
        errors = [l for l in lines if l.startswith("error")]
        if errors:
            assert "no legal move" in errors[0], errors
            break
        assert any(l.startswith("info depth=") for l in lines), lines
        done = lines[-1].split(" ")
        move = done[1].split("=", 1)[1]
        moves.append(move)
    send("quit")
    p.wait(timeout=10)
    assert p.returncode == 0, p.returncode
    over = "no legal move" if len(moves) < MAX_PLIES else "ply limit"
    print("hub game: %d plies, ended by %s" % (len(moves), over))


main()

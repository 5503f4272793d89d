#!/usr/bin/env python3
"""Drives `damas hub` as pydraughts drives Scan, SESSIONS times: `hub`, `init` with the variant
name `normal`, `pos`, `level infinite`, `go think`, `stop` at once, then `quit`. Each session must
answer `done move=…` and end, within TIMEOUT seconds, or the test fails (a lost `stop` would hang).
usage: tests/hub_stop.py DAMAS [SESSIONS]"""
import subprocess
import sys

TIMEOUT = 10
START = "W" + "b" * 20 + "e" * 10 + "w" * 20


def session(damas):
    script = "\n".join(["hub", "set-param name=variant value=normal", "set-param name=tt-mb value=8", "init",
                        "pos pos=" + START, "level infinite", "go think", "stop", "quit", ""])
    p = subprocess.run([damas, "hub"], input=script, capture_output=True, text=True, timeout=TIMEOUT)
    lines = p.stdout.splitlines()
    if p.returncode != 0 or "ready" not in lines or not any(l.startswith("done move=") for l in lines):
        sys.exit("session without ready or done move (exit %d): %r" % (p.returncode, lines))


def main():
    damas, sessions = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 50
    for _ in range(sessions):
        try:
            session(damas)
        except subprocess.TimeoutExpired:
            sys.exit("a session hung: its stop was lost")
    print("hub stop: %d sessions, none hung" % sessions)


if __name__ == "__main__":
    main()

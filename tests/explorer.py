#!/usr/bin/env python3
"""The explorer page in headless Chromium, driven over the DevTools protocol (a pipe: no
WebSocket library and no npm package needed).

usage: tests/explorer.py path/to/damas RUSSIAN_DB SPANISH_DB [SCREENSHOT.png [FEN]]

Loads the page, sets a FEN in the FEN box, checks the value and the move list against the API,
clicks the best move on the board (two mouse clicks: from, to), checks the board and the move
list after it, goes back, and checks that Spanish's square 1 is drawn at h1 (bottom right).
With SCREENSHOT, saves the page showing the Russian FEN (the README's picture). Prints "N passed, N failed".
"""
import base64
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

from checks import check, finish

damas, russian_db, spanish_db = sys.argv[1:4]
shot = sys.argv[4] if len(sys.argv) > 4 else None
shot_fen = sys.argv[5] if len(sys.argv) > 5 else "W:WKc3,e3:Bd8"


class Browser:
    """Chromium with --remote-debugging-pipe: commands on its fd 3, replies on its fd 4, each
    a JSON message ended by a NUL byte."""

    def __init__(self):
        exe = shutil.which("chromium") or shutil.which("chromium-browser")
        if not exe:
            raise RuntimeError("chromium is not installed (scripts/install-deps.sh installs it)")
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()
        # Out of the way of 3 and 4 before the child moves them there.
        hi_r, hi_w = fcntl.fcntl(to_r, fcntl.F_DUPFD, 20), fcntl.fcntl(from_w, fcntl.F_DUPFD, 20)
        os.close(to_r)
        os.close(from_w)
        self.profile = tempfile.mkdtemp(prefix="damas-chromium.")

        def child():
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--remote-debugging-pipe",
             f"--user-data-dir={self.profile}", "--window-size=1100,660", "about:blank"],
            preexec_fn=child, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(hi_r)
        os.close(hi_w)
        self.out, self.inp, self.buf, self.next_id = to_w, from_r, b"", 0
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]

    def call(self, method, session=None, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self.out, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + 30
        while time.time() < deadline:
            while b"\0" not in self.buf:
                chunk = os.read(self.inp, 1 << 16)
                if not chunk:
                    raise RuntimeError("chromium closed its pipe")
                self.buf += chunk
            raw, self.buf = self.buf.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
        raise RuntimeError(f"{method}: no reply")

    def page(self, method, **params):
        return self.call(method, self.session, **params)

    def js(self, expr):
        r = self.page("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expr}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def wait(self, expr, timeout=15):
        """Waits until expr is truthy; returns its value (or None on timeout)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            v = self.js(expr)
            if v:
                return v
            time.sleep(0.05)
        return None

    def click(self, selector):
        """A real mouse click at the centre of the element."""
        box = self.js(f"(() => {{ const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect();"
                      " return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        for kind in ("mousePressed", "mouseReleased"):
            self.page("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)

    def close(self):
        try:
            self.call("Browser.close")
        except RuntimeError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def api(base, variant, fen):
    q = urllib.parse.urlencode({"variant": variant, "fen": fen})
    with urllib.request.urlopen(f"{base}/api/probe?{q}", timeout=30) as r:
        return json.loads(r.read())


server = subprocess.Popen([damas, "serve", "--port", "0", "--db", russian_db, "--db", spanish_db],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
browser = None
try:
    base = server.stdout.readline().split()[1].rstrip("/")
    browser = Browser()
    b = browser
    b.page("Page.enable")
    b.page("Emulation.setDeviceMetricsOverride", width=1100, height=700, deviceScaleFactor=1, mobile=False)
    b.page("Page.navigate", url=f"{base}/?variant=russian")
    ready = "document.body && document.body.dataset.ready"
    check("page_loads", b.wait(ready) is not None, "the page never showed a position")

    fen = "W:WKc3,e3:Bd8"
    want = api(base, "russian", fen)
    before = b.js(ready)
    b.js(f"document.getElementById('fen').value = {json.dumps(fen)}; document.getElementById('set').click(); 1")
    b.wait(f"document.body.dataset.ready !== {json.dumps(before)} && document.getElementById('value').textContent")
    check("value_shown", b.js("document.getElementById('value').textContent") == "win in 5 plies (3 moves)",
          b.js("document.getElementById('value').textContent"))
    items = b.js("[...document.querySelectorAll('#moves li')].map(li => [li.dataset.move, li.className])")
    check("moves_listed_best_first", items == [[m["move"], m["wdl"]] for m in want["moves"]], items)
    check("line_shown", b.js("document.getElementById('line').textContent") == " ".join(want["line"]))
    check("url_carries_fen", urllib.parse.parse_qs(urllib.parse.urlparse(b.js("location.href")).query).get("fen")
          == [want["fen"]], b.js("location.href"))

    best = want["moves"][0]
    before = b.js(ready)
    b.click(f".sq[data-square='{best['from']}']")
    targets = b.js("[...document.querySelectorAll('.sq.target')].map(s => s.dataset.square)")
    check("targets_marked", best["to"] in targets, targets)
    b.click(f".sq[data-square='{best['to']}']")
    b.wait(f"document.body.dataset.ready !== {json.dumps(before)}")
    after = api(base, "russian", best["fen"])
    pieces = b.js("Object.fromEntries([...document.querySelectorAll('.pc')]"
                  ".map(p => [p.parentElement.dataset.square, p.dataset.piece]))")
    check("board_after_move", pieces == {"d4": "w", "c3": "W", "d8": "b"}, pieces)
    check("side_after_move", b.js("document.getElementById('tomove').textContent") == "Black to move")
    items = b.js("[...document.querySelectorAll('#moves li')].map(li => [li.dataset.move, li.className])")
    check("moves_after_move", items == [[m["move"], m["wdl"]] for m in after["moves"]] and items[0][1] == "loss",
          items)
    check("fen_box_after_move", b.js("document.getElementById('fen').value") == after["fen"])

    before = b.js(ready)
    b.click("#back")
    b.wait(f"document.body.dataset.ready !== {json.dumps(before)}")
    check("back", b.js("document.getElementById('fen').value") == want["fen"], b.js("document.getElementById('fen').value"))

    b.page("Page.navigate", url=f"{base}/?variant=spanish&fen=W:W1:B32")
    b.wait("document.body && document.body.dataset.ready && document.getElementById('tomove').textContent")
    # The 64 cells in reading order: Spanish's square 1 is h1, the last one.
    cell = b.js("[...document.getElementById('board').children].findIndex(c => c.dataset.square === '1')")
    check("spanish_square_1_at_h1", cell == 63, cell)
    if shot:
        b.page("Page.navigate", url=f"{base}/?variant=russian&fen=" + urllib.parse.quote(shot_fen))
        b.wait("document.body && document.body.dataset.ready && document.querySelectorAll('#moves li').length")
        data = b.page("Page.captureScreenshot", format="png")["data"]
        with open(shot, "wb") as f:
            f.write(base64.b64decode(data))
except RuntimeError as e:
    check("browser", False, str(e))
finally:
    if browser:
        browser.close()
    server.terminate()
    server.wait(timeout=10)
finish()

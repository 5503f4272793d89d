"""Shared by the Python test scripts: check(NAME, COND, DETAIL) counts a check and prints
"FAIL NAME: DETAIL" when COND is false; finish() prints "N passed, N failed" and exits, non-zero
on any failure (as tests/lib.sh does for the shell scripts)."""
import sys

passed = failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {name}: {detail}"[:800])


def finish():
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)

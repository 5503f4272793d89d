# Shared by the command-line test scripts: `check NAME WANT_EXIT WANT_TEXT -- COMMAND...` runs
# COMMAND (no stdin) and checks its exit code and that stdout+stderr contain WANT_TEXT;
# `finish` prints the 'N passed, N failed' line and sets the exit status.
passed=0 failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
check() {
  local name=$1 want_rc=$2 want_text=$3
  shift 4
  local out rc
  out=$("$@" 2>&1 </dev/null)
  rc=$?
  if [ "$rc" -eq "$want_rc" ] && grep -qF -- "$want_text" <<<"$out"; then ok; else
    fail "$name: exit $rc (want $want_rc), output: $(head -c 600 <<<"$out")"; fi
}
finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}

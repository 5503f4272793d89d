#!/usr/bin/env bash
# Command-line behaviour of damas: output, exit codes and error messages.
# usage: tests/cli.sh path/to/damas
set -u
damas=${1:-./damas}
passed=0 failed=0

# expect NAME WANT_EXIT WANT_TEXT -- COMMAND...: runs COMMAND, checks exit code and that
# stdout+stderr contains WANT_TEXT.
expect() {
  local name=$1 want_rc=$2 want_text=$3
  shift 4
  local out rc
  out=$("$@" 2>&1 </dev/null)
  rc=$?
  if [ "$rc" -eq "$want_rc" ] && grep -qF -- "$want_text" <<<"$out"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    printf 'FAIL %s: exit %s (want %s), output:\n%s\n' "$name" "$rc" "$want_rc" "$out" | head -20
  fi
}

expect no_arguments_prints_usage 2 "usage: damas" -- "$damas"
expect help_lists_perft 0 "perft" -- "$damas" --help
expect unknown_command 2 "error: unknown command 'fly'" -- "$damas" fly
expect perft_help 0 "--divide" -- "$damas" perft --help
expect perft_needs_variant 2 "error: --variant is required" -- "$damas" perft 3
expect perft_unknown_variant 2 "error: unknown variant 'frisian'" -- "$damas" perft --variant frisian 3
expect perft_needs_depth 2 "error: perft needs a DEPTH" -- "$damas" perft --variant russian
expect perft_bad_depth 2 "error: DEPTH must be a whole number" -- "$damas" perft --variant russian 3x
expect perft_negative_depth 2 "error: unknown option '-3'" -- "$damas" perft --variant russian -3
expect perft_bad_fen 2 "error: bad FEN 'W:W33:B1': square 33 is outside the board (1-32)" -- \
  "$damas" perft --variant russian --fen W:W33:B1 2
expect perft_unknown_option 2 "error: unknown option '--fast'" -- "$damas" perft --variant russian --fast 2
expect perft_option_without_value 2 "error: option --fen needs a value" -- "$damas" perft --variant russian 2 --fen
expect optional_capture_not_on_10x10 2 "error: the optional-capture house rule applies to 8x8" -- \
  "$damas" perft --variant international --optional-capture 2
expect perft_json 0 '{"variant":"russian","fen":"W:Wa3,c3,e3,g3,b2,d2,f2,h2,a1,c1,e1,g1:Bb8,d8,f8,h8,a7,c7,e7,g7,b6,d6,f6,h6","depth":5,"leaves":7482,' -- \
  "$damas" perft --variant russian --json 5
expect perft_english_alias 0 '"leaves":7361' -- "$damas" perft --variant english --json 5
expect perft_divide_lists_root_moves 0 "22-18        " -- "$damas" perft --variant american --fen W:W21-32:B1-12 --divide 3
expect perft_divide_total 0 "perft(3) = 302" -- "$damas" perft --variant american --divide 3
expect perft_divide_json 0 '"moves":[{"move":"' -- "$damas" perft --variant italian --divide --json 2
expect perft_keep_counts_orders 0 '"leaves":929905' -- "$damas" perft --variant russian --keep --json 8
expect perft_optional_capture 0 "perft(" -- "$damas" perft --variant spanish --optional-capture 4
expect perft_all_variants_table 0 "international" -- "$damas" perft --variant all 4
expect perft_all_rejects_fen 2 "error: --variant all" -- "$damas" perft --variant all --fen W:W21:B1 3

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

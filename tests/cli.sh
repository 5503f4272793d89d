#!/usr/bin/env bash
# Command-line behaviour of damas: output, exit codes and error messages.
# usage: tests/cli.sh path/to/damas
set -u
damas=${1:-./damas}
source "$(dirname "$0")/lib.sh"
# The engine's own endgame tables are built here, not in the user's cache.
XDG_CACHE_HOME=$(mktemp -d)
export XDG_CACHE_HOME
trap 'rm -rf "$XDG_CACHE_HOME"' EXIT

check no_arguments_prints_usage 2 "usage: damas" -- "$damas"
check help_lists_perft 0 "perft" -- "$damas" --help
check unknown_command 2 "error: unknown command 'fly'" -- "$damas" fly
check perft_help 0 "--divide" -- "$damas" perft --help
check perft_needs_variant 2 "error: --variant is required" -- "$damas" perft 3
check perft_unknown_variant 2 "error: unknown variant 'frisian'" -- "$damas" perft --variant frisian 3
check perft_needs_depth 2 "error: perft needs a DEPTH" -- "$damas" perft --variant russian
check perft_bad_depth 2 "error: DEPTH must be a whole number" -- "$damas" perft --variant russian 3x
check perft_negative_depth 2 "error: unknown option '-3'" -- "$damas" perft --variant russian -3
check perft_bad_fen 2 "error: bad FEN 'W:W33:B1': square 33 is outside the board (1-32)" -- \
  "$damas" perft --variant russian --fen W:W33:B1 2
check perft_unknown_option 2 "error: unknown option '--fast'" -- "$damas" perft --variant russian --fast 2
check perft_option_without_value 2 "error: option --fen needs a value" -- "$damas" perft --variant russian 2 --fen
check optional_capture_not_on_10x10 2 "error: the optional-capture house rule applies to 8x8" -- \
  "$damas" perft --variant international --optional-capture 2
check perft_json 0 '{"variant":"russian","fen":"W:Wa3,c3,e3,g3,b2,d2,f2,h2,a1,c1,e1,g1:Bb8,d8,f8,h8,a7,c7,e7,g7,b6,d6,f6,h6","depth":5,"leaves":7482,' -- \
  "$damas" perft --variant russian --json 5
check perft_english_alias 0 '"leaves":7361' -- "$damas" perft --variant english --json 5
check perft_divide_lists_root_moves 0 "22-18        " -- "$damas" perft --variant american --fen W:W21-32:B1-12 --divide 3
check perft_divide_total 0 "perft(3) = 302" -- "$damas" perft --variant american --divide 3
check perft_divide_json 0 '"moves":[{"move":"' -- "$damas" perft --variant italian --divide --json 2
check perft_keep_counts_orders 0 '"leaves":929905' -- "$damas" perft --variant russian --keep --json 8
check perft_optional_capture 0 "perft(" -- "$damas" perft --variant spanish --optional-capture 4
check perft_all_variants_table 0 "international" -- "$damas" perft --variant all 4
check perft_all_rejects_fen 2 "error: --variant all" -- "$damas" perft --variant all --fen W:W21:B1 3

check gen_help 0 "--pieces N" -- "$damas" gen --help
check gen_needs_pieces 2 "error: --pieces is required" -- "$damas" gen --variant russian --out /tmp/x
check gen_needs_out 2 "error: --out DIR is required" -- "$damas" gen --variant russian --pieces 2
check gen_bad_pieces 2 "error: --pieces must be a number from 2 to 8, not '9'" -- \
  "$damas" gen --variant russian --pieces 9 --out /tmp/x
check gen_bad_threads 2 "error: --threads must be a number from 1 to 1024, not '0'" -- \
  "$damas" gen --variant russian --pieces 2 --threads 0 --out /tmp/x
check gen_unknown_variant 2 "error: unknown variant 'dames'" -- "$damas" gen --variant dames --pieces 2 --out /tmp/x
check gen_split_needs_mpi 2 "error: --split needs the MPI build" -- "$damas" gen --variant russian --pieces 2 --out /tmp/x --split
never=$(mktemp -u /tmp/damas-never.XXXXXX)
check gen_refuses_what_memory_cannot_hold 1 "needs about" -- "$damas" gen --variant international --pieces 8 --out "$never"
if [ -e "$never" ]; then fail "gen_refused_leaves_no_directory: $never exists"; rm -rf "$never"; else ok; fi
lowmem=$(mktemp -d /tmp/damas-lowmem.XXXXXX)
check gen_low_memory_says_so 0 "low-memory plan: the 3-piece units read the units they promote into from disk" -- \
  "$damas" gen --variant czech --pieces 3 --out "$lowmem/lean" --low-memory
"$damas" gen --variant czech --pieces 3 --out "$lowmem/usual" >/dev/null 2>&1
if diff -r "$lowmem/lean" "$lowmem/usual" >/dev/null; then ok; else fail "gen_low_memory_same_files: they differ"; fi
check gen_low_memory_keeps_what_fits 0 "unless kept (5 kept)" -- \
  "$damas" gen --variant czech --pieces 3 --out "$lowmem/keep" --low-memory --max-memory 1G
if diff -r "$lowmem/keep" "$lowmem/usual" >/dev/null; then ok; else fail "gen_low_memory_keeping_same_files: they differ"; fi
rm -rf "$lowmem"
check verify_needs_db 2 "error: --db DIR is required" -- "$damas" verify
# verify --record: a second run skips what the first found consistent, a changed file is checked again.
rec=$(mktemp -d /tmp/damas-record.XXXXXX)
"$damas" gen --variant czech --pieces 3 --out "$rec/db" >/dev/null 2>&1
check verify_record_first_run 0 "ok: " -- "$damas" verify --db "$rec/db" --record "$rec/units"
check verify_record_resumes 0 "every unit asked for is recorded consistent in $rec/units (9 units)" -- \
  "$damas" verify --db "$rec/db" --record "$rec/units"
touch "$rec/db/m0k1-m0k2.h5"
check verify_record_rechecks_a_changed_unit 0 "8 units recorded consistent in $rec/units: skipped" -- \
  "$damas" verify --db "$rec/db" --record "$rec/units"
check verify_record_unwritable 1 "error: cannot write /nonexistent/units" -- \
  "$damas" verify --db "$rec/db" --record /nonexistent/units
rm -rf "$rec"
check info_needs_db 2 "error: --db DIR is required" -- "$damas" info
check info_missing_dir 1 "error: /nonexistent is not a damas database" -- "$damas" info --db /nonexistent

# Search, evaluation, matches and the Hub engine.
# Without --db the engine builds its <=4-piece tables once and plays three kings against one
# exactly; with --db none it has only its evaluation.
check analyze_builds_its_tables 0 "damas: building the endgame tables of up to 4 pieces" -- \
  "$damas" analyze --variant russian --depth 2 "W:WKa1,Kh8,Kc7:BKd2"
check analyze_uses_its_tables 0 "best h8-d4  score win in 17" -- "$damas" analyze --variant russian --depth 2 "W:WKa1,Kh8,Kc7:BKd2"
if [ -f "$XDG_CACHE_HOME/damas/russian-4/m0k1-m0k3.h5" ]; then ok; else fail "no tables in $XDG_CACHE_HOME/damas"; fi
# Two engines starting together on a cache without the tables: one builds, the other waits.
( "$damas" analyze --variant czech --depth 2 "W:WKa1,Kh8,Kc7:BKd2" >"$XDG_CACHE_HOME/first" 2>&1 & wait )&
"$damas" analyze --variant czech --depth 2 "W:WKa1,Kh8,Kc7:BKd2" >"$XDG_CACHE_HOME/second" 2>&1
wait
if [ "$(cat "$XDG_CACHE_HOME/first" "$XDG_CACHE_HOME/second" | grep -c 'score win in')" -eq 4 ] &&
  [ "$(cat "$XDG_CACHE_HOME/first" "$XDG_CACHE_HOME/second" | grep -c 'building the endgame tables')" -eq 1 ]; then ok; else
  fail "engines starting together: $(cat "$XDG_CACHE_HOME/first" "$XDG_CACHE_HOME/second")"; fi
check analyze_db_none 0 "score +" -- "$damas" analyze --variant russian --depth 2 --db none "W:WKa1,Kh8,Kc7:BKd2"
check analyze_tables_unwritable 0 "warning: playing without endgame tables: cannot create /proc/damas" -- \
  env XDG_CACHE_HOME=/proc "$damas" analyze --variant russian --depth 2 "W:WKa1,Kh8,Kc7:BKd2"
check analyze_depth 0 "best " -- "$damas" analyze --variant russian --depth 6 "W:W21-32:B1-12"
check analyze_finds_the_capture 0 "best c3:a5" -- "$damas" analyze --variant russian --depth 4 "W:Wc3:Bb4,h8"
check analyze_bad_fen 2 "error: " -- "$damas" analyze --variant russian --depth 2 "W:W99:B1"
check analyze_needs_fen 2 "error: a FEN is required" -- "$damas" analyze --variant russian
check analyze_bad_weights 1 "not an HDF5 file" -- "$damas" analyze --variant russian --weights /etc/hostname --depth 2 "W:W21:B1"
check eval_groups 0 "regions" -- "$damas" eval --variant brazilian "W:Wa5,g5,a3,g3,d2,c1,e1,g1:Bb8,f8,h8,g7,b6"
bench1=$("$damas" bench --depth 4 | tail -1 | cut -d' ' -f2)
bench2=$("$damas" bench --depth 4 | tail -1 | cut -d' ' -f2)
if [ -n "$bench1" ] && [ "$bench1" = "$bench2" ]; then ok; else fail "bench node count not stable: $bench1 vs $bench2"; fi
check bench_overall 0 "OVERALL: " -- "$damas" bench --depth 3
pdn=$(mktemp)
check match_vs_random 0 "A wins 4, draws 0, losses 0" -- \
  "$damas" match --variant italian --a default --b random --games 4 --nodes 2000 --threads 2 --pdn "$pdn"
if grep -q '\[GameType "22' "$pdn" && [ "$(grep -c '^\[Event' "$pdn")" -eq 4 ]; then ok; else fail "match PDN: $(head -5 "$pdn")"; fi
# damas's moves carry its search score as a comment.
if grep -qE '[0-9]\. [^ ]+ \{[+-][0-9]+\.[0-9]{2}\}' "$pdn"; then ok; else
  fail "match PDN scores: $(sed -n 10,12p "$pdn")"; fi
# PDN results as each GameType writes them (8x8: 1-0 0-1 1/2-1/2; 10x10: 2-0 0-2 1-1), the
# seven-tag roster, and "1..." for a game whose opening has the second player to move.
for v in russian international; do
  "$damas" match --variant "$v" --a builtin --b builtin --games 8 --nodes 100 --pdn "$pdn" >/dev/null 2>&1
  if [ "$v" = russian ]; then want='^\[Result "(1-0|0-1|1/2-1/2)"\]$'; else want='^\[Result "(2-0|0-2|1-1)"\]$'; fi
  results=$(grep -cE "$want" "$pdn")
  dates=$(grep -cE '^\[Date "[0-9]{4}\.[0-9]{2}\.[0-9]{2}"\]$' "$pdn")
  # After a FEN with the second player (Black) to move, the move text opens with "1... ".
  second=$(awk '/^\[FEN "B:/ { b = 1 } /^1\. / { if (b) bad++; b = 0 } /^1\.\.\. / { if (!b) bad++; b = 0 } END { print bad + 0 }' "$pdn")
  if [ "$results" -eq 8 ] && [ "$dates" -eq 8 ] && [ "$second" -eq 0 ] && grep -q '^\[Site ' "$pdn"; then ok; else
    fail "PDN tags of $v: $results results, $dates dates, $second bad first moves: $(head -12 "$pdn")"; fi
done
# A PDN file as openings (each game's last position), and as training data (selfplay --pdn).
"$damas" match --variant russian --a builtin --b builtin --games 6 --nodes 100 --pdn "$pdn" >/dev/null 2>&1
check match_pdn_openings 0 "(3 openings x 2 colours)" -- \
  "$damas" match --variant russian --a builtin --b random --games 6 --nodes 100 --openings "$pdn"
pdn_data=$(mktemp -u --suffix=.h5)
check selfplay_imports_pdn 0 "6 games and " -- "$damas" selfplay --variant russian --data "$pdn_data" --pdn "$pdn"
check selfplay_pdn_other_variant 1 "a game of another variant: GameType 25, not brazilian's 26" -- \
  "$damas" selfplay --variant brazilian --data "$pdn_data.b" --pdn "$pdn"
train_dir=$(mktemp -d)
check train_fits_real_games 0 "russian: fitted " -- "$damas" train --variant russian --games "$pdn" --out "$train_dir/w.h5" \
  --epochs 2
check train_pdn_weights_load 0 "regions" -- "$damas" eval --variant russian --weights "$train_dir/w.h5" "W:W21-32:B1-12"
rm -rf "$train_dir"
rm -f "$pdn" "$pdn_data" "$pdn_data.b"
check match_needs_limit 2 "error: a limit per move is required" -- "$damas" match --variant italian --a default --b random --games 2
check match_odd_games 2 "error: --games must be an even number" -- "$damas" match --variant italian --a default --b random --games 3 --nodes 10
check match_contempt_range 2 "error: --contempt must be a number, or two separated by a comma, from 0 to 1000" -- \
  "$damas" match --variant italian --a default --b random --games 2 --nodes 10 --contempt 1001
check match_contempt_pair_malformed 2 "not '20,'" -- \
  "$damas" match --variant italian --a default --b random --games 2 --nodes 10 --contempt 20,
check match_contempt_per_player 0 "A wins" -- \
  "$damas" match --variant russian --a builtin --b builtin --games 2 --nodes 500 --contempt 40,0
check play_contempt_one_value 2 "error: --contempt must be a number from 0 to 1000" -- \
  "$damas" play --variant russian --contempt 10,20
# damas play: a compulsory capture explained, resign and save, undo and redo, Spanish drawn
# mirrored with its square numbers (1 = h1).
play_pdn=$(mktemp)
check play_capture_compulsory 0 "a capture is compulsory: c3:e5" -- bash -c \
  "printf 'c3-b4\nresign\nsave $play_pdn\nquit\n' | '$damas' play --variant russian --fen W:Wc3:Bd4 --depth 2"
if grep -q '^\[Result "0-1"\]' "$play_pdn" && grep -q '^\[Termination "resigned"\]' "$play_pdn"; then ok; else
  fail "play save after resign: $(cat "$play_pdn")"; fi
rm -f "$play_pdn"
out=$(printf 'c3-d4\nundo\nredo\nredo\nhint\nquit\n' | "$damas" play --variant russian --depth 2 2>&1)
if grep -q "nothing to redo" <<<"$out" && grep -q "^damas plays" <<<"$out" && grep -q "^your move> hint: " <<<"$out" &&
  [ "$(grep -c '^  White (w) to move' <<<"$out")" -ge 3 ]; then ok; else fail "play undo/redo/hint: $out"; fi
check gen_plan_without_building 0 "a build follows the low-memory plan, which does not fit" -- \
  "$damas" gen --variant russian --pieces 6 --plan --max-memory 1G
check gen_plan_names_the_split 0 "every unit split over 4 ranks" -- "$damas" gen --variant russian --pieces 7 --plan --ranks 4
refused=$(mktemp -u)
check gen_max_memory_refuses_before_building 1 "the limit (--max-memory) is 0.1 GiB" -- \
  "$damas" gen --variant russian --pieces 5 --out "$refused" --max-memory 100M
if [ ! -e "$refused" ]; then ok; else fail "a refused build left $refused behind"; fi
check gen_bad_max_memory 2 "error: --max-memory must be a size" -- "$damas" gen --variant russian --pieces 5 --out /tmp/x \
  --max-memory lots
check play_spanish_mirrored 0 " 4     3     2     1" -- bash -c "echo quit | '$damas' play --variant spanish --depth 1"

# A Hub engine as a match player: damas against its own Hub engine, and engines that fail.
check match_vs_hub_engine 0 "A wins" -- "$damas" match --variant russian --a default --b "hub:$damas hub" --games 2 \
  --time 0.02 --threads 2
check match_hub_needs_time 2 "a Hub engine plays on time" -- "$damas" match --variant russian --a default \
  --b "hub:$damas hub" --games 2 --nodes 100
check match_hub_missing 1 "error: Hub engine '/nonexistent/engine': the engine ended" -- "$damas" match --variant russian --a default \
  --b "hub:/nonexistent/engine" --games 2 --time 0.02
# With --db, a Hub engine that lists a db parameter is given the same database (its absolute path).
hubdb=$(mktemp -d /tmp/damas-hubdb.XXXXXX)
"$damas" gen --variant russian --pieces 3 --out "$hubdb/db" >/dev/null 2>&1
absdamas=$(realpath "$damas")
check match_hub_engine_gets_the_database 0 "A wins" -- bash -c "cd '$hubdb' && '$absdamas' match --variant russian \
  --a default --b \"hub:tee '$hubdb/input' | '$absdamas' hub\" --games 2 --time 0.02 --db db"
if grep -qx "set-param name=db value=\"$hubdb/db\"" "$hubdb/input"; then ok; else
  fail "match_hub_engine_told_the_database: $(grep db "$hubdb/input" | head -2)"; fi
rm -rf "$hubdb"
check match_hub_engine_finds_its_own_weights 0 "engine sees DAMAS_WEIGHTS=[]" -- env DAMAS_WEIGHTS=/nonexistent \
  "$damas" match --variant russian --a builtin --b "hub:echo \"engine sees DAMAS_WEIGHTS=[\$DAMAS_WEIGHTS]\" >&2; exec '$damas' hub" \
  --games 2 --time 0.01
check hub_handshake 0 "param name=variant" -- bash -c "printf 'hub\nquit\n' | '$damas' hub"
check hub_full_game 0 "hub game: " -- python3 "$(dirname "$0")/hub_game.py" "$damas" russian Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww
check hub_bad_position 0 'error message="bad position' -- \
  bash -c "printf 'hub\ninit\npos pos=Wxyz\nquit\n' | '$damas' hub"
long_line=$(mktemp)
{ echo "W:W21-32:B1-12"; printf 'W:W21-32:B1-12%.0s' $(seq 100); echo; } >"$long_line"
check match_openings_long_line 1 "line 2: longer than" -- "$damas" match --variant russian --a default --b builtin \
  --games 2 --nodes 100 --openings "$long_line"
rm -f "$long_line"
check match_elo_not_estimable_when_one_side_wins_all 0 "Elo A - B: not estimable (A won every game)" -- \
  "$damas" match --variant russian --a default --b random --games 4 --nodes 200
lonely=$(mktemp -d)
cp "$damas" "$lonely/damas"
check default_weights_missing_warns 0 "warning: no shipped weights for russian" -- \
  "$lonely/damas" eval --variant russian "W:W21-32:B1-12"
rm -rf "$lonely"
check hub_stop_right_after_go_is_never_lost 0 "none hung" -- python3 "$(dirname "$0")/hub_stop.py" "$damas" 50
check hub_init_answers_an_unknown_variant 0 "error message=\"unknown variant 'frisian'" -- \
  bash -c "printf 'hub\nset-param name=variant value=frisian\ninit\nquit\n' | '$damas' hub"
check hub_tt_mb_range_checked 0 'error message="tt-mb must be from 1 to 65536"' -- \
  bash -c "printf 'hub\nset-param name=tt-mb value=-1\nquit\n' | '$damas' hub"
check hub_param_shows_current_values 0 'param name=tt-mb value=8 ' -- \
  bash -c "printf 'set-param name=tt-mb value=8\nhub\nquit\n' | '$damas' hub"
check hub_contempt_set 0 'param name=contempt value=35 type=int min=0 max=1000' -- \
  bash -c "printf 'set-param name=contempt value=35\nhub\nquit\n' | '$damas' hub"
check hub_contempt_range_checked 0 'error message="contempt must be from 0 to 1000"' -- \
  bash -c "printf 'set-param name=contempt value=x\nquit\n' | '$damas' hub"
check hub_official_rules_accepted 0 "ready" -- \
  bash -c "printf 'set-param name=rules value=official\ninit\nquit\n' | '$damas' hub"
check hub_init_answers_unknown_rules 0 "error message=\"unknown draw rules 'fide' (default or official)\"" -- \
  bash -c "printf 'set-param name=rules value=fide\ninit\nquit\n' | '$damas' hub"
check match_one_pair_has_no_interval 0 "(one pair of games: no interval)" -- \
  "$damas" match --variant russian --a builtin --b builtin --games 2 --nodes 100
# In a log (not a terminal), a progress line at each tenth of the games, with the score so far.
check match_progress_in_a_log 0 "10/10 games, " -- \
  "$damas" match --variant russian --a builtin --b random --games 10 --nodes 100
# The same engine on both sides of every pair: each pair scores one game, so Elo +0 so far.
check match_progress_gives_the_elo_so_far 0 ", Elo +0 (+0 to +0)" -- \
  "$damas" match --variant russian --a builtin --b builtin --games 4 --nodes 100
check match_unknown_rules 2 "error: --rules: unknown draw rules 'fide'" -- \
  "$damas" match --variant russian --a builtin --b builtin --games 2 --nodes 100 --rules fide
# Three kings against one on 10x10 cannot be won: under the FMJD rules an ending count ends the
# game (the 16-move one, or the 5-move one after a capture), not repetition or 40 moves.
ending=$(mktemp -d)
echo "W:WK1,K2,K3:BK46" >"$ending/open.fen"
"$damas" match --variant international --rules official --openings "$ending/open.fen" --a builtin --b builtin \
  --db none --games 2 --nodes 2000 --pdn "$ending/games.pdn" >/dev/null 2>&1
check match_official_rules_end_an_ending_by_its_count 0 '-move ending"]' -- grep -m1 Termination "$ending/games.pdn"
rm -rf "$ending"

# A weight file of feature set 1 (v0.2's shipped Russian weights) is refused; converted, it
# evaluates a position without kings as v0.2 did (+0.59 for Black, printed by damas 0.2.0).
old_weights="$(dirname "$0")/fixtures/russian-feature-set-1.h5"
check weights_feature_set_1_refused 1 "holds weights of feature set 1" -- \
  "$damas" eval --variant russian --weights "$old_weights" "W:W21-32:B1-12"
if command -v /usr/bin/python3 >/dev/null && /usr/bin/python3 -c "import h5py" 2>/dev/null; then
  cw=$(mktemp -d)
  check weights_converted 0 "" -- /usr/bin/python3 "$(dirname "$0")/../tools/weights-fs1-to-fs2.py" "$old_weights" "$cw/w.h5"
  check weights_converted_evaluate_as_before 0 "evaluation +0.59 for black" -- "$damas" eval --variant russian \
    --weights "$cw/w.h5" "B:W8,9,13,14,15,16,20,21,27,30:B2,3,4,10,11,12,17,18,19,22,24"
  rm -rf "$cw"
fi

# A tiny training run writes weights that analyze loads, with its log and games.
tw=$(mktemp -d)
check train_tiny 0 "trained italian weights" -- "$damas" train --variant italian --games 10 --generations 1 --nodes 200 \
  --match-games 4 --threads 2 --out "$tw/w.h5"
check analyze_trained_weights 0 "best " -- "$damas" analyze --variant italian --weights "$tw/w.h5" --depth 3 "W:W21-32:B1-12"
if [ "$(grep -vc '^#' "$tw/w.csv")" -eq 2 ] && grep -q '^# final match against the compiled-in weights: ' "$tw/w.csv" &&
  grep -q '^\[Event "damas self-play"\]' "$tw/w.pdn"; then ok; else fail "train_outputs: $(ls "$tw"; cat "$tw/w.csv")"; fi
check train_weights_of_other_variant 1 "holds weights for italian, not russian" -- \
  "$damas" analyze --variant russian --weights "$tw/w.h5" --depth 2 "W:W21-32:B1-12"
# The data set and the fit on their own: self-play appends and goes on, the fit writes weights.
check selfplay_small 0 "holds 6 games" -- "$damas" selfplay --variant czech --data "$tw/d.h5" --games 6 --nodes 200 --threads 2
check selfplay_goes_on 0 "holds 10 games" -- "$damas" selfplay --variant czech --data "$tw/d.h5" --games 4 --nodes 200 --threads 2
check selfplay_other_variant 1 "holds positions of czech" -- "$damas" selfplay --variant russian --data "$tw/d.h5" --games 1
check fit_small 0 "czech: fitted " -- "$damas" fit --variant czech --data "$tw/d.h5" --out "$tw/f.h5" --epochs 2 --threads 2
check fit_weights_load 0 "fit --variant czech" -- "$damas" eval --variant czech --weights "$tw/f.h5" "W:W21-32:B1-12"
check fit_frozen_rectangles 0 "czech: fitted " -- "$damas" fit --variant czech --data "$tw/d.h5" --out "$tw/h.h5" \
    --epochs 1 --threads 2 --freeze rectangles,regions
check fit_freeze_unknown_group 2 "error: --freeze takes group names" -- "$damas" fit --variant czech --data "$tw/d.h5" \
    --out "$tw/g.h5" --freeze rectangles,squares
check fit_missing_data 1 "no such data set" -- "$damas" fit --variant czech --data "$tw/none.h5" --out "$tw/g.h5"
# Matches at a time a move instead of nodes: the weights record it.
check train_timed_matches 0 "trained italian weights" -- "$damas" train --variant italian --games 10 --generations 1 \
  --nodes 200 --match-games 2 --match-time 0.01 --threads 2 --out "$tw/t.h5" --data "$tw/t.data.h5"
check train_timed_matches_recorded 0 "--match-time 0.01;" -- "$damas" eval --variant italian --weights "$tw/t.h5" "W:W21-32:B1-12"
rm -rf "$tw"
check train_match_time_positive 2 "error: --match-time must be a positive number of seconds, not 'inf'" -- \
  "$damas" train --variant italian --out x.h5 --match-time inf
check match_time_not_infinite 2 "error: --time must be a positive number of seconds, not 'inf'" -- \
  "$damas" match --variant russian --a builtin --b builtin --games 2 --time inf
check train_needs_out 2 "error: --out WEIGHTS.h5 is required" -- "$damas" train --variant italian

finish

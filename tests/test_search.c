/* The search: forced wins found and played, determinism, draw rules, and strength against a
 * random mover. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../engine/search.h"
#include "../db/probe.h"
#include "../engine/match.h"
#include "../gen/gen.h"
#include "helpers.h"

static char dir[64];
static Variant variant;

static void build_db(void)
{
    variant = test_variant("russian", false);
    snprintf(dir, sizeof dir, "/tmp/damas-search-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    char err[512];
    cr_assert_eq(gen_run(&variant, 4, dir, 2, NULL, err, sizeof err), DAMAS_OK, "%s", err);
}

static void remove_db(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        cr_log_warn("could not remove %s", dir);
}

/* Positions of slice m that the database says are won in at most max_dtw plies. */
static int won_positions(DbProbe *p, Material m, int max_dtw, Position *out, int max)
{
    Slice s;
    slice_init(&s, m, 8);
    int n = 0;
    for (uint64_t i = 0; i < s.size && n < max; i += 131) {
        Position pos;
        slice_unrank(&s, i, &pos);
        DbValue v;
        char err[256];
        cr_assert_eq(probe_value(p, &pos, &v, err, sizeof err), DAMAS_OK, "%s", err);
        if (v.wdl == DB_WIN && v.dtw >= 3 && v.dtw <= max_dtw)
            out[n++] = pos;
    }
    return n;
}

Test(search, finds_forced_wins_from_the_database_and_plays_a_winning_move, .init = build_db, .fini = remove_db,
     .timeout = 120)
{
    char err[512];
    DbProbe *p = probe_open(dir, NULL, 64 << 20, err, sizeof err);
    cr_assert_not_null(p, "%s", err);
    Weights *w = malloc(sizeof *w);
    weights_default(&variant, w);
    Position pos[40];
    int n = won_positions(p, (Material){1, 1, 0, 1}, 9, pos, 40);
    cr_assert_geq(n, 10);
    Search *alone = search_new(&variant, w, NULL, 8), *helped = search_new(&variant, w, p, 8);
    ProbeMove *moves = malloc(MOVELIST_MAX * sizeof *moves);
    for (int i = 0; i < n; i++) {
        DbValue v = {0, 0};
        cr_assert_eq(probe_value(p, &pos[i], &v, err, sizeof err), DAMAS_OK, "%s", err);
        for (int k = 0; k < 2; k++) {
            Search *s = k ? helped : alone;
            search_clear(s);
            SearchInfo info;
            SearchLimits limits = {.depth = v.dtw + 2};
            search_run(s, &pos[i], NULL, 0, (GameClock){0, 0}, &limits, &info, NULL, NULL);
            cr_assert_gt(info.score, SEARCH_WIN_MIN, "position %d (win in %d): score %d%s", i, v.dtw, info.score,
                         k ? " with the database" : "");
            int count;
            cr_assert_eq(probe_moves(p, &pos[i], moves, &count, err, sizeof err), DAMAS_OK, "%s", err);
            bool winning = false;
            for (int j = 0; j < count; j++)
                if (moves[j].move.from == info.pv[0].from && moves[j].move.to == info.pv[0].to &&
                    moves[j].move.captured == info.pv[0].captured)
                    winning = moves[j].value.wdl == DB_WIN;
            cr_assert(winning, "position %d: the first move keeps the win", i);
        }
    }
    free(moves);
    search_free(alone);
    search_free(helped);
    free(w);
    probe_close(p);
}

Test(search, a_node_limited_search_is_deterministic)
{
    Variant v = test_variant("brazilian", false);
    Weights *w = malloc(sizeof *w);
    weights_default(&v, w);
    Position start;
    pos_start(&start, &v);
    Search *s = search_new(&v, w, NULL, 8);
    SearchLimits limits = {.nodes = 50000};
    SearchInfo a, b;
    search_run(s, &start, NULL, 0, (GameClock){0, 0}, &limits, &a, NULL, NULL);
    search_clear(s);
    search_run(s, &start, NULL, 0, (GameClock){0, 0}, &limits, &b, NULL, NULL);
    cr_assert_eq(a.nodes, b.nodes);
    cr_assert_eq(a.score, b.score);
    cr_assert_eq(a.pv_length, b.pv_length);
    cr_assert_eq(memcmp(a.pv, b.pv, (size_t)a.pv_length * sizeof(Move)), 0);
    search_free(s);
    free(w);
}

/* Beyond the horizon a quiet position is not simply evaluated: an exchange its side to move can
 * offer is searched. Black's every move leaves White the shot c3-d4 e5xc3 b2xd4xb6 (one man
 * for two), or loses a man at once, so a one-ply search already scores Black a man down,
 * where the evaluation after the move (material only, equal) would say 0. */
Test(search, the_horizon_searches_exchanges_a_quiet_position_offers)
{
    Variant v = test_variant("brazilian", false);
    Weights *w = malloc(sizeof *w);
    weights_material(&v, w);
    Position pos = test_position(&v, "B:Wa1,b2,c3,e3:Bc5,e5,g7,h8");
    Search *s = search_new(&v, w, NULL, 8);
    SearchLimits limits = {.depth = 1};
    SearchInfo info;
    cr_assert_gt(search_run(s, &pos, NULL, 0, (GameClock){0, 0}, &limits, &info, NULL, NULL), 0);
    cr_assert_eq(info.depth, 1);
    cr_assert_eq(info.score, -100, "a one-ply search scores %d, not a man down", info.score);
    search_free(s);
    free(w);
}

/* A king each and one ply left before the 40-move rule: every move draws. The side to move at
 * the root scores the draw -contempt, whichever colour it is, and 0 with no contempt. */
Test(search, a_draw_scores_minus_the_contempt_for_the_side_to_move_at_the_root)
{
    Variant v = test_variant("brazilian", false);
    Weights *w = malloc(sizeof *w);
    weights_default(&v, w);
    Search *s = search_new(&v, w, NULL, 8);
    SearchLimits limits = {.depth = 3};
    SearchInfo info;
    const char *fens[2] = {"W:WKa1:BKh2", "B:WKa1:BKh2"};
    int contempts[3] = {0, 25, 0};
    for (int c = 0; c < 3; c++) {
        search_set_contempt(s, contempts[c]);
        for (int f = 0; f < 2; f++) {
            Position pos = test_position(&v, fens[f]);
            cr_assert_gt(search_run(s, &pos, NULL, 0, (GameClock){79, 79}, &limits, &info, NULL, NULL), 0);
            cr_assert_eq(info.score, -contempts[c], "%s, contempt %d: scored %d", fens[f], contempts[c], info.score);
        }
    }
    search_free(s);
    free(w);
}

Test(search, beats_a_random_mover_in_at_least_95_percent_of_games, .timeout = 120)
{
    const char *names[] = {"brazilian", "italian", "american"};
    for (int k = 0; k < 3; k++) {
        Variant v = test_variant(names[k], false);
        Weights *w = malloc(sizeof *w);
        weights_default(&v, w);
        Position openings[64];
        int nopen = match_openings(&v, 2, openings, 64);
        Player players[2];
        Search *s = search_new(&v, w, NULL, 8);
        SearchLimits limits = {.nodes = 3000};
        double score = 0;
        int games = 20;
        for (int g = 0; g < games; g++) {
            const Position *start = &openings[(g / 2) % nopen];
            int engine = g % 2 ? start->side : 1 - start->side;
            players[engine] = (Player){"default", w, NULL, NULL, 0, NULL};
            players[1 - engine] = (Player){"random", NULL, NULL, NULL, 0, NULL};
            Seat seats[2] = {{NULL, NULL}, {NULL, NULL}};
            seats[engine].search = s;
            Game *game = malloc(sizeof *game);
            cr_assert_eq(match_game(&v, start, players, seats, &limits, (uint64_t)g, NULL, game, NULL, 0), DAMAS_OK);
            score += game->result == RESULT_DRAW ? 0.5 : (game->result == RESULT_WHITE) == (engine == WHITE);
            free(game);
        }
        cr_assert_geq(score / games, 0.95, "%s: %.1f of %d", names[k], score, games);
        search_free(s);
        free(w);
    }
}

/* The material balance of pos for the side to move once the captures pending are made (each
 * side choosing its best): the slow reference for the openings below. */
static int settled_material(const Variant *v, const Position *pos)
{
    MoveList list;
    int n = movegen_moves(pos, v, &list);
    if (n == 0 || !list.moves[0].captured)
        return pos_count(pos->pieces[pos->side]) - pos_count(pos->pieces[pos->side ^ 1]);
    int best = -99;
    for (int k = 0; k < n; k++) {
        Position next;
        pos_after(pos, &list.moves[k], &next);
        int score = -settled_material(v, &next);
        best = score > best ? score : best;
    }
    return best;
}

/* A match's built-in openings are distinct and level: none is two men up once the captures
 * pending are made, and few are one (where the search finds a shot that wins it back), while
 * a tenth or more of all the positions 3 plies deep are. */
Test(search, the_built_in_openings_are_distinct_and_level, .timeout = 120)
{
    const char *names[] = {"brazilian", "russian", "spanish", "czech", "italian", "american", "international"};
    Position *open = malloc(MATCH_OPENINGS_MAX * sizeof *open), *all = malloc(MATCH_OPENINGS_MAX * sizeof *all);
    for (int k = 0; k < 7; k++) {
        Variant v = test_variant(names[k], false);
        int n = match_openings_for(&v, 200, open, MATCH_OPENINGS_MAX);
        cr_assert_eq(n, 200, "%s: %d openings", names[k], n);
        int man_up = 0;
        for (int i = 0; i < n; i++) {
            int m = abs(settled_material(&v, &open[i]));
            cr_assert_lt(m, 2, "%s: opening %d is %d men up", names[k], i, m);
            man_up += m == 1;
            for (int j = 0; j < i; j++)
                cr_assert(!pos_equal(&open[i], &open[j]), "%s: openings %d and %d are the same", names[k], j, i);
        }
        int total = match_openings(&v, 3, all, MATCH_OPENINGS_MAX), up = 0;
        for (int i = 0; i < total; i++)
            up += settled_material(&v, &all[i]) != 0;
        cr_assert_leq(man_up, n / 20, "%s: %d of %d openings a man up", names[k], man_up, n);
        cr_assert_geq(up, total / 10, "%s: only %d of %d positions 3 plies deep a man up", names[k], up, total);
    }
    free(open);
    free(all);
}

/* A stop asked for before the search begins (a GUI's `stop` right after `go`) is not lost: the
 * search returns at once with a legal move, and the next search, once resumed, runs in full. */
Test(search, a_stop_asked_before_the_search_starts_is_kept_until_resumed)
{
    Variant v = test_variant("international", false);
    Weights *w = malloc(sizeof *w);
    weights_default(&v, w);
    Position start;
    pos_start(&start, &v);
    Search *s = search_new(&v, w, NULL, 8);
    SearchLimits infinite = {0};
    SearchInfo info;
    search_stop(s);
    cr_assert_gt(search_run(s, &start, NULL, 0, (GameClock){0, 0}, &infinite, &info, NULL, NULL), 0);
    cr_assert_eq(info.pv_length, 1, "a move is returned");
    cr_assert_lt(info.nodes, 1000, "at once: %llu nodes", (unsigned long long)info.nodes);
    MoveList list;
    movegen_moves(&start, &v, &list);
    bool legal = false;
    for (int k = 0; k < list.count; k++)
        legal |= list.moves[k].from == info.pv[0].from && list.moves[k].to == info.pv[0].to;
    cr_assert(legal);
    search_resume(s);
    SearchLimits depth = {.depth = 4};
    search_run(s, &start, NULL, 0, (GameClock){0, 0}, &depth, &info, NULL, NULL);
    cr_assert_eq(info.depth, 4);
    search_free(s);
    free(w);
}

/* PDN of a game: the result token of the GameType and "1..." when the second player starts. */
static char *pdn_of(const char *name, const char *fen, const char *const *moves, int n, GameResult result)
{
    Variant v = test_variant(name, false);
    Game *g = calloc(1, sizeof *g);
    g->start = test_position(&v, fen);
    Position pos = g->start;
    for (int k = 0; k < n; k++) {
        g->moves[k] = test_move(&v, &pos, moves[k]);
        g->scores[k] = MATCH_NO_SCORE;   /* no search: no comments */
        Undo u;
        pos_make(&pos, &g->moves[k], &u);
    }
    g->nmoves = n;
    g->result = result;
    g->reason = "no move";
    char *buf = NULL;
    size_t len;
    FILE *out = open_memstream(&buf, &len);
    match_write_pdn(out, &v, g, "test", "a", "b", 1);
    fclose(out);
    free(g);
    return buf;
}

Test(search, pdn_writes_each_game_types_result_and_numbers_a_game_the_second_player_starts)
{
    const char *black_first[] = {"6-11", "45-40", "11-16"};
    char *pdn = pdn_of("international", "B:W45:B6", black_first, 3, RESULT_DRAW);
    cr_expect_not_null(strstr(pdn, "[Result \"1-1\"]"), "%s", pdn);
    cr_expect_not_null(strstr(pdn, "\n1... 6-11 2. 45-40 11-16 1-1\n"), "%s", pdn);
    free(pdn);
    const char *white_first[] = {"c3-d4"};
    pdn = pdn_of("russian", "W:Wc3:Bh8", white_first, 1, RESULT_WHITE);
    cr_expect_not_null(strstr(pdn, "[Result \"1-0\"]"), "%s", pdn);
    cr_expect_not_null(strstr(pdn, "\n1. c3-d4 1-0\n"), "%s", pdn);
    cr_expect_not_null(strstr(pdn, "[Site \"?\"]\n[Date \""), "%s", pdn);
    free(pdn);
    /* American: Black moves first, so a game from a White-to-move position opens "1...". */
    const char *american[] = {"22-18"};
    pdn = pdn_of("american", "W:W22:B5", american, 1, RESULT_DRAW);
    cr_expect_not_null(strstr(pdn, "[Result \"1/2-1/2\"]"), "%s", pdn);
    cr_expect_not_null(strstr(pdn, "\n1... 22-18 1/2-1/2\n"), "%s", pdn);
    free(pdn);
}

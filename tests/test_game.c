/* A game and its end (core/game.c): no move loses; the variant's draw rule draws: by default 40
 * moves by each side with no capture and no promotion, or a third occurrence (RULES.md); with
 * the official rules, each federation's counts (README, Draw rules). */
#include <criterion/criterion.h>

#include "../core/game.h"
#include "../core/movegen.h"
#include "../engine/search.h"
#include "helpers.h"

static Variant official(const char *name)
{
    Variant v = test_variant(name, false);
    char err[128];
    cr_assert_eq(variant_set_draw_rules(&v, "official", err, sizeof err), DAMAS_OK);
    return v;
}

static const char *rule(const Variant *v, const char *fen, int quiet, int reversible)
{
    Position pos = test_position(v, fen);
    return game_draw_rule(v, &pos, (GameClock){(int16_t)quiet, (int16_t)reversible});
}

Test(game, forty_moves_without_capture_or_promotion_and_a_third_occurrence_draw)
{
    Variant v = test_variant("russian", false);
    cr_expect_null(rule(&v, "W:WKa1:BKh8", 79, 79));
    cr_expect_str_eq(rule(&v, "W:WKa1:BKh8", 80, 0), "40 moves", "men's moves do not reset the default count");
    GameLog *g = malloc(sizeof *g);
    Position start = test_position(&v, "W:WKa1:BKh2");
    game_begin(g, &start);
    const char *moves[] = {"a1-b2", "h2-g1", "b2-a1", "g1-h2", "a1-b2", "h2-g1", "b2-a1", "g1-h2"};
    const char *reason = NULL;
    for (int i = 0; i < 8; i++) {
        cr_assert_eq(game_end(&v, g, &reason), GAME_GOES_ON, "ply %d", i);
        Move m = test_move(&v, game_pos(g), moves[i]);
        cr_assert(game_play(g, &m));
    }
    cr_expect_eq(game_end(&v, g, &reason), GAME_DRAWN_REPETITION, "third occurrence");
    cr_expect_str_eq(reason, "repetition");
    game_goto(g, 4);
    cr_expect_eq(game_end(&v, g, NULL), GAME_GOES_ON, "second occurrence only");
    game_goto(g, 8);
    cr_expect_eq(g->n, 8, "redo goes on to the last move played");
    Position lost = test_position(&v, "W:Wa1:Bb2,c3");
    game_begin(g, &lost);
    cr_expect_eq(game_end(&v, g, &reason), GAME_LOST);
    cr_expect_str_eq(reason, "no move");
    free(g);
}

Test(game, a_capture_or_promotion_resets_the_quiet_count_and_a_man_move_the_reversible_one)
{
    Variant v = test_variant("russian", false);
    Position pos = test_position(&v, "W:Wc3,g7,Ka1:Bf4,Kh2");
    Move man = test_move(&v, &pos, "c3-b4"), promote = test_move(&v, &pos, "g7-h8"), king = test_move(&v, &pos, "a1-b2");
    GameClock c = {10, 10};
    GameClock after = game_clock_after(c, &pos, &man);
    cr_expect(after.quiet == 11 && after.reversible == 0, "a man's plain move: %d %d", after.quiet, after.reversible);
    after = game_clock_after(c, &pos, &king);
    cr_expect(after.quiet == 11 && after.reversible == 11);
    after = game_clock_after(c, &pos, &promote);
    cr_expect(after.quiet == 0 && after.reversible == 0, "a promotion resets both");
    Position capture_pos = test_position(&v, "W:Wc3:Bd4,Kh2");
    Move capture = test_move(&v, &capture_pos, "c3:e5");
    after = game_clock_after(c, &capture_pos, &capture);
    cr_expect(after.quiet == 0 && after.reversible == 0, "a capture resets both");
}

Test(game, fmjd_rules_25_king_moves_and_the_16_and_5_move_endings)
{
    Variant v = official("international");
    cr_expect_null(rule(&v, "W:W31,K1:BK50,40", 79, 49));
    cr_expect_str_eq(rule(&v, "W:W31,K1:BK50,40", 79, 50), "25 moves of kings only");
    cr_expect_null(rule(&v, "W:WK1,K2,K3:BK50", 31, 31));
    cr_expect_str_eq(rule(&v, "W:WK1,K2,K3:BK50", 32, 32), "16-move ending");
    cr_expect_str_eq(rule(&v, "B:WK1,31,32:BK50", 32, 0), "16-move ending", "a king and two men");
    cr_expect_null(rule(&v, "W:W31,32,33:BK50", 32, 0), "three men against a king: no such rule");
    cr_expect_str_eq(rule(&v, "W:WK1,K2:BK50", 10, 10), "5-move ending");
    cr_expect_null(rule(&v, "W:WK1,K2:BK50,K49", 10, 10), "not a lone king");
}

Test(game, russian_rules_15_king_moves_three_kings_against_one_and_the_ending_counts)
{
    Variant v = official("russian");
    cr_expect_str_eq(rule(&v, "W:Wc3,Ka1:BKh8,f6", 30, 30), "15 moves of kings only");
    cr_expect_null(rule(&v, "W:Wc3,Ka1:BKh8,f6", 59, 29));
    cr_expect_str_eq(rule(&v, "W:Wc3,Ka1:BKh8,f6", 60, 29), "30-move ending", "four pieces, both with kings");
    cr_expect_str_eq(rule(&v, "W:WKa1,Kc1,Ke1:BKh8", 30, 29), "15 moves, kings against a lone king");
    cr_expect_null(rule(&v, "W:Wc3,e3,g3,a3:BKh8,Kh6", 100, 0), "no king on one side: no ending count");
    cr_expect_null(rule(&v, "W:Wc3,e3:Bf6,h6", 200, 0), "no 40-move rule in the Russian rules");
}

Test(game, brazilian_rules_count_20_moves_once_only_kings_are_left)
{
    Variant v = official("brazilian");
    cr_expect_str_eq(rule(&v, "W:WKa1,Kc1:BKh8", 40, 40), "20 moves with only kings");
    cr_expect_null(rule(&v, "W:WKa1,Kc1:BKh8", 39, 39));
    cr_expect_null(rule(&v, "W:WKa1,c3:BKh8", 200, 0), "a man on the board");
}

Test(game, english_rules_count_40_moves_without_a_man_move_or_capture)
{
    Variant v = official("american");
    cr_expect_null(rule(&v, "B:W21,K1:BK32,5", 200, 79));
    cr_expect_str_eq(rule(&v, "B:W21,K1:BK32,5", 80, 80), "40 moves without a man's move or a capture");
    Variant d = test_variant("american", false);
    cr_expect_str_eq(rule(&d, "B:W21,K1:BK32,5", 80, 0), "40 moves", "the default rule counts men's moves");
}

Test(game, unknown_draw_rules_are_refused)
{
    Variant v = test_variant("russian", false);
    char err[128];
    cr_expect_eq(variant_set_draw_rules(&v, "fide", err, sizeof err), DAMAS_ERR_UNKNOWN);
    cr_expect(strstr(err, "default or official") != NULL, "%s", err);
}

Test(game, the_search_scores_a_draw_the_count_reaches_before_it_can_capture)
{
    /* Three kings against one: an edge (small: eval_drawish), unless the 16-move count runs
     * out on the next ply, when it is exactly a draw. */
    Variant v = official("international"), d = test_variant("international", false);
    Position pos = test_position(&v, "W:WK1,K2,K3:BK46");
    Weights *w = malloc(sizeof *w);
    weights_default(&v, w);
    SearchLimits limits = {.depth = 4};
    SearchInfo info;
    Search *s = search_new(&v, w, NULL, 1);
    search_run(s, &pos, NULL, 0, (GameClock){31, 31}, &limits, &info, NULL, NULL);
    cr_expect_eq(info.score, 0, "official rules, one ply left: %d", info.score);
    search_free(s);
    s = search_new(&d, w, NULL, 1);
    search_run(s, &pos, NULL, 0, (GameClock){31, 31}, &limits, &info, NULL, NULL);
    cr_expect_gt(info.score, 30, "default rules: %d", info.score);
    search_free(s);
    free(w);
}

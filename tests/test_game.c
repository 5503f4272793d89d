/* The end of a game (core/game.c): no move loses; 40 moves by each side with no capture and
 * no promotion, or a third occurrence, draws (RULES.md). */
#include <criterion/criterion.h>

#include "../core/game.h"
#include "../core/movegen.h"
#include "helpers.h"

Test(game, forty_moves_without_capture_or_promotion_and_a_third_occurrence_draw)
{
    Variant v = test_variant("russian", false);
    Position pos = test_position(&v, "W:WKa1:BKh8");
    uint64_t history[4] = {pos.hash, 1, pos.hash, 2};
    cr_assert_eq(game_end(&v, &pos, history, 0, 0), GAME_GOES_ON);
    cr_assert_eq(game_end(&v, &pos, history, 0, GAME_DRAW_PLIES - 1), GAME_GOES_ON);
    cr_assert_eq(game_end(&v, &pos, history, 0, GAME_DRAW_PLIES), GAME_DRAWN_40_MOVES);
    cr_assert_eq(game_end(&v, &pos, history, 4, 4), GAME_DRAWN_REPETITION, "third occurrence");
    cr_assert_eq(game_end(&v, &pos, history + 2, 2, 2), GAME_GOES_ON, "second occurrence only");
    Position lost = test_position(&v, "W:Wa1:Bb2,c3");
    cr_assert_eq(game_end(&v, &lost, NULL, 0, 0), GAME_LOST);
}

Test(game, only_a_capture_or_a_promotion_resets_the_count_not_a_man_move)
{
    Variant v = test_variant("russian", false);
    Position pos = test_position(&v, "W:Wc3,g7,Ka1:Bf4,Kh2");
    Move man = test_move(&v, &pos, "c3-b4"), promote = test_move(&v, &pos, "g7-h8"), king = test_move(&v, &pos, "a1-b2");
    cr_expect_eq(game_quiet_plies(10, &man), 11, "a man's plain move counts");
    cr_expect_eq(game_quiet_plies(10, &king), 11);
    cr_expect_eq(game_quiet_plies(10, &promote), 0, "a promotion resets");
    Position capture_pos = test_position(&v, "W:Wc3:Bd4,Kh2");
    Move capture = test_move(&v, &capture_pos, "c3:e5");
    cr_expect_eq(game_quiet_plies(10, &capture), 0, "a capture resets");
}

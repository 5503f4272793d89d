/* Every rule of shared/RULES.md on hand-made positions, per variant it applies to, as the
 * exact set of legal moves. Standard-board FENs use a1..h8 (a1 dark); Italian and Spanish
 * positions use their own numbering (their board is ours mirrored). */
#include <criterion/criterion.h>

#include "../db/index.h"
#include "helpers.h"

/* ---- men move one square forward ---- */

Test(movegen, men_move_one_square_diagonally_forward)
{
    assert_moves("brazilian", "W:Wd4:Bh8", "d4-c5 d4-e5");
    assert_moves("russian", "W:Wd4:Bh8", "d4-c5 d4-e5");
    assert_moves("czech", "W:Wd4:Bh8", "d4-c5 d4-e5");
    assert_moves("american", "W:W18:B4", "18-14 18-15");
    assert_moves("italian", "W:W18:B4", "18-13 18-14");
    assert_moves("spanish", "W:W14:B32", "14-19 14-18");
    assert_moves("international", "W:W28:B5", "28-22 28-23");
}

Test(movegen, black_men_move_down_the_board)
{
    assert_moves("russian", "B:Wa1:Bd4", "d4-c3 d4-e3");
    assert_moves("american", "B:W29:B18", "18-22 18-23");
}

Test(movegen, man_reaching_far_row_becomes_king)
{
    Variant v = test_variant("russian", false);
    Position pos = test_position(&v, "W:Wc7:Bh2");
    Move m = test_move(&v, &pos, "c7-d8");
    Undo u;
    pos_make(&pos, &m, &u);
    cr_assert(pos.kings & pos.pieces[WHITE], "the man on d8 is crowned");
}

/* ---- kings ---- */

Test(movegen, flying_kings_move_any_distance_along_open_diagonals)
{
    const char *moves = "d4-e5 d4-f6 d4-g7 d4-c5 d4-b6 d4-a7 d4-c3 d4-b2 d4-a1 d4-e3 d4-f2 d4-g1";
    assert_moves("russian", "W:WKd4:Bh8", moves);
    assert_moves("brazilian", "W:WKd4:Bh8", moves);
    assert_moves("czech", "W:WKd4:Bh8", moves);
    assert_moves("spanish", "W:WK14:B32", "14-19 14-23 14-28 14-18 14-21 14-25 14-11 14-7 14-4 14-10 14-5 14-1");
    assert_moves("international", "W:WK23:B5",
                 "23-18 23-12 23-7 23-1 23-19 23-14 23-10 23-28 23-32 23-37 23-41 23-46 23-29 23-34 23-40 23-45");
}

Test(movegen, italian_and_american_kings_move_one_square)
{
    assert_moves("american", "W:WK18:B4", "18-14 18-15 18-22 18-23");
    assert_moves("italian", "W:WK18:B4", "18-13 18-14 18-21 18-22");
}

Test(movegen, flying_king_captures_at_a_distance_and_lands_anywhere_beyond)
{
    assert_moves("russian", "W:WKd4:Bf6", "d4:g7 d4:h8");
    assert_moves("brazilian", "W:WKa1:Bd4", "a1xe5 a1xf6 a1xg7 a1xh8");
    assert_moves("international", "W:WK46:B28", "46x23 46x19 46x14 46x10 46x5");
}

Test(movegen, one_square_kings_capture_only_adjacent_pieces)
{
    assert_moves("american", "W:WK18:B11", "18-14 18-15 18-22 18-23");
    assert_moves("american", "W:WK18:B15", "18x11");
    assert_moves("italian", "W:WK19:B14", "19x10");
}

/* ---- mandatory and optional capture ---- */

Test(movegen, capture_is_mandatory)
{
    assert_moves("brazilian", "W:Wd4,a3:Be5", "d4xf6");
    assert_moves("russian", "W:Wd4,a3:Be5", "d4:f6");
    assert_moves("czech", "W:Wd4,a3:Be5", "d4xf6");
    assert_moves("american", "W:W18,21:B15", "18x11");
    assert_moves("italian", "W:W19,24:B14", "19x10");
    assert_moves("spanish", "W:W14,9:B19", "14x23");
    assert_moves("international", "W:W28,36:B22", "28x17");
}

Test(movegen, optional_capture_allows_plain_moves_beside_captures)
{
    assert_moves_optional("brazilian", "W:Wd4,a3:Be5", "d4xf6 d4-c5 a3-b4");
    assert_moves_optional("russian", "W:Wd4,a3:Be5", "d4:f6 d4-c5 a3-b4");
    assert_moves_optional("czech", "W:Wd4,a3:Be5", "d4xf6 d4-c5 a3-b4");
    assert_moves_optional("american", "W:W18,21:B15", "18x11 18-14 21-17");
    assert_moves_optional("italian", "W:W19,24:B14", "19x10 19-15 24-20");
    assert_moves_optional("spanish", "W:W14,9:B19", "14x23 14-18 9-13");
}

Test(movegen, optional_capture_keeps_the_capture_law)
{
    assert_moves_optional("brazilian", "W:Wc3,a1:Bb4,d4,f6", "c3xg7 a1-b2");
    assert_moves_optional("russian", "W:Wc3,a1:Bb4,d4,f6", "c3:a5 c3:g7 a1-b2");
}

Test(movegen, optional_capture_is_refused_on_10x10)
{
    Variant v;
    char err[256];
    cr_assert_eq(variant_lookup("international", true, &v, err, sizeof err), DAMAS_ERR_ILLEGAL);
}

Test(movegen, a_capture_must_be_completed)
{
    /* c3xe5 would stop half-way: the man must go on over f6. */
    assert_moves("russian", "W:Wc3:Bb4,d4,f6", "c3:a5 c3:g7");
    assert_moves("american", "W:W22:B17,18,11", "22x13 22x8");
}

/* ---- men capturing backward ---- */

Test(movegen, men_capture_backward_in_brazilian_russian_international)
{
    assert_moves("brazilian", "W:Wd4:Bc3", "d4xb2");
    assert_moves("russian", "W:Wd4:Bc3", "d4:b2");
    assert_moves("international", "W:W28:B32", "28x37");
}

Test(movegen, men_never_capture_backward_in_spanish_czech_italian_american)
{
    assert_moves("czech", "W:Wd4:Bc3", "d4-c5 d4-e5");
    assert_moves("american", "W:W18:B22", "18-14 18-15");
    assert_moves("italian", "W:W18:B21", "18-13 18-14");
    assert_moves("spanish", "W:W14:B11", "14-19 14-18");
}

/* ---- who may capture kings ---- */

Test(movegen, men_capture_kings_outside_italian)
{
    assert_moves("brazilian", "W:Wd4:BKe5", "d4xf6");
    assert_moves("russian", "W:Wd4:BKe5", "d4:f6");
    assert_moves("czech", "W:Wd4:BKe5", "d4xf6");
    assert_moves("american", "W:W18:BK15", "18x11");
    assert_moves("spanish", "W:W14:BK19", "14x23");
    assert_moves("international", "W:W28:BK22", "28x17");
}

Test(movegen, italian_men_never_capture_kings)
{
    assert_moves("italian", "W:W18:BK14", "18-13");
    assert_moves("italian", "W:WK18:BK14", "18x11");
}

/* ---- capture laws ---- */

Test(movegen, most_pieces_must_be_taken_in_brazilian_spanish_italian_international)
{
    assert_moves("brazilian", "W:Wc3:Bb4,d4,f6", "c3xg7");
    assert_moves("spanish", "W:W10:B13,14,23", "10x28");
    assert_moves("italian", "W:W23:B20,19,10", "23x5");
    assert_moves("international", "W:W37:B31,32,23", "37x19");
}

Test(movegen, free_choice_of_capture_in_russian_american_czech)
{
    assert_moves("russian", "W:Wc3:Bb4,d4,f6", "c3:a5 c3:g7");
    assert_moves("american", "W:W22:B17,18,11", "22x13 22x8");
    assert_moves("czech", "W:Wc3:Bb4,d4,f6", "c3xa5 c3xg7");
}

Test(movegen, most_pieces_counts_kings_and_men_alike)
{
    assert_moves("brazilian", "W:Wd4:Bc5,Ke5", "d4xb6 d4xf6");
}

Test(movegen, spanish_takes_most_kings_among_longest_captures)
{
    assert_moves("spanish", "W:W14:B18,K19", "14x23");
}

Test(movegen, spanish_takes_most_pieces_before_most_kings)
{
    assert_moves("spanish", "W:W10:B14,23,K13", "10x28");
}

Test(movegen, czech_king_must_capture_when_any_king_can)
{
    assert_moves("czech", "W:Wh2,Ka1:Bb2,g3", "a1xc3 a1xd4 a1xe5 a1xf6 a1xg7 a1xh8");
    assert_moves("russian", "W:Wh2,Ka1:Bb2,g3", "a1:c3 a1:d4 a1:e5 a1:f6 a1:g7 a1:h8 h2:f4");
}

Test(movegen, czech_men_capture_when_no_king_can)
{
    assert_moves("czech", "W:Wh2,Ka1:Bg3,b4", "h2xf4");
}

Test(movegen, italian_prefers_a_king_capturing_to_a_man_capturing)
{
    assert_moves("italian", "W:WK23,25:B19,21", "23x14");
}

Test(movegen, italian_prefers_capturing_more_kings)
{
    assert_moves("italian", "W:WK19:B15,K14", "19x10");
}

Test(movegen, italian_prefers_more_kings_to_earlier_kings)
{
    /* 27x20x11x4 takes a king first then two men; 27x18x9x2 a man then two kings. */
    assert_moves("italian", "W:WK27:BK23,15,7,22,K13,K5", "27x2");
}

Test(movegen, italian_prefers_kings_captured_earliest)
{
    /* 19x12x3 takes the king at the first jump, 19x26x17 at the second. */
    assert_moves("italian", "W:WK19:BK15,7,22,K21", "19x3");
}

Test(movegen, italian_most_pieces_outranks_king_capturing)
{
    /* The man takes two, the king one: the man's capture is the only legal move. */
    assert_moves("italian", "W:W23,K4:B20,19,10,7", "23x5");
}

/* ---- promotion in the middle of a capture ---- */

Test(movegen, russian_man_crowned_mid_capture_continues_as_king)
{
    Variant v = test_variant("russian", false);
    assert_moves("russian", "W:Wb6:Bc7,e7", "b6:f6 b6:g5 b6:h4");
    Position pos = test_position(&v, "W:Wb6:Bc7,e7");
    Move m = test_move(&v, &pos, "b6:h4");
    cr_assert(m.flags & MOVE_PROMOTES, "the man ends as a king");
}

Test(movegen, brazilian_man_passes_far_row_as_a_man)
{
    Variant v = test_variant("brazilian", false);
    assert_moves("brazilian", "W:Wb6:Bc7,e7", "b6xf6");
    Position pos = test_position(&v, "W:Wb6:Bc7,e7");
    Move m = test_move(&v, &pos, "b6xf6");
    cr_assert(!(m.flags & MOVE_PROMOTES), "a man that leaves the far row is not crowned");
}

Test(movegen, brazilian_man_ending_capture_on_far_row_is_crowned)
{
    Variant v = test_variant("brazilian", false);
    Position pos = test_position(&v, "W:Wb6:Bc7");
    Move m = test_move(&v, &pos, "b6xd8");
    cr_assert(m.flags & MOVE_PROMOTES);
}

Test(movegen, international_man_passes_far_row_as_a_man)
{
    assert_moves("international", "W:W12:B8,9", "12x14");
}

Test(movegen, man_crowned_mid_capture_stops_in_spanish_czech_italian_american)
{
    assert_moves("czech", "W:Wb6:Bc7,e7", "b6xd8");
    assert_moves("american", "W:W9:B6,7", "9x2");
    assert_moves("italian", "W:W12:B7,6", "12x3");
    assert_moves("spanish", "W:W21:B26,27", "21x30");
}

/* ---- Turkish strike, landing squares, merged captures ---- */

Test(movegen, captured_pieces_block_until_the_move_ends)
{
    /* The king's loop c1-a3-c5-e3-c1 cannot go on through d2, which is captured but still
     * on the board; f4 beyond it stays out of reach. */
    assert_moves("russian", "W:WKc1:Bb2,b4,d2,d4,f4",
                 "c1:c1 c1:e3:g5 c1:e3:h6 c1:a3:c5:e3:g5 c1:a3:c5:e3:h6 c1:g3 c1:h2");
    assert_moves("czech", "W:WKc1:Bb2,b4,d2,d4,f4",
                 "c1xc1 c1xe3xg5 c1xe3xh6 c1xa3xc5xe3xg5 c1xa3xc5xe3xh6 c1xg3 c1xh2");
    assert_moves("brazilian", "W:WKc1:Bb2,b4,d2,d4,f4", "c1xc1 c1xg5 c1xh6");
    assert_moves("spanish", "W:WK2:B5,13,6,14,15", "2x2 2x20 2x24");
}

Test(movegen, a_piece_is_never_jumped_twice)
{
    /* Round the square: the king is back on 30 with d2 and b2 behind it, taken. */
    assert_moves("american", "W:WK30:B26,18,17,25", "30x30");
    assert_moves("italian", "W:WK31:B27,19,20,28", "31x31");
}

Test(movegen, flying_king_must_land_where_it_can_capture_again)
{
    assert_moves("russian", "W:WKa1:Bc3,g3", "a1:h2");
    assert_moves("brazilian", "W:WKa1:Bc3,g3", "a1xh2");
    assert_moves("czech", "W:WKa1:Bc3,g3", "a1xh2");
    assert_moves("international", "W:WK46:B37,39", "46x44 46x50");
}

Test(movegen, same_from_to_and_captured_set_is_one_move)
{
    Variant v = test_variant("american", false);
    Position pos = test_position(&v, "W:WK30:B26,18,17,25");
    MoveList list;
    cr_assert_eq(movegen_moves_merged(&pos, &v, MERGE_CAPTURED_SET, &list), 1);
    cr_assert_eq(pos_count(list.moves[0].captured), 4);
    cr_assert_eq(movegen_moves_merged(&pos, &v, MERGE_CAPTURE_ORDER, &list), 2, "two orders of capture");
    cr_assert_eq(movegen_count(&pos, &v, MERGE_CAPTURE_ORDER), 2);
}

Test(movegen, flying_king_landing_squares_of_one_order_are_one_move)
{
    /* a1 takes c3 landing on d4 or e5, then f6 from either: one move, even in keep mode. */
    Variant v = test_variant("russian", false);
    Position pos = test_position(&v, "W:WKa1:Bc3,f6");
    MoveList list;
    movegen_moves_merged(&pos, &v, MERGE_CAPTURE_ORDER, &list);
    assert_moves("russian", "W:WKa1:Bc3,f6", "a1:g7 a1:h8");
    cr_assert_eq(list.count, 2);
}

/* ---- counting agrees with generating ---- */

Test(movegen, count_equals_number_of_generated_moves)
{
    const char *fens[] = {"W:WKc1:Bb2,b4,d2,d4,f4", "W:Wc3,a1:Bb4,d4,f6", "W:Wb6:Bc7,e7", "B:WKd4,a1:Bb6,c7",
                          "W:Wc3,a1:Bf6,h8", "W:Wa1:Bb2,c3"};
    const char *names[] = {"brazilian", "russian", "spanish", "czech", "italian", "american"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        for (int opt = 0; opt < 2; opt++) {
            Variant v = test_variant(names[i], opt);
            for (size_t f = 0; f < sizeof fens / sizeof fens[0]; f++) {
                Position pos;
                if (notation_fen_parse(&v, fens[f], &pos, NULL, 0) != DAMAS_OK)
                    continue;
                MoveList list;
                cr_assert_eq(movegen_count(&pos, &v, MERGE_CAPTURED_SET), movegen_moves(&pos, &v, &list),
                             "%s %s", names[i], fens[f]);
                bool capture = list.count > 0 && list.moves[0].captured != 0;
                cr_assert_eq(movegen_has_capture(&pos, &v), capture);
                cr_assert_eq(movegen_quiet_count(&pos, &v), capture ? -1 : list.count, "%s %s", names[i], fens[f]);
            }
        }
}

/* ---- the generator's split of the moves ---- */

/* Whether two moves are the same move (from, to, captured set, promotion). */
static bool same_move(const Move *a, const Move *b)
{
    return a->from == b->from && a->to == b->to && a->captured == b->captured && a->flags == b->flags;
}

/* movegen_exits lists exactly the captures and promotions of movegen_moves and counts the
 * rest, on positions of random games (kings appear in the longer ones). */
static void assert_exits_split_the_moves(const char *variant, bool optional)
{
    Variant v = test_variant(variant, optional);
    Position pos[200];
    int checked = 0, with_exits = 0, with_inside = 0;
    for (int plies = 10; plies <= 150; plies += 35) {
        int n = test_random_positions(&v, 7 + (uint64_t)plies, 200, plies, pos);
        for (int i = 0; i < n; i++) {
            MoveList all, out;
            movegen_moves(&pos[i], &v, &all);
            int inside = movegen_exits(&pos[i], &v, &out), expect_inside = 0, k = 0;
            for (int j = 0; j < all.count; j++) {
                const Move *m = &all.moves[j];
                if (!m->captured && !(m->flags & MOVE_PROMOTES)) {
                    expect_inside++;
                    continue;
                }
                cr_assert(k < out.count, "%s: an exit is missing", variant);
                const Move *e = &out.moves[k++];
                cr_assert(same_move(e, m), "%s: exit %d differs", variant, k);
            }
            cr_assert_eq(k, out.count, "%s: an exit too many", variant);
            cr_assert_eq(inside, expect_inside, "%s: other moves %d, expected %d", variant, inside, expect_inside);
            checked++;
            with_exits += out.count > 0;
            with_inside += inside > 0;
        }
    }
    cr_assert(checked > 500 && with_exits > 50 && with_inside > 50, "%s: %d positions, %d with exits", variant,
              checked, with_exits);
}

Test(movegen, exits_are_the_captures_and_promotions_and_the_rest_are_counted)
{
    const char *variants[] = {"brazilian", "russian", "spanish", "czech", "italian", "american", "international"};
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++)
        assert_exits_split_the_moves(variants[i], false);
    assert_exits_split_the_moves("russian", true);
    assert_exits_split_the_moves("italian", true);
}

/* movegen_exits_cached gives exactly the moves and count of movegen_exits on every position of a
 * slice walked in index order (one cache for the whole walk, as a solver's initialisation uses
 * it: our kings' squares vary fastest, so entries are reused, and the other pieces move on). */
static void assert_cached_exits_equal(const char *variant, bool optional, Material m, int board)
{
    Variant v = test_variant(variant, optional);
    Slice s;
    cr_assert(slice_init(&s, m, board));
    MovegenKingCache *kc = movegen_king_cache_new();
    cr_assert(kc);
    static MoveList cached, plain;
    uint64_t king_takes = 0;
    SliceWalk w;
    slice_walk_start(&s, 0, &w);
    for (uint64_t i = 0; i < s.size; i++) {
        if (i > 0)
            slice_walk_next(&s, &w);
        int a = movegen_exits_cached(&w.pos, &v, &cached, kc), b = movegen_exits(&w.pos, &v, &plain);
        cr_assert_eq(a, b, "%s index %llu: %d other moves, expected %d", variant, (unsigned long long)i, a, b);
        cr_assert_eq(cached.count, plain.count, "%s index %llu: %d exits, expected %d", variant,
                     (unsigned long long)i, cached.count, plain.count);
        for (int j = 0; j < plain.count; j++) {
            const Move *e = &plain.moves[j];
            bool found = false;
            for (int k = 0; k < cached.count && !found; k++)
                found = same_move(&cached.moves[k], e);
            cr_assert(found, "%s index %llu: exit %d missing", variant, (unsigned long long)i, j);
            king_takes += e->captured && ((w.pos.kings >> e->from) & 1);
        }
    }
    movegen_king_cache_free(kc);
    cr_assert(king_takes > s.size / 10, "%s: only %llu king captures in %llu positions", variant,
              (unsigned long long)king_takes, (unsigned long long)s.size);
}

Test(movegen, cached_exits_are_the_exits_of_every_position_in_index_order)
{
    const char *flying[] = {"brazilian", "russian", "spanish", "czech"};
    for (size_t i = 0; i < sizeof flying / sizeof flying[0]; i++) {
        assert_cached_exits_equal(flying[i], false, (Material){0, 2, 1, 1}, 8);
        assert_cached_exits_equal(flying[i], false, (Material){1, 2, 1, 0}, 8);
        assert_cached_exits_equal(flying[i], false, (Material){0, 3, 0, 1}, 8);
    }
    assert_cached_exits_equal("russian", true, (Material){0, 2, 1, 1}, 8);
    assert_cached_exits_equal("international", false, (Material){0, 2, 0, 1}, 10);
    assert_cached_exits_equal("international", false, (Material){0, 2, 1, 0}, 10);
    /* Without flying kings the cache is not used: the same moves still. */
    assert_cached_exits_equal("american", false, (Material){0, 2, 1, 1}, 8);
}

/* Positions: start setup, make/undo, incremental Zobrist hashing, colour flip. */
#include <criterion/criterion.h>

#include "helpers.h"

static const char *all_variants[] = {"brazilian", "russian", "spanish", "czech", "italian", "american", "international"};

Test(position, start_position_has_each_sides_men_and_first_mover)
{
    for (size_t i = 0; i < sizeof all_variants / sizeof all_variants[0]; i++) {
        Variant v = test_variant(all_variants[i], false);
        Position pos;
        pos_start(&pos, &v);
        int men = v.rules.board_size == 8 ? 12 : 20;
        cr_assert_eq(pos_count(pos_men(&pos, WHITE)), men);
        cr_assert_eq(pos_count(pos_men(&pos, BLACK)), men);
        cr_assert_eq(pos.kings, 0);
        cr_assert_eq(pos.side, v.id == VARIANT_AMERICAN ? BLACK : WHITE, "%s first mover", v.name);
        cr_assert_eq(pos.hash, pos_hash(&pos));
    }
}

Test(position, make_then_undo_restores_position_and_hash)
{
    for (size_t i = 0; i < sizeof all_variants / sizeof all_variants[0]; i++) {
        Variant v = test_variant(all_variants[i], false);
        Position positions[100];
        int n = test_random_positions(&v, 1234 + i, 100, 200, positions);
        for (int p = 0; p < n; p++) {
            MoveList list;
            movegen_moves(&positions[p], &v, &list);
            for (int k = 0; k < list.count; k++) {
                Position pos = positions[p];
                Undo u;
                pos_make(&pos, &list.moves[k], &u);
                cr_assert_eq(pos.hash, pos_hash(&pos), "%s: incremental hash after a move", v.name);
                cr_assert_eq(pos.pieces[WHITE] & pos.pieces[BLACK], 0);
                cr_assert_eq(pos.kings & ~(pos.pieces[WHITE] | pos.pieces[BLACK]), 0);
                pos_undo(&pos, &list.moves[k], &u);
                cr_assert(pos_equal(&pos, &positions[p]) && pos.hash == positions[p].hash, "%s: undo", v.name);
            }
        }
    }
}

Test(position, capture_removes_exactly_the_captured_pieces)
{
    Variant v = test_variant("russian", false);
    Position pos = test_position(&v, "W:WKc1:Bb2,b4,d2,d4,f4");
    Move m = test_move(&v, &pos, "c1:c1");
    Undo u;
    pos_make(&pos, &m, &u);
    Position want = test_position(&v, "B:WKc1:Bf4");
    cr_assert(pos_equal(&pos, &want), "the king is back on c1 and only f4 is left");
    cr_assert_eq(pos.hash, want.hash);
}

Test(position, side_to_move_changes_the_hash)
{
    Variant v = test_variant("brazilian", false);
    Position w = test_position(&v, "W:W21-32:B1-12"), b = test_position(&v, "B:W21-32:B1-12");
    cr_assert_neq(w.hash, b.hash);
}

Test(position, flip_twice_is_the_identity_and_start_is_symmetric)
{
    for (size_t i = 0; i < sizeof all_variants / sizeof all_variants[0]; i++) {
        Variant v = test_variant(all_variants[i], false);
        const Board *b = variant_board(&v);
        Position start, f, ff;
        pos_start(&start, &v);
        pos_flip(&start, b, &f);
        cr_assert_eq(f.pieces[WHITE], start.pieces[WHITE]);
        cr_assert_eq(f.pieces[BLACK], start.pieces[BLACK]);
        cr_assert_eq(f.side, start.side ^ 1);
        Position positions[50];
        int n = test_random_positions(&v, 77 + i, 50, 80, positions);
        for (int p = 0; p < n; p++) {
            pos_flip(&positions[p], b, &f);
            pos_flip(&f, b, &ff);
            cr_assert(pos_equal(&ff, &positions[p]) && ff.hash == positions[p].hash);
        }
    }
}

Test(position, flipped_position_has_the_same_move_tree)
{
    for (size_t i = 0; i < sizeof all_variants / sizeof all_variants[0]; i++) {
        Variant v = test_variant(all_variants[i], false);
        Position positions[30];
        int n = test_random_positions(&v, 555 + i, 30, 100, positions);
        for (int p = 0; p < n; p++) {
            Position f;
            pos_flip(&positions[p], variant_board(&v), &f);
            cr_assert_eq(movegen_perft(&positions[p], &v, 3, MERGE_CAPTURED_SET),
                         movegen_perft(&f, &v, 3, MERGE_CAPTURED_SET), "%s", v.name);
        }
    }
}

/* Perft against published figures (shared/perft/published.json, from the draughts
 * programming community's perft threads as collected by the dctl library). "drop" merges
 * sequences with the same from, to and captured set (damas' rule); "keep" counts each order
 * of capture. */
#include <criterion/criterion.h>

#include "helpers.h"

static void check_perft(const char *variant, const char *fen, MergeRule merge, const uint64_t *want, int depth)
{
    Variant v = test_variant(variant, false);
    Position pos;
    if (fen)
        pos = test_position(&v, fen);
    else
        pos_start(&pos, &v);
    Position before = pos;
    for (int d = 1; d <= depth; d++) {
        uint64_t got = movegen_perft(&pos, &v, d, merge);
        cr_assert_eq(got, want[d - 1], "%s %s depth %d: got %llu, published %llu", variant, fen ? fen : "start", d,
                     (unsigned long long)got, (unsigned long long)want[d - 1]);
    }
    cr_assert(pos_equal(&pos, &before) && pos.hash == before.hash, "perft restores the position");
}

#define PERFT(variant, fen, merge, ...)                                                                      \
    do {                                                                                                     \
        const uint64_t want[] = {__VA_ARGS__};                                                               \
        check_perft(variant, fen, merge, want, (int)(sizeof want / sizeof want[0]));                         \
    } while (0)

Test(perft, brazilian_start_matches_published)
{
    PERFT("brazilian", NULL, MERGE_CAPTURED_SET, 7, 49, 302, 1469, 7473, 37628, 187302, 907830);
    PERFT("brazilian", NULL, MERGE_CAPTURE_ORDER, 7, 49, 302, 1469, 7473, 37628, 187302, 907836);
}

Test(perft, russian_start_matches_published)
{
    PERFT("russian", NULL, MERGE_CAPTURED_SET, 7, 49, 302, 1469, 7482, 37986, 190146, 929899);
    PERFT("russian", NULL, MERGE_CAPTURE_ORDER, 7, 49, 302, 1469, 7482, 37986, 190146, 929905);
}

Test(perft, spanish_start_matches_published)
{
    PERFT("spanish", NULL, MERGE_CAPTURED_SET, 7, 49, 302, 1469, 7361, 36473, 177532, 828783);
}

Test(perft, czech_start_matches_published)
{
    PERFT("czech", NULL, MERGE_CAPTURED_SET, 7, 49, 302, 1469, 7361, 36768, 179740, 845931);
}

Test(perft, italian_start_matches_published)
{
    PERFT("italian", NULL, MERGE_CAPTURED_SET, 7, 49, 302, 1469, 7361, 36473, 177532, 828783);
}

Test(perft, american_start_matches_published)
{
    PERFT("american", NULL, MERGE_CAPTURED_SET, 7, 49, 302, 1469, 7361, 36768, 179740, 845931);
}

Test(perft, international_start_matches_published)
{
    PERFT("international", NULL, MERGE_CAPTURED_SET, 9, 81, 658, 4265, 27117, 167140);
}

Test(perft, italian_gilbert_positions_match_published)
{
    PERFT("italian", "W:W30,26,27,22,23,24,17,18,20:B14,15,16,9,11,5,6,1,3", MERGE_CAPTURE_ORDER, 5, 13, 42, 107,
          360, 1099, 3736, 12495, 43686, 164177, 628686);
    PERFT("italian", "B:W30,21,22,17,20,K6:B25,28,9,5,1,3", MERGE_CAPTURE_ORDER, 6, 47, 271, 1916, 10810, 73137,
          389809, 2469050);
    PERFT("italian", "W:WK27,K28,17,20,9,K12,8:B21,24,K19,K13,14,K11,4", MERGE_CAPTURE_ORDER, 13, 112, 828, 6756,
          46241, 368908, 2468110);
}

Test(perft, italian_gilbert_position_in_algebraic_squares)
{
    PERFT("italian", "W:Wd1,c2,e2,d3,f3,h3,a4,c4,g4:Bd5,f5,h5,a6,e6,b7,d7,a8,e8", MERGE_CAPTURE_ORDER, 5, 13, 42,
          107, 360, 1099, 3736);
}

Test(perft, international_random178_matches_published)
{
    PERFT("international", "B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46", MERGE_CAPTURED_SET, 14,
          55, 1168, 5432, 87195, 629010);
}

Test(perft, international_woldouby_matches_published)
{
    PERFT("international", "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38", MERGE_CAPTURED_SET, 6,
          12, 30, 73, 215, 590, 1944, 6269, 22369, 88050, 377436, 1910989);
}

Test(perft, international_all_kings_matches_published)
{
    PERFT("international",
          "W:WK31,K32,K33,K34,K35,K36,K37,K38,K39,K40,K41,K42,K43,K44,K45,K46,K47,K48,K49,K50:"
          "BK1,K2,K3,K4,K5,K6,K7,K8,K9,K10,K11,K12,K13,K14,K15,K16,K17,K18,K19,K20",
          MERGE_CAPTURED_SET, 17, 79, 352, 1399, 7062, 37589, 217575, 1333217);
}

Test(perft, international_almost_promotion_matches_published)
{
    PERFT("international", "W:W6,7,8,9,10:B41,42,43,44,45", MERGE_CAPTURED_SET, 9, 81, 795, 7578, 86351, 936311);
}

Test(perft, international_front_rows_keep_matches_published)
{
    PERFT("international", "W:B16,17,18,19,20:W31,32,33,34,35", MERGE_CAPTURE_ORDER, 9, 81, 534, 2538, 9052, 29999,
          98971, 310315, 1008317, 3174159);
}

Test(perft, american_start_is_the_same_with_either_side_to_move)
{
    PERFT("american", "W:W21-32:B1-12", MERGE_CAPTURED_SET, 7, 49, 302, 1469, 7361, 36768);
}

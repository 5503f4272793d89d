/* FEN and move text: round trips, each variant's numbering, and malformed input. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"

static const char *all_variants[] = {"brazilian", "russian", "spanish", "czech", "italian", "american", "international"};

static void check_label(const char *variant, const char *numeric, const char *algebraic)
{
    Variant v = test_variant(variant, false);
    int a, b;
    const char *end;
    cr_assert_eq(notation_square_parse(&v, numeric, &a, &end, NULL, 0), DAMAS_OK);
    cr_assert_eq(notation_square_parse(&v, algebraic, &b, &end, NULL, 0), DAMAS_OK);
    cr_assert_eq(a, b, "%s: square %s should be %s", variant, numeric, algebraic);
}

Test(notation, numbering_follows_each_variants_pdn_convention)
{
    check_label("russian", "1", "b8");
    check_label("russian", "32", "g1");
    check_label("american", "1", "b8");
    check_label("american", "29", "a1");
    check_label("italian", "1", "a8");
    check_label("italian", "32", "h1");
    check_label("italian", "29", "b1");
    check_label("spanish", "1", "h1");
    check_label("spanish", "4", "b1");
    check_label("spanish", "32", "a8");
    check_label("international", "1", "b10");
    check_label("international", "50", "i1");
    check_label("international", "46", "a1");
}

Test(notation, start_positions_are_written_in_each_variants_numbering)
{
    const struct {
        const char *variant, *fen;
    } want[] = {
        {"russian", "W:Wa3,c3,e3,g3,b2,d2,f2,h2,a1,c1,e1,g1:Bb8,d8,f8,h8,a7,c7,e7,g7,b6,d6,f6,h6"},
        {"american", "B:W21-32:B1-12"},
        {"italian", "W:W21-32:B1-12"},
        {"spanish", "W:W1-12:B21-32"},
        {"international", "W:W31-50:B1-20"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        Variant v = test_variant(want[i].variant, false);
        Position pos;
        pos_start(&pos, &v);
        char fen[NOTATION_FEN_MAX];
        notation_fen_write(&v, &pos, NOTATION_NATIVE, fen);
        cr_assert_str_eq(fen, want[i].fen, "%s", want[i].variant);
    }
}

Test(notation, fen_round_trips_in_numeric_and_algebraic_for_every_variant)
{
    NotationStyle styles[] = {NOTATION_NATIVE, NOTATION_NUMERIC, NOTATION_ALGEBRAIC};
    for (size_t i = 0; i < sizeof all_variants / sizeof all_variants[0]; i++) {
        Variant v = test_variant(all_variants[i], false);
        Position positions[200];
        int n = test_random_positions(&v, 7 + i, 200, 120, positions);
        for (int p = 0; p < n; p++)
            for (size_t s = 0; s < 3; s++) {
                char fen[NOTATION_FEN_MAX], err[256];
                notation_fen_write(&v, &positions[p], styles[s], fen);
                Position back;
                cr_assert_eq(notation_fen_parse(&v, fen, &back, err, sizeof err), DAMAS_OK, "%s %s: %s",
                             v.name, fen, err);
                cr_assert(pos_equal(&back, &positions[p]), "%s: %s does not round-trip", v.name, fen);
                cr_assert_eq(back.hash, positions[p].hash);
            }
    }
}

Test(notation, mirrored_boards_map_every_square_both_ways)
{
    const char *mirrored[] = {"italian", "spanish"};
    for (int m = 0; m < 2; m++) {
        Variant v = test_variant(mirrored[m], false);
        int seen[64] = {0};
        for (int n = 1; n <= 32; n++) {
            char label[16], alg[NOTATION_SQUARE_MAX], num[NOTATION_SQUARE_MAX];
            snprintf(label, sizeof label, "%d", n);
            int sq, sq2;
            const char *end;
            cr_assert_eq(notation_square_parse(&v, label, &sq, &end, NULL, 0), DAMAS_OK);
            cr_assert_eq(seen[sq]++, 0, "%s: two labels for one square", v.name);
            notation_square_write(&v, sq, NOTATION_ALGEBRAIC, alg);
            cr_assert_eq(notation_square_parse(&v, alg, &sq2, &end, NULL, 0), DAMAS_OK);
            notation_square_write(&v, sq2, NOTATION_NUMERIC, num);
            cr_assert_str_eq(num, label, "%s: %s -> %s -> %s", v.name, label, alg, num);
            /* a1 is light on these boards: every dark square has file + rank even. */
            cr_assert_eq(((alg[0] - 'a') + (alg[1] - '0')) % 2, 0, "%s: %s is not dark", v.name, alg);
        }
    }
}

Test(notation, every_legal_move_round_trips_through_its_text)
{
    for (size_t i = 0; i < sizeof all_variants / sizeof all_variants[0]; i++) {
        bool optional = i % 2 && strcmp(all_variants[i], "international");   /* some with optional capture */
        Variant v = test_variant(all_variants[i], optional);
        Position positions[300];
        int n = test_random_positions(&v, 99 + i, 300, 150, positions);
        for (int p = 0; p < n; p++) {
            MoveList list;
            movegen_moves(&positions[p], &v, &list);
            for (int k = 0; k < list.count; k++) {
                char text[NOTATION_MOVE_MAX], err[256];
                notation_move_write(&v, &positions[p], &list.moves[k], NOTATION_NATIVE, text);
                Move back;
                cr_assert_eq(notation_move_parse(&v, &positions[p], text, &back, err, sizeof err), DAMAS_OK,
                             "%s %s: %s", v.name, text, err);
                cr_assert(back.from == list.moves[k].from && back.to == list.moves[k].to &&
                              back.captured == list.moves[k].captured && back.flags == list.moves[k].flags,
                          "%s: %s parses to another move", v.name, text);
            }
        }
    }
}

/* Every move damas prints parses back to itself, also where a single king capture shares its
 * squares with a longer one, and, with optional capture, a plain move shares them with a capture
 * (the separator tells them apart). */
Test(notation, printed_moves_parse_back_where_moves_share_their_squares)
{
    struct {
        const char *variant, *fen;
        bool optional;
    } cases[] = {{"russian", "W:WKc1:Bb2,b4,d4,f4", false}, {"spanish", "W:WK3:B17,18,25,26", true},
                 {"russian", "W:WKc1:Bb2,b4,d4,f4", true}, {"brazilian", "W:WK3:B17,18,25,26", true}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        Variant v = test_variant(cases[c].variant, cases[c].optional);
        Position pos = test_position(&v, cases[c].fen);
        MoveList list;
        movegen_moves(&pos, &v, &list);
        for (int k = 0; k < list.count; k++) {
            char text[NOTATION_MOVE_MAX], err[256];
            notation_move_write(&v, &pos, &list.moves[k], NOTATION_NATIVE, text);
            Move back;
            cr_assert_eq(notation_move_parse(&v, &pos, text, &back, err, sizeof err), DAMAS_OK, "%s %s: %s",
                         v.name, text, err);
            cr_assert(back.to == list.moves[k].to && back.captured == list.moves[k].captured, "%s: %s", v.name, text);
        }
    }
    Variant v = test_variant("russian", false);
    Position pos = test_position(&v, "W:WKc1:Bb2,b4,d4,f4");
    cr_assert_eq(pos_count(test_move(&v, &pos, "c1:g5").captured), 1, "the single capture, written whole");
    cr_assert_eq(pos_count(test_move(&v, &pos, "c1:a3:g5").captured), 4);
    v = test_variant("brazilian", true);
    pos = test_position(&v, "W:WK3:B17,18,25,26");
    cr_assert_eq(test_move(&v, &pos, "f8-c5").captured, 0);
    cr_assert_eq(pos_count(test_move(&v, &pos, "f8xc5").captured), 4);
    MoveList list;
    movegen_moves(&pos, &v, &list);
    for (int k = 0; k < list.count; k++)
        for (int j = 0; j < list.count; j++)
            if (list.moves[k].captured && !list.moves[j].captured && list.moves[k].from == list.moves[j].from &&
                list.moves[k].to == list.moves[j].to) {
                char plain[NOTATION_MOVE_MAX];
                notation_move_write(&v, &pos, &list.moves[j], NOTATION_NATIVE, plain);
                cr_assert_eq(test_move(&v, &pos, plain).captured, 0, "%s is the plain move", plain);
            }
}

Test(notation, russian_captures_use_a_colon_and_numeric_style_uses_x)
{
    Variant v = test_variant("russian", false);
    Position pos = test_position(&v, "W:Wc3:Bd4");
    MoveList list;
    movegen_moves(&pos, &v, &list);
    char text[NOTATION_MOVE_MAX];
    notation_move_write(&v, &pos, &list.moves[0], NOTATION_NATIVE, text);
    cr_assert_str_eq(text, "c3:e5");
    notation_move_write(&v, &pos, &list.moves[0], NOTATION_NUMERIC, text);
    cr_assert_str_eq(text, "22x15");
}

Test(notation, ambiguous_short_capture_needs_landing_squares)
{
    Variant v = test_variant("russian", false);
    Position pos = test_position(&v, "W:WKc1:Bb2,b4,d2,d4,f4");
    Move m;
    char err[256];
    cr_assert_eq(notation_move_parse(&v, &pos, "c1:g5", &m, err, sizeof err), DAMAS_ERR_AMBIGUOUS);
    cr_assert(strstr(err, "ambiguous"), "%s", err);
    m = test_move(&v, &pos, "c1:e3:g5");
    cr_assert_eq(pos_count(m.captured), 2);
    m = test_move(&v, &pos, "c1:a3:g5");
    cr_assert_eq(pos_count(m.captured), 4);
    m = test_move(&v, &pos, "c1xc5xg5");
    cr_assert_eq(pos_count(m.captured), 4);
}

Test(notation, illegal_and_malformed_moves_are_rejected)
{
    Variant v = test_variant("brazilian", false);
    Position pos;
    pos_start(&pos, &v);
    const struct {
        const char *text;
        int code;
    } bad[] = {
        {"c3-c4", DAMAS_ERR_RANGE}, {"c3-e5", DAMAS_ERR_ILLEGAL}, {"c3", DAMAS_ERR_SYNTAX},
        {"", DAMAS_ERR_SYNTAX},     {"c3-", DAMAS_ERR_SYNTAX},    {"c3--d4", DAMAS_ERR_SYNTAX},
        {"c3-d4 extra", DAMAS_ERR_SYNTAX}, {"33-29", DAMAS_ERR_RANGE}, {"c3xd4", DAMAS_OK},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        Move m;
        char err[256] = "";
        int rc = notation_move_parse(&v, &pos, bad[i].text, &m, err, sizeof err);
        cr_assert_eq(rc, bad[i].code, "'%s' gave %d (%s)", bad[i].text, rc, err);
        cr_assert(rc == DAMAS_OK || strlen(err) > 10, "'%s': message '%s'", bad[i].text, err);
    }
}

Test(notation, malformed_fens_are_rejected_with_a_message)
{
    const struct {
        const char *variant, *fen, *says;
        int code;
    } bad[] = {
        {"russian", "", "side to move", DAMAS_ERR_SYNTAX},
        {"russian", "garbage", "side to move", DAMAS_ERR_SYNTAX},
        {"russian", "X:W21:B1", "side to move", DAMAS_ERR_SYNTAX},
        {"russian", "W", "no pieces", DAMAS_ERR_SYNTAX},
        {"russian", "bad fen", "':' after the side to move", DAMAS_ERR_SYNTAX},
        {"russian", "W21:B1", "':' after the side to move", DAMAS_ERR_SYNTAX},
        {"russian", "W:W33:B1", "outside the board", DAMAS_ERR_RANGE},
        {"russian", "W:W0:B1", "outside the board", DAMAS_ERR_RANGE},
        {"russian", "W:W99999999999:B1", "outside the board", DAMAS_ERR_RANGE},
        {"international", "W:W51:B1", "outside the board", DAMAS_ERR_RANGE},
        {"russian", "W:Wi1:B1", "outside", DAMAS_ERR_RANGE},
        {"russian", "W:Wa9:B1", "outside", DAMAS_ERR_RANGE},
        {"russian", "W:Wa2:B1", "light square", DAMAS_ERR_RANGE},
        {"italian", "W:Wa1:B1", "light square", DAMAS_ERR_RANGE},
        {"russian", "W:W21,21:B1", "twice", DAMAS_ERR_ILLEGAL},
        {"russian", "W:W21:B21", "twice", DAMAS_ERR_ILLEGAL},
        {"russian", "W:W22:Bc3", "twice", DAMAS_ERR_ILLEGAL},
        {"russian", "W:W2:B30", "promotion row", DAMAS_ERR_ILLEGAL},
        {"russian", "W:W20:B30", "promotion row", DAMAS_ERR_ILLEGAL},
        {"spanish", "W:W30:B1", "promotion row", DAMAS_ERR_ILLEGAL},
        {"russian", "W:W5-17:B1", "more than 12", DAMAS_ERR_ILLEGAL},
        {"russian", "W:W13-25:B1", "more than 12", DAMAS_ERR_ILLEGAL},
        {"international", "W:W21-41:B1", "more than 20", DAMAS_ERR_ILLEGAL},
        {"russian", "W:W21-32:B12-1", "backwards", DAMAS_ERR_SYNTAX},
        {"russian", "W:Wa3-c3:B1", "range", DAMAS_ERR_SYNTAX},
        {"russian", "W:W21:W22", "listed twice", DAMAS_ERR_SYNTAX},
        {"russian", "W:X21:B1", "'W' or 'B'", DAMAS_ERR_SYNTAX},
        {"russian", "W:W21;22:B1", "separated by ','", DAMAS_ERR_SYNTAX},
        {"russian", "W:W21:B1 trailing", "unexpected", DAMAS_ERR_SYNTAX},
        {"russian", "W:W21:B1. more", "unexpected text", DAMAS_ERR_SYNTAX},
        {"russian", "W:W21,:B1,,", "bad square", DAMAS_ERR_SYNTAX},
        {"russian", "W:WK:B1", "bad square", DAMAS_ERR_SYNTAX},
        {"russian", "W:W\xff:B1", "bad square", DAMAS_ERR_SYNTAX},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        Variant v = test_variant(bad[i].variant, false);
        Position pos;
        pos_start(&pos, &v);
        Position before = pos;
        char err[256] = "";
        int rc = notation_fen_parse(&v, bad[i].fen, &pos, err, sizeof err);
        cr_assert_eq(rc, bad[i].code, "'%s' gave %d (%s)", bad[i].fen, rc, err);
        cr_assert(strstr(err, bad[i].says), "'%s': message '%s' should mention '%s'", bad[i].fen, err, bad[i].says);
        cr_assert(pos_equal(&pos, &before), "a failed parse leaves the position untouched");
    }
}

Test(notation, fen_accepts_quotes_spaces_final_dot_and_king_ranges)
{
    Variant v = test_variant("russian", false);
    Position a = test_position(&v, "\"W:WK21-23,30:B1, 2.\"");
    Position b = test_position(&v, "W:WK21,K22,K23,30:B1,2");
    cr_assert(pos_equal(&a, &b));
    cr_assert_eq(pos_count(a.kings), 3);
    Position c = test_position(&v, "B:B1,2:WKa3,Kc3,Ke3,c1");
    cr_assert(!pos_equal(&b, &c) && c.side == BLACK);
    c.side = WHITE;
    c.hash = pos_hash(&c);
    cr_assert(pos_equal(&b, &c));
}

Test(notation, unknown_variant_is_rejected_with_the_known_names)
{
    Variant v;
    char err[256];
    cr_assert_eq(variant_lookup("frisian", false, &v, err, sizeof err), DAMAS_ERR_UNKNOWN);
    cr_assert(strstr(err, "frisian") && strstr(err, "brazilian"), "%s", err);
    cr_assert_eq(variant_lookup("english", false, &v, err, sizeof err), DAMAS_OK);
    cr_assert_eq(v.id, VARIANT_AMERICAN);
}

Test(notation, random_text_never_crashes_the_parsers)
{
    static const char alphabet[] = "WBKwbk0123456789:,-x.\" abcdefghij\xff";
    uint64_t state = 42;
    for (int i = 0; i < 20000; i++) {
        char text[40];
        int len = (int)((state = state * 6364136223846793005ull + 1442695040888963407ull) >> 59);
        for (int k = 0; k < len; k++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            text[k] = alphabet[(state >> 33) % (sizeof alphabet - 1)];
        }
        text[len] = '\0';
        Variant v = test_variant(all_variants[i % 7], false);
        Position pos;
        char err[256];
        int rc = notation_fen_parse(&v, text, &pos, err, sizeof err);
        if (rc == DAMAS_OK) {
            char back[NOTATION_FEN_MAX];
            notation_fen_write(&v, &pos, NOTATION_NATIVE, back);
        } else {
            pos_start(&pos, &v);
        }
        Move m;
        notation_move_parse(&v, &pos, text, &m, err, sizeof err);
    }
}

/* Reading PDN (engine/pdn.c): games written by match_write_pdn read back as they were in every
 * variant; comments, variations, annotations and move numbers skipped; errors name the game
 * and the line. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/movegen.h"
#include "../core/position.h"
#include "../engine/pdn.h"
#include "helpers.h"

typedef struct {
    Game games[4];
    int n;
} Read;

static bool keep(void *ctx, const Game *g)
{
    Read *r = ctx;
    if (r->n < 4)
        r->games[r->n] = *g;
    r->n++;
    return true;
}

static int read_text(const Variant *v, const char *text, Read *out, char *err, size_t errlen)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    out->n = 0;
    int n = pdn_read(v, f, "test.pdn", keep, out, err, errlen);
    fclose(f);
    return n;
}

/* A game of random legal moves from the start (or from a position with the second player to
 * move), `plies` long. */
static void random_game(const Variant *v, const char *fen, int plies, uint64_t seed, Game *g)
{
    memset(g, 0, sizeof *g);
    if (fen)
        g->start = test_position(v, fen);
    else
        pos_start(&g->start, v);
    Position pos = g->start;
    for (int k = 0; k < plies; k++) {
        MoveList list;
        movegen_moves(&pos, v, &list);
        if (list.count == 0)
            break;
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        /* Scores as comments: none, a forced end, or men. */
        g->scores[g->nmoves] = (int16_t)(k % 5 == 0   ? MATCH_NO_SCORE
                                         : k % 7 == 0 ? (k % 2 ? 1 : -1) * (SEARCH_WIN - k)
                                                      : (int)(seed >> 40) % 601 - 300);
        g->moves[g->nmoves++] = list.moves[(seed >> 33) % (uint64_t)list.count];
        Undo u;
        pos_make(&pos, &g->moves[g->nmoves - 1], &u);
    }
    g->result = (GameResult)((int)(seed % 3) - 1);
    g->reason = "test";
}

Test(pdn, games_written_by_damas_read_back_the_same_in_every_variant)
{
    for (int id = 0; id < VARIANT_COUNT; id++) {
        const Variant *v = variant_get((VariantId)id);
        Game *written = malloc(3 * sizeof *written);
        random_game(v, NULL, 120, 11 + (uint64_t)id, &written[0]);
        random_game(v, NULL, 7, 5 + (uint64_t)id, &written[1]);
        /* A game the second player starts: "1..." */
        Position start;
        pos_start(&start, v);
        MoveList list;
        movegen_moves(&start, v, &list);
        Undo u;
        pos_make(&start, &list.moves[0], &u);
        char fen[NOTATION_FEN_MAX];
        notation_fen_write(v, &start, NOTATION_NATIVE, fen);
        random_game(v, fen, 9, 3, &written[2]);
        char *text = NULL;
        size_t len;
        FILE *out = open_memstream(&text, &len);
        for (int g = 0; g < 3; g++)
            match_write_pdn(out, v, &written[g], "test", "a", "b", g + 1);
        fclose(out);
        Read *r = malloc(sizeof *r);
        char err[512];
        cr_assert_eq(read_text(v, text, r, err, sizeof err), 3, "%s: %s", v->name, err);
        for (int g = 0; g < 3; g++) {
            const Game *a = &written[g], *b = &r->games[g];
            cr_expect(pos_equal(&a->start, &b->start), "%s game %d: start", v->name, g + 1);
            cr_expect_eq(a->nmoves, b->nmoves, "%s game %d: %d moves read, %d written", v->name, g + 1, b->nmoves,
                         a->nmoves);
            for (int k = 0; k < a->nmoves && k < b->nmoves; k++)
                cr_expect(a->moves[k].from == b->moves[k].from && a->moves[k].to == b->moves[k].to &&
                              a->moves[k].captured == b->moves[k].captured,
                          "%s game %d move %d", v->name, g + 1, k + 1);
            cr_expect_eq(a->result, b->result, "%s game %d: result", v->name, g + 1);
        }
        free(text);
        free(r);
        free(written);
    }
}

Test(pdn, comments_variations_annotations_and_numbers_are_skipped)
{
    const Variant *v = variant_get(VARIANT_INTERNATIONAL);
    Read *r = malloc(sizeof *r);
    char err[512];
    const char *text = "[Event \"x\"]\n[GameType \"20,W,10,10,N2,0\"]\n[Result \"2-0\"]\n"
                       "1. 32-28 {the centre} 19-23 (1... 18-23 2. 28x19 {x} (2. 33-29) 14x23) 2.28x19 $3 14x23!?\n"
                       "; a line comment 3. 33-29\n3. 37-32 *\n"
                       "[Event \"second\"]\n1. 31-26 0-2";
    cr_assert_eq(read_text(v, text, r, err, sizeof err), 2, "%s", err);
    cr_expect_eq(r->games[0].nmoves, 5);
    cr_expect_eq(r->games[0].result, RESULT_WHITE, "the Result tag wins over the '*' token");
    cr_expect_eq(r->games[1].nmoves, 1);
    cr_expect_eq(r->games[1].result, RESULT_BLACK);
    free(r);
}

Test(pdn, errors_name_the_game_and_the_line)
{
    Read *r = malloc(sizeof *r);
    char err[512];
    const Variant *v = variant_get(VARIANT_RUSSIAN);
    cr_expect_eq(read_text(v, "1. c3-d4 f6-g5 *\n\n[Event \"b\"]\n1. c3-d4\nd4-e5 *\n", r, err, sizeof err), -1);
    cr_expect_not_null(strstr(err, "test.pdn line 5 (game 2): move 2 'd4-e5'"), "%s", err);
    cr_expect_eq(read_text(v, "[GameType \"20\"]\n1. 32-28 *", r, err, sizeof err), -1);
    cr_expect_not_null(strstr(err, "a game of another variant: GameType 20, not russian's 25"), "%s", err);
    cr_expect_eq(read_text(v, "[FEN \"W:W99:B1\"]\n*", r, err, sizeof err), -1);
    cr_expect_not_null(strstr(err, "bad FEN tag"), "%s", err);
    cr_expect_eq(read_text(v, "", r, err, sizeof err), 0);
    free(r);
}

/* A probe's whole answer as JSON and text (db/answer.c): the value and moves are the probe's,
 * every move's "fen" is the position after it, errors are classified, and strings are valid
 * JSON whatever bytes a request holds. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/notation.h"
#include "../db/answer.h"
#include "../gen/gen.h"
#include "helpers.h"

static char dir[64];
static DbProbe *db;

static void build(void)
{
    Variant v = test_variant("russian", false);
    snprintf(dir, sizeof dir, "/tmp/damas-answer-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    char err[512];
    cr_assert_eq(gen_run(&v, 3, dir, 2, NULL, err, sizeof err), DAMAS_OK, "%s", err);
    db = probe_open(dir, NULL, 1 << 20, err, sizeof err);
    cr_assert_not_null(db, "%s", err);
}

static void destroy(void)
{
    probe_close(db);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        cr_log_warn("could not remove %s", dir);
}

TestSuite(answer, .init = build, .fini = destroy);

static char *json_of(const char *s)
{
    char *buf = NULL;
    size_t len;
    FILE *out = open_memstream(&buf, &len);
    answer_json_string(out, s);
    fclose(out);
    return buf;
}

Test(answer, json_strings_escape_quotes_and_control_bytes_and_replace_bytes_that_are_not_utf8)
{
    char *s = json_of("a\"b\\c\n\x01");
    cr_expect_str_eq(s, "\"a\\\"b\\\\c\\u000a\\u0001\"");
    free(s);
    s = json_of("\xc3\xa9 \xe2\x89\xa4");   /* é ≤: kept as they are */
    cr_expect_str_eq(s, "\"\xc3\xa9 \xe2\x89\xa4\"");
    free(s);
    s = json_of("\xff\xc3(\xe2\x89");       /* a stray byte, a cut sequence, a truncated end */
    cr_expect_str_eq(s, "\"\\ufffd\\ufffd(\\ufffd\\ufffd\"");
    free(s);
}

Test(answer, every_move_names_the_position_after_it_and_values_are_the_probes)
{
    const char *fen = "W:WKc3,e3:Bd8";
    AnswerStatus status;
    char *text = answer_json(db, fen, &status);
    cr_assert_eq(status, ANSWER_OK, "%s", text);
    cr_expect_not_null(strstr(text, "\"wdl\":\"win\",\"dtw\":5,\"bestmove\":\"e3-d4\""), "%s", text);
    const Variant *v = probe_variant(db);
    Position pos = test_position(v, fen);
    ProbeMove moves[MOVELIST_MAX];
    int n = 0;
    char err[256];
    cr_assert_eq(probe_moves(db, &pos, moves, &n, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert_eq(n, 13);
    for (int k = 0; k < n; k++) {
        Position next = pos;
        Undo u;
        pos_make(&next, &moves[k].move, &u);
        char move[NOTATION_MOVE_MAX], after[NOTATION_FEN_MAX], want[1024];
        notation_move_write(v, &pos, &moves[k].move, NOTATION_NATIVE, move);
        notation_fen_write(v, &next, NOTATION_NATIVE, after);
        snprintf(want, sizeof want, "{\"move\":\"%s\",", move);
        const char *item = strstr(text, want);
        cr_assert_not_null(item, "%s not in %s", want, text);
        snprintf(want, sizeof want, "\"fen\":\"%s\"}", after);
        cr_expect_not_null(strstr(item, want), "%s: %s", move, want);
    }
    free(text);
    text = answer_text(db, fen, &status);
    cr_expect_not_null(strstr(text, "value: win in 5 plies (3 moves)"), "%s", text);
    cr_expect_not_null(strstr(text, "line: e3-d4 d8-c7 d4-c5 c7-b6 c5:a7"), "%s", text);
    free(text);
}

Test(answer, a_bad_fen_and_a_position_beyond_the_database_are_told_apart)
{
    AnswerStatus status;
    char *text = answer_json(db, "W:Wz9:B1", &status);
    cr_expect_eq(status, ANSWER_BAD_FEN);
    cr_expect_not_null(strstr(text, "\"error\":"), "%s", text);
    free(text);
    text = answer_json(db, "W:Wa1,c1:Bb8,d8", &status);
    cr_expect_eq(status, ANSWER_OUTSIDE, "%s", text);
    free(text);
    text = answer_text(db, "W:W:Bd8", &status);   /* white to move has no piece: lost */
    cr_expect_eq(status, ANSWER_OK, "%s", text);
    cr_expect_not_null(strstr(text, "value: loss in 0 plies"), "%s", text);
    free(text);
    text = answer_text(db, "B:W:Bd8", &status);   /* ... and cannot have just moved */
    cr_expect_eq(status, ANSWER_BAD_FEN, "%s", text);
    cr_expect_not_null(strstr(text, "white has no piece and is not to move"), "%s", text);
    free(text);
}

#include "answer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/notation.h"
#include "../core/position.h"

enum { LINE_MAX_PLIES = 1024 };

/* Everything one answer says, probed once for both formats. */
typedef struct {
    AnswerStatus status;
    char err[1024];
    Position pos;
    DbValue value;
    ProbeMove moves[MOVELIST_MAX];
    int nmoves;
    Move line[LINE_MAX_PLIES];
    int nline;
} Answer;

AnswerStatus answer_status(int rc)
{
    return rc == DAMAS_OK            ? ANSWER_OK
           : rc == DAMAS_ERR_RANGE   ? ANSWER_OUTSIDE
           : rc == DAMAS_ERR_ILLEGAL ? ANSWER_BAD_FEN
                                     : ANSWER_FAILED;
}

static void answer_probe(DbProbe *p, const char *fen, Answer *a)
{
    a->nmoves = a->nline = 0;
    a->status = ANSWER_OK;
    int rc;
    if (notation_fen_parse(probe_variant(p), fen, &a->pos, a->err, sizeof a->err) != DAMAS_OK)
        a->status = ANSWER_BAD_FEN;
    else if ((rc = probe_value(p, &a->pos, &a->value, a->err, sizeof a->err)) != DAMAS_OK ||
             (rc = probe_moves(p, &a->pos, a->moves, &a->nmoves, a->err, sizeof a->err)) != DAMAS_OK ||
             (rc = probe_line(p, &a->pos, a->line, LINE_MAX_PLIES, &a->nline, a->err, sizeof a->err)) != DAMAS_OK)
        a->status = answer_status(rc);
}

static const char *wdl_name(int wdl)
{
    return wdl == DB_WIN ? "win" : wdl == DB_DRAW ? "draw" : "loss";
}

/* The length of the well-formed UTF-8 sequence at s, or 0. */
static int utf8_length(const unsigned char *s)
{
    int n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 && s[0] < 0xf0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

void answer_json_string(FILE *out, const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    fputc('"', out);
    while (*s) {
        if (*s == '"' || *s == '\\') {
            fprintf(out, "\\%c", *s++);
        } else if (*s < 0x20 || *s == 0x7f) {
            fprintf(out, "\\u%04x", *s++);
        } else if (*s < 0x80) {
            fputc(*s++, out);
        } else {
            int n = utf8_length(s);   /* a byte that is not UTF-8 (from a hostile request) */
            if (n == 0) {
                fputs("\\ufffd", out);
                s++;
            } else {
                fwrite(s, 1, (size_t)n, out);
                s += n;
            }
        }
    }
    fputc('"', out);
}

/* A distance in JSON: null for a draw, which has none. */
static void json_dtw(FILE *out, DbValue v)
{
    if (v.wdl == DB_DRAW)
        fputs("null", out);
    else
        fprintf(out, "%d", v.dtw);
}

static void json_square(FILE *out, const Variant *v, int sq)
{
    char label[NOTATION_SQUARE_MAX];
    notation_square_write(v, sq, NOTATION_NATIVE, label);
    answer_json_string(out, label);
}

static void write_json(FILE *out, const Variant *v, const char *fen, const Answer *a)
{
    char text[NOTATION_MOVE_MAX], canonical[NOTATION_FEN_MAX];
    if (a->status != ANSWER_OK) {
        fputs("{\"fen\":", out);
        answer_json_string(out, fen);
        fputs(",\"error\":", out);
        answer_json_string(out, a->err);
        fputc('}', out);
        return;
    }
    notation_fen_write(v, &a->pos, NOTATION_NATIVE, canonical);
    fputs("{\"variant\":", out);
    answer_json_string(out, v->name);
    fputs(",\"fen\":", out);
    answer_json_string(out, canonical);
    fprintf(out, ",\"wdl\":\"%s\",\"dtw\":", wdl_name(a->value.wdl));
    json_dtw(out, a->value);
    fputs(",\"bestmove\":", out);
    if (a->nmoves > 0) {   /* the list is best first: a drawn position's best is a drawing move */
        notation_move_write(v, &a->pos, a->nline > 0 ? &a->line[0] : &a->moves[0].move, NOTATION_NATIVE, text);
        answer_json_string(out, text);
    } else {
        fputs("null", out);
    }
    fputs(",\"moves\":[", out);
    for (int k = 0; k < a->nmoves; k++) {
        const ProbeMove *m = &a->moves[k];
        notation_move_write(v, &a->pos, &m->move, NOTATION_NATIVE, text);
        fprintf(out, "%s{\"move\":", k ? "," : "");
        answer_json_string(out, text);
        fputs(",\"from\":", out);
        json_square(out, v, m->move.from);
        fputs(",\"to\":", out);
        json_square(out, v, m->move.to);
        fprintf(out, ",\"capture\":%s,\"wdl\":\"%s\",\"dtw\":", m->move.captured ? "true" : "false",
                wdl_name(m->value.wdl));
        json_dtw(out, m->value);
        Position next = a->pos;
        Undo u;
        pos_make(&next, &m->move, &u);
        notation_fen_write(v, &next, NOTATION_NATIVE, canonical);
        fputs(",\"fen\":", out);
        answer_json_string(out, canonical);
        fputc('}', out);
    }
    fputs("],\"line\":[", out);
    Position cur = a->pos;
    for (int k = 0; k < a->nline; k++) {
        notation_move_write(v, &cur, &a->line[k], NOTATION_NATIVE, text);
        if (k)
            fputc(',', out);
        answer_json_string(out, text);
        Undo u;
        pos_make(&cur, &a->line[k], &u);
    }
    fputs("]}", out);
}

/* "win in 7 plies (4 moves)": the moves are the winner's (or the loser's) own. */
static void value_text(FILE *out, DbValue v)
{
    if (v.wdl == DB_DRAW)
        fputs("draw", out);
    else
        fprintf(out, "%s in %d %s (%d %s)", wdl_name(v.wdl), v.dtw, v.dtw == 1 ? "ply" : "plies", (v.dtw + 1) / 2,
                (v.dtw + 1) / 2 == 1 ? "move" : "moves");
}

static void write_text(FILE *out, const Variant *v, const char *fen, const Answer *a)
{
    char text[NOTATION_MOVE_MAX], canonical[NOTATION_FEN_MAX];
    if (a->status != ANSWER_OK) {
        fprintf(out, "%s: %s", fen, a->err);
        return;
    }
    notation_fen_write(v, &a->pos, NOTATION_NATIVE, canonical);
    fprintf(out, "%s\n  value: ", canonical);
    value_text(out, a->value);
    fputs("\n  moves:", out);
    for (int k = 0; k < a->nmoves; k++) {
        notation_move_write(v, &a->pos, &a->moves[k].move, NOTATION_NATIVE, text);
        if (a->moves[k].value.wdl == DB_DRAW)
            fprintf(out, "%s %s draw", k ? "," : "", text);
        else
            fprintf(out, "%s %s %s %d", k ? "," : "", text, wdl_name(a->moves[k].value.wdl), a->moves[k].value.dtw);
    }
    fprintf(out, "%s\n", a->nmoves ? "" : " none (the side to move has lost)");
    if (a->nline == 0)
        return;
    fputs("  line:", out);
    Position cur = a->pos;
    for (int k = 0; k < a->nline; k++) {
        notation_move_write(v, &cur, &a->line[k], NOTATION_NATIVE, text);
        fprintf(out, " %s", text);
        Undo u;
        pos_make(&cur, &a->line[k], &u);
    }
    fputc('\n', out);
}

static char *answer(DbProbe *p, const char *fen, AnswerStatus *status, bool json)
{
    Answer *a = malloc(sizeof *a);
    char *buf = NULL;
    size_t len;
    FILE *out = open_memstream(&buf, &len);
    if (!a || !out) {
        free(a);
        if (out)
            fclose(out);
        free(buf);
        return NULL;
    }
    answer_probe(p, fen, a);
    if (json)
        write_json(out, probe_variant(p), fen, a);
    else
        write_text(out, probe_variant(p), fen, a);
    *status = a->status;
    free(a);
    bool failed = ferror(out) != 0;
    if (fclose(out) != 0 || failed) {
        free(buf);
        return NULL;
    }
    return buf;
}

char *answer_json(DbProbe *p, const char *fen, AnswerStatus *status)
{
    return answer(p, fen, status, true);
}

char *answer_text(DbProbe *p, const char *fen, AnswerStatus *status)
{
    return answer(p, fen, status, false);
}

/* libdamas: the public probe interface (damas.h) over the database reader (db/probe.h). */
#include "damas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/notation.h"
#include "../core/position.h"
#include "../db/answer.h"

#define PUBLIC __attribute__((visibility("default")))

struct damas_db {
    DbProbe *probe;
    char variant[64];
};

_Static_assert((int)DAMAS_LOSS == (int)DB_LOSS && (int)DAMAS_DRAW == (int)DB_DRAW && (int)DAMAS_WIN == (int)DB_WIN,
               "value codes");
_Static_assert((int)DAMAS_MOVE_TEXT >= (int)NOTATION_MOVE_MAX && (int)DAMAS_FEN_TEXT >= (int)NOTATION_FEN_MAX,
               "text sizes");
_Static_assert(DAMAS_PROBE_OK == (int)ANSWER_OK && DAMAS_PROBE_BAD_FEN == (int)ANSWER_BAD_FEN &&
                   DAMAS_PROBE_OUTSIDE == (int)ANSWER_OUTSIDE && DAMAS_PROBE_FAILED == (int)ANSWER_FAILED,
               "probe codes");

PUBLIC damas_db *damas_open(const char *dir, size_t cache_mb, char *err, size_t errlen)
{
    damas_db *db = calloc(1, sizeof *db);
    if (!db) {
        if (err)
            snprintf(err, errlen, "out of memory");
        return NULL;
    }
    db->probe = probe_open(dir, NULL, (cache_mb ? cache_mb : 64) << 20, err, errlen);
    if (!db->probe) {
        free(db);
        return NULL;
    }
    const Variant *v = probe_variant(db->probe);
    snprintf(db->variant, sizeof db->variant, "%s%s", v->name, v->rules.optional_capture ? "+optional" : "");
    return db;
}

PUBLIC void damas_close(damas_db *db)
{
    if (!db)
        return;
    probe_close(db->probe);
    free(db);
}

PUBLIC const char *damas_variant(const damas_db *db)
{
    return db->variant;
}

PUBLIC int damas_pieces(const damas_db *db)
{
    return probe_pieces(db->probe);
}

PUBLIC int damas_probe(damas_db *db, const char *fen, damas_value *out, char *err, size_t errlen)
{
    Position pos;
    DbValue v;
    if (notation_fen_parse(probe_variant(db->probe), fen, &pos, err, errlen) != DAMAS_OK)
        return DAMAS_PROBE_BAD_FEN;
    int rc = probe_value(db->probe, &pos, &v, err, errlen);
    if (rc == DAMAS_OK)
        *out = (damas_value){v.wdl, v.dtw};
    return (int)answer_status(rc);
}

PUBLIC int damas_moves(damas_db *db, const char *fen, damas_move *out, int max, int *n, char *err, size_t errlen)
{
    const Variant *variant = probe_variant(db->probe);
    Position pos;
    *n = 0;
    if (notation_fen_parse(variant, fen, &pos, err, errlen) != DAMAS_OK)
        return DAMAS_PROBE_BAD_FEN;
    ProbeMove *moves = malloc(MOVELIST_MAX * sizeof *moves);
    if (!moves) {
        if (err)
            snprintf(err, errlen, "out of memory");
        return DAMAS_PROBE_FAILED;
    }
    int count = 0;
    int rc = probe_moves(db->probe, &pos, moves, &count, err, errlen);
    for (int k = 0; rc == DAMAS_OK && k < count && k < max; k++) {
        damas_move *m = &out[k];
        notation_move_write(variant, &pos, &moves[k].move, NOTATION_NATIVE, m->move);
        Position next = pos;
        Undo u;
        pos_make(&next, &moves[k].move, &u);
        notation_fen_write(variant, &next, NOTATION_NATIVE, m->fen);
        m->capture = moves[k].move.captured != 0;
        m->value = (damas_value){moves[k].value.wdl, moves[k].value.dtw};
        *n = k + 1;
    }
    free(moves);
    return (int)answer_status(rc);
}

PUBLIC char *damas_probe_json(damas_db *db, const char *fen, int *status)
{
    AnswerStatus s = ANSWER_FAILED;
    char *text = answer_json(db->probe, fen, &s);
    if (status)
        *status = (int)s;
    return text;
}

PUBLIC void damas_free(void *p)
{
    free(p);
}

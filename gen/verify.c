/* The verifier (damas verify): every stored position checked against its successors' stored
 * values, independently of the solver that wrote them (only the move generator is shared). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/movegen.h"
#include "../core/notation.h"
#include "../core/position.h"
#include "../core/system.h"
#include "../db/probe.h"
#include "gen.h"

/* Checks one position; on an inconsistency writes why to `why` and returns false. */
static bool verify_position(const DbSet *s, DbProbe *disk, const DbTable *t, uint64_t i, const Position *pos,
                            char *why, size_t len)
{
    const Variant *v = &s->variant;
    MoveList list;
    movegen_moves(pos, v, &list);
    /* First each successor's place in a held table, its load started; then the values: the
     * successors' cache misses overlap instead of coming one after another. */
    const DbTable *held[MOVELIST_MAX];
    uint64_t at[MOVELIST_MAX];
    for (int k = 0; k < list.count; k++) {
        Position after = *pos;
        Undo u;
        pos_make(&after, &list.moves[k], &u);
        if ((held[k] = dbset_place(s, &after, &at[k])))
            __builtin_prefetch(table_code_at(held[k], at[k]));
    }
    int min_loss = -1, max_win = -1;
    bool any_draw = false, all_won = true;
    for (int k = 0; k < list.count; k++) {
        uint16_t d;
        int w;
        if (held[k]) {
            w = table_value(held[k], at[k], &d);
        } else {
            Position after = *pos;
            Undo u;
            pos_make(&after, &list.moves[k], &u);
            w = dbset_value(s, &after, &d);
            if (w < 0 && disk) {
                DbValue read;
                if (probe_value(disk, &after, &read, why, len) != DAMAS_OK)
                    return false;
                w = read.wdl;
                d = (uint16_t)read.dtw;
            }
        }
        if (w < 0) {
            snprintf(why, len, "a successor's slice is not in the database");
            return false;
        }
        if (w == DB_LOSS && (min_loss < 0 || d < min_loss))
            min_loss = d;
        if (w == DB_WIN && d > max_win)
            max_win = d;
        any_draw |= w == DB_DRAW;
        all_won &= w == DB_WIN;
    }
    int d = table_dtw(t, i);
    switch (table_wdl(t, i)) {
    case DB_WIN:
        if (min_loss < 0)
            snprintf(why, len, "stored win in %d, but no move reaches a lost position", d);
        else if (min_loss != d - 1)
            snprintf(why, len, "stored win in %d, but the shortest win takes %d", d, min_loss + 1);
        else
            return true;
        return false;
    case DB_LOSS:
        if (list.count == 0 && d == 0)
            return true;
        if (!all_won || list.count == 0)
            snprintf(why, len, "stored loss in %d, but %s", d, list.count ? "a move avoids losing" : "there are no moves");
        else if (max_win != d - 1)
            snprintf(why, len, "stored loss in %d, but the longest defence takes %d", d, max_win + 1);
        else
            return true;
        return false;
    case DB_DRAW:
        if (min_loss >= 0)
            snprintf(why, len, "stored draw, but a move wins in %d", min_loss + 1);
        else if (!any_draw)
            snprintf(why, len, "stored draw, but every move loses");
        else
            return true;
        return false;
    }
    return false;
}

typedef struct {
    const DbSet *s;
    DbProbe *disk;          /* successors whose tables s does not hold; may be NULL */
    const DbTable *t;
    uint64_t first_bad;     /* the first inconsistent index, UINT64_MAX if none */
    char why[256];          /* what is wrong with it */
} VerifySlice;

static void verify_visit(void *ctx, uint64_t i, const Position *pos)
{
    VerifySlice *vs = ctx;
    char why[256];
    if (i < __atomic_load_n(&vs->first_bad, __ATOMIC_RELAXED) &&
        !verify_position(vs->s, vs->disk, vs->t, i, pos, why, sizeof why)) {
#pragma omp critical(verify_failure)
        if (i < vs->first_bad) {
            __atomic_store_n(&vs->first_bad, i, __ATOMIC_RELAXED);
            memcpy(vs->why, why, sizeof why);
        }
    }
}

/* Checks table t of s (successors outside s through disk), adding to r. */
static void verify_table(const DbSet *s, DbProbe *disk, const DbTable *t, int threads, VerifyReport *r)
{
    VerifySlice vs = {s, disk, t, UINT64_MAX, ""};
    slice_each(&t->slice, threads, verify_visit, &vs);
    r->slices++;
    r->positions += t->slice.size;
    if (vs.first_bad != UINT64_MAX) {
        char name[DB_NAME_MAX], fen[NOTATION_FEN_MAX];
        Position pos;
        slice_unrank(&t->slice, vs.first_bad, &pos);
        notation_fen_write(&s->variant, &pos, NOTATION_NATIVE, fen);
        material_name(t->slice.m, name);
        snprintf(r->failure, sizeof r->failure, "slice %s, index %llu, %.200s: %.200s", name,
                 (unsigned long long)vs.first_bad, fen, vs.why);
        r->ok = false;
    }
}

static void report_init(VerifyReport *r)
{
    r->positions = 0;
    r->slices = 0;
    r->ok = true;
    r->failure[0] = '\0';
}

int verify_set(const DbSet *s, int threads, const GenProgress *progress, VerifyReport *r)
{
    report_init(r);
    const DbTable *t;
    int total = 0, done = 0;
    uint64_t positions_total = 0, positions_done = 0;
    for (size_t k = 0; (t = dbset_next(s, &k)); total++)
        positions_total += t->slice.size;
    for (size_t k = 0; r->ok && (t = dbset_next(s, &k));) {
        double start = system_now();
        verify_table(s, NULL, t, threads, r);
        if (r->ok && progress && progress->unit_done) {
            char name[DB_NAME_MAX];
            material_name(t->slice.m, name);
            positions_done += t->slice.size;
            GenUnitReport report = {++done, total, name, t->slice.size, system_now() - start, false, positions_done,
                                    positions_total, NULL};
            progress->unit_done(progress->ctx, &report);
        }
    }
    return DAMAS_OK;
}

bool gen_unit_selected(Material m, const Material *only, int n)
{
    for (int k = 0; k < n; k++)
        if (material_equal(only[k], m) || material_equal(material_swap(only[k]), m))
            return true;
    return n == 0;
}

int verify_dir(const Variant *v, const char *dir, const Material *only, int nonly, int threads,
               const GenProgress *progress, VerifyReport *r, char *err, size_t errlen)
{
    report_init(r);
    Material units[DB_MAX_MATERIALS];
    int n = gen_units(DB_MAX_PIECES, v->rules.board_size, units), top = 0, total = 0;
    bool present[DB_MAX_MATERIALS];
    uint64_t positions_total = 0;
    for (int u = 0; u < n; u++) {
        if ((present[u] = store_unit_exists(dir, units[u])) && material_pieces(units[u]) > top)
            top = material_pieces(units[u]);
        if (present[u] && gen_unit_selected(units[u], only, nonly)) {
            total++;
            positions_total += gen_unit_size(units[u], v->rules.board_size);
        }
    }
    for (int k = 0; k < nonly; k++)
        if (!store_unit_exists(dir, only[k])) {
            char name[DB_NAME_MAX];
            store_unit_name(only[k], name);
            snprintf(err, errlen, "unit %s is not in %s", name, dir);
            return DAMAS_ERR_RANGE;
        }
    DbSet *set = malloc(sizeof *set);
    DbProbe *disk = probe_open(dir, v, DISK_CACHE_BYTES, err, errlen);
    if (!set || !disk) {
        free(set);
        if (disk)
            snprintf(err, errlen, "out of memory");
        probe_close(disk);
        return DAMAS_ERR_RANGE;
    }
    dbset_init(set, v);
    int rc = DAMAS_OK, done = 0;
    uint64_t positions_done = 0;
    for (int u = 0; u < n && rc == DAMAS_OK && r->ok; u++) {
        if (!present[u] || !gen_unit_selected(units[u], only, nonly))
            continue;
        /* Held: every unit of fewer than top - 1 pieces, the units of top - 1 pieces that u
         * needs (its captures' and promotions' units), and u; the others through disk.
         * Checking only some units, top is u's piece count, and the smaller units it needs are
         * loaded first (in order: loading restores their capture positions from theirs). */
        int pieces = material_pieces(units[u]), held_top = nonly ? pieces : top;
        double t0 = system_now();
        for (int d = 0; nonly && d < u && rc == DAMAS_OK; d++)
            if (present[d] && material_pieces(units[d]) < held_top - 1 && !dbset_get(set, units[d]))
                rc = store_load_unit(dir, units[d], true, set, err, errlen);
        if (rc == DAMAS_OK && pieces >= held_top - 1)
            rc = gen_hold_needed(set, units, u, present, u, held_top - 1, dir, err, errlen);
        if (rc == DAMAS_OK && !dbset_get(set, units[u]))
            rc = store_load_unit(dir, units[u], true, set, err, errlen);
        Material twin = material_swap(units[u]);
        if (rc == DAMAS_OK) {
            verify_table(set, disk, dbset_get(set, units[u]), threads, r);
            if (r->ok && !material_equal(units[u], twin))
                verify_table(set, disk, dbset_get(set, twin), threads, r);
        }
        if (pieces == held_top)
            dbset_drop(set, units[u]);
        if (rc == DAMAS_OK && r->ok && progress && progress->unit_done) {
            char name[DB_NAME_MAX];
            material_name(units[u], name);
            uint64_t size = gen_unit_size(units[u], v->rules.board_size);
            positions_done += size;
            GenUnitReport report = {++done, total, name, size, system_now() - t0, false, positions_done, positions_total,
                                    NULL};
            progress->unit_done(progress->ctx, &report);
        }
    }
    dbset_free(set);
    free(set);
    probe_close(disk);
    return rc;
}

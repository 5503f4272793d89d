#include "solve.h"

#include <limits.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "../core/board.h"
#include "../core/movegen.h"
#include "../core/position.h"

enum { UNKNOWN = 3 };

/* While a position is undecided its dtw slot summarises its exits: the longest loss through
 * one, and this bit if an exit draws or wins (then it can never be lost). */
enum { EXIT_SAVES = 0x8000 };

#define ITEM(part, cand, index) ((uint64_t)(part) << 63 | (uint64_t)(cand) << 62 | (index))
#define ITEM_PART(x) ((int)((x) >> 63))
#define ITEM_CAND(x) ((int)((x) >> 62) & 1)
#define ITEM_INDEX(x) ((x) & ((1ull << 62) - 1))

typedef struct {
    uint64_t *v;
    size_t n, cap;
} Vec;

static bool vec_push(Vec *a, uint64_t x)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 1024;
        uint64_t *v = realloc(a->v, cap * sizeof *v);
        if (!v)
            return false;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return true;
}

typedef struct {
    const Variant *v;
    const DbSet *solved;
    DbTable *t[2];
    uint8_t *count[2];
    int nparts;
    Vec *levels;         /* positions to propagate, by distance */
    int nlevels;
    Vec *pending;        /* per thread: (level, item) pairs found in a parallel pass */
    bool failed;
} Solver;

/* What the moves of a position lead to outside the unit (captures, promotions), and how many
 * stay inside. */
typedef struct {
    int moves, inside;
    int best_win;        /* shortest win through an exit, INT_MAX if none */
    int max_loss;        /* longest loss through an exit, -1 if none */
    bool draw;           /* an exit to a draw */
    bool must_capture;   /* the stored value will not matter (db_dont_care) */
} Exits;

static bool exits_of(const Solver *s, const Position *pos, Exits *e)
{
    MoveList list;
    e->moves = movegen_moves(pos, s->v, &list);
    e->inside = 0;
    e->best_win = INT_MAX;
    e->max_loss = -1;
    e->draw = false;
    e->must_capture = !s->v->rules.optional_capture && list.count > 0 && list.moves[0].captured;
    for (int i = 0; i < list.count; i++) {
        const Move *m = &list.moves[i];
        if (!m->captured && !(m->flags & MOVE_PROMOTES)) {
            e->inside++;
            continue;
        }
        Position after = *pos;
        Undo u;
        pos_make(&after, m, &u);
        uint16_t d;
        int w = dbset_value(s->solved, &after, &d);
        if (w < 0)
            return false;
        if (w == DB_LOSS && d + 1 < e->best_win)
            e->best_win = d + 1;
        else if (w == DB_WIN && d + 1 > e->max_loss)
            e->max_loss = d + 1;
        else if (w == DB_DRAW)
            e->draw = true;
    }
    return true;
}

static void pend(Solver *s, int level, uint64_t item)
{
    Vec *p = &s->pending[omp_get_thread_num()];
    if (!vec_push(p, (uint64_t)level) || !vec_push(p, item))
        s->failed = true;
}

/* Moves the (level, item) pairs found by the threads into the level buckets. */
static bool merge_pending(Solver *s, int threads)
{
    for (int t = 0; t < threads; t++) {
        Vec *p = &s->pending[t];
        for (size_t i = 0; i < p->n; i += 2) {
            int level = (int)p->v[i];
            if (level >= s->nlevels) {
                int n = level + 64;
                Vec *l = realloc(s->levels, (size_t)n * sizeof *l);
                if (!l)
                    return false;
                for (int k = s->nlevels; k < n; k++)
                    l[k] = (Vec){0};
                s->levels = l;
                s->nlevels = n;
            }
            if (!vec_push(&s->levels[level], p->v[i + 1]))
                return false;
        }
        p->n = 0;
    }
    return !s->failed;
}

static int part_of(const Solver *s, Material m)
{
    return material_equal(s->t[0]->slice.m, m) ? 0 : 1;
}

static void init_position(Solver *s, int part, uint64_t i)
{
    DbTable *t = s->t[part];
    Position pos;
    Exits e;
    slice_unrank(&t->slice, i, &pos);
    if (!exits_of(s, &pos, &e)) {
        s->failed = true;
        return;
    }
    s->count[part][i] = 0;
    t->dtw[i] = 0;
    t->dont_care[i] = e.must_capture;
    if (e.moves == 0) {
        t->wdl[i] = DB_LOSS;
        pend(s, 0, ITEM(part, 0, i));
    } else if (e.inside == 0) {
        if (e.best_win != INT_MAX) {
            t->wdl[i] = DB_WIN;
            t->dtw[i] = (uint16_t)e.best_win;
            pend(s, e.best_win, ITEM(part, 0, i));
        } else if (e.draw) {
            t->wdl[i] = DB_DRAW;
        } else {
            t->wdl[i] = DB_LOSS;
            t->dtw[i] = (uint16_t)e.max_loss;
            pend(s, e.max_loss, ITEM(part, 0, i));
        }
    } else {
        t->wdl[i] = UNKNOWN;
        s->count[part][i] = (uint8_t)e.inside;
        bool saves = e.draw || e.best_win != INT_MAX;
        t->dtw[i] = (uint16_t)((saves ? EXIT_SAVES : 0) | (e.max_loss > 0 ? e.max_loss : 0));
        if (e.best_win != INT_MAX)
            pend(s, e.best_win, ITEM(part, 1, i));
    }
}

/* Every in-unit successor of position i is won for the opponent: it is lost, unless an exit
 * saves it; the distance is the longest way out. */
static void all_successors_won(Solver *s, int part, uint64_t i, int level)
{
    DbTable *t = s->t[part];
    int exits = t->dtw[i];
    if (exits & EXIT_SAVES)
        return;
    int d = exits > level ? exits : level;
    t->dtw[i] = (uint16_t)d;
    __atomic_store_n(&t->wdl[i], DB_LOSS, __ATOMIC_RELAXED);
    pend(s, d, ITEM(part, 0, i));
}

/* Position `item`, decided at `level`, tells its predecessors. */
static void propagate(Solver *s, uint64_t item, int level)
{
    int part = ITEM_PART(item);
    uint64_t i = ITEM_INDEX(item);
    DbTable *t = s->t[part];
    if (ITEM_CAND(item)) {
        uint8_t unknown = UNKNOWN;
        if (!__atomic_compare_exchange_n(&t->wdl[i], &unknown, DB_WIN, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return;
        t->dtw[i] = (uint16_t)level;
    }
    bool lost = t->wdl[i] == DB_LOSS;
    Position q, after;
    slice_unrank(&t->slice, i, &q);
    pos_flip(&q, variant_board(s->v), &after);
    int pp = part_of(s, material_swap(t->slice.m));
    DbTable *pt = s->t[pp];
    MoveList un;
    /* Predecessors that had a capture were decided at initialisation (they have no move
     * inside the unit), so the tests on their state below skip them. */
    movegen_unmoves(&after, s->v, false, &un);
    /* All predecessors' indices first, prefetching their entries: in a unit larger than the
     * caches every update is a random access, and this overlaps the misses. */
    uint64_t idx[MOVELIST_MAX];
    for (int k = 0; k < un.count; k++) {
        Position before;
        movegen_unmake(&after, &un.moves[k], &before);
        idx[k] = slice_rank(&pt->slice, &before);
        __builtin_prefetch(&pt->wdl[idx[k]], 1);
        if (!lost)
            __builtin_prefetch(&s->count[pp][idx[k]], 1);
    }
    for (int k = 0; k < un.count; k++) {
        uint64_t j = idx[k];
        if (lost) {
            uint8_t unknown = UNKNOWN;
            if (__atomic_compare_exchange_n(&pt->wdl[j], &unknown, DB_WIN, false, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED)) {
                pt->dtw[j] = (uint16_t)(level + 1);
                pend(s, level + 1, ITEM(pp, 0, j));
            }
        } else if (__atomic_load_n(&pt->wdl[j], __ATOMIC_RELAXED) == UNKNOWN &&
                   __atomic_sub_fetch(&s->count[pp][j], 1, __ATOMIC_RELAXED) == 0) {
            all_successors_won(s, pp, j, level + 1);
        }
    }
}

static DbTable *table_new(Material m, int board)
{
    DbTable *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    slice_init(&t->slice, m, board);
    t->wdl = malloc(t->slice.size);
    t->dtw = malloc(t->slice.size * sizeof *t->dtw);
    t->dont_care = malloc(t->slice.size);
    if (!t->wdl || !t->dtw || !t->dont_care) {
        table_free(t);
        return NULL;
    }
    return t;
}

int unit_solve(const DbSet *solved, Material m, int threads, DbTable **out, int *nout, char *err, size_t errlen)
{
    Solver s = {0};
    s.v = &solved->variant;
    s.solved = solved;
    s.nparts = material_equal(m, material_swap(m)) ? 1 : 2;
    Material ms[2] = {m, material_swap(m)};
    int rc = DAMAS_OK;
    for (int p = 0; p < s.nparts; p++) {
        s.t[p] = table_new(ms[p], s.v->rules.board_size);
        s.count[p] = s.t[p] ? malloc(s.t[p]->slice.size) : NULL;
        if (!s.t[p] || !s.count[p])
            rc = DAMAS_ERR_RANGE;
    }
    s.pending = calloc((size_t)threads, sizeof *s.pending);
    if (rc != DAMAS_OK || !s.pending) {
        snprintf(err, errlen, "out of memory for unit %d%d%d%d", m.um, m.uk, m.tm, m.tk);
        goto done;
    }

    for (int p = 0; p < s.nparts; p++) {
        uint64_t size = s.t[p]->slice.size;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1024)
        for (uint64_t i = 0; i < size; i++)
            init_position(&s, p, i);
    }
    if (!merge_pending(&s, threads))
        goto failed;
    for (int level = 0; level < s.nlevels; level++) {
        Vec now = s.levels[level];
        s.levels[level] = (Vec){0};
#pragma omp parallel for num_threads(threads) schedule(dynamic, 256)
        for (size_t k = 0; k < now.n; k++)
            propagate(&s, now.v[k], level);
        free(now.v);
        if (!merge_pending(&s, threads))
            goto failed;
    }
    for (int p = 0; p < s.nparts; p++) {
        DbTable *t = s.t[p];
        for (uint64_t i = 0; i < t->slice.size; i++)
            if (t->wdl[i] == UNKNOWN) {
                t->wdl[i] = DB_DRAW;
                t->dtw[i] = 0;
            }
        table_stats(t);
        out[p] = t;
        s.t[p] = NULL;
    }
    *nout = s.nparts;
    goto done;

failed:
    rc = DAMAS_ERR_RANGE;
    snprintf(err, errlen, "unit %d%d%d%d: a successor's table is missing or memory ran out", m.um, m.uk, m.tm,
             m.tk);
done:
    for (int p = 0; p < 2; p++) {
        table_free(s.t[p]);
        free(s.count[p]);
    }
    for (int l = 0; l < s.nlevels; l++)
        free(s.levels[l].v);
    free(s.levels);
    for (int t = 0; s.pending && t < threads; t++)
        free(s.pending[t].v);
    free(s.pending);
    return rc;
}

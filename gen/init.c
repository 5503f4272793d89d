#include "init.h"

#include <limits.h>
#include <stdlib.h>

#include "../core/movegen.h"
#include "../core/position.h"
#include "queue.h"

/* Initialisation goes through a part in blocks of positions: every move out of the unit of a
 * block (a capture or a promotion) is first located in its solved table, with a prefetch,
 * and only then read, so that the misses of a block overlap. */
enum { BLOCK = 64 };

typedef struct {
    const DbTable *t;    /* NULL: the value is known already, in code */
    uint64_t index;
    int owner;           /* the position of the block it is an exit of */
    unsigned code;       /* without t: the value (db_code) */
} Lookup;

typedef struct {
    int moves, inside;
    int best_win;        /* shortest win through an exit, INT_MAX if none */
    int max_loss;        /* longest loss through an exit, -1 if none */
    bool draw;           /* an exit to a draw */
    bool must_capture;   /* the stored value will not matter (db_dont_care) */
} Exits;

/* The men's part of the last index located (slice_rank_men): a king's captures with several
 * landing squares, or that take only kings, lead to positions with the same men, and so do
 * the exits of neighbouring positions, which differ in our kings only. */
typedef struct {
    const DbTable *t;    /* NULL: nothing kept */
    Bitboard men[2];     /* the men of the position ranked, by colour */
    int side;            /* its side to move */
    SliceMenRank rank;
} MenRank;

typedef struct {
    Exits e[BLOCK];
    Lookup *lookups;     /* up to BLOCK * MOVELIST_MAX */
    MoveList list;
    MenRank men;
    MovegenKingCache *kings;   /* the captures of our kings, by arrangement of the other pieces */
} Block;

/* Locates in the solved tables the position after an exit, or reads its value from disk if its
 * unit is not in memory; false if neither has it. */
static bool locate(const Solver *s, const Position *after, MenRank *men, Lookup *l)
{
    Material m = material_of(after);
    l->t = NULL;
    l->code = db_code(DB_LOSS, 0);
    if (m.um + m.uk == 0)
        return true;
    l->t = dbset_get(s->solved, m);
    if (!l->t) {
        DbValue v;
        char err[256];
        if (!s->disk || probe_value(s->disk, after, &v, err, sizeof err) != DAMAS_OK)
            return false;
        l->code = db_code(v.wdl, v.dtw);
        return true;
    }
    Bitboard m0 = after->pieces[WHITE] & ~after->kings, m1 = after->pieces[BLACK] & ~after->kings;
    if (men->t != l->t || men->men[WHITE] != m0 || men->men[BLACK] != m1 || men->side != after->side) {
        slice_rank_men(&l->t->slice, after, &men->rank);
        men->t = l->t;
        men->men[WHITE] = m0;
        men->men[BLACK] = m1;
        men->side = after->side;
    }
    l->index = slice_rank_kings(&l->t->slice, &men->rank, after);
    __builtin_prefetch(table_code_at(l->t, l->index));
    return true;
}

static void init_block(Solver *s, int part, uint64_t first, uint64_t end, Block *b)
{
    const bool optional = s->v->rules.optional_capture;
    int nl = 0;
    SliceWalk walk;
    slice_walk_start(&s->slice[part], first, &walk);
    for (uint64_t i = first; i < end; i++) {
        Exits *e = &b->e[i - first];
        if (i > first)
            slice_walk_next(&s->slice[part], &walk);
        const Position *pos = &walk.pos;
        MoveList *list = &b->list;
        e->inside = movegen_exits_cached(pos, s->v, list, b->kings);
        e->moves = e->inside + list->count;
        e->best_win = INT_MAX;
        e->max_loss = -1;
        e->draw = false;
        e->must_capture = !optional && list->count > 0 && list->moves[0].captured;
        for (int k = 0; k < list->count; k++) {
            Position after;
            pos_after(pos, &list->moves[k], &after);
            Lookup *l = &b->lookups[nl++];
            l->owner = (int)(i - first);
            if (!locate(s, &after, &b->men, l))
                s->failed = true;
        }
    }
    for (int k = 0; k < nl; k++) {
        const Lookup *l = &b->lookups[k];
        Exits *e = &b->e[l->owner];
        unsigned c = l->t ? table_code(l->t, l->index) : l->code;
        int w = db_code_wdl(c), d = db_code_dtw(c);
        if (w == DB_LOSS && d + 1 < e->best_win)
            e->best_win = d + 1;
        else if (w == DB_WIN && d + 1 > e->max_loss)
            e->max_loss = d + 1;
        else if (w == DB_DRAW)
            e->draw = true;
    }
    Word *ws = word(s, part, first);
    for (uint64_t i = first; i < end; i++) {
        const Exits *e = &b->e[i - first];
        Word dc = e->must_capture ? W_DONT_CARE : 0;
        if (e->moves == 0) {
            ws[i - first] = W_DECIDED(DB_LOSS, 0, dc);
            queue_pend(s, 0, part, 0, i);
        } else if (e->inside == 0) {
            if (e->best_win != INT_MAX) {
                ws[i - first] = W_DECIDED(DB_WIN, e->best_win, dc);
                queue_pend(s, e->best_win, part, 0, i);
            } else if (e->draw) {
                ws[i - first] = W_DECIDED(DB_DRAW, 0, dc);
            } else {
                ws[i - first] = W_DECIDED(DB_LOSS, e->max_loss, dc);
                queue_pend(s, e->max_loss, part, 0, i);
            }
        } else {
            if (e->inside > MAX_COUNT)
                s->failed = true;
            bool saved = e->draw || e->best_win != INT_MAX, exit_loss = !saved && e->max_loss > 0;
            ws[i - first] = W_UNDECIDED(dc, saved, exit_loss, (unsigned)e->inside);
            if (e->best_win != INT_MAX)
                queue_pend(s, e->best_win, part, 1, i);
            else if (exit_loss)
                queue_pend(s, e->max_loss, part, 1, i);
        }
    }
}

void init_part(Solver *s, int part, const SolveWatch *watch, uint64_t *initialised, uint64_t here)
{
    uint64_t lo = s->lo[part], size = s->hi[part] - lo, blocks = (size + BLOCK - 1) / BLOCK;
#pragma omp parallel num_threads(s->threads)
    {
        Block *b = malloc(sizeof *b);
        Lookup *lookups = malloc((size_t)BLOCK * MOVELIST_MAX * sizeof *lookups);
        MovegenKingCache *kings = movegen_king_cache_new();
        if (!b || !lookups || !kings)
            s->failed = true;
        else
            *b = (Block){.lookups = lookups, .kings = kings};
#pragma omp for schedule(dynamic, 16)
        for (uint64_t k = 0; k < blocks; k++) {
            if (s->failed)
                continue;
            uint64_t first = k * BLOCK, end = first + BLOCK < size ? first + BLOCK : size;
            init_block(s, part, lo + first, lo + end, b);
            if (watch) {   /* (no shared counter to update without one) */
                uint64_t now_done = __atomic_add_fetch(initialised, end - first, __ATOMIC_RELAXED);
                if (omp_get_thread_num() == 0)
                    watch->tick(watch->ctx, SOLVE_INIT, 0, now_done, here);
            }
        }
        free(b);
        free(lookups);
        movegen_king_cache_free(kings);
    }
}

#include "solve.h"

#include <limits.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/board.h"
#include "../core/memory.h"
#include "../core/movegen.h"
#include "../core/position.h"
#include "../db/probe.h"

/* The working state of a position, one 32-bit word, so that an update touches one cache line:
 *   bits 30-31  DB_LOSS, DB_DRAW, DB_WIN, or UNDECIDED
 *   bit  29     don't-care (its side to move must capture)
 * decided:
 *   bits 0-15   distance
 * undecided, a summary of the moves:
 *   bits 0-7    moves inside the unit whose successor is not yet known to win
 *   bits 8-23   the longest loss through an exit (a capture or a promotion)
 *   bit  24     an exit draws or wins: the position can no longer be lost */
enum { UNDECIDED = 3 };
#define W_STATE(w) ((int)((w) >> 30))
#define W_DONT_CARE (1u << 29)
#define W_DTW(w) ((int)((w)&0xffff))
#define W_DECIDED(state, dtw, w) ((uint32_t)(state) << 30 | ((w)&W_DONT_CARE) | (uint32_t)(dtw))
#define W_COUNT(w) ((int)((w)&0xff))
#define W_MAX_LOSS(w) ((int)((w) >> 8 & 0xffff))
#define W_SAVED (1u << 24)
enum { MAX_COUNT = 0xff, MAX_DTW = DB_MAX_DTW };   /* (a table's code holds the distance + 1) */

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

/* A queue entry: a position's index in its part (below 2^31), and whether it is a candidate
 * win through an exit rather than a decided position. */
#define QUEUED(cand, index) ((uint32_t)(cand) << 31 | (uint32_t)(index))
#define QUEUED_CAND(x) ((int)((x) >> 31))
#define QUEUED_INDEX(x) ((uint64_t)((x) & 0x7fffffffu))
#define QUEUE_INDEX_LIMIT (1ull << 31)

/* Entries in blocks, so that a list grows without copying and wastes at most one block: more
 * than half the positions of a unit may wait in the queue at once, 4 bytes each. Blocks are
 * carved from slabs of QSLAB (from mem_huge, released after the propagation) and reused once
 * their level is done. */
enum { QBLOCK = 4096, QSLAB = 128 };
typedef struct QBlock {
    struct QBlock *next;
    int part;
    uint32_t n;
    uint32_t v[QBLOCK];
} QBlock;

/* Positions to propagate, by distance and part, as one thread found them (so that threads
 * push without a lock, and no pass has to gather what they found): level[l][part] is a list
 * of blocks, the one being filled first. */
typedef struct {
    QBlock *(*level)[2];
    int n;
    uint64_t pushed;     /* entries ever queued */
    char pad[40];        /* a cache line a thread: pushes write `pushed` */
} Queue;
_Static_assert(sizeof(Queue) == 64, "one thread's queue fills a cache line");

typedef struct {
    const Variant *v;
    const DbSet *solved;
    DbProbe *disk;       /* units not in `solved` are read from disk through it; may be NULL */
    Slice slice[2];
    uint64_t lo[2], hi[2]; /* the positions this process owns, per part: all without a split */
    uint32_t *w[2];      /* the working state of positions lo..hi-1, per part */
    int nparts;
    Queue *queues;       /* per thread */
    int threads;
    SolveSplit *split;   /* NULL: the whole unit is solved here */
    Vec *out;            /* split: per thread and rank, updates for positions that rank owns */
    omp_lock_t blocks;   /* guards the three below */
    QBlock *spare;       /* blocks whose level is done */
    void **slabs;
    size_t nslabs;
    bool failed;
} Solver;

void solve_share(uint64_t size, int rank, int ranks, uint64_t *first, uint64_t *end)
{
    *first = (uint64_t)((unsigned __int128)size * (unsigned)rank / (unsigned)ranks);
    *end = (uint64_t)((unsigned __int128)size * (unsigned)(rank + 1) / (unsigned)ranks);
}

static uint32_t *word(const Solver *s, int part, uint64_t i)
{
    return &s->w[part][i - s->lo[part]];
}

static bool owned(const Solver *s, int part, uint64_t i)
{
    return i - s->lo[part] < s->hi[part] - s->lo[part];
}

/* The rank whose share of `part` holds index i. */
static int owner(const Solver *s, int part, uint64_t i)
{
    uint64_t size = s->slice[part].size, first, end;
    int ranks = s->split->ranks, r = (int)((unsigned __int128)i * (unsigned)ranks / size);
    for (;;) {
        solve_share(size, r, ranks, &first, &end);
        if (i < first)
            r--;
        else if (i >= end)
            r++;
        else
            return r;
    }
}

/* An empty queue block, NULL if memory ran out. */
static QBlock *block_new(Solver *s)
{
    omp_set_lock(&s->blocks);
    QBlock *b = s->spare;
    if (b) {
        s->spare = b->next;
    } else {
        void **slabs = realloc(s->slabs, (s->nslabs + 1) * sizeof *slabs);
        QBlock *slab = slabs ? mem_huge(QSLAB * sizeof *slab) : NULL;
        if (slabs)
            s->slabs = slabs;
        if (slab) {
            s->slabs[s->nslabs++] = slab;
            for (int k = 1; k < QSLAB; k++) {
                slab[k].next = s->spare;
                s->spare = &slab[k];
            }
            b = &slab[0];
        }
    }
    omp_unset_lock(&s->blocks);
    return b;
}

/* Every queue block goes back to memory (the slabs they are carved from). */
static void release_blocks(Solver *s)
{
    for (size_t k = 0; k < s->nslabs; k++)
        mem_release(s->slabs[k]);
    free(s->slabs);
    s->slabs = NULL;
    s->nslabs = 0;
    s->spare = NULL;
}

/* Block b, its level done, is free for another. */
static void block_done(Solver *s, QBlock *b)
{
    omp_set_lock(&s->blocks);
    b->next = s->spare;
    s->spare = b;
    omp_unset_lock(&s->blocks);
}

/* Queues position i of `part` at `level` (a candidate win through an exit if cand). */
static void pend(Solver *s, int level, int part, int cand, uint64_t i)
{
    Queue *q = &s->queues[omp_get_thread_num()];
    if (level > MAX_DTW) {
        s->failed = true;
        return;
    }
    if (level >= q->n) {
        int n = level + 64;
        QBlock *(*l)[2] = realloc(q->level, (size_t)n * sizeof *l);
        if (!l) {
            s->failed = true;
            return;
        }
        for (int k = q->n; k < n; k++)
            l[k][0] = l[k][1] = NULL;
        q->level = l;
        q->n = n;
    }
    QBlock **head = &q->level[level][part];
    if (!*head || (*head)->n == QBLOCK) {
        QBlock *b = block_new(s);
        if (!b) {
            s->failed = true;
            return;
        }
        b->next = *head;
        b->part = part;
        b->n = 0;
        *head = b;
    }
    (*head)->v[(*head)->n++] = QUEUED(cand, i);
    q->pushed++;
}

/* The highest level from `from` on with positions to propagate, in any thread's queue; -1 if
 * none. */
static int top_level(const Solver *s, int from)
{
    int top = -1;
    for (int t = 0; t < s->threads; t++)
        for (int l = s->queues[t].n - 1; l >= from && l > top; l--)
            if (s->queues[t].level[l][0] || s->queues[t].level[l][1]) {
                top = l;
                break;
            }
    return top;
}

static int part_of(const Solver *s, Material m)
{
    return material_equal(s->slice[0].m, m) ? 0 : 1;
}

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
        e->inside = movegen_exits(pos, s->v, list);
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
    uint32_t *ws = word(s, part, first);
    for (uint64_t i = first; i < end; i++) {
        const Exits *e = &b->e[i - first];
        uint32_t dc = e->must_capture ? W_DONT_CARE : 0;
        if (e->moves == 0) {
            ws[i - first] = W_DECIDED(DB_LOSS, 0, dc);
            pend(s, 0, part, 0, i);
        } else if (e->inside == 0) {
            if (e->best_win != INT_MAX) {
                ws[i - first] = W_DECIDED(DB_WIN, e->best_win, dc);
                pend(s, e->best_win, part, 0, i);
            } else if (e->draw) {
                ws[i - first] = W_DECIDED(DB_DRAW, 0, dc);
            } else {
                ws[i - first] = W_DECIDED(DB_LOSS, e->max_loss, dc);
                pend(s, e->max_loss, part, 0, i);
            }
        } else {
            if (e->inside > MAX_COUNT || e->max_loss > MAX_DTW)
                s->failed = true;
            bool saved = e->draw || e->best_win != INT_MAX;
            ws[i - first] = (uint32_t)UNDECIDED << 30 | dc | (saved ? W_SAVED : 0) |
                    (uint32_t)(e->max_loss > 0 ? e->max_loss : 0) << 8 | (uint32_t)e->inside;
            if (e->best_win != INT_MAX)
                pend(s, e->best_win, part, 1, i);
        }
    }
}

/* Every in-unit successor of position j (state w, counter now 0) is won for the opponent: it
 * is lost, unless an exit saves it; the distance is the longest way out. No other thread
 * changes j now: no successor can still be lost, and an exit to a win sets W_SAVED. */
static void all_successors_won(Solver *s, int part, uint64_t j, uint32_t w, int level)
{
    if (w & W_SAVED)
        return;
    int d = W_MAX_LOSS(w) > level ? W_MAX_LOSS(w) : level;
    __atomic_store_n(word(s, part, j), W_DECIDED(DB_LOSS, d, w), __ATOMIC_RELAXED);
    pend(s, d, part, 0, j);
}

/* Predecessor j (of part pp, owned here) of a position decided at `level`, lost or won, learns
 * it: a lost successor wins it, a won one takes one from its counter. */
static void update(Solver *s, int pp, uint64_t j, bool lost, int level)
{
    uint32_t *p = word(s, pp, j);
    uint32_t w = __atomic_load_n(p, __ATOMIC_RELAXED);
    if (lost) {
        for (; W_STATE(w) == UNDECIDED;)
            if (__atomic_compare_exchange_n(p, &w, W_DECIDED(DB_WIN, level + 1, w), true, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED)) {
                pend(s, level + 1, pp, 0, j);
                break;
            }
    } else {
        for (; W_STATE(w) == UNDECIDED;)
            if (__atomic_compare_exchange_n(p, &w, w - 1, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
                if (W_COUNT(w - 1) == 0)
                    all_successors_won(s, pp, j, w - 1, level + 1);
                break;
            }
    }
}

/* The predecessors of a decided position, found before they are told: a thread finds one
 * position's predecessors (prefetching their words) and then tells those it found PIPE - 1
 * positions before, so that each word has that much work to arrive in cache. */
typedef struct {
    int n, part;
    bool lost;
    uint64_t idx[MOVELIST_MAX];
} Preds;

enum { PIPE = 3 };   /* positions whose predecessors are found and not yet told, plus one */

/* What a thread keeps from one decided position to the next: positions taken in index order
 * often share their men, and then so do their predecessors, by king un-moves (whose men are
 * the position's) and by each man's un-move. */
enum { MEN_MOVES = 32 };
typedef struct {
    SliceUnrank un;      /* the last position unranked */
    uint64_t era;        /* counts the changes of men; from 1 */
    uint64_t men_era;    /* the men `men` was ranked with */
    SliceMenRank men;    /* the men's part of its predecessors' index by king un-moves */
    struct {
        uint64_t era;    /* the men it was ranked with */
        int from, to;    /* the man's un-move */
        SliceMenRank r;  /* the men's part of that predecessor's index */
    } moved[MEN_MOVES];  /* by a hash of the un-move */
} Near;

/* The men's part of the index of predecessor `before` (in slice t), reached by man un-move m. */
static const SliceMenRank *men_moved(Near *near, const Slice *t, const Position *before, const Move *m)
{
    unsigned h = (unsigned)(m->from * 11 + m->to) % MEN_MOVES;
    if (near->moved[h].era != near->era || near->moved[h].from != m->from || near->moved[h].to != m->to) {
        slice_rank_men(t, before, &near->moved[h].r);
        near->moved[h].era = near->era;
        near->moved[h].from = m->from;
        near->moved[h].to = m->to;
    }
    return &near->moved[h].r;
}

/* Position `queued` of `part`, decided at `level`: its predecessors into *out, their words
 * prefetched. False if it was a candidate win already decided otherwise (then out->n is 0). */
static bool predecessors(Solver *s, int part, uint32_t queued, int level, Near *near, Preds *out)
{
    out->n = 0;
    uint64_t i = QUEUED_INDEX(queued);
    uint32_t *own = word(s, part, i);
    if (QUEUED_CAND(queued)) {
        /* A win through an exit, unless a shorter one inside came at an earlier level. Wins
         * are decided at odd levels and losses at even ones, so no win through a lost
         * successor can race this one at the same level. */
        uint32_t w = __atomic_load_n(own, __ATOMIC_RELAXED);
        do
            if (W_STATE(w) != UNDECIDED)
                return false;
        while (!__atomic_compare_exchange_n(own, &w, W_DECIDED(DB_WIN, level, w), true, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED));
    }
    out->lost = W_STATE(__atomic_load_n(own, __ATOMIC_RELAXED)) == DB_LOSS;
    Position q, after;
    if (!slice_unrank_near(&s->slice[part], i, &near->un, &q))
        near->era++;
    pos_flip(&q, variant_board(s->v), &after);
    int pp = out->part = part_of(s, material_swap(s->slice[part].m));
    MoveList un;
    /* Predecessors that had a capture were decided at initialisation (they have no move
     * inside the unit), so the tests on their state in update skip them. */
    movegen_unmoves(&after, s->v, false, &un);
    /* A king's un-move keeps the men: their part of the index is ranked once. */
    Position frame = after;
    frame.side ^= 1;
    if (frame.pieces[frame.side] & frame.kings && near->men_era != near->era) {
        slice_rank_men(&s->slice[pp], &frame, &near->men);
        near->men_era = near->era;
    }
    const SliceMenRank *men = &near->men;
    /* And each king's un-moves change only its square: the rest is ranked once a king. */
    SliceKingMove km = {0};
    int king = -1;
    for (int k = 0; k < un.count; k++) {
        const Move *m = &un.moves[k];
        uint64_t j;
        if (after.kings >> m->to & 1) {
            if (m->to != king)
                slice_king_move(&s->slice[pp], men, &frame, king = m->to, &km);
            j = slice_rank_king_at(&km, m->from);
        } else {
            Position before;
            movegen_unmake(&after, m, &before);
            j = slice_rank_kings(&s->slice[pp], men_moved(near, &s->slice[pp], &before, m), &before);
        }
        out->idx[k] = j;
        /* In a unit larger than the caches every update is a random access. */
        if (owned(s, pp, j))
            __builtin_prefetch(word(s, pp, j), 1);
    }
    out->n = un.count;
    return true;
}

/* Tells the predecessors in *d that their successor, decided at `level`, is lost or won. */
static void tell(Solver *s, const Preds *d, int level)
{
    int pp = d->part;
    for (int k = 0; k < d->n; k++) {
        uint64_t j = d->idx[k];
        if (owned(s, pp, j)) {
            update(s, pp, j, d->lost, level);
        } else {
            /* Another rank's: it applies the update after this level's pass. */
            Vec *o = &s->out[omp_get_thread_num() * s->split->ranks + owner(s, pp, j)];
            if (!vec_push(o, ITEM(pp, 0, j)))
                s->failed = true;
        }
    }
}

/* A level's positions are taken in rounds of at most ORDER_ROUND, each put in order of the
 * high bits of their index (part 0 first) before its predecessors are found. The positions
 * decided while propagating are queued as they are found, at random indices; taken in order,
 * neighbours share their men, so their predecessors' words lie together and the translations
 * of those pages stay cached. On a machine where an access that misses the translation cache
 * costs three times one that hits it (VM 4: tools/mem-latency.c), this cut the propagation of
 * one of the two largest 6-piece units by about 10% (whole builds: 6-7%, within that VM's drift); on VM 2
 * sorting the queue made no difference (docs/PERFORMANCE.md). Each thread then puts the chunk
 * of a round it takes in full order of index (sort_by_index), so that the positions with the
 * same men follow one another: their men's digits, and the men's part of their predecessors'
 * indices, are computed once (Near) rather than a position at a time. */
enum { ORDER_SHIFT = 16, ORDER_KEYS = 2 << (31 - ORDER_SHIFT), ORDER_ROUND = SOLVE_ORDER_ROUND };

typedef struct {
    uint32_t *v;          /* the round's entries, in order */
    uint32_t *count;      /* ORDER_KEYS counters a thread */
    size_t part1;         /* entries of part 0, which come first */
} Round;

static uint32_t order_key(const QBlock *b, uint32_t queued)
{
    return (uint32_t)b->part << (31 - ORDER_SHIFT) | (uint32_t)(QUEUED_INDEX(queued) >> ORDER_SHIFT);
}

/* Puts the entries of blocks b[0..nb) (ORDER_ROUND at most) in order into r->v: a counting
 * sort, run by every thread of the enclosing parallel region (two passes and a prefix sum
 * between them; each thread takes the same blocks in both passes). r->count holds counters
 * for as many threads as the region has. */
static void round_order(Round *r, QBlock *const *b, size_t nb)
{
    int team = omp_get_num_threads();
    uint32_t *count = r->count + (size_t)omp_get_thread_num() * ORDER_KEYS;
    memset(count, 0, ORDER_KEYS * sizeof *count);
#pragma omp for schedule(static)
    for (size_t k = 0; k < nb; k++)
        for (uint32_t j = 0; j < b[k]->n; j++)
            count[order_key(b[k], b[k]->v[j])]++;
#pragma omp single
    {
        uint32_t sum = 0;
        for (uint32_t key = 0; key < ORDER_KEYS; key++) {
            if (key == ORDER_KEYS / 2)
                r->part1 = sum;
            for (int t = 0; t < team; t++) {
                uint32_t n = r->count[(size_t)t * ORDER_KEYS + key];
                r->count[(size_t)t * ORDER_KEYS + key] = sum;
                sum += n;
            }
        }
    }
#pragma omp for schedule(static)
    for (size_t k = 0; k < nb; k++)
        for (uint32_t j = 0; j < b[k]->n; j++)
            r->v[count[order_key(b[k], b[k]->v[j])]++] = b[k]->v[j];
}

/* Sorts v[0..n) by the low ORDER_SHIFT bits of their index: a radix sort, tmp holding n
 * entries. */
static void sort_low_bits(uint32_t *v, size_t n, uint32_t *tmp)
{
    _Static_assert(ORDER_SHIFT == 16, "two passes of 8 bits");
    if (n < 32) {
        for (size_t k = 1; k < n; k++) {
            uint32_t x = v[k];
            size_t j = k;
            for (; j > 0 && (v[j - 1] & 0xffff) > (x & 0xffff); j--)
                v[j] = v[j - 1];
            v[j] = x;
        }
        return;
    }
    for (int shift = 0; shift < 16; shift += 8) {
        size_t count[256] = {0};
        for (size_t k = 0; k < n; k++)
            count[v[k] >> shift & 0xff]++;
        size_t sum = 0;
        for (int b = 0; b < 256; b++) {
            size_t c = count[b];
            count[b] = sum;
            sum += c;
        }
        for (size_t k = 0; k < n; k++)
            tmp[count[v[k] >> shift & 0xff]++] = v[k];
        uint32_t *t = v;
        v = tmp;
        tmp = t;
    }
}

/* Puts v[0..n) (tmp holding n entries), entries of one part in order of the high bits of their
 * index (round_order), in order of index, so that positions with the same men come one after
 * the other. */
static void sort_by_index(uint32_t *v, size_t n, uint32_t *tmp)
{
    for (size_t a = 0, b; a < n; a = b) {
        uint64_t high = QUEUED_INDEX(v[a]) >> ORDER_SHIFT;
        for (b = a + 1; b < n && QUEUED_INDEX(v[b]) >> ORDER_SHIFT == high; b++)
            ;
        sort_low_bits(v + a, b - a, tmp);
    }
}

/* After a level's pass with a split: the updates for other ranks' positions go to them, and
 * those for this rank's positions are applied. All decisions at `level` are wins (odd) or all
 * losses (even), so an update is just the predecessor's index. */
static bool exchange_updates(Solver *s, int threads, int level)
{
    int ranks = s->split->ranks;
    size_t *count = calloc((size_t)ranks, sizeof *count), total = 0;
    if (!count)
        return false;
    for (int t = 0; t < threads; t++)
        for (int r = 0; r < ranks; r++)
            count[r] += s->out[t * ranks + r].n;
    for (int r = 0; r < ranks; r++)
        total += count[r];
    uint64_t *send = malloc((total ? total : 1) * sizeof *send);
    size_t at = 0, got = 0;
    for (int r = 0; send && r < ranks; r++)
        for (int t = 0; t < threads; t++) {
            Vec *o = &s->out[t * ranks + r];
            if (o->n)
                memcpy(send + at, o->v, o->n * sizeof *send);
            at += o->n;
        }
    for (int k = 0; k < threads * ranks; k++)
        s->out[k].n = 0;
    uint64_t *in = send ? s->split->exchange(s->split->ctx, send, count, &got) : NULL;
    free(send);
    free(count);
    if (!in)
        return false;
    bool lost = level % 2 == 0;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 4096)
    for (size_t k = 0; k < got; k++) {
        if (k + 8 < got)
            __builtin_prefetch(word(s, ITEM_PART(in[k + 8]), ITEM_INDEX(in[k + 8])), 1);
        update(s, ITEM_PART(in[k]), ITEM_INDEX(in[k]), lost, level);
    }
    s->split->received += got;
    s->split->sent += total;
    free(in);
    return true;
}

/* The solved part as a table: values, distances (undecided positions are draws), don't-care
 * flags, and the counts and longest win of the positions solved here; frees the working state.
 * `levels`: every distance is below it (on every rank). With a split, every rank sends its
 * share to all. The caller completes the statistics. */
static DbTable *table_of(Solver *s, int part, int threads, int levels)
{
    DbTable *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->slice = s->slice[part];
    uint64_t n = t->slice.size;
    t->dont_care = mem_huge(n);
    if (!table_alloc(t, levels - 1 > DB_NARROW_MAX_DTW) || !t->dont_care) {
        table_free(t);
        return NULL;
    }
    const uint32_t *ws = s->w[part];
    uint64_t lo = s->lo[part], hi = s->hi[part], wins = 0, draws = 0, losses = 0;
    int longest = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : wins, draws, losses) \
        reduction(max : longest)
    for (uint64_t i = lo; i < hi; i++) {
        uint32_t w = ws[i - lo];
        int state = W_STATE(w), wdl = state == UNDECIDED ? DB_DRAW : state;
        int dtw = state == DB_WIN || state == DB_LOSS ? W_DTW(w) : 0;
        table_set(t, i, wdl, dtw);
        t->dont_care[i] = (w & W_DONT_CARE) != 0;
        wins += wdl == DB_WIN;
        draws += wdl == DB_DRAW;
        losses += wdl == DB_LOSS;
        longest = wdl == DB_WIN && dtw > longest ? dtw : longest;
    }
    t->wins = wins;
    t->draws = draws;
    t->losses = losses;
    t->max_dtw = longest;
    mem_release(s->w[part]);
    s->w[part] = NULL;
    for (int r = 0; s->split && r < s->split->ranks; r++) {
        uint64_t first, end;
        solve_share(n, r, s->split->ranks, &first, &end);
        void *ctx = s->split->ctx;
        void *codes = t->code8 ? (void *)(t->code8 + first) : (void *)(t->code16 + first);
        if (!s->split->broadcast(ctx, codes, (end - first) * (t->code8 ? 1 : 2), r) ||
            !s->split->broadcast(ctx, t->dont_care + first, end - first, r)) {
            table_free(t);
            return NULL;
        }
    }
    return t;
}

int unit_solve(const DbSet *solved, Material m, int threads, DbTable **out, int *nout, SolveTimes *times, char *err,
               size_t errlen)
{
    return unit_solve_split(solved, NULL, m, threads, NULL, NULL, out, nout, times, err, errlen);
}

int unit_solve_split(const DbSet *solved, DbProbe *disk, Material m, int threads, SolveSplit *split,
                     const SolveWatch *watch, DbTable **out, int *nout, SolveTimes *times, char *err, size_t errlen)
{
    Solver s = {0};
    s.v = &solved->variant;
    s.solved = solved;
    s.disk = disk;
    s.split = split;
    omp_init_lock(&s.blocks);
    s.nparts = material_equal(m, material_swap(m)) ? 1 : 2;
    Material ms[2] = {m, material_swap(m)};
    int rc = DAMAS_OK;
    DbTable *done[2] = {NULL, NULL};
    for (int p = 0; p < s.nparts; p++) {
        slice_init(&s.slice[p], ms[p], s.v->rules.board_size);
        s.lo[p] = 0;
        s.hi[p] = s.slice[p].size;
        if (split) {
            solve_share(s.slice[p].size, split->rank, split->ranks, &s.lo[p], &s.hi[p]);
            split->owned += s.hi[p] - s.lo[p];
        }
        s.w[p] = mem_huge((s.hi[p] - s.lo[p]) * sizeof *s.w[p]);
        if (!s.w[p])
            rc = DAMAS_ERR_RANGE;
    }
    s.threads = threads;
    s.queues = aligned_alloc(64, (size_t)threads * sizeof *s.queues);
    if (s.queues)
        memset(s.queues, 0, (size_t)threads * sizeof *s.queues);
    size_t nnow = 0, capnow = 0;
    QBlock **now = NULL;
    Round round = {mem_huge(ORDER_ROUND * sizeof(uint32_t)), malloc((size_t)threads * ORDER_KEYS * sizeof(uint32_t)),
                   0};
    if (!round.v || !round.count)
        rc = DAMAS_ERR_RANGE;
    if (split && !(s.out = calloc((size_t)threads * (size_t)split->ranks, sizeof *s.out)))
        rc = DAMAS_ERR_RANGE;
    for (int p = 0; p < s.nparts; p++)
        if (s.slice[p].size > QUEUE_INDEX_LIMIT) {
            snprintf(err, errlen, "unit %d%d%d%d: a slice of more than 2^31 positions is beyond this solver", m.um, m.uk,
                     m.tm, m.tk);
            rc = DAMAS_ERR_RANGE;
            goto done;
        }
    if (rc != DAMAS_OK || !s.queues) {
        snprintf(err, errlen, "out of memory for unit %d%d%d%d", m.um, m.uk, m.tm, m.tk);
        goto done;
    }

    /* Positions solved here, and initialised so far. */
    uint64_t here = s.hi[0] - s.lo[0] + (s.nparts > 1 ? s.hi[1] - s.lo[1] : 0), initialised = 0;
    double t0 = omp_get_wtime();
    if (watch)
        watch->tick(watch->ctx, SOLVE_INIT, 0, 0, here);
    for (int p = 0; p < s.nparts; p++) {
        uint64_t lo = s.lo[p], size = s.hi[p] - lo, blocks = (size + BLOCK - 1) / BLOCK;
#pragma omp parallel num_threads(threads)
        {
            Block *b = malloc(sizeof *b);
            Lookup *lookups = malloc((size_t)BLOCK * MOVELIST_MAX * sizeof *lookups);
            if (!b || !lookups)
                s.failed = true;
            else
                *b = (Block){.lookups = lookups};
#pragma omp for schedule(dynamic, 16)
            for (uint64_t k = 0; k < blocks; k++) {
                if (s.failed)
                    continue;
                uint64_t first = k * BLOCK, end = first + BLOCK < size ? first + BLOCK : size;
                init_block(&s, p, lo + first, lo + end, b);
                if (watch) {   /* (no shared counter to update without one) */
                    uint64_t now_done = __atomic_add_fetch(&initialised, end - first, __ATOMIC_RELAXED);
                    if (omp_get_thread_num() == 0)
                        watch->tick(watch->ctx, SOLVE_INIT, 0, now_done, here);
                }
            }
            free(b);
            free(lookups);
        }
    }
    if (s.failed)
        goto failed;
    double t1 = omp_get_wtime();
    int levels = 0;
    uint64_t taken = 0, most = 0; /* entries taken from the queue so far; most waiting at once */
    uint64_t decided = 0;         /* positions decided and propagated so far */
    for (int level = 0;; level++) {
        /* The last level with positions to propagate; with a split, on any rank (or a
         * failure on any rank). */
        int top = top_level(&s, level);
        if (split && (top = split->max(split->ctx, s.failed ? INT_MAX : top)) == INT_MAX)
            goto failed;
        if (top < level)
            break;
        /* This level's positions, as the threads found them; what they find now goes to later
         * levels. */
        size_t blocks = 0, total = 0;
        for (int t = 0; t < threads; t++)
            for (int p = 0; level < s.queues[t].n && p < 2; p++)
                for (QBlock *b = s.queues[t].level[level][p]; b; b = b->next)
                    blocks++;
        if (blocks > capnow) {
            QBlock **grown = realloc(now, blocks * sizeof *now);
            if (!grown)
                goto failed;
            now = grown;
            capnow = blocks;
        }
        nnow = 0;
        for (int t = 0; t < threads; t++)
            for (int p = 0; level < s.queues[t].n && p < 2; p++) {
                for (QBlock *b = s.queues[t].level[level][p]; b; b = b->next) {
                    now[nnow++] = b;
                    total += b->n;
                }
                s.queues[t].level[level][p] = NULL;
            }
        levels = total ? level + 1 : levels;
        uint64_t waiting = 0;
        for (int t = 0; t < threads; t++)
            waiting += s.queues[t].pushed;
        waiting = waiting - taken;
        most = waiting > most ? waiting : most;
        taken += total;
        uint64_t decided_now = 0;
        for (size_t first = 0, last; first < nnow; first = last) {
            size_t n = 0;
            for (last = first; last < nnow && n + now[last]->n <= ORDER_ROUND; last++)
                n += now[last]->n;
#pragma omp parallel num_threads(threads) reduction(+ : decided_now)
            {
                round_order(&round, now + first, last - first);
                /* A ring of PIPE: the predecessors of the last PIPE - 1 positions wait while
                 * their words arrive. */
                enum { CHUNK = 4096 };
                Preds *d = malloc(PIPE * sizeof *d);
                uint32_t *tmp = malloc(CHUNK * sizeof *tmp);
                Near near = {.era = 1};
                if (!d || !tmp)
                    s.failed = true;
                int cur = 0;
                for (int k = 0; d && k < PIPE; k++)
                    d[k].n = 0;
#pragma omp for schedule(dynamic, 1)
                for (size_t c = 0; c < (n + CHUNK - 1) / CHUNK; c++) {
                    size_t lo = c * CHUNK, hi = lo + CHUNK < n ? lo + CHUNK : n;
                    size_t mid = round.part1 < lo ? lo : round.part1 > hi ? hi : round.part1;
                    if (tmp) {
                        sort_by_index(round.v + lo, mid - lo, tmp);
                        sort_by_index(round.v + mid, hi - mid, tmp);
                    }
                    for (size_t x = lo; d && x < hi; x++) {
                        /* Fetch the words of the positions a few ahead. */
                        if (x + 8 < hi)
                            __builtin_prefetch(word(&s, x + 8 >= round.part1, QUEUED_INDEX(round.v[x + 8])));
                        decided_now += predecessors(&s, x >= round.part1, round.v[x], level, &near, &d[cur]);
                        cur = (cur + 1) % PIPE;
                        tell(&s, &d[cur], level);
                        d[cur].n = 0;
                    }
                }
                for (int k = 0; d && k < PIPE; k++)
                    tell(&s, &d[k], level);
                free(d);
                free(tmp);
            }
        }
        decided += decided_now;
        for (size_t k = 0; k < nnow; k++)
            block_done(&s, now[k]);
        nnow = 0;
        if (split) {
            split->propagated += total;
            if (s.failed || !exchange_updates(&s, threads, level))
                goto failed;
        }
        if (s.failed)
            goto failed;
        if (watch)
            watch->tick(watch->ctx, SOLVE_PROPAGATE, level, decided, here);
    }
    if (split)
        levels = split->max(split->ctx, levels);
    double t2 = omp_get_wtime();
    /* The queue is empty: its memory goes back before the finished tables are built. */
    release_blocks(&s);
    if (watch)
        watch->tick(watch->ctx, SOLVE_TABLES, levels, decided, here);
    for (int p = 0; p < s.nparts; p++)
        if (!(done[p] = table_of(&s, p, threads, levels)))
            goto failed;
    /* With a split, the counts taken in table_of were of this rank's share. */
    for (int p = 0; split && p < s.nparts; p++)
        table_stats(done[p]);
    if (!split)
        table_checksums(done, s.nparts);
    for (int p = 0; p < s.nparts; p++)
        out[p] = done[p];
    *nout = s.nparts;
    if (times)
        *times = (SolveTimes){t1 - t0, t2 - t1, omp_get_wtime() - t2, levels, (double)most / (double)here};
    goto done;

failed:
    rc = DAMAS_ERR_RANGE;
    snprintf(err, errlen,
             "unit %d%d%d%d: a successor's table is missing or unreadable, memory ran out, a count or distance "
             "exceeds what the solver holds%s",
             m.um, m.uk, m.tm, m.tk, split ? ", or another rank failed" : "");
    for (int p = 0; p < 2; p++)
        table_free(done[p]);
done:
    for (int p = 0; p < 2; p++)
        mem_release(s.w[p]);
    for (int t = 0; s.queues && t < threads; t++)
        free(s.queues[t].level);
    free(s.queues);
    release_blocks(&s);   /* (every block, whatever list it is on) */
    omp_destroy_lock(&s.blocks);
    free(now);
    mem_release(round.v);
    free(round.count);
    for (int k = 0; s.out && k < threads * split->ranks; k++)
        free(s.out[k].v);
    free(s.out);
    return rc;
}

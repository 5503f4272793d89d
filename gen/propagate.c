#include "propagate.h"

#include <stdlib.h>
#include <string.h>

#include "../core/board.h"
#include "../core/movegen.h"
#include "../core/position.h"
#include "queue.h"

/* Appends x to a; false if memory ran out. */
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

/* Whether position i of `part` is one this process solves (all of them without a split). */
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
        db_share(size, r, ranks, &first, &end);
        if (i < first)
            r--;
        else if (i >= end)
            r++;
        else
            return r;
    }
}

/* The part (0 or 1) whose slice is of material m. */
static int part_of(const Solver *s, Material m)
{
    return material_equal(s->slice[0].m, m) ? 0 : 1;
}

/* Every in-unit successor of position j (state w, counter now 0) is won for the opponent: it
 * is lost, unless an exit saves it; the distance is the longest way out. If an exit loses
 * (W_EXIT_LOSS), that way out is the longer one: j stays undecided until its level, where its
 * queue entry decides it (predecessors). No other thread changes j now: no successor can
 * still be lost, and an exit to a win sets W_SAVED. */
static void all_successors_won(Solver *s, int part, uint64_t j, Word w, int level)
{
    if (w & (W_SAVED | W_EXIT_LOSS))
        return;
    __atomic_store_n(word(s, part, j), W_DECIDED(DB_LOSS, level, w), __ATOMIC_RELAXED);
    queue_pend(s, level, part, 0, j);
}

/* Predecessor j (of part pp, owned here) of a position decided at `level`, lost or won, learns
 * it: a lost successor wins it, a won one takes one from its counter. */
static void update(Solver *s, int pp, uint64_t j, bool lost, int level)
{
    Word *p = word(s, pp, j);
    Word w = __atomic_load_n(p, __ATOMIC_RELAXED);
    if (lost) {
        for (; W_STATE(w) == UNDECIDED;)
            if (__atomic_compare_exchange_n(p, &w, W_DECIDED(DB_WIN, level + 1, w), true, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED)) {
                queue_pend(s, level + 1, pp, 0, j);
                break;
            }
    } else {
        for (; W_STATE(w) == UNDECIDED;)
            if (__atomic_compare_exchange_n(p, &w, (Word)(w - 1), true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
                if (W_COUNT(w - 1) == 0)
                    all_successors_won(s, pp, j, (Word)(w - 1), level + 1);
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

/* Position `queued` of `lane`, decided at `level`: its predecessors into *out, their words
 * prefetched. False if it was flagged as waiting on an exit and is not decided by it (then
 * out->n is 0). */
static bool predecessors(Solver *s, int lane, uint32_t queued, int level, Near *near, Preds *out)
{
    out->n = 0;
    int part = lane_part(s, lane);
    uint64_t i = lane_index(s, lane, queued);
    Word *own = word(s, part, i);
    if (QUEUED_CAND(queued)) {
        /* At an odd level, a win through an exit, unless a shorter one inside came at an
         * earlier level: wins are decided at odd levels and losses at even ones, so no win
         * through a lost successor can race this one at the same level. At an even level, a
         * loss through an exit: lost now if every move inside was found to lose (its count
         * is 0); otherwise the exit no longer matters, since a loss decided later is longer.
         * No counter changes at an even level (only wins are propagated at odd ones). */
        bool win = level % 2 == 1;
        Word w = __atomic_load_n(own, __ATOMIC_RELAXED), next;
        do {
            if (W_STATE(w) != UNDECIDED)
                return false;
            next = win ? W_DECIDED(DB_WIN, level, w)
                       : W_COUNT(w) == 0 ? W_DECIDED(DB_LOSS, level, w) : (Word)(w & ~W_EXIT_LOSS);
        } while (!__atomic_compare_exchange_n(own, &w, next, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
        if (W_STATE(next) == UNDECIDED)
            return false;
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

/* The lane of a round's entry x, from `lane` (that of an entry before it) on: start[] holds
 * where each lane's entries begin. */
static int lane_at(const size_t *start, int lane, size_t x)
{
    while (start[lane + 1] <= x)
        lane++;
    return lane;
}

/* A level's positions are taken in rounds of at most ORDER_ROUND, each put in order of lane and
 * the high bits of their offset before its predecessors are found. The positions decided
 * while propagating are queued as they are found, at random indices; taken in order, neighbours
 * share their men, so their predecessors' words lie together and the translations of those
 * pages stay cached. Where an access that misses the translation cache costs three times one
 * that hits it (tools/mem-latency.c measures it), this cuts the propagation of the largest
 * 6-piece units by about 10%; where misses are cheap it changes nothing (docs/PERFORMANCE.md).
 * Each thread then puts the chunk of a round it takes in full order of index
 * (queue_sort_by_index), so that the positions with the same men follow one another: their
 * men's digits, and the men's part of their predecessors' indices, are computed once (Near)
 * rather than a position at a time. */
uint64_t propagate_round(Solver *s, Round *round, QBlock *const *blocks, size_t nblocks, size_t n, int level)
{
    uint64_t decided = 0;
#pragma omp parallel num_threads(s->threads) reduction(+ : decided)
    {
        queue_round_order(s, round, blocks, nblocks);
        /* A ring of PIPE: the predecessors of the last PIPE - 1 positions wait while their
         * words arrive. */
        enum { CHUNK = 4096 };
        Preds *d = malloc(PIPE * sizeof *d);
        uint32_t *tmp = malloc(CHUNK * sizeof *tmp);
        Near near = {.era = 1};
        if (!d || !tmp)
            s->failed = true;
        int cur = 0;
        for (int k = 0; d && k < PIPE; k++)
            d[k].n = 0;
        const size_t *start = round->start;
#pragma omp for schedule(dynamic, 1)
        for (size_t c = 0; c < (n + CHUNK - 1) / CHUNK; c++) {
            size_t lo = c * CHUNK, hi = lo + CHUNK < n ? lo + CHUNK : n;
            int lane = lane_at(start, 0, lo), ahead = lane;
            for (int l = lane; tmp && l < s->lanes && start[l] < hi; l++) {
                size_t a = start[l] > lo ? start[l] : lo, b = start[l + 1] < hi ? start[l + 1] : hi;
                queue_sort_by_index(round->v + a, b - a, tmp);
            }
            for (size_t x = lo; d && x < hi; x++) {
                lane = lane_at(start, lane, x);
                /* Fetch the words of the positions a few ahead. */
                if (x + 8 < hi) {
                    ahead = lane_at(start, ahead, x + 8);
                    __builtin_prefetch(word(s, lane_part(s, ahead), lane_index(s, ahead, round->v[x + 8])));
                }
                decided += predecessors(s, lane, round->v[x], level, &near, &d[cur]);
                cur = (cur + 1) % PIPE;
                tell(s, &d[cur], level);
                d[cur].n = 0;
            }
        }
        for (int k = 0; d && k < PIPE; k++)
            tell(s, &d[k], level);
        free(d);
        free(tmp);
    }
    return decided;
}

/* After a level's pass with a split: the updates for other ranks' positions go to them, and
 * those for this rank's positions are applied. All decisions at `level` are wins (odd) or all
 * losses (even), so an update is just the predecessor's index. */
bool propagate_exchange(Solver *s, int threads, int level)
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

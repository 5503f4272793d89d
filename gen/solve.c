#include "solve.h"

#include <limits.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/memory.h"
#include "init.h"
#include "propagate.h"
#include "queue.h"

int solve_lane_bits = SOLVE_LANE_BITS;

/* The solved part as a table: values, distances (undecided positions are draws), don't-care
 * flags, and the counts and longest win of the positions solved here; frees the working state.
 * `levels`: every distance is below it (on every rank). With a split, the table is of this
 * rank's share: allocated for the whole slice, written (and so resident) only there. The
 * caller completes the statistics. */
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
    const Word *ws = s->w[part];
    uint64_t lo = s->lo[part], hi = s->hi[part], wins = 0, draws = 0, losses = 0;
    int longest = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : wins, draws, losses) \
        reduction(max : longest)
    for (uint64_t i = lo; i < hi; i++) {
        Word w = ws[i - lo];
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
    return t;
}

int unit_solve(const DbSet *solved, Material m, int threads, DbTable **out, int *nout, SolveTimes *times, char *err,
               size_t errlen)
{
    return unit_solve_split(solved, NULL, m, threads, NULL, NULL, out, nout, times, err, errlen);
}

/* The working state of unit m (both parts, or this rank's share of them): state words, the
 * per-thread queues, the propagation's round and, with a split, the outgoing updates. */
static int solver_open(Solver *s, const DbSet *solved, DbProbe *disk, Material m, int threads, SolveSplit *split,
                       Round *round, char *err, size_t errlen)
{
    s->v = &solved->variant;
    s->solved = solved;
    s->disk = disk;
    s->split = split;
    s->threads = threads;
    omp_init_lock(&s->blocks);
    s->nparts = material_equal(m, material_swap(m)) ? 1 : 2;
    Material ms[2] = {m, material_swap(m)};
    bool memory = true;
    s->lane_bits = solve_lane_bits;
    for (int p = 0; p < s->nparts; p++) {
        slice_init(&s->slice[p], ms[p], s->v->rules.board_size);
        int segs = (int)((s->slice[p].size - 1) >> s->lane_bits) + 1;
        s->segs = segs > s->segs ? segs : s->segs;
        s->lo[p] = 0;
        s->hi[p] = s->slice[p].size;
        if (split) {
            db_share(s->slice[p].size, split->rank, split->ranks, &s->lo[p], &s->hi[p]);
            split->owned += s->hi[p] - s->lo[p];
        }
        memory &= (s->w[p] = mem_huge((s->hi[p] - s->lo[p]) * sizeof *s->w[p])) != NULL;
    }
    s->lanes = 2 * s->segs;
    if ((s->queues = aligned_alloc(64, (size_t)threads * sizeof *s->queues)))
        memset(s->queues, 0, (size_t)threads * sizeof *s->queues);
    size_t keys = (size_t)s->lanes << (s->lane_bits - ORDER_SHIFT);
    *round = (Round){mem_huge(ORDER_ROUND * sizeof(uint32_t)), malloc((size_t)threads * keys * sizeof(uint32_t)),
                     malloc(((size_t)s->lanes + 1) * sizeof(size_t))};
    memory &= s->queues && round->v && round->count && round->start;
    if (split)
        memory &= (s->out = calloc((size_t)threads * (size_t)split->ranks, sizeof *s->out)) != NULL;
    if (!memory) {
        snprintf(err, errlen, "out of memory for unit %d%d%d%d", m.um, m.uk, m.tm, m.tk);
        return DAMAS_ERR_NOMEM;
    }
    return DAMAS_OK;
}

/* Frees what solver_open and the solve allocated (whatever list a queue block is on). */
static void solver_close(Solver *s, Round *round)
{
    for (int p = 0; p < 2; p++)
        mem_release(s->w[p]);
    for (int t = 0; s->queues && t < s->threads; t++)
        free(s->queues[t].level);
    free(s->queues);
    queue_release(s);
    omp_destroy_lock(&s->blocks);
    mem_release(round->v);
    free(round->count);
    free(round->start);
    for (int k = 0; s->out && k < s->threads * s->split->ranks; k++)
        free(s->out[k].v);
    free(s->out);
}

/* Takes level `level`'s queued blocks from every thread's queue into (*now)[0..n), growing
 * *now; their positions are counted in *total. Returns n, or -1 if memory ran out. */
static long level_blocks(Solver *s, int level, QBlock ***now, size_t *cap, uint64_t *total)
{
    size_t blocks = 0, n = 0;
    for (int t = 0; t < s->threads; t++)
        for (int lane = 0; level < s->queues[t].n && lane < s->lanes; lane++)
            for (QBlock *b = *queue_head(s, &s->queues[t], level, lane); b; b = b->next)
                blocks++;
    if (blocks > *cap) {
        QBlock **grown = realloc(*now, blocks * sizeof **now);
        if (!grown)
            return -1;
        *now = grown;
        *cap = blocks;
    }
    *total = 0;
    for (int t = 0; t < s->threads; t++)
        for (int lane = 0; level < s->queues[t].n && lane < s->lanes; lane++) {
            QBlock **head = queue_head(s, &s->queues[t], level, lane);
            for (QBlock *b = *head; b; b = b->next) {
                (*now)[n++] = b;
                *total += b->n;
            }
            *head = NULL;
        }
    return (long)n;
}

/* Propagates the queued positions level by level until no level has any (on any rank): sets
 * *levels (every distance is below it), *most (most positions waiting at once) and *decided.
 * False on a failure (here or, with a split, on another rank). */
static bool propagate_levels(Solver *s, Round *round, const SolveWatch *watch, uint64_t here, int *levels,
                             uint64_t *most, uint64_t *decided)
{
    SolveSplit *split = s->split;
    QBlock **now = NULL;
    size_t cap = 0;
    uint64_t taken = 0;   /* entries taken from the queue so far */
    bool ok = true;
    *levels = 0;
    for (int level = 0; ok; level++) {
        /* The last level with positions to propagate; with a split, on any rank (or a
         * failure on any rank). */
        int top = queue_top_level(s, level);
        if (split && (top = split->max(split->ctx, s->failed ? INT_MAX : top)) == INT_MAX) {
            ok = false;
            break;
        }
        if (top < level)
            break;
        /* This level's positions, as the threads found them; what they find now goes to later
         * levels. */
        uint64_t total;
        long nnow = level_blocks(s, level, &now, &cap, &total);
        if (nnow < 0) {
            ok = false;
            break;
        }
        *levels = total ? level + 1 : *levels;
        uint64_t waiting = 0;
        for (int t = 0; t < s->threads; t++)
            waiting += s->queues[t].pushed;
        waiting -= taken;
        *most = waiting > *most ? waiting : *most;
        taken += total;
        /* In rounds; with a split, each followed by the exchange, for as long as any rank
         * has a round left. */
        size_t limit = !split ? ORDER_ROUND : split->round ? split->round : SOLVE_EXCHANGE_ROUND;
        for (size_t first = 0, last; ok; first = last) {
            size_t n = 0;
            for (last = first; last < (size_t)nnow && (last == first || n + now[last]->n <= limit); last++)
                n += now[last]->n;
            if (last > first)
                *decided += propagate_round(s, round, now + first, last - first, n, level);
            if (split) {
                ok = !s->failed && propagate_exchange(s, s->threads, level);
                /* A failure anywhere ends every rank's loop (after the same exchanges). */
                int more = split->max(split->ctx, !ok || s->failed ? 2 : last < (size_t)nnow);
                if (more == 2)
                    ok = false;
                else if (!more)
                    break;
            } else if (last == (size_t)nnow) {
                break;
            }
        }
        for (long k = 0; k < nnow; k++)
            queue_block_done(s, now[k]);
        if (split)
            split->propagated += total;
        ok = ok && !s->failed;
        if (ok && watch)
            watch->tick(watch->ctx, SOLVE_PROPAGATE, level, *decided, here);
    }
    free(now);
    if (ok && split)
        *levels = split->max(split->ctx, *levels);
    return ok;
}

/* The finished tables of both parts into done[], with their counts and checksums. */
static bool solver_tables(Solver *s, int levels, DbTable *done[2])
{
    for (int p = 0; p < s->nparts; p++)
        if (!(done[p] = table_of(s, p, s->threads, levels)))
            return false;
    /* With a split, the counts taken in table_of were of this rank's share. */
    DbShares sh = s->split ? solve_shares(s->split) : (DbShares){0};
    for (int p = 0; s->split && p < s->nparts; p++)
        if (!table_stats_shared(done[p], &sh))
            return false;
    if (!s->split)
        table_checksums(done, s->nparts);
    return true;
}

int unit_solve_split(const DbSet *solved, DbProbe *disk, Material m, int threads, SolveSplit *split,
                     const SolveWatch *watch, DbTable **out, int *nout, SolveTimes *times, char *err, size_t errlen)
{
    Solver s = {0};
    Round round = {0};
    int rc = solver_open(&s, solved, disk, m, threads, split, &round, err, errlen);
    if (rc != DAMAS_OK) {
        solver_close(&s, &round);
        return rc;
    }
    /* Positions solved here, and initialised so far. */
    uint64_t here = s.hi[0] - s.lo[0] + (s.nparts > 1 ? s.hi[1] - s.lo[1] : 0), initialised = 0;
    uint64_t most = 0, decided = 0;
    int levels = 0;
    DbTable *done[2] = {NULL, NULL};
    double t0 = omp_get_wtime();
    if (watch)
        watch->tick(watch->ctx, SOLVE_INIT, 0, 0, here);
    for (int p = 0; p < s.nparts; p++)
        init_part(&s, p, watch, &initialised, here);
    double t1 = omp_get_wtime(), t2 = t1;
    bool ok = !s.failed && propagate_levels(&s, &round, watch, here, &levels, &most, &decided);
    if (ok) {
        t2 = omp_get_wtime();
        /* The queue is empty: its memory goes back before the finished tables are built. */
        queue_release(&s);
        if (watch)
            watch->tick(watch->ctx, SOLVE_TABLES, levels, decided, here);
        ok = solver_tables(&s, levels, done);
    }
    if (ok) {
        for (int p = 0; p < s.nparts; p++)
            out[p] = done[p];
        *nout = s.nparts;
        if (times)
            *times = (SolveTimes){t1 - t0, t2 - t1, omp_get_wtime() - t2, levels, (double)most / (double)here};
    } else {
        rc = DAMAS_ERR_RANGE;
        snprintf(err, errlen,
                 "unit %d%d%d%d: a successor's table is missing or unreadable, memory ran out, a count or distance "
                 "exceeds what the solver holds%s",
                 m.um, m.uk, m.tm, m.tk, split ? ", or another rank failed" : "");
        for (int p = 0; p < 2; p++)
            table_free(done[p]);
    }
    solver_close(&s, &round);
    return rc;
}

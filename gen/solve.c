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

void solve_share(uint64_t size, int rank, int ranks, uint64_t *first, uint64_t *end)
{
    *first = (uint64_t)((unsigned __int128)size * (unsigned)rank / (unsigned)ranks);
    *end = (uint64_t)((unsigned __int128)size * (unsigned)(rank + 1) / (unsigned)ranks);
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
    for (int p = 0; p < s.nparts; p++)
        init_part(&s, p, watch, &initialised, here);
    if (s.failed)
        goto failed;
    double t1 = omp_get_wtime();
    int levels = 0;
    uint64_t taken = 0, most = 0; /* entries taken from the queue so far; most waiting at once */
    uint64_t decided = 0;         /* positions decided and propagated so far */
    for (int level = 0;; level++) {
        /* The last level with positions to propagate; with a split, on any rank (or a
         * failure on any rank). */
        int top = queue_top_level(&s, level);
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
        for (size_t first = 0, last; first < nnow; first = last) {
            size_t n = 0;
            for (last = first; last < nnow && n + now[last]->n <= ORDER_ROUND; last++)
                n += now[last]->n;
            decided += propagate_round(&s, &round, now + first, last - first, n, level);
        }
        for (size_t k = 0; k < nnow; k++)
            queue_block_done(&s, now[k]);
        nnow = 0;
        if (split) {
            split->propagated += total;
            if (s.failed || !propagate_exchange(&s, threads, level))
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
    queue_release(&s);
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
    queue_release(&s);   /* (every block, whatever list it is on) */
    omp_destroy_lock(&s.blocks);
    free(now);
    mem_release(round.v);
    free(round.count);
    for (int k = 0; s.out && k < threads * split->ranks; k++)
        free(s.out[k].v);
    free(s.out);
    return rc;
}


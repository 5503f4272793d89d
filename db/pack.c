#include "pack.h"

#include <stdlib.h>

#include "../core/memory.h"

void packed_free(Packed *p)
{
    mem_release(p->wdl2);
    mem_release(p->half);
}

/* What pack_values needs to know of a run of positions before filling it: the first and last
 * value that matters (w) and the first and last distance that matters (h: of a win or a loss),
 * -1 where there is none; whether all of them are equal; the largest half distance; and the
 * value and distance carried into the run from the runs before it. */
typedef struct {
    int first_w, last_w, first_h, last_h;
    bool one_w, one_h;
    int max_half;
    int start_w, start_h;
} PackRun;

enum { PACK_RUN = 1 << 20 };   /* positions a run; a multiple of 4, so runs fill whole bytes */
_Static_assert(DB_SHARE_ALIGN % PACK_RUN == 0, "a share is made of whole runs");

/* Whether position i's distance matters: its value does (it is no don't-care) and is a win
 * or a loss. */
static bool h_matters(const DbTable *t, const uint8_t *dc, uint64_t i)
{
    return !dc[i] && table_code(t, i) != 0;
}

/* Branch-free where it goes over every position, so that the compiler vectorises it: the
 * values seen and the distances' range, then the first and last that matter found by
 * scanning in from either end. */
static void pack_survey(const DbTable *t, const uint8_t *dc, uint64_t lo, uint64_t hi, PackRun *r)
{
    *r = (PackRun){-1, -1, -1, -1, true, true, 0, 0, 0};
    unsigned seen = 0, min_half = UINT16_MAX, max_half = 0;
    for (uint64_t i = lo; i < hi; i++) {
        unsigned c = table_code(t, i), matters = !dc[i];
        unsigned w = (unsigned)db_code_wdl(c), h = (unsigned)db_code_dtw(c) / 2u;
        bool counted = matters && w != DB_DRAW;
        seen |= matters << w;
        min_half = counted && h < min_half ? h : min_half;
        max_half = counted && h > max_half ? h : max_half;
    }
    r->one_w = __builtin_popcount(seen) <= 1;
    r->one_h = min_half >= max_half;   /* (also when none counted: min UINT16_MAX, max 0) */
    r->max_half = (int)max_half;
    for (uint64_t i = lo; i < hi; i++)
        if (!dc[i]) {
            r->first_w = table_wdl(t, i);
            break;
        }
    for (uint64_t i = hi; i-- > lo;)
        if (!dc[i]) {
            r->last_w = table_wdl(t, i);
            break;
        }
    for (uint64_t i = lo; i < hi; i++)
        if (h_matters(t, dc, i)) {
            r->first_h = table_dtw(t, i) / 2;
            break;
        }
    for (uint64_t i = hi; i-- > lo;)
        if (h_matters(t, dc, i)) {
            r->last_h = table_dtw(t, i) / 2;
            break;
        }
}

/* Position j into p: its value, or the one carried in *w if it is a don't-care, returned for
 * its two bits; its half distance, or the one carried in *h, stored. Branch-free. */
static inline unsigned pack_one(const DbTable *t, const uint8_t *dc, uint64_t j, int *w, int *h, int half_size,
                                Packed *p)
{
    unsigned c = table_code(t, j);
    int matters = !dc[j], wj = db_code_wdl(c);
    *w = matters ? wj : *w;
    *h = matters && c != 0 ? db_code_dtw(c) / 2 : *h;
    if (half_size == 1)
        ((uint8_t *)p->half)[j] = (uint8_t)*h;
    else
        ((uint16_t *)p->half)[j] = (uint16_t)*h;
    return (unsigned)*w;
}

/* Fills positions lo..hi-1 (lo a multiple of 4) into p, carrying in w and h, four positions to
 * a byte. `half_size` is a constant at each call, so that each gets its own loop. */
static inline void pack_fill(const DbTable *t, const uint8_t *dc, uint64_t lo, uint64_t hi, int w, int h,
                             int half_size, Packed *p)
{
    uint64_t i = lo;
    for (; i + 4 <= hi; i += 4) {
        unsigned byte = pack_one(t, dc, i, &w, &h, half_size, p);
        byte |= pack_one(t, dc, i + 1, &w, &h, half_size, p) << 2;
        byte |= pack_one(t, dc, i + 2, &w, &h, half_size, p) << 4;
        byte |= pack_one(t, dc, i + 3, &w, &h, half_size, p) << 6;
        p->wdl2[i / 4] = (uint8_t)byte;
    }
    if (i < hi) {
        unsigned byte = 0;
        for (int k = 0; i + (uint64_t)k < hi; k++)
            byte |= pack_one(t, dc, i + (uint64_t)k, &w, &h, half_size, p) << (2 * k);
        p->wdl2[i / 4] = (uint8_t)byte;
    }
}

/* Runs k0..k1-1 of the n positions surveyed into runs[], in parallel. */
static void survey_runs(const DbTable *t, const uint8_t *dc, uint64_t n, uint64_t k0, uint64_t k1, PackRun *runs)
{
#pragma omp parallel for schedule(dynamic, 1) if (k1 - k0 > 1)
    for (uint64_t k = k0; k < k1; k++)
        pack_survey(t, dc, k * PACK_RUN, (k + 1) * PACK_RUN < n ? (k + 1) * PACK_RUN : n, &runs[k]);
}

/* From the surveys of all nruns runs: p's distance width and constants, and the values carried
 * into each run; then p's arrays (for all n positions). Returns 0, or -1 out of memory. */
static int plan_runs(uint64_t n, uint64_t nruns, PackRun *runs, Packed *p)
{
    int max_half = 0, first_w = -1, first_h = -1, last_w = -1, last_h = -1;
    bool one_w = true, one_h = true;
    for (uint64_t k = 0; k < nruns; k++) {
        const PackRun *r = &runs[k];
        max_half = r->max_half > max_half ? r->max_half : max_half;
        one_w &= r->one_w && (r->first_w < 0 || last_w < 0 || r->first_w == last_w);
        one_h &= r->one_h && (r->first_h < 0 || last_h < 0 || r->first_h == last_h);
        first_w = first_w < 0 ? r->first_w : first_w;
        first_h = first_h < 0 ? r->first_h : first_h;
        last_w = r->last_w >= 0 ? r->last_w : last_w;
        last_h = r->last_h >= 0 ? r->last_h : last_h;
    }
    /* Don't-cares before the first value that matters take that value. */
    int fill_w = first_w >= 0 ? first_w : DB_LOSS, fill_h = first_h >= 0 ? first_h : 0;
    for (uint64_t k = 0; k < nruns; k++) {
        runs[k].start_w = fill_w;
        runs[k].start_h = fill_h;
        fill_w = runs[k].last_w >= 0 ? runs[k].last_w : fill_w;
        fill_h = runs[k].last_h >= 0 ? runs[k].last_h : fill_h;
    }
    p->constant_wdl = one_w ? fill_w : -1;
    p->constant_dtw = one_h ? fill_h : -1;
    p->half_size = max_half > 255 ? 2 : 1;
    p->wdl2 = mem_huge((n + 3) / 4);   /* (each run writes whole bytes) */
    p->half = mem_huge(n * (size_t)p->half_size);
    return p->wdl2 && p->half ? 0 : -1;
}

/* Runs k0..k1-1 filled into p, in parallel. */
static void fill_runs(const DbTable *t, const uint8_t *dc, uint64_t n, uint64_t k0, uint64_t k1,
                      const PackRun *runs, Packed *p)
{
#pragma omp parallel for schedule(dynamic, 1) if (k1 - k0 > 1)
    for (uint64_t k = k0; k < k1; k++) {
        uint64_t end = (k + 1) * PACK_RUN < n ? (k + 1) * PACK_RUN : n;
        if (p->half_size == 1)
            pack_fill(t, dc, k * PACK_RUN, end, runs[k].start_w, runs[k].start_h, 1, p);
        else
            pack_fill(t, dc, k * PACK_RUN, end, runs[k].start_w, runs[k].start_h, 2, p);
    }
}

int pack_values(const DbTable *t, const uint8_t *dc, Packed *p)
{
    return pack_values_shared(t, dc, NULL, p);
}

int pack_values_shared(const DbTable *t, const uint8_t *dc, const DbShares *sh, Packed *p)
{
    uint64_t n = t->slice.size, nruns = (n + PACK_RUN - 1) / PACK_RUN, first = 0, end = n;
    PackRun *runs = malloc((nruns ? nruns : 1) * sizeof *runs);
    if (!runs)
        return -1;
    if (sh)
        db_share(n, sh->rank, sh->ranks, &first, &end);
    /* Each run surveyed (every process its own, then all of them passed round), then (in order)
     * the values carried into each run, then each run filled. */
    survey_runs(t, dc, n, first / PACK_RUN, (end + PACK_RUN - 1) / PACK_RUN, runs);
    bool ok = true;
    for (int r = 0; sh && r < sh->ranks && ok; r++) {
        uint64_t f, e;
        db_share(n, r, sh->ranks, &f, &e);
        uint64_t k0 = f / PACK_RUN, k1 = (e + PACK_RUN - 1) / PACK_RUN;
        ok = k1 == k0 || sh->broadcast(sh->ctx, runs + k0, (k1 - k0) * sizeof *runs, r);
    }
    int rc = ok ? plan_runs(n, nruns, runs, p) : -1;
    if (rc == 0)
        fill_runs(t, dc, n, first / PACK_RUN, (end + PACK_RUN - 1) / PACK_RUN, runs, p);
    free(runs);
    return rc;
}

int pack_max_dtw(const Packed *p, uint64_t n)
{
    if (!p->half)
        return 2 * p->constant_dtw + 1;
    unsigned max = 0;
    if (p->half_size == 1)
        for (uint64_t i = 0; i < n; i++)
            max = ((const uint8_t *)p->half)[i] > max ? ((const uint8_t *)p->half)[i] : max;
    else
        for (uint64_t i = 0; i < n; i++)
            max = ((const uint16_t *)p->half)[i] > max ? ((const uint16_t *)p->half)[i] : max;
    return 2 * (int)max + 1;
}

int pack_expand(const Packed *p, DbTable *t)
{
    const uint8_t *h1 = p->half;
    const uint16_t *h2 = p->half;
    bool bad = false;
    for (uint64_t i = 0; i < t->slice.size; i++) {
        int w = p->wdl2 ? p->wdl2[i / 4] >> (2 * (i % 4)) & 3 : p->constant_wdl;
        int h = !p->half ? p->constant_dtw : p->half_size == 1 ? h1[i] : h2[i];
        bad |= w > DB_WIN;
        table_set(t, i, w, w == DB_WIN ? 2 * h + 1 : w == DB_LOSS ? 2 * h : 0);
    }
    return bad ? -1 : 0;
}

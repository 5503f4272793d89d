#include "table.h"

#include <stdlib.h>
#include <string.h>

#include "../core/memory.h"
#include "../core/movegen.h"
#include "../core/position.h"

/* One step of the checksum's chain. */
static inline uint64_t hash_step(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    return h ^ h >> 32;
}

/* Eight one-byte codes (db_code, byte k of x the k-th) as their eight win/draw/loss bytes: a
 * code of 0 is a draw (1), an odd one a loss (0), an even one a win (2). */
static inline uint64_t wdl_bytes(uint64_t x)
{
    const uint64_t ones = 0x0101010101010101ull, low7 = 0x7f7f7f7f7f7f7f7full;
    uint64_t zero = ~(((x & low7) + low7) | x) >> 7 & ones;   /* 1 in each byte that is 0 */
    return 2 * ones - zero - 2 * (x & ones);
}

/* Four one-byte codes (the low 32 bits of x) as their four 16-bit distances: code - 1, 0 for
 * a draw. */
static inline uint64_t dtw_lanes(uint64_t x)
{
    uint64_t y = (x & 0xffff0000ull) << 16 | (x & 0xffffull);
    y = (y | y << 8) & 0x00ff00ff00ff00ffull;
    return y - ((y + 0x00ff00ff00ff00ffull) >> 8 & 0x0001000100010001ull);
}

/* The checksum of t's values: its win/draw/loss bytes, eight (one little-endian word) at a
 * time, the tail zero-padded; then its distances as little-endian 16-bit values, four a word.
 * Eight one-byte codes at a time where the table has them (the loops below would take most of
 * building a unit's tables), the tail and two-byte codes one by one. Each pass goes over
 * positions [lo, hi) (lo a multiple of 8) continuing the chain from h, so that the chain can
 * pass from share to share. */
static uint64_t checksum_wdl(const DbTable *t, uint64_t lo, uint64_t hi, uint64_t h)
{
    uint64_t i = lo, whole = t->code8 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? lo + (hi - lo) / 8 * 8 : lo;
    for (; i < whole; i += 8) {
        uint64_t x;
        memcpy(&x, t->code8 + i, 8);
        h = hash_step(h, wdl_bytes(x));
    }
    for (; i < hi; i += 8) {
        uint64_t w = 0;
        for (uint64_t k = 0; k < 8 && i + k < hi; k++)
            w |= (uint64_t)table_wdl(t, i + k) << (8 * k);
        h = hash_step(h, w);
    }
    return h;
}

static uint64_t checksum_dtw(const DbTable *t, uint64_t lo, uint64_t hi, uint64_t h)
{
    uint64_t i = lo, whole = t->code8 && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? lo + (hi - lo) / 8 * 8 : lo;
    for (; i < whole; i += 8) {
        uint64_t x;
        memcpy(&x, t->code8 + i, 8);
        h = hash_step(h, dtw_lanes(x));
        h = hash_step(h, dtw_lanes(x >> 32));
    }
    for (; i < hi; i += 4) {
        uint64_t w = 0;
        for (uint64_t k = 0; k < 4 && i + k < hi; k++)
            w |= (uint64_t)table_dtw(t, i + k) << (16 * k);
        h = hash_step(h, w);
    }
    return h;
}

enum { CHECKSUM_START = 0xcbf29ce484222325ull };

static uint64_t table_checksum(const DbTable *t)
{
    uint64_t n = t->slice.size;
    return checksum_dtw(t, 0, n, checksum_wdl(t, 0, n, CHECKSUM_START));
}

void table_checksums(DbTable *const *t, int n)
{
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
    for (int k = 0; k < n; k++)
        t[k]->checksum = table_checksum(t[k]);
}

typedef struct {
    uint64_t losses, draws, wins, max;
} Counts;

/* The counts and longest win of positions [lo, hi) of t, in parallel; with `checksum`, one
 * thread computes t's checksum meanwhile (it is one chain of steps) into *h. */
static Counts count_range(const DbTable *t, uint64_t lo, uint64_t hi, bool checksum, uint64_t *h)
{
    uint64_t losses = 0, draws = 0, wins = 0;
    int max = 0;
#pragma omp parallel if (hi - lo > (1u << 20))
    {
#pragma omp single nowait
        if (checksum)
            *h = table_checksum(t);
#pragma omp for schedule(dynamic, 1 << 16) reduction(+ : losses, draws, wins) reduction(max : max)
        for (uint64_t i = lo; i < hi; i++) {
            unsigned c = table_code(t, i);
            int w = db_code_wdl(c);
            losses += w == DB_LOSS;
            draws += w == DB_DRAW;
            wins += w == DB_WIN;
            int d = w == DB_WIN ? db_code_dtw(c) : 0;
            max = d > max ? d : max;
        }
    }
    return (Counts){losses, draws, wins, (uint64_t)max};
}

static void set_counts(DbTable *t, Counts c)
{
    t->losses = c.losses;
    t->draws = c.draws;
    t->wins = c.wins;
    t->max_dtw = (int)c.max;
}

void table_stats(DbTable *t)
{
    uint64_t h = 0;
    set_counts(t, count_range(t, 0, t->slice.size, true, &h));
    t->checksum = h;
}

uint64_t db_share_align = DB_SHARE_ALIGN;

void db_share(uint64_t size, int rank, int ranks, uint64_t *first, uint64_t *end)
{
    /* The equal division's boundaries, each rounded up to the alignment (so a slice smaller
     * than that is all rank 0's). */
    uint64_t b[2];
    for (int k = 0; k < 2; k++) {
        uint64_t at = (uint64_t)((unsigned __int128)size * (unsigned)(rank + k) / (unsigned)ranks);
        at = (at + db_share_align - 1) / db_share_align * db_share_align;
        b[k] = at < size ? at : size;
    }
    *first = b[0];
    *end = b[1];
}

bool table_stats_shared(DbTable *t, const DbShares *sh)
{
    uint64_t first, end, n = t->slice.size;
    db_share(n, sh->rank, sh->ranks, &first, &end);
    Counts mine = count_range(t, first, end, false, NULL), all = {0, 0, 0, 0};
    bool ok = true;
    for (int r = 0; r < sh->ranks && ok; r++) {
        Counts c = mine;
        ok = sh->broadcast(sh->ctx, &c, sizeof c, r);
        all.losses += c.losses;
        all.draws += c.draws;
        all.wins += c.wins;
        all.max = c.max > all.max ? c.max : all.max;
    }
    set_counts(t, all);
    /* The chain passes through the shares in order, the values' pass then the distances'. */
    uint64_t h = CHECKSUM_START;
    for (int pass = 0; pass < 2 && ok; pass++)
        for (int r = 0; r < sh->ranks && ok; r++) {
            if (r == sh->rank)
                h = pass == 0 ? checksum_wdl(t, first, end, h) : checksum_dtw(t, first, end, h);
            ok = sh->broadcast(sh->ctx, &h, sizeof h, r);
        }
    t->checksum = h;
    return ok;
}

bool table_alloc(DbTable *t, bool wide)
{
    uint64_t n = t->slice.size;
    t->code8 = wide ? NULL : mem_huge(n);
    t->code16 = wide ? mem_huge(n * sizeof *t->code16) : NULL;
    return t->code8 || t->code16;
}

void table_free(DbTable *t)
{
    if (!t)
        return;
    mem_release(t->code8);
    mem_release(t->code16);
    mem_release(t->dont_care);
    free(t);
}

void dbset_init(DbSet *s, const Variant *v)
{
    memset(s, 0, sizeof *s);
    s->variant = *v;
}

void dbset_free(DbSet *s)
{
    DbTable *t;
    for (size_t k = 0; (t = dbset_next(s, &k));)
        table_free(t);
    memset(s->t, 0, sizeof s->t);
}

void dbset_drop(DbSet *s, Material m)
{
    Material ms[2] = {m, material_swap(m)};
    for (int k = 0; k < 2; k++) {
        DbTable **slot = &s->t[ms[k].um][ms[k].uk][ms[k].tm][ms[k].tk];
        table_free(*slot);
        *slot = NULL;
    }
}

DbTable *dbset_next(const DbSet *s, size_t *k)
{
    DbTable *const *slots = &s->t[0][0][0][0];
    size_t n = sizeof s->t / sizeof slots[0];
    while (*k < n && !slots[*k])
        ++*k;
    return *k < n ? slots[(*k)++] : NULL;
}

DbTable *dbset_get(const DbSet *s, Material m)
{
    if (m.um < 0 || m.uk < 0 || m.tm < 0 || m.tk < 0 || material_pieces(m) > DB_MAX_PIECES)
        return NULL;
    return s->t[m.um][m.uk][m.tm][m.tk];
}

const DbTable *dbset_place(const DbSet *s, const Position *pos, uint64_t *i)
{
    Material m = material_of(pos);
    const DbTable *t = m.um + m.uk ? dbset_get(s, m) : NULL;
    if (t)
        *i = slice_rank(&t->slice, pos);
    return t;
}

int dbset_value(const DbSet *s, const Position *pos, uint16_t *dtw)
{
    uint64_t i;
    const DbTable *t = dbset_place(s, pos, &i);
    if (t)
        return table_value(t, i, dtw);
    if (pos->pieces[pos->side] == 0) {
        *dtw = 0;
        return DB_LOSS;
    }
    return -1;
}

DbValue db_value_after(DbValue next)
{
    switch (next.wdl) {
    case DB_LOSS:
        return (DbValue){DB_WIN, next.dtw + 1};
    case DB_WIN:
        return (DbValue){DB_LOSS, next.dtw + 1};
    default:
        return (DbValue){DB_DRAW, 0};
    }
}

int db_value_score(DbValue v)
{
    return v.wdl == DB_WIN ? 1000000 - v.dtw : v.wdl == DB_LOSS ? -1000000 + v.dtw : 0;
}

bool db_dont_care(const Variant *v, const Position *pos)
{
    return !v->rules.optional_capture && movegen_has_capture(pos, v);
}

int db_best_move_value(const Variant *v, const Position *pos, DbSuccessorValue value, DbSuccessorFetch fetch,
                       void *ctx, bool first_win, DbValue *out)
{
    MoveList list;
    movegen_moves(pos, v, &list);
    for (int k = 0; fetch && k < list.count; k++) {
        Position after;
        pos_after(pos, &list.moves[k], &after);
        fetch(ctx, &after);
    }
    DbValue best = {DB_LOSS, 0};
    for (int k = 0; k < list.count; k++) {
        Position after;
        pos_after(pos, &list.moves[k], &after);
        DbValue next;
        int rc = value(ctx, &after, &next);
        if (rc != DAMAS_OK)
            return rc;
        DbValue mine = db_value_after(next);
        if (k == 0 || db_value_score(mine) > db_value_score(best))
            best = mine;
        if (first_win && best.wdl == DB_WIN)
            break;
    }
    *out = best;
    return DAMAS_OK;
}

static int dbset_successor(void *ctx, const Position *after, DbValue *out)
{
    uint16_t d = 0;
    int w = dbset_value(ctx, after, &d);
    *out = (DbValue){w, d};
    return w < 0 ? DAMAS_ERR_RANGE : DAMAS_OK;
}

int dbset_value_by_captures(const DbSet *s, const Position *pos, DbValue *out)
{
    return db_best_move_value(&s->variant, pos, dbset_successor, NULL, (void *)s, false, out) == DAMAS_OK ? 0 : -1;
}

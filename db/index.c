#include "index.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "../core/board.h"
#include "../core/position.h"

static uint64_t binom[64][64];
/* by_k[k][x] = C(x, k), padded past x = 63 with values larger than any rank, so that the
 * unranking search needs no bounds test. */
static uint64_t by_k[DB_MAX_PIECES + 1][128];
/* The 2- and 3-element sets of squares 0..63 by colex rank, their squares packed 6 bits each
 * (the highest first), so that unranking finds a set's two or three lowest squares with one
 * load instead of a binary search for each but the last. The searches are chains of
 * dependent loads, and unranking every decided position is on the propagation's critical
 * path: these tables made the propagation 10-15% faster (docs/PERFORMANCE.md). 8x8 reads only
 * the first C(32, 3) triples (20 KB), 10x10 the first C(50, 3) (78 KB). */
enum { PAIRS = 64 * 63 / 2, TRIPLES = 64 * 63 * 62 / 6 };
static uint16_t pair_of[PAIRS];
static uint32_t triple_of[TRIPLES];

__attribute__((constructor)) static void binom_init(void)
{
    for (int n = 0; n < 64; n++) {
        binom[n][0] = 1;
        for (int k = 1; k <= n; k++)
            binom[n][k] = binom[n - 1][k - 1] + (k <= n - 1 ? binom[n - 1][k] : 0);
    }
    for (int k = 0; k <= DB_MAX_PIECES; k++)
        for (int x = 0; x < 128; x++)
            by_k[k][x] = x < 64 ? binom[x][k] : UINT64_MAX;
    /* Colex order: sets by their highest square, then by the rest. */
    int r2 = 0, r3 = 0;
    for (int x = 1; x < 64; x++)
        for (int y = 0; y < x; y++)
            pair_of[r2++] = (uint16_t)(x << 6 | y);
    for (int x = 2; x < 64; x++)
        for (int y = 1; y < x; y++)
            for (int z = 0; z < y; z++)
                triple_of[r3++] = (uint32_t)(x << 12 | y << 6 | z);
}

static uint64_t C(int n, int k)
{
    return n < 0 || k < 0 || k > n ? 0 : binom[n][k];
}

int material_pieces(Material m)
{
    return m.um + m.uk + m.tm + m.tk;
}

Material material_swap(Material m)
{
    return (Material){m.tm, m.tk, m.um, m.uk};
}

bool material_equal(Material a, Material b)
{
    return a.um == b.um && a.uk == b.uk && a.tm == b.tm && a.tk == b.tk;
}

Material material_of(const Position *pos)
{
    int us = pos->side, them = us ^ 1;
    return (Material){(int8_t)pos_count(pos_men(pos, us)), (int8_t)pos_count(pos_kings(pos, us)),
                      (int8_t)pos_count(pos_men(pos, them)), (int8_t)pos_count(pos_kings(pos, them))};
}

void material_name(Material m, char *buf)
{
    snprintf(buf, DB_NAME_MAX, "m%dk%d-m%dk%d", m.um, m.uk, m.tm, m.tk);
}

bool material_parse(const char *name, Material *m)
{
    int a, b, c, d, n = 0;
    if (sscanf(name, "m%dk%d-m%dk%d%n", &a, &b, &c, &d, &n) != 4 || name[n] != '\0')
        return false;
    if (a < 0 || b < 0 || c < 0 || d < 0 || a + b + c + d > DB_MAX_PIECES)
        return false;
    *m = (Material){(int8_t)a, (int8_t)b, (int8_t)c, (int8_t)d};
    return true;
}

bool slice_init(Slice *s, Material m, int board_size)
{
    s->m = m;
    s->size8 = board_size;
    s->size = 0;
    s->nblocks = 0;
    if (m.um < 0 || m.uk < 0 || m.tm < 0 || m.tk < 0 || material_pieces(m) > DB_MAX_PIECES ||
        (board_size != 8 && board_size != 10))
        return false;
    s->N = board_size * board_size / 2;
    s->W = board_size / 2;
    s->B = s->N - 2 * s->W;
    s->free = s->N - m.um - m.tm;
    s->kings_tk = C(s->free, m.tk);
    s->kings_uk = C(s->free - m.tk, m.uk);
    memset(s->block_of, -1, sizeof s->block_of);
    /* Zones, in square numbers 0..N-1: row 0 = [0, W), middle = [W, N-W), last row = [N-W, N). */
    for (int a = 0; a <= m.tm && a <= s->W; a++)
        for (int c = 0; c <= m.um && c <= s->W; c++) {
            int bu = m.um - c, bt = m.tm - a;
            uint64_t n = C(s->W, a) * C(s->W, c) * C(s->B, bu) * C(s->B - bu, bt) * s->kings_uk * s->kings_tk;
            if (n == 0)
                continue;
            s->block_of[a][c] = (int8_t)s->nblocks;
            SliceBlock *blk = &s->blocks[s->nblocks++];
            *blk = (SliceBlock){.a = a, .c = c, .start = s->size};
            uint64_t radix[SLICE_DIGITS] = {s->kings_uk, s->kings_tk, C(s->B - bu, bt), C(s->B, bu), C(s->W, c)};
            for (int d = 0; d < SLICE_DIGITS; d++) {
                blk->radix[d] = radix[d];
                blk->magic[d] = radix[d] == 1 ? 0 : UINT64_MAX / radix[d] + 1;
            }
            s->size += n;
        }
    return s->size > 0;
}

/* Colex rank of the set bits of `set` (positions 0..63; at most DB_MAX_PIECES of them). */
static inline uint64_t rank_set(uint64_t set)
{
    uint64_t r = 0;
    for (int k = 1; set; set &= set - 1, k++)
        r += by_k[k][__builtin_ctzll(set)];
    return r;
}

/* The k-element set (k <= DB_MAX_PIECES) of colex rank r. */
static uint64_t unrank_set(uint64_t r, int k)
{
    uint64_t set = 0;
    for (int i = k; i >= 4; i--) {
        /* The largest x with C(x, i) <= r, by a branch-free binary search. */
        const uint64_t *c = by_k[i];
        int x = i - 1;
        for (int step = 32; step; step >>= 1)
            x = c[x + step] <= r ? x + step : x;
        r -= c[x];
        set |= 1ull << x;
    }
    if (k >= 3) {
        uint32_t t = triple_of[r];
        return set | 1ull << (t >> 12) | 1ull << (t >> 6 & 63) | 1ull << (t & 63);
    }
    if (k == 2) {
        unsigned p = pair_of[r];
        return set | 1ull << (p >> 6) | 1ull << (p & 63);
    }
    /* A single element needs no search: C(x, 1) = x. */
    return k == 1 ? 1ull << r : set;
}

/* The bits of x at the positions set in mask, packed to the bottom (pext), and back (pdep). */
static inline uint64_t gather(uint64_t x, uint64_t mask)
{
#ifdef __BMI2__
    return __builtin_ia32_pext_di(x, mask);
#else
    uint64_t out = 0;
    for (uint64_t bit = 1; mask; mask &= mask - 1, bit <<= 1)
        if (x & mask & -mask)
            out |= bit;
    return out;
#endif
}

static inline uint64_t scatter(uint64_t x, uint64_t mask)
{
#ifdef __BMI2__
    return __builtin_ia32_pdep_di(x, mask);
#else
    uint64_t out = 0;
    for (uint64_t bit = 1; mask; mask &= mask - 1, bit <<= 1)
        if (x & bit)
            out |= mask & -mask;
    return out;
#endif
}

/* pos's men, or kings, seen from its side to move: [0] ours, [1] theirs, as square sets
 * 0..N-1 (the board turned round with Black to move). */
static inline void sides(const Slice *s, const Position *pos, Bitboard pieces, uint64_t *out)
{
    const Board *b = board_get(s->size8);
    int us = pos->side;
    Bitboard mine = pos->pieces[us] & pieces, theirs = pos->pieces[us ^ 1] & pieces;
    if (us == BLACK) {
        mine = board_rotate(b, mine);
        theirs = board_rotate(b, theirs);
    }
    /* Squares are the board's bits in order, so gathering by b->all numbers them 0..N-1. */
    out[0] = gather(mine, b->all);
    out[1] = gather(theirs, b->all);
}

void slice_rank_men(const Slice *s, const Position *pos, SliceMenRank *r)
{
    uint64_t all = (1ull << s->N) - 1, row0 = (1ull << s->W) - 1, last = row0 << (s->N - s->W);
    uint64_t mid = all & ~row0 & ~last;
    uint64_t men[2];
    sides(s, pos, ~pos->kings, men);
    uint64_t um = men[0], tm = men[1];
    uint64_t ta = tm & row0, uc = um & last, umid = (um & mid) >> s->W, tmid = (tm & mid) >> s->W;
    int a = __builtin_popcountll(ta), c = __builtin_popcountll(uc);
    const SliceBlock *blk = &s->blocks[s->block_of[a][c]];
    uint64_t i = rank_set(ta);
    i = i * blk->radix[4] + rank_set(uc >> (s->N - s->W));
    i = i * blk->radix[3] + rank_set(umid);
    i = i * blk->radix[2] + rank_set(gather(tmid, ~umid));
    r->men = um | tm;
    r->radix_uk = blk->radix[0];
    r->base = blk->start + i * blk->radix[1] * blk->radix[0];
}

uint64_t slice_rank_kings(const Slice *s, const SliceMenRank *r, const Position *pos)
{
    uint64_t kings[2];
    sides(s, pos, pos->kings, kings);
    uint64_t uk = kings[0], tk = kings[1];
    return r->base + rank_set(gather(tk, ~r->men)) * r->radix_uk + rank_set(gather(uk, ~(r->men | tk)));
}

/* Board bit sq as a square 0..N-1 seen from the side to move (as sides() numbers them). */
static inline int king_square(const SliceKingMove *k, int sq)
{
    return k->turn ? k->turn - k->square[sq] : k->square[sq];
}

void slice_king_move(const Slice *s, const SliceMenRank *r, const Position *pos, int sq, SliceKingMove *k)
{
    uint64_t kings[2];
    sides(s, pos, pos->kings, kings);
    k->square = board_get(s->size8)->bit_square;
    k->turn = pos->side == BLACK ? s->N - 1 : 0;
    k->range = ~(r->men | kings[1]) & ((1ull << s->N) - 1);
    k->others = gather(kings[0] & ~(1ull << king_square(k, sq)), k->range);
    k->base = r->base + rank_set(gather(kings[1], ~r->men)) * r->radix_uk;
}

uint64_t slice_rank_king_at(const SliceKingMove *k, int sq)
{
    int place = __builtin_popcountll(k->range & ((1ull << king_square(k, sq)) - 1));
    return k->base + rank_set(k->others | 1ull << place);
}

uint64_t slice_rank(const Slice *s, const Position *pos)
{
    SliceMenRank r;
    slice_rank_men(s, pos, &r);
    return slice_rank_kings(s, &r, pos);
}

/* The digit sets of index `index`: the block in *block, and per digit (SLICE_DIGITS + 1 of
 * them, least significant first) the compact set it ranks. */
static void digits_of(const Slice *s, uint64_t index, int *block, uint64_t *set)
{
    int k = s->nblocks - 1;
    while (s->blocks[k].start > index)
        k--;
    const SliceBlock *blk = &s->blocks[k];
    int a = blk->a, c = blk->c;
    int count[SLICE_DIGITS + 1] = {s->m.uk, s->m.tk, s->m.tm - a, s->m.um - c, c, a};
    uint64_t i = index - blk->start;
    for (int d = 0; d < SLICE_DIGITS; d++) {
        /* i / radix as a multiply: exact because i * radix < 2^64 for every slice. */
        uint64_t q = blk->magic[d] ? (uint64_t)(((unsigned __int128)i * blk->magic[d]) >> 64) : i;
        set[d] = unrank_set(i - q * blk->radix[d], count[d]);
        i = q;
    }
    set[SLICE_DIGITS] = unrank_set(i, count[SLICE_DIGITS]);
    *block = k;
}

/* The position (White to move, hash not set) of the digit sets of digits_of. */
static void compose(const Slice *s, const uint64_t *set, Position *pos)
{
    const Board *b = board_get(s->size8);
    uint64_t ta = set[5], uc = set[4] << (s->N - s->W), umid = set[3];
    uint64_t tmid = scatter(set[2], ~umid);
    uint64_t um = uc | (umid << s->W), tm = ta | (tmid << s->W);
    uint64_t men = um | tm;
    uint64_t tk = scatter(set[1], ~men);
    uint64_t uk = scatter(set[0], ~(men | tk));
    pos->pieces[WHITE] = scatter(um | uk, b->all);
    pos->pieces[BLACK] = scatter(tm | tk, b->all);
    pos->kings = scatter(uk | tk, b->all);
    pos->side = WHITE;
}

void slice_unrank(const Slice *s, uint64_t index, Position *pos)
{
    uint64_t set[SLICE_DIGITS + 1];
    int block;
    digits_of(s, index, &block, set);
    compose(s, set, pos);
    pos->hash = pos_hash(pos);
}

bool slice_unrank_near(const Slice *s, uint64_t index, SliceUnrank *u, Position *pos)
{
    bool near = u->s == s && u->size == s->size && material_equal(u->m, s->m) && index - u->lo < u->hi - u->lo;
    if (near) {
        /* Only the kings' two digits change. */
        uint64_t i = index - u->lo;
        uint64_t q = u->magic_uk ? (uint64_t)(((unsigned __int128)i * u->magic_uk) >> 64) : i;
        u->set[0] = unrank_set(i - q * u->radix_uk, s->m.uk);
        u->set[1] = unrank_set(q, s->m.tk);
    } else {
        int block;
        digits_of(s, index, &block, u->set);
        const SliceBlock *blk = &s->blocks[block];
        uint64_t kings = blk->radix[0] * blk->radix[1];
        u->s = s;
        u->size = s->size;
        u->m = s->m;
        u->lo = index - (index - blk->start) % kings;
        u->hi = u->lo + kings;
        u->radix_uk = blk->radix[0];
        u->magic_uk = blk->magic[0];
    }
    compose(s, u->set, pos);
    pos->hash = pos_hash(pos);
    return near;
}

void slice_walk_start(const Slice *s, uint64_t i, SliceWalk *w)
{
    w->index = i;
    int block;
    digits_of(s, i, &block, w->set);
    const SliceBlock *blk = &s->blocks[block];
    /* The squares each digit's set ranges over. */
    int bu = s->m.um - blk->c;
    int space[SLICE_DIGITS + 1] = {s->free - s->m.tk, s->free, s->B - bu, s->B, s->W, s->W};
    for (int d = 0; d <= SLICE_DIGITS; d++)
        w->limit[d] = 1ull << space[d];
    compose(s, w->set, &w->pos);
    w->pos.hash = 0;
}

void slice_walk_next(const Slice *s, SliceWalk *w)
{
    /* Colex order of k-sets is numeric order of their bit masks: the next digit set is the
     * next larger mask with as many bits (Gosper), or the digit wraps round and carries. */
    for (int d = 0; d <= SLICE_DIGITS; d++) {
        uint64_t x = w->set[d];
        if (x) {
            uint64_t low = x & -x, r = x + low, next = (((r ^ x) >> 2) >> __builtin_ctzll(x)) | r;
            if (next < w->limit[d]) {
                w->set[d] = next;
                w->index++;
                compose(s, w->set, &w->pos);
                return;
            }
            w->set[d] = (1ull << __builtin_popcountll(x)) - 1;
        }
    }
    slice_walk_start(s, w->index + 1, w);
}

void slice_each(const Slice *s, int threads, SliceVisit visit, void *ctx)
{
    enum { RUN = 4096 };
    uint64_t runs = (s->size + RUN - 1) / RUN;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads > 0 ? threads : omp_get_max_threads())
    for (uint64_t r = 0; r < runs; r++) {
        uint64_t end = (r + 1) * RUN < s->size ? (r + 1) * RUN : s->size;
        SliceWalk w;
        slice_walk_start(s, r * RUN, &w);
        for (;;) {
            visit(ctx, w.index, &w.pos);
            if (w.index + 1 == end)
                break;
            slice_walk_next(s, &w);
        }
    }
}

int material_all(int pieces, int board_size, Material *out)
{
    int n = 0;
    for (int total = 2; total <= pieces && total <= DB_MAX_PIECES; total++)
        for (int men = 0; men <= total; men++)
            for (int um = 0; um <= men; um++)
                for (int uk = 0; um + uk <= total; uk++) {
                    int tm = men - um, tk = total - men - uk;
                    Material m = {(int8_t)um, (int8_t)uk, (int8_t)tm, (int8_t)tk};
                    Slice s;
                    if (tk < 0 || um + uk == 0 || tm + tk == 0 || !slice_init(&s, m, board_size))
                        continue;
                    out[n++] = m;
                }
    return n;
}

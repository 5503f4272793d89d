#include "index.h"

#include <stdio.h>

#include "../core/board.h"
#include "../core/position.h"

static uint64_t binom[64][64];

__attribute__((constructor)) static void binom_init(void)
{
    for (int n = 0; n < 64; n++) {
        binom[n][0] = 1;
        for (int k = 1; k <= n; k++)
            binom[n][k] = binom[n - 1][k - 1] + (k <= n - 1 ? binom[n - 1][k] : 0);
    }
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

/* Zones, in square numbers 0..N-1: row 0 = [0, W), middle = [W, N-W), last row = [N-W, N). */
typedef struct {
    int N, W, B;
    uint64_t kings;   /* placements of the kings on the squares the men leave */
} Geometry;

static Geometry geometry(const Slice *s)
{
    Geometry g;
    g.N = s->size8 * s->size8 / 2;
    g.W = s->size8 / 2;
    g.B = g.N - 2 * g.W;
    int free = g.N - s->m.um - s->m.tm;
    g.kings = C(free, s->m.uk) * C(free - s->m.uk, s->m.tk);
    return g;
}

bool slice_init(Slice *s, Material m, int board_size)
{
    s->m = m;
    s->size8 = board_size;
    if (m.um < 0 || m.uk < 0 || m.tm < 0 || m.tk < 0 || material_pieces(m) > DB_MAX_PIECES)
        return false;
    Geometry g = geometry(s);
    uint64_t total = 0;
    for (int a = 0; a <= 10; a++)
        for (int c = 0; c <= 10; c++) {
            s->block[a][c] = total;
            int bu = m.um - c, bt = m.tm - a;
            if (a > m.tm || c > m.um || a > g.W || c > g.W || bu > g.B || bt > g.B - bu)
                continue;
            total += C(g.W, a) * C(g.W, c) * C(g.B, bu) * C(g.B - bu, bt) * g.kings;
        }
    s->size = total;
    return total > 0;
}

/* Colex rank of the set bits of `set` (positions 0..63). */
static uint64_t rank_set(uint64_t set)
{
    uint64_t r = 0;
    for (int k = 1; set; set &= set - 1, k++)
        r += C(__builtin_ctzll(set), k);
    return r;
}

/* The k-element set of colex rank r. */
static uint64_t unrank_set(uint64_t r, int k, int n)
{
    uint64_t set = 0;
    for (int i = k; i >= 1; i--) {
        int x = n - 1;
        while (C(x, i) > r)
            x--;
        r -= C(x, i);
        set |= 1ull << x;
        n = x;
    }
    return set;
}

/* The set `sub` of positions, renumbered among the positions not in `taken`. */
static uint64_t compress(uint64_t sub, uint64_t taken)
{
    uint64_t out = 0;
    for (; sub; sub &= sub - 1) {
        int x = __builtin_ctzll(sub);
        out |= 1ull << (x - __builtin_popcountll(taken & ((1ull << x) - 1)));
    }
    return out;
}

/* Inverse of compress: the j-th position not in `taken` for each bit j of sub. */
static uint64_t expand(uint64_t sub, uint64_t taken)
{
    uint64_t out = 0;
    for (int x = 0; sub; x++) {
        if ((taken >> x) & 1)
            continue;
        if (sub & 1)
            out |= 1ull << x;
        sub >>= 1;
    }
    return out;
}

/* A bitboard as a set of square numbers 0..N-1, and back. */
static uint64_t to_squares(const Board *b, Bitboard set)
{
    uint64_t out = 0;
    for (; set; set &= set - 1)
        out |= 1ull << b->bit_square[__builtin_ctzll(set)];
    return out;
}

static Bitboard to_bits(const Board *b, uint64_t squares)
{
    Bitboard out = 0;
    for (; squares; squares &= squares - 1)
        out |= 1ull << b->square_bit[__builtin_ctzll(squares)];
    return out;
}

uint64_t slice_rank(const Slice *s, const Position *pos)
{
    const Board *b = board_get(s->size8);
    Geometry g = geometry(s);
    uint64_t row0 = (1ull << g.W) - 1, last = row0 << (g.N - g.W), mid = ((1ull << g.N) - 1) & ~row0 & ~last;
    uint64_t um = to_squares(b, pos_men(pos, WHITE)), tm = to_squares(b, pos_men(pos, BLACK));
    uint64_t uk = to_squares(b, pos_kings(pos, WHITE)), tk = to_squares(b, pos_kings(pos, BLACK));
    uint64_t ta = tm & row0, uc = um & last, umid = (um & mid) >> g.W, tmid = (tm & mid) >> g.W;
    int a = __builtin_popcountll(ta), c = __builtin_popcountll(uc);
    int bu = s->m.um - c, bt = s->m.tm - a;
    uint64_t men = um | tm;
    uint64_t i = rank_set(ta);
    i = i * C(g.W, c) + rank_set(uc >> (g.N - g.W));
    i = i * C(g.B, bu) + rank_set(umid);
    i = i * C(g.B - bu, bt) + rank_set(compress(tmid, umid));
    int free = g.N - s->m.um - s->m.tm;
    i = i * C(free, s->m.uk) + rank_set(compress(uk, men));
    i = i * C(free - s->m.uk, s->m.tk) + rank_set(compress(tk, men | uk));
    return s->block[a][c] + i;
}

void slice_unrank(const Slice *s, uint64_t index, Position *pos)
{
    const Board *b = board_get(s->size8);
    Geometry g = geometry(s);
    int a = 0, c = 0;
    /* The block is the last (a, c), in index order, whose start is <= index and that is not empty. */
    for (int aa = 0; aa <= s->m.tm && aa <= g.W; aa++)
        for (int cc = 0; cc <= s->m.um && cc <= g.W; cc++) {
            uint64_t next = cc < 10 ? s->block[aa][cc + 1] : s->block[aa + 1][0];
            if (s->block[aa][cc] <= index && index < next) {
                a = aa;
                c = cc;
            }
        }
    int bu = s->m.um - c, bt = s->m.tm - a;
    int free = g.N - s->m.um - s->m.tm;
    uint64_t i = index - s->block[a][c];
    uint64_t r_tk = i % C(free - s->m.uk, s->m.tk);
    i /= C(free - s->m.uk, s->m.tk);
    uint64_t r_uk = i % C(free, s->m.uk);
    i /= C(free, s->m.uk);
    uint64_t r_tmid = i % C(g.B - bu, bt);
    i /= C(g.B - bu, bt);
    uint64_t r_umid = i % C(g.B, bu);
    i /= C(g.B, bu);
    uint64_t r_uc = i % C(g.W, c);
    uint64_t r_ta = i / C(g.W, c);

    uint64_t ta = unrank_set(r_ta, a, g.W);
    uint64_t uc = unrank_set(r_uc, c, g.W) << (g.N - g.W);
    uint64_t umid = unrank_set(r_umid, bu, g.B);
    uint64_t tmid = expand(unrank_set(r_tmid, bt, g.B - bu), umid);
    uint64_t um = uc | (umid << g.W), tm = ta | (tmid << g.W);
    uint64_t men = um | tm;
    uint64_t uk = expand(unrank_set(r_uk, s->m.uk, free), men);
    uint64_t tk = expand(unrank_set(r_tk, s->m.tk, free - s->m.uk), men | uk);

    pos->pieces[WHITE] = to_bits(b, um | uk);
    pos->pieces[BLACK] = to_bits(b, tm | tk);
    pos->kings = to_bits(b, uk | tk);
    pos->side = WHITE;
    pos->hash = pos_hash(pos);
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

/* The slice index: a bijection between a slice's positions and 0..size-1. */
#include <criterion/criterion.h>

#include "../db/index.h"
#include "helpers.h"

/* Every material with 1..max pieces a side and at most `max` in all. */
static int all_materials(int max, Material *out)
{
    int n = 0;
    for (int um = 0; um <= max; um++)
        for (int uk = 0; um + uk <= max; uk++)
            for (int tm = 0; um + uk + tm <= max; tm++)
                for (int tk = 0; um + uk + tm + tk <= max; tk++)
                    if (um + uk > 0 && tm + tk > 0)
                        out[n++] = (Material){(int8_t)um, (int8_t)uk, (int8_t)tm, (int8_t)tk};
    return n;
}

static void check_slice_exhaustively(Material m, int board)
{
    Slice s;
    cr_assert(slice_init(&s, m, board));
    const Board *b = board_get(board);
    for (uint64_t i = 0; i < s.size; i++) {
        Position pos;
        slice_unrank(&s, i, &pos);
        cr_assert(material_equal(material_of(&pos), m));
        cr_assert_eq(pos.pieces[WHITE] & pos.pieces[BLACK], 0);
        cr_assert_eq(pos_men(&pos, WHITE) & b->row[0], 0, "our men never on our promotion row");
        cr_assert_eq(pos_men(&pos, BLACK) & b->row[b->size - 1], 0, "their men never on theirs");
        cr_assert_eq(slice_rank(&s, &pos), i, "index %llu does not round-trip", (unsigned long long)i);
        Position turned;
        pos_flip(&pos, b, &turned);
        cr_assert_eq(slice_rank(&s, &turned), i, "index %llu with Black to move differs", (unsigned long long)i);
    }
}

/* The next larger set with as many bits (Gosper's hack); 0 after the last below 2^n. */
static uint64_t next_subset(uint64_t x, int n)
{
    uint64_t c = x & -x, r = x + c;
    x = (((r ^ x) >> 2) / c) | r;
    return x >> n ? 0 : x;
}

static uint64_t choose(int n, int k)
{
    uint64_t r = 1;
    for (int i = 0; i < k; i++)
        r = r * (uint64_t)(n - i) / (uint64_t)(i + 1);
    return r;
}

/* The number of placements counted directly: our men on squares W..N-1, theirs on
 * 0..N-W-1, no two men on one square, kings on any square left. Needs men on both sides. */
static uint64_t count_by_placement(Material m, int board)
{
    int N = board * board / 2, W = board / 2, free = N - m.um - m.tm;
    uint64_t kings = choose(free, m.uk) * choose(free - m.uk, m.tk), pairs = 0;
    for (uint64_t um = (1ull << m.um) - 1; um; um = next_subset(um, N - W))
        for (uint64_t tm = (1ull << m.tm) - 1; tm; tm = next_subset(tm, N - W))
            pairs += !((um << W) & tm);
    return pairs * kings;
}

Test(index, index_is_a_bijection_for_every_slice_up_to_4_pieces)
{
    Material ms[512];
    int n = all_materials(4, ms);
    cr_assert_eq(n, 4 + 12 + 25);
    for (int i = 0; i < n; i++)
        check_slice_exhaustively(ms[i], 8);
}

Test(index, index_is_a_bijection_on_10x10_up_to_3_pieces)
{
    Material ms[512];
    int n = all_materials(3, ms);
    for (int i = 0; i < n; i++)
        check_slice_exhaustively(ms[i], 10);
}

Test(index, slice_size_counts_every_placement_once)
{
    Material cases[] = {{1, 0, 1, 0}, {2, 0, 1, 0}, {1, 1, 1, 1}, {1, 2, 1, 0}, {2, 0, 2, 0}, {3, 1, 2, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Slice s;
        slice_init(&s, cases[i], 8);
        cr_assert_eq(s.size, count_by_placement(cases[i], 8), "slice %d%d%d%d", cases[i].um, cases[i].uk,
                     cases[i].tm, cases[i].tk);
    }
    Slice kk;
    slice_init(&kk, (Material){0, 1, 0, 1}, 8);
    cr_assert_eq(kk.size, 992);
}

Test(index, index_round_trips_on_samples_of_larger_slices)
{
    Material cases[] = {{3, 1, 2, 1}, {2, 2, 2, 1}, {0, 4, 0, 3}, {4, 0, 3, 0}, {1, 3, 2, 2}};
    for (int board = 8; board <= 10; board += 2)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            Slice s;
            cr_assert(slice_init(&s, cases[c], board));
            uint64_t step = s.size / 20000 + 1;
            for (uint64_t i = 0; i < s.size; i += step) {
                Position pos;
                slice_unrank(&s, i, &pos);
                cr_assert_eq(slice_rank(&s, &pos), i);
            }
            Position last;
            slice_unrank(&s, s.size - 1, &last);
            cr_assert_eq(slice_rank(&s, &last), s.size - 1);
        }
}

/* Walks the slice from `first` for `count` steps, checking each position against unranking. */
static void check_walk(const Slice *s, uint64_t first, uint64_t count)
{
    SliceWalk w;
    slice_walk_start(s, first, &w);
    for (uint64_t i = first;; i++) {
        Position pos;
        slice_unrank(s, i, &pos);
        cr_assert_eq(w.index, i);
        cr_assert(pos_equal(&w.pos, &pos), "slice %d%d%d%d: the walk differs from unranking at %llu", s->m.um,
                  s->m.uk, s->m.tm, s->m.tk, (unsigned long long)i);
        if (i + 1 == first + count || i + 1 == s->size)
            break;
        slice_walk_next(s, &w);
    }
}

Test(index, walk_visits_the_positions_of_consecutive_indices)
{
    Material ms[512];
    int n = all_materials(4, ms);
    for (int i = 0; i < n; i++) {
        Slice s;
        cr_assert(slice_init(&s, ms[i], 8));
        check_walk(&s, 0, s.size);
        cr_assert(slice_init(&s, ms[i], 10));
        check_walk(&s, s.size / 3, 200000);
    }
    Material big[] = {{3, 1, 2, 1}, {2, 2, 2, 1}, {0, 4, 0, 3}, {4, 0, 3, 0}};
    for (size_t c = 0; c < sizeof big / sizeof big[0]; c++)
        for (int board = 8; board <= 10; board += 2) {
            Slice s;
            cr_assert(slice_init(&s, big[c], board));
            /* Across block boundaries: from just before each block's start. */
            for (int k = 1; k < s.nblocks; k++)
                check_walk(&s, s.blocks[k].start - 3, 1000);
            check_walk(&s, s.size - 500, 500);
        }
}

/* Unranks indices of s from `first` on in increasing order, small steps and large ones, with u
 * (shared with other slices), checking each against slice_unrank and the men it reports shared. */
static void check_unrank_near(const Slice *s, SliceUnrank *u, uint64_t first, int count, uint64_t *rng)
{
    Position before = {0};
    bool any = false;
    uint64_t i = first;
    for (int k = 0; k < count && i < s->size; k++) {
        Position near, full;
        bool same = any;
        bool shared = slice_unrank_near(s, i, u, &near);
        slice_unrank(s, i, &full);
        cr_assert(pos_equal(&near, &full), "slice %d%d%d%d: index %llu unranked near differs", s->m.um, s->m.uk,
                  s->m.tm, s->m.tk, (unsigned long long)i);
        Bitboard men = full.pieces[WHITE] & ~full.kings, theirs = full.pieces[BLACK] & ~full.kings;
        bool men_equal = men == (before.pieces[WHITE] & ~before.kings) && theirs == (before.pieces[BLACK] & ~before.kings);
        cr_assert_eq(shared, same && men_equal, "index %llu: shared men reported %d", (unsigned long long)i, shared);
        before = full;
        any = true;
        *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t r = *rng >> 33;
        i += r % 8 == 0 ? r % (s->size / 50 + 1) : r % 40;
    }
}

Test(index, unranking_in_order_reuses_the_men_and_equals_unranking)
{
    Material ms[512];
    int n = all_materials(4, ms);
    SliceUnrank u = {0};
    uint64_t rng = 7;
    for (int b = 8; b <= 10; b += 2)
        for (int i = 0; i < n; i++) {
            Slice s;
            cr_assert(slice_init(&s, ms[i], b));
            check_unrank_near(&s, &u, 0, 20000, &rng);
        }
    Material big[] = {{3, 1, 2, 1}, {2, 2, 2, 1}, {1, 1, 2, 2}, {0, 4, 0, 3}, {4, 0, 3, 0}};
    Slice s[2];
    for (size_t c = 0; c < sizeof big / sizeof big[0]; c++) {
        cr_assert(slice_init(&s[0], big[c], 8));
        cr_assert(slice_init(&s[1], material_swap(big[c]), 8));
        /* Two slices taking turns with one u, as a solver's two parts do. */
        for (int k = 0; k < 2 * s[0].nblocks; k++) {
            const Slice *t = &s[k % 2];
            uint64_t start = t->blocks[k / 2 % t->nblocks].start;
            check_unrank_near(t, &u, start > 3 ? start - 3 : 0, 3000, &rng);
        }
    }
}

Test(index, material_names_round_trip)
{
    Material m = {2, 1, 0, 3}, back;
    char name[DB_NAME_MAX];
    material_name(m, name);
    cr_assert_str_eq(name, "m2k1-m0k3");
    cr_assert(material_parse(name, &back) && material_equal(m, back));
    cr_assert(!material_parse("m2k1-m0k3x", &back));
    cr_assert(!material_parse("m9k9-m9k9", &back));
}

Test(index, ranking_the_men_once_then_the_kings_or_one_king_equals_the_full_rank)
{
    Material cases[] = {{1, 2, 1, 1}, {2, 1, 1, 2}, {0, 3, 1, 1}, {1, 1, 0, 2}};
    for (int board = 8; board <= 10; board += 2)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            Slice s;
            cr_assert(slice_init(&s, cases[c], board));
            const Board *b = board_get(board);
            uint64_t step = s.size / 3000 + 1, checked = 0;
            for (uint64_t i = 0; i < s.size; i += step) {
                Position pos, turned;
                slice_unrank(&s, i, &pos);
                pos_flip(&pos, b, &turned);
                for (int side = 0; side < 2; side++) {
                    const Position *p = side ? &turned : &pos;
                    SliceMenRank men;
                    slice_rank_men(&s, p, &men);
                    /* Every position with the same men and one of our kings moved elsewhere. */
                    Bitboard ours = p->pieces[p->side] & p->kings;
                    Bitboard empty = b->all & ~(p->pieces[0] | p->pieces[1]);
                    for (Bitboard k = ours; k; k &= k - 1) {
                        SliceKingMove km;
                        slice_king_move(&s, &men, p, __builtin_ctzll(k), &km);
                        for (Bitboard e = empty; e; e &= e - 1) {
                            Position q = *p;
                            Bitboard moved = (k & -k) | (e & -e);
                            q.pieces[q.side] ^= moved;
                            q.kings ^= moved;
                            uint64_t full = slice_rank(&s, &q);
                            cr_assert_eq(slice_rank_kings(&s, &men, &q), full);
                            cr_assert_eq(slice_rank_king_at(&km, __builtin_ctzll(e)), full);
                            checked++;
                        }
                    }
                }
            }
            cr_assert(checked > 1000);
        }
}

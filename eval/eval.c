#include "eval.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/board.h"
#include "../core/position.h"
#include "../core/variant.h"

const char *const eval_group_names[EVAL_GROUPS] = {
    "material", "man_square", "king_square", "structure", "back_rank", "king_mobility", "runaway", "kings", "regions",
    "rectangles",
};

/* Geometry the features need, per board size, from the view of a side moving up. */
typedef struct {
    const Board *b;
    Bitboard cone[64];          /* squares a man on this bit could still pass through */
    Bitboard left;              /* files a..(size/2 - 1) */
    int nregions;               /* the 4x4 regions, then the rectangles */
    int nsquare;                /* how many of them are 4x4 regions */
    Bitboard region[EVAL_MAX_REGIONS + EVAL_MAX_RECTS];
    EvalLayout layout;
} Geometry;

/* base3[x]: the 10-bit set x read as base-3 digits 0/1 (bit k -> 3^k). */
static uint16_t base3[1 << EVAL_RECT_SQUARES];

/* The men of `set` on a pattern mask's squares as bits, in bit order. */
static inline int region_bits(Bitboard mask, Bitboard set)
{
#ifdef __BMI2__
    return (int)__builtin_ia32_pext_di(set, mask);
#else
    int bits = 0, k = 0;
    for (; mask; mask &= mask - 1, k++)
        bits |= (int)((set >> __builtin_ctzll(mask)) & 1) << k;
    return bits;
#endif
}

static inline int region_state(Bitboard mask, Bitboard own, Bitboard opp)
{
    return base3[region_bits(mask, own)] + 2 * base3[region_bits(mask, opp)];
}

static Geometry geometry[2];
static pthread_once_t geometry_once = PTHREAD_ONCE_INIT;

/* The dark squares of the block of `rows` rows and `files` files whose corner is (r0, f0). */
static Bitboard block(const Board *b, int r0, int f0, int rows, int files)
{
    Bitboard mask = 0;
    for (int bit = 0; bit < 64; bit++)
        if (b->bit_square[bit] >= 0 && b->bit_row[bit] >= r0 && b->bit_row[bit] < r0 + rows &&
            b->bit_file[bit] >= f0 && b->bit_file[bit] < f0 + files)
            mask |= 1ull << bit;
    return mask;
}

static void geometry_init(void)
{
    for (int g = 0; g < 2; g++) {
        Geometry *x = &geometry[g];
        const Board *b = x->b = board_get(g ? 10 : 8);
        eval_layout(b->size, &x->layout);
        for (int bit = 0; bit < 64; bit++) {
            if (b->bit_square[bit] < 0)
                continue;
            int r = b->bit_row[bit], f = b->bit_file[bit];
            if (f < b->size / 2)
                x->left |= 1ull << bit;
            for (int other = 0; other < 64; other++) {
                if (b->bit_square[other] < 0)
                    continue;
                int dr = r - b->bit_row[other], df = b->bit_file[other] - f;
                if (dr > 0 && df <= dr && -df <= dr)
                    x->cone[bit] |= 1ull << other;
            }
        }
        /* The 4x4 blocks with a corner on an even row and file, then the rectangles of 5 rows
         * by 4 files, corners on the first row and the one whose rectangle ends on the last,
         * and on even files: sets that the 180-degree rotation maps onto themselves, so both
         * sides' views index the same patterns. */
        for (int r0 = 0; r0 + 3 < b->size; r0 += 2)
            for (int f0 = 0; f0 + 3 < b->size; f0 += 2)
                x->region[x->nregions++] = block(b, r0, f0, 4, 4);
        x->nsquare = x->nregions;
        for (int r0 = 0; r0 <= b->size - 5; r0 += b->size - 5)
            for (int f0 = 0; f0 + 3 < b->size; f0 += 2)
                x->region[x->nregions++] = block(b, r0, f0, 5, 4);
    }
    for (int x = 0; x < (1 << EVAL_RECT_SQUARES); x++)
        for (int k = 0, p = 1; k < EVAL_RECT_SQUARES; k++, p *= 3)
            base3[x] += (uint16_t)((x >> k & 1) * p);
}

static const Geometry *geometry_of(int board_size)
{
    pthread_once(&geometry_once, geometry_init);
    return &geometry[board_size == 10];
}

int eval_regions(int board_size)
{
    return geometry_of(board_size)->nregions;
}

int eval_square_regions(int board_size)
{
    return geometry_of(board_size)->nsquare;
}

Bitboard eval_region_mask(int board_size, int r)
{
    return geometry_of(board_size)->region[r];
}

int eval_region_index(int board_size, int r, Bitboard own, Bitboard opp)
{
    return region_state(geometry_of(board_size)->region[r], own, opp);
}

void eval_layout(int board_size, EvalLayout *out)
{
    int width = board_size / 2, n = board_size * width, side = (board_size - 2) / 2;
    int length[EVAL_GROUPS] = {2, n, n, 2, 1 << width, 1, board_size, 2, side * side * EVAL_REGION_STATES,
                               2 * side * EVAL_RECT_STATES};
    out->board_size = board_size;
    out->n = 0;
    for (int g = 0; g < EVAL_GROUPS; g++) {
        out->offset[g] = out->n;
        out->length[g] = length[g];
        out->n += length[g];
    }
}

/* Both phases in one register: {opening, endgame}. */
typedef double Phases __attribute__((vector_size(16)));
typedef float Floats2 __attribute__((vector_size(8)));

/* Where features go: summed straight into the two phases' scores (evaluation: f is NULL), or
 * listed (training, per-group reports). A side's features are summed from its own view and
 * signed once at the end; a listed feature carries its sign. */
typedef struct {
    const EvalTable *t;    /* the weights, when evaluating */
    Phases sum;
    EvalFeatures *f;       /* NULL: evaluating */
    int sign;              /* of listed features */
} Sink;

#define INLINE static inline __attribute__((always_inline))

INLINE Phases phases_of(const EvalPair *p)
{
    Phases w;
    memcpy(&w, p, sizeof w);
    return w;
}

/* value times a weight, in double precision as the training computes it. */
INLINE Phases weighted(const EvalPair *p, int value)
{
    return phases_of(p) * (double)value;
}

INLINE void add(Sink *s, int index, int value)
{
    if (!s->f) {
        s->sum += weighted(&s->t->weight[index], value);
    } else if (value != 0 && s->f->n < EVAL_MAX_FEATURES) {
        s->f->index[s->f->n] = (uint32_t)index;
        s->f->value[s->f->n++] = (int16_t)(s->sign * value);
    }
}

/* Moves of kings `kings` to empty squares: one step, or any distance for flying kings. */
static int king_moves(const Board *b, Bitboard kings, Bitboard empty, bool flying)
{
    int count = 0;
    for (int d = 0; d < 4; d++) {
        Bitboard front = kings;
        do {
            front = board_shift(b, front, b->step[d]) & empty;
            count += pos_count(front);
        } while (flying && front);
    }
    return count;
}

/* The features of the side whose men are `men` and kings `kings` (moving up), against `opp`,
 * added with sign `sign`. Inlined in the evaluation and in the listing, each its own copy. */
INLINE void side_features(const Variant *v, const Geometry *g, const EvalLayout *l, Bitboard men, Bitboard kings,
                          Bitboard opp_men, Bitboard opp, int sign, Sink *sink)
{
    /* Local sums, so that they stay in registers; the patterns in a sum of their own, so that
     * two chains of additions run side by side. */
    Sink local = {sink->t, {0, 0}, sink->f, sign}, patterns = local, *f = &local;
    const Board *b = g->b;
    Bitboard own = men | kings, occupied = own | opp;
    add(f, l->offset[EVAL_MATERIAL], pos_count(men));
    add(f, l->offset[EVAL_MATERIAL] + 1, pos_count(kings));
    int tempo = 0, runaway_base = l->offset[EVAL_RUNAWAY];
    for (Bitboard m = men; m; m &= m - 1) {
        int bit = __builtin_ctzll(m), row = b->bit_row[bit];
        add(f, l->offset[EVAL_MAN_SQUARE] + b->bit_square[bit], 1);
        tempo += b->size - 1 - row;
        if (!(g->cone[bit] & occupied))
            add(f, runaway_base + row, 1);
    }
    for (Bitboard k = kings; k; k &= k - 1)
        add(f, l->offset[EVAL_KING_SQUARE] + b->bit_square[__builtin_ctzll(k)], 1);
    add(f, l->offset[EVAL_STRUCTURE], tempo);
    add(f, l->offset[EVAL_STRUCTURE] + 1, __builtin_abs(pos_count(men & g->left) - pos_count(men & ~g->left)));
#ifdef __BMI2__
    int config = (int)__builtin_ia32_pext_di(men, b->row[b->size - 1]);
#else
    int config = 0, k = 0;
    for (Bitboard r = b->row[b->size - 1]; r; r &= r - 1, k++)
        if (men & (r & -r))
            config |= 1 << k;
#endif
    add(f, l->offset[EVAL_BACK_RANK] + config, 1);
    if (kings) {
        add(f, l->offset[EVAL_KING_MOBILITY], king_moves(b, kings, b->all & ~occupied, v->rules.flying_kings));
        add(f, l->offset[EVAL_KINGS], 1);
        if (kings & (kings - 1))
            add(f, l->offset[EVAL_KINGS] + 1, 1);
    }
    if (!f->f) {
        for (int r = 0; r < g->nsquare; r++) {
            Floats2 w;
            memcpy(&w, f->t->region[r][region_state(g->region[r], men, opp_men)], sizeof w);
            patterns.sum += __builtin_convertvector(w, Phases);
        }
        if (f->t->rects)
            for (int r = g->nsquare; r < g->nregions; r++) {
                Floats2 w;
                memcpy(&w, f->t->rect[r - g->nsquare][region_state(g->region[r], men, opp_men)], sizeof w);
                patterns.sum += __builtin_convertvector(w, Phases);
            }
    } else {
        for (int r = 0; r < g->nsquare; r++)
            add(&patterns, l->offset[EVAL_REGIONS] + r * EVAL_REGION_STATES + region_state(g->region[r], men, opp_men),
                1);
        for (int r = g->nsquare; r < g->nregions; r++)
            add(&patterns,
                l->offset[EVAL_RECTANGLES] + (r - g->nsquare) * EVAL_RECT_STATES +
                    region_state(g->region[r], men, opp_men),
                1);
    }
    sink->sum += sign * (local.sum + patterns.sum);
}

/* Both sides' features from their own view (White as stored, Black rotated) into sink; the
 * phase is returned. */
INLINE float features(const Variant *v, const Position *pos, Sink *sink)
{
    const Geometry *g = geometry_of(v->rules.board_size);
    const EvalLayout *l = &g->layout;
    Bitboard men[2], kings[2];
    for (int c = 0; c < 2; c++) {
        men[c] = pos_men(pos, c);
        kings[c] = pos_kings(pos, c);
    }
    Bitboard rmen[2] = {board_rotate(g->b, men[0]), board_rotate(g->b, men[1])};
    Bitboard rkings[2] = {board_rotate(g->b, kings[0]), board_rotate(g->b, kings[1])};
    for (int c = 0; c < 2; c++) {
        int sign = c == pos->side ? 1 : -1;
        if (c == WHITE)
            side_features(v, g, l, men[0], kings[0], men[1], men[1] | kings[1], sign, sink);
        else
            side_features(v, g, l, rmen[1], rkings[1], rmen[0], rmen[0] | rkings[0], sign, sink);
    }
    int start = 2 * (v->rules.board_size == 10 ? 20 : 12);
    int material = pos_count(pos->pieces[0] | pos->pieces[1]) + pos_count(pos->kings);
    return material >= start ? 1.0f : (float)material / (float)start;
}

void eval_features(const Variant *v, const Position *pos, EvalFeatures *out)
{
    Sink sink = {NULL, {0, 0}, out, 1};
    out->n = 0;
    out->phase = features(v, pos, &sink);
}

static double blend(const Weights *w, const EvalFeatures *f, int from, int to)
{
    double opening = 0, endgame = 0, phase = f->phase;
    for (int k = 0; k < f->n; k++) {
        int i = f->index[k];
        if (i >= from && i < to) {
            opening += f->value[k] * (double)w->w[0][i];
            endgame += f->value[k] * (double)w->w[1][i];
        }
    }
    return phase * opening + (1 - phase) * endgame;
}

/* Group g's weights as {opening, endgame} pairs into `pairs` (a table's patterns by pattern
 * and configuration, in weight order); whether any of them is not 0. */
static bool lay_out_group(const Weights *w, int g, float (*pairs)[2])
{
    int from = w->layout.offset[g];
    bool any = false;
    for (int i = 0; i < w->layout.length[g]; i++) {
        pairs[i][0] = w->w[0][from + i];
        pairs[i][1] = w->w[1][from + i];
        any |= pairs[i][0] != 0 || pairs[i][1] != 0;
    }
    return any;
}

void eval_prepare(const Weights *w, EvalTable *out)
{
    for (int i = 0; i < w->layout.offset[EVAL_REGIONS]; i++)
        out->weight[i] = (EvalPair){w->w[0][i], w->w[1][i]};
    lay_out_group(w, EVAL_REGIONS, out->region[0]);
    out->rects = lay_out_group(w, EVAL_RECTANGLES, out->rect[0]);
}

int eval_prepared(const EvalTable *t, const Variant *v, const Position *pos)
{
    Sink sink = {t, {0, 0}, NULL, 1};
    double phase = features(v, pos, &sink);
    return (int)lrint(phase * sink.sum[0] + (1 - phase) * sink.sum[1]);
}

int eval_position(const Weights *w, const Variant *v, const Position *pos)
{
    /* For occasional evaluations: the listed features, summed as the training sums them. */
    EvalFeatures f;
    eval_features(v, pos, &f);
    return (int)lrint(blend(w, &f, 0, w->layout.n));
}

int eval_drawish(const Variant *v, const Position *pos, int score)
{
    if (!v->rules.flying_kings || score == 0)
        return score;
    int strong = score > 0 ? pos->side : !pos->side, weak = !strong;
    int weak_kings = pos_count(pos_kings(pos, weak));
    if (!weak_kings)
        return score;
    int strong_kings = pos_count(pos_kings(pos, strong));
    int strong_pieces = pos_count(pos->pieces[strong]), weak_pieces = pos_count(pos->pieces[weak]);
    if (strong_pieces <= (v->rules.board_size == 8 ? 2 : 3))
        return score / 8;
    if (strong_kings == weak_kings && abs((strong_pieces - strong_kings) - (weak_pieces - weak_kings)) <= 1)
        return score / 2;
    return score;
}

void eval_by_group(const Weights *w, const Variant *v, const Position *pos, double out[EVAL_GROUPS])
{
    EvalFeatures f;
    eval_features(v, pos, &f);
    for (int g = 0; g < EVAL_GROUPS; g++)
        out[g] = blend(w, &f, w->layout.offset[g], w->layout.offset[g] + w->layout.length[g]);
}

void weights_default(const Variant *v, Weights *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->variant, sizeof out->variant, "%s", v->name);
    snprintf(out->provenance, sizeof out->provenance, "compiled-in defaults, feature set %d", EVAL_FEATURE_SET);
    EvalLayout *l = &out->layout;
    eval_layout(v->rules.board_size, l);
    int size = l->board_size, width = size / 2;
    const Board *b = board_get(size);
    /* Material: flying kings are worth more than short ones. */
    for (int p = 0; p < 2; p++) {
        out->w[p][l->offset[EVAL_MATERIAL]] = 100;
        out->w[p][l->offset[EVAL_MATERIAL] + 1] = v->rules.flying_kings ? (p ? 300 : 330) : (p ? 220 : 250);
    }
    for (int sq = 0; sq < l->length[EVAL_MAN_SQUARE]; sq++) {
        int row = sq / width, advanced = size - 1 - row, file_bit = b->square_bit[sq];
        int file = b->bit_file[file_bit], centre = file >= 2 && file <= size - 3;
        out->w[0][l->offset[EVAL_MAN_SQUARE] + sq] = (float)(advanced * 2 + centre * 4);
        out->w[1][l->offset[EVAL_MAN_SQUARE] + sq] = (float)(advanced * 5);
        out->w[0][l->offset[EVAL_KING_SQUARE] + sq] = (float)(centre * 5);
        out->w[1][l->offset[EVAL_KING_SQUARE] + sq] = (float)(centre * 5);
    }
    out->w[0][l->offset[EVAL_STRUCTURE] + 1] = -4;   /* balance */
    out->w[1][l->offset[EVAL_STRUCTURE] + 1] = -2;
    for (int c = 0; c < (1 << width); c++) {
        /* Guarding the back row matters while there is material to crown. */
        out->w[0][l->offset[EVAL_BACK_RANK] + c] = (float)(5 * __builtin_popcount((unsigned)c));
    }
    out->w[0][l->offset[EVAL_KING_MOBILITY]] = 1;
    out->w[1][l->offset[EVAL_KING_MOBILITY]] = 2;
    for (int rows = 1; rows < size; rows++)
        out->w[1][l->offset[EVAL_RUNAWAY] + rows] = (float)(rows < 6 ? 60 - 8 * rows : 10);
}

void weights_material(const Variant *v, Weights *out)
{
    weights_default(v, out);
    snprintf(out->provenance, sizeof out->provenance, "material only");
    const EvalLayout *l = &out->layout;
    for (int p = 0; p < 2; p++)
        for (int i = l->offset[EVAL_MATERIAL] + l->length[EVAL_MATERIAL]; i < l->n; i++)
            out->w[p][i] = 0;
}

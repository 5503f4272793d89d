#include "eval.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../core/board.h"
#include "../core/position.h"
#include "../core/variant.h"

const char *const eval_group_names[EVAL_GROUPS] = {
    "material", "man_square", "king_square", "structure", "back_rank", "king_mobility", "runaway", "patterns",
};

enum { PATTERN_STATES = 81, MAX_DIAMONDS = 64 };

/* Geometry the features need, per board size, from the view of a side moving up. */
typedef struct {
    const Board *b;
    Bitboard cone[64];          /* squares a man on this bit could still pass through */
    Bitboard left;              /* files a..(size/2 - 1) */
    int ndiamonds;
    struct {
        Bitboard mask;
        int8_t bit[4];                 /* top, lower left, lower right, bottom */
        int8_t row;                    /* of the top */
    } diamond[MAX_DIAMONDS];
    EvalLayout layout;
} Geometry;

/* base3[x]: the 4-bit set x read as base-3 digits 0/1 (bit k -> 3^k). */
static const uint8_t base3[16] = {0, 1, 3, 4, 9, 10, 12, 13, 27, 28, 30, 31, 36, 37, 39, 40};

/* The 4 bits of `set` on the diamond's squares, in the order top, left, right, bottom (which
 * is also their order as bits, so pext gives it directly). */
static inline int diamond_bits(const int8_t *d, Bitboard mask, Bitboard set)
{
#ifdef __BMI2__
    (void)d;
    return (int)__builtin_ia32_pext_di(set, mask);
#else
    (void)mask;
    return (int)((set >> d[0] & 1) | (set >> d[1] & 1) << 1 | (set >> d[2] & 1) << 2 | (set >> d[3] & 1) << 3);
#endif
}

static Geometry geometry[2];
static pthread_once_t geometry_once = PTHREAD_ONCE_INIT;

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
            /* A diamond: this square, its two lower neighbours and the square below both. */
            int dl = bit + b->step[DIR_DL], dr2 = bit + b->step[DIR_DR], bottom = dl + b->step[DIR_DR];
            if (dl < 64 && dr2 < 64 && bottom < 64 && b->bit_square[dl] >= 0 && b->bit_square[dr2] >= 0 &&
                b->bit_square[bottom] >= 0 && ((1ull << dl) & b->all) && ((1ull << dr2) & b->all) &&
                ((1ull << bottom) & b->all) && b->bit_row[bottom] == r + 2 && x->ndiamonds < MAX_DIAMONDS) {
                int8_t *d = x->diamond[x->ndiamonds].bit;
                d[0] = (int8_t)bit;
                d[1] = (int8_t)dl;
                d[2] = (int8_t)dr2;
                d[3] = (int8_t)bottom;
                x->diamond[x->ndiamonds].mask = 1ull << bit | 1ull << dl | 1ull << dr2 | 1ull << bottom;
                x->diamond[x->ndiamonds++].row = (int8_t)r;
            }
        }
    }
}

static const Geometry *geometry_of(int board_size)
{
    pthread_once(&geometry_once, geometry_init);
    return &geometry[board_size == 10];
}

void eval_layout(int board_size, EvalLayout *out)
{
    int width = board_size / 2, n = board_size * width;
    int length[EVAL_GROUPS] = {2, n, n, 2, 1 << width, 1, board_size, (board_size - 2) * PATTERN_STATES};
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
        s->f->index[s->f->n] = (uint16_t)index;
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
                          Bitboard opp, int sign, Sink *sink)
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
    if (kings)
        add(f, l->offset[EVAL_KING_MOBILITY], king_moves(b, kings, b->all & ~occupied, v->rules.flying_kings));
    if (!f->f) {
        /* The prepared table holds the weight of the diamond's state, 0 for the empty one. */
        for (int d = 0; d < g->ndiamonds; d++) {
            patterns.sum += phases_of(&f->t->pattern[g->diamond[d].row]
                                                    [diamond_bits(g->diamond[d].bit, g->diamond[d].mask, own) |
                                                     diamond_bits(g->diamond[d].bit, g->diamond[d].mask, opp) << 4]);
        }
    } else {
        /* The empty diamond counts 0 (its weight would only shift every score). */
        for (int d = 0; d < g->ndiamonds; d++) {
            int index = base3[diamond_bits(g->diamond[d].bit, g->diamond[d].mask, own)] +
                        2 * base3[diamond_bits(g->diamond[d].bit, g->diamond[d].mask, opp)];
            add(&patterns, l->offset[EVAL_PATTERNS] + g->diamond[d].row * PATTERN_STATES + index,
                (g->diamond[d].mask & occupied) != 0);
        }
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
            side_features(v, g, l, men[0], kings[0], men[1] | kings[1], sign, sink);
        else
            side_features(v, g, l, rmen[1], rkings[1], rmen[0] | rkings[0], sign, sink);
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

void eval_prepare(const Weights *w, EvalTable *out)
{
    const EvalLayout *l = &w->layout;
    _Static_assert(EVAL_PATTERN_ROWS >= 10 - 2, "a row of pattern tables per top row of a diamond");
    for (int i = 0; i < l->n; i++)
        out->weight[i] = (EvalPair){w->w[0][i], w->w[1][i]};
    for (int row = 0; row < l->board_size - 2; row++)
        for (int code = 0; code < 256; code++) {
            int own = code & 15, opp = code >> 4;
            out->pattern[row][code] =
                    !code || (own & opp) ? (EvalPair){0, 0}
                                         : out->weight[l->offset[EVAL_PATTERNS] + row * PATTERN_STATES + base3[own] +
                                                       2 * base3[opp]];
        }
}

int eval_prepared(const EvalTable *t, const Variant *v, const Position *pos)
{
    Sink sink = {t, {0, 0}, NULL, 1};
    double phase = features(v, pos, &sink);
    return (int)lrint(phase * sink.sum[0] + (1 - phase) * sink.sum[1]);
}

int eval_position(const Weights *w, const Variant *v, const Position *pos)
{
    EvalTable t;   /* 96 KiB, on the stack: this is for occasional evaluations */
    eval_prepare(w, &t);
    return eval_prepared(&t, v, pos);
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

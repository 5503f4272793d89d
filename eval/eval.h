/* The evaluation: linear in its weights, over feature groups, blended between an opening and
 * an endgame weight set by the phase (how much material is left).
 *
 * Every feature is counted from one side's view (its men moving up the board) and the
 * evaluation is the side to move's features minus the opponent's, so it is antisymmetric.
 * Scores are in hundredths of a man. Weight files are HDF5 (docs/FORMAT.md).
 *
 * The board is scanned with overlapping patterns, as Scan does: every 4x4 block of the board
 * whose corner is on an even row and file (16 on 10x10, 9 on 8x8), 8 dark squares each, and
 * every configuration of a region's men (empty / own man / opponent man: 3^8 = 6,561) has a
 * weight of its own, per region and phase (feature set 2). Feature set 3 adds rectangles of 5
 * rows by 4 files, 10 dark squares each (3^10 = 59,049 configurations), their corners on rows
 * 0 and 5 and even files on 10x10 (8), on rows 0 and 3 and even files on 8x8 (6): 1.15 M
 * pattern weights on 10x10, 0.83 M on 8x8. A file of feature set 2 loads with the rectangles'
 * weights 0 (and then the evaluation skips them). Kings are left out of the patterns; they
 * have their own groups. Feature set 4 adds one: a side's first king and its second have
 * weights of their own beside the king's material weight (a first king is worth more than the
 * next ones); a file of set 3 or 2 loads with them 0. */
#ifndef DAMAS_EVAL_EVAL_H
#define DAMAS_EVAL_EVAL_H

#include "../core/types.h"

/* The feature set weight files are written in, and the oldest one still read (an older set's
 * missing groups' weights are 0: a file of set 3 has no kings group, one of set 2 no
 * rectangles either). */
enum { EVAL_FEATURE_SET = 4, EVAL_FEATURE_SET_OLDEST = 2 };
#define EVAL_FEATURE_SET_NAME "4x4 regions and 5x4 rectangles of men, first and second king"

/* Feature groups, in weight-vector order. */
typedef enum {
    EVAL_MATERIAL,       /* man, king */
    EVAL_MAN_SQUARE,     /* a man on each square (from its own side's view) */
    EVAL_KING_SQUARE,    /* a king on each square */
    EVAL_STRUCTURE,      /* tempo (rows advanced by the men), balance (|left - right| men) */
    EVAL_BACK_RANK,      /* one weight per configuration of own men on the own back row */
    EVAL_KING_MOBILITY,  /* squares the kings can move to */
    EVAL_RUNAWAY,        /* a man with a free path to promotion, by rows left to go */
    EVAL_KINGS,          /* a first king, a second king (beside their material weight) */
    EVAL_REGIONS,        /* per region, a weight per configuration of its men */
    EVAL_RECTANGLES,     /* per rectangle, a weight per configuration of its men */
    EVAL_GROUPS
} EvalGroup;

enum {
    EVAL_REGION_SQUARES = 8,
    EVAL_REGION_STATES = 6561,           /* 3^8 */
    EVAL_MAX_REGIONS = 16,
    EVAL_RECT_SQUARES = 10,
    EVAL_RECT_STATES = 59049,            /* 3^10 */
    EVAL_MAX_RECTS = 8,
    EVAL_MAX_SMALL = 256,                /* the weights of every group but the patterns */
    EVAL_MAX_WEIGHTS = EVAL_MAX_SMALL + EVAL_MAX_REGIONS * EVAL_REGION_STATES + EVAL_MAX_RECTS * EVAL_RECT_STATES,
    EVAL_MAX_FEATURES = 320,
};

typedef struct {
    int board_size;
    int n;                           /* weights per phase */
    int offset[EVAL_GROUPS], length[EVAL_GROUPS];
} EvalLayout;

/* The group names used in weight files and by `damas eval`. */
extern const char *const eval_group_names[EVAL_GROUPS];

void eval_layout(int board_size, EvalLayout *out);

/* How trained weights were made (attributes of the weight file when `set`). */
typedef struct {
    bool set;
    int generations;
    uint64_t games, positions;
    double elo, elo_low, elo_high;   /* against the compiled-in weights, 95% interval */
    uint64_t seed;
    char date[32], version[16];
} WeightsMeta;

typedef struct {
    char variant[32];                /* the variant these weights were made for */
    EvalLayout layout;
    float w[2][EVAL_MAX_WEIGHTS];    /* [0] opening, [1] endgame (4.6 MB: allocate, do not copy often) */
    char provenance[512];            /* free text: how they were made */
    WeightsMeta meta;
} Weights;

/* The compiled-in defaults for v. */
void weights_default(const Variant *v, Weights *out);

/* The defaults' material weights only, every other weight 0: a baseline to measure the other
 * terms against. */
void weights_material(const Variant *v, Weights *out);

/* Loads a weight file for v (of feature set 4, or 3 or 2: then the groups they lack are 0).
 * Returns DAMAS_OK, or an error with a message: unreadable or not a damas weight file, made
 * for another variant or another feature set, or with a group of the wrong shape. */
int weights_load(const char *path, const Variant *v, Weights *out, char *err, size_t errlen);

/* Writes w to path (atomically: temporary file, then rename). */
int weights_save(const char *path, const Weights *w, char *err, size_t errlen);

/* A sparse feature vector: the evaluation is sum over k of value[k] * (phase * w[0][index[k]] +
 * (1 - phase) * w[1][index[k]]). */
typedef struct {
    int n;
    uint32_t index[EVAL_MAX_FEATURES];
    int16_t value[EVAL_MAX_FEATURES];
    float phase;                     /* 1 at the start, 0 with nothing left */
} EvalFeatures;

/* The features of pos for its side to move (own features minus the opponent's). */
void eval_features(const Variant *v, const Position *pos, EvalFeatures *out);

/* The evaluation of pos for its side to move, in hundredths of a man: the weighted sum of the
 * listed features, rounded, as the training computes it. Thread-safe. For occasional use: a
 * caller that evaluates many positions with the same weights, like the search, prepares them
 * once (eval_prepare) and calls eval_prepared. */
int eval_position(const Weights *w, const Variant *v, const Position *pos);

/* The weights laid out for evaluation: weight i of the small groups with its two phases side by
 * side (as doubles, the precision the evaluation sums in), and the region weights by region and
 * configuration as float pairs (half the size: they are most of the table, and the cache holds
 * more of them). */
typedef struct {
    _Alignas(16) double opening;
    double endgame;
} EvalPair;

typedef struct {
    EvalPair weight[EVAL_MAX_SMALL];                                 /* {w[0][i], w[1][i]} */
    _Alignas(8) float region[EVAL_MAX_REGIONS][EVAL_REGION_STATES][2];  /* {opening, endgame} */
    _Alignas(8) float rect[EVAL_MAX_RECTS][EVAL_RECT_STATES][2];
    bool rects;                      /* some rectangle weight is not 0 (else they are skipped) */
} EvalTable;

/* The patterns of a board size: how many (the 4x4 regions, then the rectangles), how many of
 * them are regions, and the bits of pattern r's squares. */
int eval_regions(int board_size);
int eval_square_regions(int board_size);
Bitboard eval_region_mask(int board_size, int r);

/* The configuration of pattern r given one side's men `own` and the opponent's `opp` (in that
 * side's view, moving up): sum over the region's squares k, in bit order, of 3^k times 0
 * (empty or a king), 1 (own man) or 2 (opponent man). */
int eval_region_index(int board_size, int r, Bitboard own, Bitboard opp);

/* Lays w out into *out (for positions of w's board size). Redo it after changing w. The
 * table is about 4.6 MB: allocate it. */
void eval_prepare(const Weights *w, EvalTable *out);

/* eval_position with prepared weights, summed in another order: the same score up to the
 * rounding of the last hundredth. Thread-safe. */
int eval_prepared(const EvalTable *t, const Variant *v, const Position *pos);

/* Endgame knowledge a linear sum cannot express, for flying kings: a side ahead that has at
 * most 3 pieces (2 on 8x8) against a king seldom wins (its score / 8), nor one a man up with as
 * many kings as a defender who has one (its score / 2). `score` is an evaluation of pos for
 * its side to move; returned scaled where one of these holds, else unchanged. The search
 * applies it to its evaluations; eval_position and the training keep the plain weighted sum. */
int eval_drawish(const Variant *v, const Position *pos, int score);

/* The contribution of each group to eval_position (they sum to it up to rounding). */
void eval_by_group(const Weights *w, const Variant *v, const Position *pos, double out[EVAL_GROUPS]);

#endif

/* The evaluation: linear in its weights, over feature groups, blended between an opening and
 * an endgame weight set by the phase (how much material is left).
 *
 * Every feature is counted from one side's view (its men moving up the board) and the
 * evaluation is the side to move's features minus the opponent's, so it is antisymmetric.
 * Scores are in hundredths of a man. Weight files are HDF5 (docs/FORMAT.md). */
#ifndef DAMAS_EVAL_EVAL_H
#define DAMAS_EVAL_EVAL_H

#include "../core/types.h"

enum { EVAL_FEATURE_SET = 1 };

/* Feature groups, in weight-vector order. */
typedef enum {
    EVAL_MATERIAL,       /* man, king */
    EVAL_MAN_SQUARE,     /* a man on each square (from its own side's view) */
    EVAL_KING_SQUARE,    /* a king on each square */
    EVAL_STRUCTURE,      /* tempo (rows advanced by the men), balance (|left - right| men) */
    EVAL_BACK_RANK,      /* one weight per configuration of own men on the own back row */
    EVAL_KING_MOBILITY,  /* squares the kings can move to */
    EVAL_RUNAWAY,        /* a man with a free path to promotion, by rows left to go */
    EVAL_PATTERNS,       /* per top row, a weight per state (empty/own/opponent) of a 4-square diamond */
    EVAL_GROUPS
} EvalGroup;

enum { EVAL_MAX_WEIGHTS = 4096, EVAL_MAX_FEATURES = 320 };

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
    float w[2][EVAL_MAX_WEIGHTS];    /* [0] opening, [1] endgame */
    char provenance[512];            /* free text: how they were made */
    WeightsMeta meta;
} Weights;

/* The compiled-in defaults for v. */
void weights_default(const Variant *v, Weights *out);

/* Loads a weight file for v. Returns DAMAS_OK, or an error with a message: unreadable or
 * not a damas weight file, made for another variant, another feature set, or with a group of
 * the wrong shape. */
int weights_load(const char *path, const Variant *v, Weights *out, char *err, size_t errlen);

/* Writes w to path (atomically: temporary file, then rename). */
int weights_save(const char *path, const Weights *w, char *err, size_t errlen);

/* A sparse feature vector: the evaluation is sum over k of value[k] * (phase * w[0][index[k]] +
 * (1 - phase) * w[1][index[k]]). */
typedef struct {
    int n;
    uint16_t index[EVAL_MAX_FEATURES];
    int16_t value[EVAL_MAX_FEATURES];
    float phase;                     /* 1 at the start, 0 with nothing left */
} EvalFeatures;

/* The features of pos for its side to move (own features minus the opponent's). */
void eval_features(const Variant *v, const Position *pos, EvalFeatures *out);

/* The evaluation of pos for its side to move, in hundredths of a man. Thread-safe. It lays
 * the weights out first (eval_prepare): a caller that evaluates many positions with the same
 * weights, like the search, prepares them once and calls eval_prepared. */
int eval_position(const Weights *w, const Variant *v, const Position *pos);

/* The weights laid out for evaluation: weight i's two phases side by side (as doubles, the
 * precision the evaluation sums in), and the pattern weights by top row and the diamond's own
 * and opponent squares as two 4-bit sets, so that a pattern costs one lookup. */
typedef struct {
    _Alignas(16) double opening;
    double endgame;
} EvalPair;

enum { EVAL_PATTERN_ROWS = 8 };

typedef struct {
    EvalPair weight[EVAL_MAX_WEIGHTS];                /* {w[0][i], w[1][i]} */
    EvalPair pattern[EVAL_PATTERN_ROWS][256];         /* [top row][own | opponent << 4]; 0 when empty */
} EvalTable;

/* Lays w out into *out (for positions of w's board size). Redo it after changing w. */
void eval_prepare(const Weights *w, EvalTable *out);

/* eval_position with prepared weights: the same score, exactly. Thread-safe. */
int eval_prepared(const EvalTable *t, const Variant *v, const Position *pos);

/* The contribution of each group to eval_position (they sum to it up to rounding). */
void eval_by_group(const Weights *w, const Variant *v, const Position *pos, double out[EVAL_GROUPS]);

#endif

/* Self-play training: generations of games with the current weights, positions labelled by
 * the result (or exactly by an endgame database), a logistic-regression fit of the evaluation
 * to the labels (Texel's method, Adam, L2 toward the starting weights, a held-out tenth), and
 * a paired match deciding whether the new weights replace the old. */
#ifndef DAMAS_TRAIN_TRAIN_H
#define DAMAS_TRAIN_TRAIN_H

#include <stdio.h>

#include "../db/probe.h"
#include "../engine/match.h"

typedef struct {
    int games;              /* self-play games per generation */
    int generations;
    uint64_t nodes;         /* per move, in self-play and in the matches */
    int threads;
    uint64_t seed;
    int match_games;        /* paired games deciding each generation (even) */
    int epochs;             /* passes of the optimiser over the positions */
    DbProbe *db;            /* may be NULL */
} TrainOptions;

typedef struct {
    int generation;         /* 1.. */
    int games, positions;   /* this generation */
    double games_per_second;
    double train_loss, heldout_loss;   /* cross-entropy after fitting */
    double elo, elo_low, elo_high;     /* new weights against the current ones */
    bool accepted;
    double seconds;         /* since the start */
    const char *stage;      /* what is running now, for progress lines */
} TrainReport;

typedef struct {
    void (*report)(void *ctx, const TrainReport *r);   /* after each stage; may be NULL */
    void *ctx;
    FILE *pdn;              /* self-play games are written here if not NULL */
} TrainHooks;

/* Runs the training from `start` weights, leaving the best weights in *out. Returns
 * DAMAS_OK or an error (out of memory). Deterministic for a fixed seed and thread count. */
int train_run(const Variant *v, const Weights *start, const TrainOptions *o, const TrainHooks *hooks, Weights *out,
              char *err, size_t errlen);

/* A labelled position: features and the expected score for the side to move (0, 0.5, 1). */
typedef struct {
    EvalFeatures f;
    float label;
} Sample;

/* Fits w to samples[0..n_train) by logistic regression, P(win) = 1 / (1 + exp(-eval / scale)),
 * with Adam (a step decaying to zero over the epochs), a light L2 pull toward the starting
 * weights, and the weights of the epoch with the lowest loss on held[0..n_held) kept (early
 * stopping). Weights in `frozen` (indices, both phases) do not move. Returns that held-out loss
 * (the training loss in *train_loss). */
double train_fit(Weights *w, const Sample *samples, int n_train, const Sample *held, int n_held, int epochs,
                 double scale, const int *frozen, int nfrozen, uint64_t seed, double *train_loss);

/* The scale that makes w's predictions fit samples[0..n) best (Texel's K, as a divisor). */
double train_scale(const Weights *w, const Sample *samples, int n);

/* The cross-entropy loss of w on samples[0..n). */
double train_loss(const Weights *w, const Sample *samples, int n, double scale);

#endif

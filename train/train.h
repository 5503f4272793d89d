/* Training the evaluation: self-play games whose quiet positions go to a data set file
 * (train/dataset.h), labelled by the game's result (exactly by an endgame database where it
 * covers them) with the search's score beside; a sparse logistic-regression fit of the weights
 * to those labels (Texel's method: lazy Adam over the weights each batch touches, L2 toward
 * the starting weights, a held-out twentieth of the games, early stopping); and generations of
 * both, each kept only if its weights win a paired match against the current ones. */
#ifndef DAMAS_TRAIN_TRAIN_H
#define DAMAS_TRAIN_TRAIN_H

#include <stdio.h>

#include "../db/probe.h"
#include "../engine/match.h"
#include "dataset.h"

/* Self-play. */
typedef struct {
    uint64_t nodes;         /* per move (each game draws its own from nodes to 1.5 nodes) */
    int threads;
    uint64_t seed;
    DbProbe *db;            /* labels and ends games where it covers them; may be NULL */
} SelfPlayOptions;

typedef struct {
    uint64_t games, rows;   /* in the data set now */
    uint64_t new_games;     /* played by this call */
    double games_per_second;
} SelfPlayReport;

/* Appends the quiet positions of the n games (real games, read from PDN) to d as its next
 * games, labelled by each game's result, or by the database db (may be NULL) where it covers
 * them. Returns DAMAS_OK or an error with a message. */
int train_add_games(const Variant *v, Dataset *d, const Game *games, int n, DbProbe *db, char *err, size_t errlen);

/* Plays games with w and appends their quiet positions (the side to move has no capture) to
 * d, in batches (a killed run loses at most the batch in progress), until d holds at least
 * `rows` rows or this call has played `games` games (0: no such limit). Game k of the data set
 * starts from a built-in opening and random plies drawn from (seed, k), so a rerun goes on
 * where the last one ended, with the same games. `progress` (may be NULL) is called after each
 * batch. Games with PDN go to `pdn` if not NULL. Returns DAMAS_OK or an error with a message. */
int train_selfplay(const Variant *v, const Weights *w, Dataset *d, const SelfPlayOptions *o, uint64_t games,
                   uint64_t rows, void (*progress)(void *ctx, const SelfPlayReport *r), void *ctx, FILE *pdn,
                   char *err, size_t errlen);

/* The fit. */
typedef struct {
    int epochs;             /* at most */
    int patience;           /* epochs without a better held-out loss before stopping */
    double lambda;          /* share of the search's score in the label (0: the result alone) */
    double lr;              /* Adam's first step, decaying linearly to a tenth */
    double l2;              /* pull toward the starting weights */
    unsigned frozen;        /* groups whose weights stay as they start (bit g: EvalGroup g) */
    int batch;
    int threads;
    uint64_t seed;
} FitOptions;

/* Sensible defaults: 30 epochs, patience 3, lambda 0, lr 1, l2 1e-7, batch 1024. */
FitOptions train_fit_defaults(void);

typedef struct {
    int epoch;              /* epochs done */
    uint64_t train_rows, heldout_rows;
    double scale;           /* of the sigmoid: P(win) = 1 / (1 + exp(-eval / scale)) */
    double start_loss, train_loss, heldout_loss;   /* cross-entropy; held out: of the best epoch */
    double epoch_heldout;   /* held-out loss of the last epoch */
    double seconds;
} FitReport;

/* Fits w to rows[0..n) by logistic regression: the rows of every twentieth game are held
 * out (of more when the rows come from fewer than 40 games), the scale is fitted first to the
 * starting weights (Texel's K), the opening man's weight stays as it is (it sets the scale of
 * every score; the endgame man's is fitted), and the weights of the epoch with the lowest
 * held-out loss are kept. `progress` (may be NULL) is called after each epoch. Deterministic
 * for a fixed seed and thread count. Returns DAMAS_OK or an error (too few rows, out of
 * memory) with a message. */
int train_fit(const Variant *v, Weights *w, const DatasetRow *rows, size_t n, const FitOptions *o, FitReport *r,
              void (*progress)(void *ctx, const FitReport *r), void *ctx, char *err, size_t errlen);

/* The cross-entropy of w's predictions at `scale` on rows[0..n) against their labels (the
 * search score's share lambda), on `threads` threads. */
double train_loss(const Variant *v, const Weights *w, const DatasetRow *rows, size_t n, double scale, double lambda,
                  int threads);

/* Generations. */
typedef struct {
    int games;              /* self-play games per generation */
    int generations;
    uint64_t nodes;         /* per move, in self-play and in the matches */
    int threads;
    uint64_t seed;
    int match_games;        /* paired games deciding each generation (even) */
    double match_seconds;   /* > 0: those games at this time a move instead of `nodes` */
    uint64_t window;        /* the fit uses the newest `window` rows of the data set (0: all) */
    FitOptions fit;
    DbProbe *db;            /* may be NULL */
} TrainOptions;

typedef struct {
    int generation;         /* 1.. */
    uint64_t games, rows;   /* in the data set */
    double games_per_second;
    FitReport fit;
    double elo, elo_low, elo_high;     /* new weights against the current ones */
    bool accepted;
    double seconds;         /* since the start */
    const char *stage;      /* what is running now, for progress lines */
    uint64_t done, total;   /* of the stage: games played, epochs fitted (of at most total), match games */
    const Weights *current; /* the weights kept so far */
} TrainReport;

/* The limits of o's matches: o->match_seconds a move if set, else o->nodes. */
SearchLimits train_match_limits(const TrainOptions *o);

/* Runs the generations from `start` weights on data set d (appending to it), leaving the best
 * weights in *out. `report` (may be NULL) is called as each stage begins, as it goes on (after
 * each self-play batch, epoch and match game) and when a generation is done. Returns DAMAS_OK or an
 * error with a message. Deterministic for a fixed seed and thread count, unless the matches are
 * timed (match_seconds). */
int train_run(const Variant *v, const Weights *start, Dataset *d, const TrainOptions *o,
              void (*report)(void *ctx, const TrainReport *r), void *ctx, FILE *pdn, Weights *out, char *err,
              size_t errlen);

#endif

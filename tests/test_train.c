/* Training: the tuner recovers known weights, and self-play training is reproducible and
 * writes weights the search loads. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../train/train.h"
#include "helpers.h"

Test(train, the_tuner_recovers_known_weights_from_synthetic_labels, .timeout = 120)
{
    Variant v = test_variant("brazilian", false);
    Weights *truth = malloc(sizeof *truth), *w = malloc(sizeof *w);
    weights_default(&v, truth);
    /* The truth differs from the start in a few groups the positions exercise. */
    const EvalLayout *l = &truth->layout;
    for (int p = 0; p < 2; p++) {
        truth->w[p][l->offset[EVAL_MATERIAL] + 1] = 200;                 /* king */
        truth->w[p][l->offset[EVAL_STRUCTURE]] = p ? 12 : -6;            /* tempo */
        for (int sq = 0; sq < l->length[EVAL_MAN_SQUARE]; sq++)
            truth->w[p][l->offset[EVAL_MAN_SQUARE] + sq] = (float)(((sq * 7) % 11 - 5) * 8);
    }
    int n = 6000;
    Position *pos = malloc((size_t)n * sizeof *pos);
    Sample *samples = malloc((size_t)n * sizeof *samples);
    int got = test_random_positions(&v, 42, n, 60, pos);
    for (int i = 0; i < got; i++) {
        eval_features(&v, &pos[i], &samples[i].f);
        samples[i].label = (float)(1 / (1 + exp(-eval_position(truth, &v, &pos[i]) / 150.0)));
    }
    weights_default(&v, w);
    int frozen[1] = {l->offset[EVAL_MATERIAL]};
    cr_assert_gt(got, n / 2);
    int fit = got * 9 / 10;
    const Sample *held = samples + fit;
    double before = train_loss(w, held, got - fit, 150), best = train_loss(truth, held, got - fit, 150), train;
    cr_assert_lt(fabs(train_scale(truth, samples, fit) - 150) / 150, 0.1, "the scale the labels were made with");
    train_fit(w, samples, fit, held, got - fit, 60, 150, frozen, 1, 7, &train);
    double heldout = train_loss(w, held, got - fit, 150);
    /* The fit closes most of the gap to the true weights' loss, on positions it never saw. */
    cr_assert_lt(heldout - best, 0.3 * (before - best), "loss: start %.5f, fitted %.5f (held out), truth %.5f", before,
                 heldout, best);
    /* The fitted evaluation moved toward the true one on the held-out positions. */
    Weights *w0 = malloc(sizeof *w0);
    weights_default(&v, w0);
    double before_diff = 0, after_diff = 0;
    for (int i = fit; i < got; i++) {
        int t = eval_position(truth, &v, &pos[i]);
        before_diff += abs(eval_position(w0, &v, &pos[i]) - t);
        after_diff += abs(eval_position(w, &v, &pos[i]) - t);
    }
    cr_assert_lt(after_diff, 0.6 * before_diff, "mean |eval - true eval|: %.1f before, %.1f after",
                 before_diff / (got - fit), after_diff / (got - fit));
    cr_assert_eq(w->w[0][l->offset[EVAL_MATERIAL]], truth->w[0][l->offset[EVAL_MATERIAL]], "the man stays fixed");
    free(w0);
    free(pos);
    free(samples);
    free(truth);
    free(w);
}

Test(train, the_same_seed_gives_the_same_weights, .timeout = 120)
{
    Variant v = test_variant("italian", false);
    Weights *start = malloc(sizeof *start), *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    weights_default(&v, start);
    TrainOptions o = {20, 1, 300, 2, 5, 4, 3, NULL};
    char err[256];
    cr_assert_eq(train_run(&v, start, &o, NULL, a, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert_eq(train_run(&v, start, &o, NULL, b, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert_eq(memcmp(a->w, b->w, sizeof a->w), 0);
    free(start);
    free(a);
    free(b);
}

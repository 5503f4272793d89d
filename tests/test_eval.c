/* The evaluation and weight files. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/board.h"
#include "../eval/eval.h"
#include "helpers.h"

Test(eval, a_position_and_its_colour_flip_evaluate_the_same)
{
    const char *names[] = {"brazilian", "italian", "american", "international"};
    for (int k = 0; k < 4; k++) {
        Variant v = test_variant(names[k], false);
        Weights *w = malloc(sizeof *w);
        weights_default(&v, w);
        Position pos[50];
        int n = test_random_positions(&v, 99 + (uint64_t)k, 50, 40, pos);
        for (int i = 0; i < n; i++) {
            Position flipped;
            pos_flip(&pos[i], board_get(v.rules.board_size), &flipped);
            cr_assert_eq(eval_position(w, &v, &pos[i]), eval_position(w, &v, &flipped), "%s position %d", names[k], i);
        }
        free(w);
    }
}

Test(eval, the_start_position_is_balanced_and_an_extra_man_is_worth_about_a_man)
{
    Variant v = test_variant("russian", false);
    Weights w;
    weights_default(&v, &w);
    Position start;
    pos_start(&start, &v);
    cr_assert_lt(abs(eval_position(&w, &v, &start)), 30);
    Position up = test_position(&v, "W:Wa1,c1,e1:Bb8,d8");
    int score = eval_position(&w, &v, &up);
    cr_assert(score > 60 && score < 200, "one man up: %d", score);
}

Test(eval, group_contributions_sum_to_the_evaluation)
{
    Variant v = test_variant("spanish", false);
    Weights w;
    weights_default(&v, &w);
    Position pos[20];
    int n = test_random_positions(&v, 5, 20, 30, pos);
    for (int i = 0; i < n; i++) {
        double g[EVAL_GROUPS], sum = 0;
        eval_by_group(&w, &v, &pos[i], g);
        for (int k = 0; k < EVAL_GROUPS; k++)
            sum += g[k];
        cr_assert_leq(fabs(sum - eval_position(&w, &v, &pos[i])), 0.5 + 1e-9);
    }
}

/* The evaluation reads the weights from a prepared table (pattern weights by the diamond's
 * two 4-bit sets); the training reads them through the listed features. With random weights
 * in every group, patterns included (the defaults have none), the two agree. */
Test(eval, the_evaluation_is_the_weighted_sum_of_the_listed_features)
{
    const char *names[] = {"brazilian", "italian", "american", "international"};
    uint64_t seed = 12345;
    for (int k = 0; k < 4; k++) {
        Variant v = test_variant(names[k], false);
        Weights *w = malloc(sizeof *w);
        weights_default(&v, w);
        for (int p = 0; p < 2; p++)
            for (int i = 0; i < w->layout.n; i++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                w->w[p][i] = (float)((double)(seed >> 40) / (double)(1 << 24) * 100 - 50);
            }
        Position pos[60];
        int n = test_random_positions(&v, 7 + (uint64_t)k, 60, 50, pos);
        int patterns = 0;
        for (int i = 0; i < n; i++) {
            EvalFeatures f;
            eval_features(&v, &pos[i], &f);
            double opening = 0, endgame = 0;
            for (int j = 0; j < f.n; j++) {
                opening += f.value[j] * (double)w->w[0][f.index[j]];
                endgame += f.value[j] * (double)w->w[1][f.index[j]];
                patterns += f.index[j] >= w->layout.offset[EVAL_PATTERNS];
            }
            double sum = f.phase * opening + (1 - f.phase) * endgame;
            int score = eval_position(w, &v, &pos[i]);
            cr_assert_leq(fabs(score - sum), 0.5 + 1e-6, "%s position %d: %d, features say %f", names[k], i, score, sum);
        }
        cr_assert_gt(patterns, 10 * n, "%s: %d pattern features in %d positions", names[k], patterns, n);
        free(w);
    }
}

static char path[64];

static void make_path(void)
{
    snprintf(path, sizeof path, "/tmp/damas-weights-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
}

static void remove_path(void)
{
    unlink(path);
}

Test(eval, weight_files_round_trip, .init = make_path, .fini = remove_path)
{
    Variant v = test_variant("czech", false);
    Weights *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    weights_default(&v, a);
    for (int i = 0; i < a->layout.n; i++)
        a->w[1][i] += (float)i * 0.25f;
    snprintf(a->provenance, sizeof a->provenance, "test: every endgame weight shifted");
    char err[512];
    cr_assert_eq(weights_save(path, a, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert_eq(weights_load(path, &v, b, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert_str_eq(b->provenance, a->provenance);
    cr_assert_eq(memcmp(a->w, b->w, sizeof a->w), 0);
    free(a);
    free(b);
}

Test(eval, foreign_and_malformed_weight_files_are_refused, .init = make_path, .fini = remove_path)
{
    Variant russian = test_variant("russian", false), american = test_variant("american", false),
            international = test_variant("international", false);
    Weights *w = malloc(sizeof *w);
    char err[512];
    weights_default(&american, w);
    cr_assert_eq(weights_save(path, w, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert_eq(weights_load(path, &russian, w, err, sizeof err), DAMAS_ERR_ILLEGAL);
    cr_assert(strstr(err, "american") && strstr(err, "not russian"), "%s", err);
    /* Right name, wrong board: the shapes do not fit. */
    weights_default(&international, w);
    snprintf(w->variant, sizeof w->variant, "russian");
    cr_assert_eq(weights_save(path, w, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert_eq(weights_load(path, &russian, w, err, sizeof err), DAMAS_ERR_ILLEGAL);
    cr_assert(strstr(err, "10x10"), "%s", err);
    /* Truncated, and not HDF5 at all. */
    weights_default(&russian, w);
    cr_assert_eq(weights_save(path, w, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert_eq(truncate(path, 1000), 0);
    cr_assert_neq(weights_load(path, &russian, w, err, sizeof err), DAMAS_OK);
    FILE *f = fopen(path, "w");
    fputs("not a weight file\n", f);
    fclose(f);
    cr_assert_eq(weights_load(path, &russian, w, err, sizeof err), DAMAS_ERR_SYNTAX);
    cr_assert(strstr(err, "not an HDF5 file"), "%s", err);
    cr_assert_eq(weights_load("/nonexistent/w.h5", &russian, w, err, sizeof err), DAMAS_ERR_UNKNOWN);
    free(w);
}

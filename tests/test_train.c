/* Training: the data set file, self-play into it (resumable), the fitter recovering known
 * weights, and a tiny end-to-end training run that is reproducible. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../train/train.h"
#include "helpers.h"

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/damas-train-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        cr_log_warn("could not remove %s", dir);
}

static DatasetRow row_of(const Position *pos, uint32_t game, float label)
{
    return (DatasetRow){pos->pieces[WHITE], pos->pieces[BLACK], pos->kings, game, label, DATASET_NO_SCORE,
                        (uint8_t)pos->side, 0};
}

/* Weights to recover: the compiled-in ones with a tempo and region weights of their own (an own
 * man on a region's first square). */
static void synthetic_truth(const Variant *v, Weights *truth)
{
    weights_default(v, truth);
    const EvalLayout *l = &truth->layout;
    for (int p = 0; p < 2; p++) {
        truth->w[p][l->offset[EVAL_STRUCTURE]] = p ? 12 : -6;
        for (int i = 0; i < l->length[EVAL_REGIONS]; i++)
            truth->w[p][l->offset[EVAL_REGIONS] + i] = (i % EVAL_REGION_STATES) % 3 == 1 ? 15.0f : 0.0f;
    }
}

/* n random positions of v (from seed), each labelled with truth's winning chance. */
static void synthetic_rows(const Variant *v, const Weights *truth, uint64_t seed, int n, Position *pos,
                           DatasetRow *rows)
{
    cr_assert_eq(test_random_positions(v, seed, n, 60, pos), n);
    for (int i = 0; i < n; i++)
        rows[i] = row_of(&pos[i], (uint32_t)i, (float)(1 / (1 + exp(-eval_position(truth, v, &pos[i]) / 150.0))));
}

Test(train, the_fitter_recovers_known_weights_from_synthetic_labels, .timeout = 120)
{
    Variant v = test_variant("brazilian", false);
    Weights *truth = malloc(sizeof *truth), *w = malloc(sizeof *w), *w0 = malloc(sizeof *w0);
    /* The truth differs from the start in groups the positions exercise, regions included. */
    synthetic_truth(&v, truth);
    const EvalLayout *l = &truth->layout;
    for (int p = 0; p < 2; p++) {
        truth->w[p][l->offset[EVAL_MATERIAL] + 1] = 200;                 /* king */
        for (int sq = 0; sq < l->length[EVAL_MAN_SQUARE]; sq++)
            truth->w[p][l->offset[EVAL_MAN_SQUARE] + sq] = (float)(((sq * 7) % 11 - 5) * 8);
    }
    int n = 30000;
    Position *pos = malloc((size_t)n * sizeof *pos);
    DatasetRow *rows = malloc((size_t)n * sizeof *rows);
    synthetic_rows(&v, truth, 42, n, pos, rows);
    weights_default(&v, w);
    *w0 = *w;
    FitOptions o = train_fit_defaults();
    o.epochs = 40;
    o.threads = 2;
    FitReport r;
    char err[256];
    cr_assert_eq(train_fit(&v, w, rows, (size_t)n, &o, &r, NULL, NULL, err, sizeof err), DAMAS_OK, "%s", err);
    cr_log_info("fit: %d epochs, loss %.5f, held out %.5f (start %.5f), scale %.1f", r.epoch, r.train_loss, r.heldout_loss, r.start_loss, r.scale);
    cr_assert_eq(r.heldout_rows, (uint64_t)n / 20, "every twentieth game held out");
    cr_assert_lt(fabs(r.scale - 150) / 150, 0.15, "the scale the labels were made with: %.1f", r.scale);
    /* Held out by game number: rows 19, 39, ... */
    DatasetRow *held = malloc((size_t)n / 20 * sizeof *held);
    for (int i = 0; i < n / 20; i++)
        held[i] = rows[20 * i + 19];
    double best = train_loss(&v, truth, held, (size_t)n / 20, 150, 0, 1),
           before = train_loss(&v, w0, held, (size_t)n / 20, 150, 0, 1),
           after = train_loss(&v, w, held, (size_t)n / 20, 150, 0, 1);
    /* The fit closes most of the gap to the true weights' loss, on positions it never saw. */
    cr_assert_lt(after - best, 0.3 * (before - best), "loss: start %.5f, fitted %.5f (held out), truth %.5f", before,
                 after, best);
    double before_diff = 0, after_diff = 0;
    for (int i = 19; i < n; i += 20) {
        int t = eval_position(truth, &v, &pos[i]);
        before_diff += abs(eval_position(w0, &v, &pos[i]) - t);
        after_diff += abs(eval_position(w, &v, &pos[i]) - t);
    }
    cr_assert_lt(after_diff, 0.6 * before_diff, "mean |eval - true eval|: %.1f before, %.1f after", before_diff / (n / 20),
                 after_diff / (n / 20));
    cr_assert_eq(w->w[0][l->offset[EVAL_MATERIAL]], truth->w[0][l->offset[EVAL_MATERIAL]], "the man stays fixed");
    /* The region weights moved toward the truth: own men on first squares now count. */
    double region = 0;
    for (int i = 1; i < l->length[EVAL_REGIONS]; i += 3)
        region += w->w[0][l->offset[EVAL_REGIONS] + i] - w->w[0][l->offset[EVAL_REGIONS] + i + 1];
    cr_assert_gt(region, 0, "region weights of configurations with an own man first: %.1f more", region);
    free(held), free(pos), free(rows), free(truth), free(w), free(w0);
}

Test(train, frozen_groups_keep_their_starting_weights_while_the_others_fit, .timeout = 60)
{
    Variant v = test_variant("russian", false);
    Weights *truth = malloc(sizeof *truth), *w = malloc(sizeof *w), *w0 = malloc(sizeof *w0);
    synthetic_truth(&v, truth);
    const EvalLayout *l = &truth->layout;
    int n = 6000;
    Position *pos = malloc((size_t)n * sizeof *pos);
    DatasetRow *rows = malloc((size_t)n * sizeof *rows);
    synthetic_rows(&v, truth, 7, n, pos, rows);
    weights_default(&v, w);
    *w0 = *w;
    FitOptions o = train_fit_defaults();
    o.epochs = 5;
    o.threads = 2;
    o.frozen = 1u << EVAL_REGIONS | 1u << EVAL_MAN_SQUARE;
    FitReport r;
    char err[256];
    cr_assert_eq(train_fit(&v, w, rows, (size_t)n, &o, &r, NULL, NULL, err, sizeof err), DAMAS_OK, "%s", err);
    const EvalGroup frozen[] = {EVAL_MAN_SQUARE, EVAL_REGIONS};
    for (int p = 0; p < 2; p++) {
        for (int k = 0; k < 2; k++) {
            int g = frozen[k];
            for (int i = 0; i < l->length[g]; i++)
                cr_assert_eq(w->w[p][l->offset[g] + i], w0->w[p][l->offset[g] + i], "group %s, weight %d, phase %d moved",
                             eval_group_names[g], i, p);
        }
        cr_assert_neq(w->w[p][l->offset[EVAL_STRUCTURE]], w0->w[p][l->offset[EVAL_STRUCTURE]],
                      "tempo, not frozen, fitted (phase %d)", p);
    }
    free(pos), free(rows), free(truth), free(w), free(w0);
}

Test(train, selfplay_appends_and_a_rerun_goes_on_with_the_next_games, .init = make_dir, .fini = remove_dir,
     .timeout = 120)
{
    Variant v = test_variant("american", false);
    Weights *w = malloc(sizeof *w);
    weights_default(&v, w);
    char a[128], b[128], err[512];
    snprintf(a, sizeof a, "%s/a.h5", dir);
    snprintf(b, sizeof b, "%s/b.h5", dir);
    SelfPlayOptions o = {200, 2, 9, NULL};
    /* 12 games at once, and 5 + 7 in two runs (the second opening the file again). */
    Dataset *da = dataset_open(a, &v, err, sizeof err), *db = dataset_open(b, &v, err, sizeof err);
    cr_assert(da && db, "%s", err);
    cr_assert_eq(train_selfplay(&v, w, da, &o, 12, 0, NULL, NULL, NULL, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert_eq(train_selfplay(&v, w, db, &o, 5, 0, NULL, NULL, NULL, err, sizeof err), DAMAS_OK, "%s", err);
    dataset_close(db);
    db = dataset_open(b, &v, err, sizeof err);
    cr_assert_not_null(db, "%s", err);
    cr_assert_eq(dataset_games(db), 5);
    cr_assert_eq(train_selfplay(&v, w, db, &o, 7, 0, NULL, NULL, NULL, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert_eq(dataset_games(da), 12);
    cr_assert_eq(dataset_games(db), 12);
    uint64_t n = dataset_rows(da);
    cr_assert_gt(n, 12 * 10);
    cr_assert_eq(dataset_rows(db), n);
    DatasetRow *ra = malloc(n * sizeof *ra), *rb = malloc(n * sizeof *rb);
    cr_assert_eq(dataset_read(da, 0, n, ra, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert_eq(dataset_read(db, 0, n, rb, err, sizeof err), DAMAS_OK, "%s", err);
    for (uint64_t i = 0; i < n; i++) {
        /* Field by field: the rows' padding is not stored. */
        cr_assert(ra[i].white == rb[i].white && ra[i].black == rb[i].black && ra[i].kings == rb[i].kings &&
                      ra[i].game == rb[i].game && ra[i].label == rb[i].label && ra[i].score == rb[i].score &&
                      ra[i].side == rb[i].side && ra[i].exact == rb[i].exact,
                  "row %llu: the same games, in one run or two", (unsigned long long)i);
        Position pos;
        dataset_position(&ra[i], &pos);
        cr_assert(!movegen_has_capture(&pos, &v), "row %llu: quiet positions only", (unsigned long long)i);
        cr_assert(ra[i].label == 0 || ra[i].label == 0.5f || ra[i].label == 1);
        cr_assert_lt(ra[i].game, 12);
    }
    /* A read past the end fails; so does opening the file for another variant. */
    cr_assert_neq(dataset_read(da, n, 1, ra, err, sizeof err), DAMAS_OK);
    dataset_close(da);
    dataset_close(db);
    Variant russian = test_variant("russian", false);
    cr_assert_null(dataset_open(a, &russian, err, sizeof err));
    cr_assert(strstr(err, "american") && strstr(err, "not of russian"), "%s", err);
    free(ra), free(rb), free(w);
}

Test(train, a_damaged_data_set_is_refused_with_a_message, .init = make_dir, .fini = remove_dir)
{
    Variant v = test_variant("czech", false);
    char path[128], err[512];
    snprintf(path, sizeof path, "%s/bad.h5", dir);
    FILE *f = fopen(path, "w");
    fputs("not a data set\n", f);
    fclose(f);
    cr_assert_null(dataset_open(path, &v, err, sizeof err));
    cr_assert(strstr(err, "not an HDF5 file"), "%s", err);
    /* A row that is no position of the board (a piece on a ghost bit) is refused on reading. */
    snprintf(path, sizeof path, "%s/rows.h5", dir);
    Dataset *d = dataset_open(path, &v, err, sizeof err);
    cr_assert_not_null(d, "%s", err);
    DatasetRow bad = {1ull << 63, 0, 0, 0, 0.5f, DATASET_NO_SCORE, 0, 0};
    cr_assert_eq(dataset_append(d, &bad, 1, 1, err, sizeof err), DAMAS_OK, "%s", err);
    DatasetRow back;
    cr_assert_eq(dataset_read(d, 0, 1, &back, err, sizeof err), DAMAS_ERR_CORRUPT);
    cr_assert(strstr(err, "row 0"), "%s", err);
    dataset_close(d);
}

Test(train, a_data_set_whose_writer_was_killed_opens_with_its_rows, .init = make_dir, .fini = remove_dir)
{
    Variant v = test_variant("russian", false);
    char path[128], err[512];
    snprintf(path, sizeof path, "%s/killed.h5", dir);
    Position start;
    pos_start(&start, &v);
    DatasetRow rows[3] = {row_of(&start, 0, 1), row_of(&start, 0, 1), row_of(&start, 1, 0)};
    /* The writer appends, then is killed with the file open. */
    pid_t child = fork();
    cr_assert_geq(child, 0);
    if (child == 0) {
        Dataset *d = dataset_open(path, &v, err, sizeof err);
        if (!d || dataset_append(d, rows, 3, 2, err, sizeof err) != DAMAS_OK)
            _exit(1);
        raise(SIGKILL);
    }
    int status;
    cr_assert_eq(waitpid(child, &status, 0), child);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the writer failed before it was killed");
    Dataset *d = dataset_open(path, &v, err, sizeof err);
    cr_assert_not_null(d, "%s", err);
    cr_assert_eq(dataset_rows(d), 3);
    cr_assert_eq(dataset_games(d), 2);
    cr_assert_eq(dataset_append(d, rows, 1, 3, err, sizeof err), DAMAS_OK, "%s", err);
    DatasetRow back[4];
    cr_assert_eq(dataset_read(d, 0, 4, back, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert(back[2].game == 1 && back[2].label == 0 && back[3].white == start.pieces[WHITE]);
    dataset_close(d);
}

Test(train, a_tiny_training_run_is_reproducible_and_its_weights_load, .init = make_dir, .fini = remove_dir,
     .timeout = 180)
{
    Variant v = test_variant("italian", false);
    Weights *start = malloc(sizeof *start), *a = malloc(sizeof *a), *b = malloc(sizeof *b), *loaded = malloc(sizeof *b);
    weights_default(&v, start);
    FitOptions fit = train_fit_defaults();
    fit.epochs = 3;
    TrainOptions o = {.games = 20, .generations = 1, .nodes = 300, .threads = 2, .seed = 5, .match_games = 4, .fit = fit};
    char err[256], path[128];
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/data%d.h5", dir, k);
        Dataset *d = dataset_open(path, &v, err, sizeof err);
        cr_assert_not_null(d, "%s", err);
        cr_assert_eq(train_run(&v, start, d, &o, NULL, NULL, NULL, k ? b : a, err, sizeof err), DAMAS_OK, "%s", err);
        cr_assert_eq(dataset_games(d), 20);
        dataset_close(d);
    }
    cr_assert_eq(memcmp(a->w, b->w, sizeof a->w), 0);
    snprintf(path, sizeof path, "%s/w.h5", dir);
    cr_assert_eq(weights_save(path, a, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert_eq(weights_load(path, &v, loaded, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert_eq(memcmp(a->w, loaded->w, sizeof a->w), 0);
    free(start), free(a), free(b), free(loaded);
}

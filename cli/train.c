/* damas selfplay, fit and train: the data set, the fit, and generations of both. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/system.h"
#include "../core/variant.h"
#include "../train/train.h"
#include "../engine/pdn.h"
#include "cli.h"

static const char selfplay_help[] =
    "usage: damas selfplay --variant V [--optional-capture] --data FILE.h5 (--positions N | --games G)\n"
    "                      [--weights W] [--nodes K] [--db DIR] [--threads T] [--seed S]\n"
    "       damas selfplay --variant V --data FILE.h5 --pdn GAMES.pdn [--db DIR]\n"
    "\n"
    "Plays games with the weights W (default: the shipped ones) at K to 1.5 K nodes a move\n"
    "(default 1000) from the built-in openings plus random plies, and appends their quiet\n"
    "positions (no capture to make) to the data set FILE.h5 (created if missing; HDF5, LZ4,\n"
    "docs/FORMAT.md), labelled by the game's result or exactly by the database DIR where it\n"
    "covers them (which also ends the game), with the search's score beside. Stops when the file\n"
    "holds N positions, or after G more games. Resumable: a rerun goes on with the next games.\n"
    "With --pdn, plays nothing: the games of GAMES.pdn (real games, labelled by their results)\n"
    "are added instead, for `damas fit` to tune the weights to them.\n";

static const char fit_help[] =
    "usage: damas fit --variant V [--optional-capture] --data FILE.h5 --out WEIGHTS.h5 [--from W]\n"
    "                 [--epochs E] [--lambda L] [--lr R] [--l2 X] [--batch B] [--last N] [--threads T]\n"
    "                 [--seed S] [--freeze GROUP,...]\n"
    "\n"
    "Fits the evaluation weights to the positions of FILE.h5 by logistic regression (lazy Adam,\n"
    "every twentieth game held out, at most E epochs (default 30), stopping when the held-out\n"
    "loss has not improved for 3), starting from W (default: the compiled-in weights). The label\n"
    "is the result, or with --lambda L (0..1) the result blended with the search's score. --last\n"
    "N fits the newest N positions only. --freeze keeps the named groups' weights as they start\n"
    "(the names `damas eval` prints; e.g. --freeze rectangles fits feature set 2's weights only).\n";

static const char train_help[] =
    "usage: damas train --variant V [--optional-capture] --out WEIGHTS.h5 [--data FILE.h5] [--db DIR]\n"
    "                   [--games N] [--generations G] [--nodes K] [--threads T] [--seed S]\n"
    "                   [--match-games M] [--match-time S] [--epochs E] [--lambda L] [--window R]\n"
    "                   [--from W] [--freeze GROUP,...]\n"
    "\n"
    "Generations of self-play and fitting. Each plays N games (default 400) with the current\n"
    "weights at K nodes a move (default 1000) into the data set (default WEIGHTS.data.h5, kept\n"
    "and appended to: a rerun adds to it), fits new weights to its newest R positions (default\n"
    "all) as damas fit does, and keeps them only if they win a paired match of M games (default\n"
    "200) against the current ones. Finally the result plays M games against the compiled-in\n"
    "weights. Writes WEIGHTS.h5 (also after each generation kept), WEIGHTS.csv (one line per\n"
    "generation) and WEIGHTS.pdn (the self-play games); scripts/plot-training.sh WEIGHTS.csv draws\n"
    "the curves. The same seed and thread count give the same weights.\n"
    "  --from W   start from a weight file (default: the compiled-in weights)\n"
    "  --match-time S   play the matches at S seconds a move instead of K nodes: closer to how\n"
    "             the weights will be used (a gain at a few thousand nodes may vanish with a deeper\n"
    "             search), but no longer reproducible\n"
    "  --games FILE.pdn   no self-play: the games of FILE.pdn (real games, labelled by their\n"
    "             results) are added to the data set and the weights fitted to it once\n";

static void selfplay_progress(void *ctx, const SelfPlayReport *r)
{
    const uint64_t *target = ctx;
    bool tty = isatty(2);
    fprintf(stderr, "%s%llu games, %llu positions, %.1f games/s", tty ? "\r" : "", (unsigned long long)r->games,
            (unsigned long long)r->rows, r->games_per_second);
    if (*target && r->rows < *target && r->new_games)
        fprintf(stderr, ", ~%.0f s left",
                (double)(*target - r->rows) / ((double)r->rows / (double)r->games) / r->games_per_second);
    fputs(tty ? "   " : "\n", stderr);
    fflush(stderr);
}

/* The options every training command shares. */
typedef struct {
    const char *variant, *data, *weights, *db_dir, *out;
    bool optional;
    uint64_t nodes, threads, seed, positions, games, epochs, last, batch;
    double lambda, lr, l2;
    unsigned frozen;        /* --freeze: bit g for EvalGroup g */
    const char *freeze;     /* as given */
} TrainArgs;

/* The groups of a comma-separated list of names (eval_group_names) into *bits; false if a
 * name is not one of them. */
static bool parse_groups(const char *list, unsigned *bits)
{
    *bits = 0;
    for (const char *p = list;; p++) {
        size_t len = strcspn(p, ",");
        int g = 0;
        while (g < EVAL_GROUPS && (strlen(eval_group_names[g]) != len || strncmp(p, eval_group_names[g], len)))
            g++;
        if (g == EVAL_GROUPS)
            return false;
        *bits |= 1u << g;
        p += len;
        if (!*p)
            return true;
    }
}

/* Parses argv[*i] if it is a shared option; 1 if it was, 0 if not, -1 on a bad value. */
static int shared_option(int argc, char **argv, int *i, TrainArgs *a)
{
    const char *value;
    char *end;
    if ((value = cli_option(argc, argv, i, "--variant")))
        a->variant = value;
    else if (!strcmp(argv[*i], "--optional-capture"))
        a->optional = true;
    else if ((value = cli_option(argc, argv, i, "--data")))
        a->data = value;
    else if ((value = cli_option(argc, argv, i, "--db")))
        a->db_dir = value;
    else if ((value = cli_option(argc, argv, i, "--out")))
        a->out = value;
    else if ((value = cli_option(argc, argv, i, "--nodes"))) {
        if (!cli_uint(value, UINT64_MAX / 4, &a->nodes) || a->nodes < 1)
            return cli_error(-1, "--nodes must be a positive number, not '%s'", value);
    } else if ((value = cli_option(argc, argv, i, "--threads"))) {
        if (!cli_threads(value, &a->threads))
            return -1;
    } else if ((value = cli_option(argc, argv, i, "--seed"))) {
        if (!cli_uint(value, UINT64_MAX, &a->seed))
            return cli_error(-1, "--seed must be a number, not '%s'", value);
    } else if ((value = cli_option(argc, argv, i, "--epochs"))) {
        if (!cli_uint(value, 10000, &a->epochs) || a->epochs < 1)
            return cli_error(-1, "--epochs must be from 1 to 10000, not '%s'", value);
    } else if ((value = cli_option(argc, argv, i, "--lambda"))) {
        a->lambda = strtod(value, &end);
        if (*end || !(a->lambda >= 0 && a->lambda <= 1))
            return cli_error(-1, "--lambda must be a number from 0 to 1, not '%s'", value);
    } else if ((value = cli_option(argc, argv, i, "--lr"))) {
        a->lr = strtod(value, &end);
        if (*end || !(a->lr > 0 && a->lr < 1000))
            return cli_error(-1, "--lr must be a positive number below 1000, not '%s'", value);
    } else if ((value = cli_option(argc, argv, i, "--l2"))) {
        a->l2 = strtod(value, &end);
        if (*end || !(a->l2 >= 0 && a->l2 < 1))
            return cli_error(-1, "--l2 must be a number from 0 to below 1, not '%s'", value);
    } else if ((value = cli_option(argc, argv, i, "--freeze"))) {
        a->freeze = value;
        if (!parse_groups(value, &a->frozen)) {
            char names[256] = "";
            for (int g = 0; g < EVAL_GROUPS; g++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", g ? ", " : "", eval_group_names[g]);
            return cli_error(-1, "--freeze takes group names separated by commas (%s), not '%s'", names, value);
        }
    } else if ((value = cli_option(argc, argv, i, "--batch"))) {
        if (!cli_uint(value, 1 << 20, &a->batch) || a->batch < 1)
            return cli_error(-1, "--batch must be from 1 to %d, not '%s'", 1 << 20, value);
    } else
        return 0;
    return 1;
}

static TrainArgs train_args(void)
{
    FitOptions fit = train_fit_defaults();
    return (TrainArgs){.nodes = 1000, .threads = (uint64_t)system_cores(), .seed = 1, .epochs = 30, .lr = fit.lr,
                       .l2 = fit.l2, .lambda = fit.lambda};
}

typedef struct {
    const Variant *v;
    Dataset *d;
    DbProbe *db;
    Game *batch;
    int n;
    int rc;
    char *err;
    size_t errlen;
} Import;

enum { IMPORT_BATCH = 256 };

static bool import_flush(Import *im)
{
    if (im->n > 0 && im->rc == DAMAS_OK)
        im->rc = train_add_games(im->v, im->d, im->batch, im->n, im->db, im->err, im->errlen);
    im->n = 0;
    return im->rc == DAMAS_OK;
}

static bool import_game(void *ctx, const Game *g)
{
    Import *im = ctx;
    im->batch[im->n++] = *g;
    return im->n < IMPORT_BATCH || import_flush(im);
}

/* selfplay --pdn: the games of a PDN file into the data set. */
static int import_pdn(const TrainArgs *a, const Variant *v, const char *path)
{
    if (!a->data)
        return cli_error(CLI_USAGE, "--data FILE.h5 is required (see damas selfplay --help)");
    char err[1024];
    FILE *f = fopen(path, "r");
    if (!f)
        return cli_error(CLI_FAIL, "cannot read %s", path);
    DbProbe *db = NULL;
    if (a->db_dir && !(db = probe_open(a->db_dir, v, PROBE_CACHE_SELFPLAY, err, sizeof err))) {
        fclose(f);
        return cli_error(CLI_FAIL, "%s", err);
    }
    Dataset *d = dataset_open(a->data, v, err, sizeof err);
    Import im = {v, d, db, malloc(IMPORT_BATCH * sizeof(Game)), 0, DAMAS_OK, err, sizeof err};
    int games = -1;
    if (d && im.batch) {
        uint64_t rows0 = dataset_rows(d);
        games = pdn_read(v, f, path, import_game, &im, err, sizeof err);
        if (games >= 0 && import_flush(&im))
            printf("%s: %d games and %llu positions added from %s; %s holds %llu games, %llu positions\n", v->name,
                   games, (unsigned long long)(dataset_rows(d) - rows0), path, a->data,
                   (unsigned long long)dataset_games(d), (unsigned long long)dataset_rows(d));
    } else if (d) {
        snprintf(err, sizeof err, "out of memory");
    }
    bool ok = d && im.batch && games >= 0 && im.rc == DAMAS_OK;
    fclose(f);
    free(im.batch);
    dataset_close(d);
    probe_close(db);
    return ok ? CLI_OK : cli_error(CLI_FAIL, "%s", err);
}

int cmd_selfplay(int argc, char **argv)
{
    TrainArgs a = train_args();
    const char *pdn = NULL;
    for (int i = 1; i < argc; i++) {
        const char *value;
        int k;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(selfplay_help, stdout);
            return CLI_OK;
        } else if ((k = shared_option(argc, argv, &i, &a))) {
            if (k < 0)
                return CLI_USAGE;
        } else if ((value = cli_option(argc, argv, &i, "--weights"))) {
            a.weights = value;
        } else if ((value = cli_option(argc, argv, &i, "--positions"))) {
            if (!cli_uint(value, UINT64_MAX / 4, &a.positions) || a.positions < 1)
                return cli_error(CLI_USAGE, "--positions must be a positive number, not '%s'", value);
        } else if ((value = cli_option(argc, argv, &i, "--games"))) {
            if (!cli_uint(value, UINT32_MAX / 2, &a.games) || a.games < 1)
                return cli_error(CLI_USAGE, "--games must be a positive number, not '%s'", value);
        } else if ((value = cli_option(argc, argv, &i, "--pdn"))) {
            pdn = value;
        } else {
            return cli_error(CLI_USAGE, "unexpected argument '%s' (see damas selfplay --help)", argv[i]);
        }
    }
    Variant v;
    if (!cli_variant(a.variant, a.optional, &v))
        return CLI_USAGE;
    if (pdn)
        return import_pdn(&a, &v, pdn);
    if (!a.data || (!a.positions && !a.games))
        return cli_error(CLI_USAGE, "--data and --positions or --games are required (see damas selfplay --help)");
    Weights *w = malloc(sizeof *w);
    if (!w)
        return cli_error(CLI_FAIL, "out of memory");
    if (!cli_weights(a.weights, &v, w)) {
        free(w);
        return CLI_FAIL;
    }
    char err[1024];
    DbProbe *db = NULL;
    if (a.db_dir && !(db = probe_open(a.db_dir, &v, PROBE_CACHE_SELFPLAY, err, sizeof err))) {
        free(w);
        return cli_error(CLI_FAIL, "%s", err);
    }
    Dataset *d = dataset_open(a.data, &v, err, sizeof err);
    if (!d) {
        free(w);
        probe_close(db);
        return cli_error(CLI_FAIL, "%s", err);
    }
    uint64_t rows0 = dataset_rows(d), games0 = dataset_games(d);
    SelfPlayOptions o = {a.nodes, (int)a.threads, a.seed, db};
    double t0 = system_now();
    int rc = train_selfplay(&v, w, d, &o, a.games, a.positions, selfplay_progress, &a.positions, NULL, err,
                            sizeof err);
    if (isatty(2))
        fputc('\n', stderr);
    if (rc == DAMAS_OK)
        printf("%s: %llu games and %llu positions added in %.0f s; %s holds %llu games, %llu positions\n", v.name,
               (unsigned long long)(dataset_games(d) - games0), (unsigned long long)(dataset_rows(d) - rows0),
               system_now() - t0, a.data, (unsigned long long)dataset_games(d), (unsigned long long)dataset_rows(d));
    dataset_close(d);
    probe_close(db);
    free(w);
    return rc == DAMAS_OK ? CLI_OK : cli_error(CLI_FAIL, "%s", err);
}

static void fit_progress(void *ctx, const FitReport *r)
{
    (void)ctx;
    fprintf(stderr, "epoch %d: loss %.5f, held out %.5f (best %.5f, start %.5f), scale %.1f, %.0f s\n", r->epoch,
            r->train_loss, r->epoch_heldout, r->heldout_loss, r->start_loss, r->scale, r->seconds);
}

/* The rows of the data set at path (the newest `last`, 0: all) in *rows. */
static int read_rows(const char *path, const Variant *v, uint64_t last, DatasetRow **rows, uint64_t *n, char *err,
                     size_t errlen)
{
    if (access(path, R_OK) != 0) {
        snprintf(err, errlen, "%s: no such data set (make one with damas selfplay)", path);
        return DAMAS_ERR_UNKNOWN;
    }
    Dataset *d = dataset_open(path, v, err, errlen);
    if (!d)
        return DAMAS_ERR_CORRUPT;
    uint64_t total = dataset_rows(d);
    *n = last && last < total ? last : total;
    *rows = malloc((size_t)(*n ? *n : 1) * sizeof **rows);
    int rc = *rows ? dataset_read(d, total - *n, (size_t)*n, *rows, err, errlen) : DAMAS_ERR_NOMEM;
    if (!*rows)
        snprintf(err, errlen, "out of memory for %llu positions", (unsigned long long)*n);
    dataset_close(d);
    return rc;
}

static int fit_to(const TrainArgs *a, const Variant *v, const char *from);

int cmd_fit(int argc, char **argv)
{
    TrainArgs a = train_args();
    const char *from = NULL;
    for (int i = 1; i < argc; i++) {
        const char *value;
        int k;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(fit_help, stdout);
            return CLI_OK;
        } else if ((k = shared_option(argc, argv, &i, &a))) {
            if (k < 0)
                return CLI_USAGE;
        } else if ((value = cli_option(argc, argv, &i, "--from"))) {
            from = value;
        } else if ((value = cli_option(argc, argv, &i, "--last"))) {
            if (!cli_uint(value, UINT64_MAX / 4, &a.last) || a.last < 1)
                return cli_error(CLI_USAGE, "--last must be a positive number, not '%s'", value);
        } else {
            return cli_error(CLI_USAGE, "unexpected argument '%s' (see damas fit --help)", argv[i]);
        }
    }
    Variant v;
    if (!cli_variant(a.variant, a.optional, &v))
        return CLI_USAGE;
    if (!a.data || !a.out)
        return cli_error(CLI_USAGE, "--data and --out are required (see damas fit --help)");
    return fit_to(&a, &v, from);
}

/* The fit of a->data's positions into a->out, starting from `from` (NULL: compiled-in). */
static int fit_to(const TrainArgs *ta, const Variant *vp, const char *from)
{
    TrainArgs a = *ta;
    Variant v = *vp;
    Weights *w = malloc(sizeof *w);
    if (!w)
        return cli_error(CLI_FAIL, "out of memory");
    if (!cli_weights(from ? from : "builtin", &v, w)) {
        free(w);
        return CLI_FAIL;
    }
    char err[1024];
    DatasetRow *rows = NULL;
    uint64_t n = 0;
    double t0 = system_now();
    if (read_rows(a.data, &v, a.last, &rows, &n, err, sizeof err) != DAMAS_OK) {
        free(w);
        free(rows);
        return cli_error(CLI_FAIL, "%s", err);
    }
    fprintf(stderr, "%llu positions read in %.1f s\n", (unsigned long long)n, system_now() - t0);
    FitOptions o = train_fit_defaults();
    o.epochs = (int)a.epochs;
    o.lambda = a.lambda;
    o.lr = a.lr;
    o.l2 = a.l2;
    o.frozen = a.frozen;
    o.threads = (int)a.threads;
    o.seed = a.seed;
    if (a.batch)
        o.batch = (int)a.batch;
    FitReport r;
    int rc = train_fit(&v, w, rows, (size_t)n, &o, &r, fit_progress, NULL, err, sizeof err);
    free(rows);
    if (rc == DAMAS_OK) {
        time_t t = time(NULL);
        char date[32];
        strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
        snprintf(w->provenance, sizeof w->provenance,
                 "damas %s fit --variant %s --data %s --epochs %d --lambda %g --lr %g --l2 %g --batch %d --seed %llu%s%s%s%s%s; "
                 "%s; %llu positions (%llu held out), scale %.1f, held-out loss %.5f (start %.5f) after %d epochs",
                 DAMAS_VERSION_TEXT, v.name, a.data, o.epochs, o.lambda, o.lr, o.l2, o.batch, (unsigned long long)o.seed,
                 from ? " --from " : "", from ? from : "", a.freeze ? " --freeze " : "",
                 a.freeze ? a.freeze : "", a.last ? " (newest positions only)" : "", date,
                 (unsigned long long)r.train_rows, (unsigned long long)r.heldout_rows, r.scale, r.heldout_loss,
                 r.start_loss, r.epoch);
        w->meta = (WeightsMeta){true, 0, 0, r.train_rows + r.heldout_rows, NAN, NAN, NAN, a.seed, "", DAMAS_VERSION_TEXT};
        snprintf(w->meta.date, sizeof w->meta.date, "%s", date);
        rc = weights_save(a.out, w, err, sizeof err);
    }
    if (rc == DAMAS_OK)
        printf("%s: fitted %llu positions in %.0f s: held-out loss %.5f (from %.5f), scale %.1f; weights in %s\n",
               v.name, (unsigned long long)n, system_now() - t0, r.heldout_loss, r.start_loss, r.scale, a.out);
    free(w);
    return rc == DAMAS_OK ? CLI_OK : cli_error(CLI_FAIL, "%s", err);
}

typedef struct {
    FILE *csv;
    bool tty;
    int generations;
    const char *out;
    const Variant *v;
    int failed;
    char err[1024];
    const char *stage;   /* of the last line printed, when stderr is no terminal */
    uint64_t tenth;      /* the tenth of that stage it was printed at */
} TrainLog;

/* What the stage in progress has done, for a progress line. */
static void stage_detail(const TrainReport *r, char *buf, size_t len)
{
    if (!strcmp(r->stage, "self-play"))
        snprintf(buf, len, "%llu/%llu games (%.1f games/s), %llu positions in the data set",
                 (unsigned long long)r->done, (unsigned long long)r->total, r->games_per_second,
                 (unsigned long long)r->rows);
    else if (!strcmp(r->stage, "fitting") && r->done > 0)
        snprintf(buf, len, "epoch %llu (at most %llu), held-out loss %.5f", (unsigned long long)r->done,
                 (unsigned long long)r->total, r->fit.epoch_heldout);
    else if (!strcmp(r->stage, "match") && r->done >= 4)
        snprintf(buf, len, "%llu/%llu games, Elo new - current %+.0f (%+.0f to %+.0f)", (unsigned long long)r->done,
                 (unsigned long long)r->total, r->elo, r->elo_low, r->elo_high);
    else if (!strcmp(r->stage, "match"))
        snprintf(buf, len, "%llu/%llu games", (unsigned long long)r->done, (unsigned long long)r->total);
    else
        buf[0] = 0;
}

static void train_progress(void *ctx, const TrainReport *r)
{
    TrainLog *log = ctx;
    double per_generation = r->generation > 1 ? r->seconds / (r->generation - (strcmp(r->stage, "done") ? 1 : 0)) : 0;
    double left = per_generation > 0 ? per_generation * (log->generations - r->generation) : 0;
    if (!strcmp(r->stage, "done")) {
        fprintf(stderr, "%sgeneration %d/%d: %llu games (%.1f games/s), %llu positions, loss %.4f (held out %.4f), "
                        "Elo %+.1f [%+.1f, %+.1f] %s; %.0f s, ~%.0f s left\n",
                log->tty ? "\r" : "", r->generation, log->generations, (unsigned long long)r->games,
                r->games_per_second, (unsigned long long)r->rows, r->fit.train_loss, r->fit.heldout_loss, r->elo,
                r->elo_low, r->elo_high, r->accepted ? "kept" : "rejected", r->seconds, left);
        fprintf(log->csv, "%d,%llu,%llu,%.3f,%.6f,%.6f,%.2f,%.2f,%.2f,%d,%.1f\n", r->generation,
                (unsigned long long)r->games, (unsigned long long)r->rows, r->games_per_second, r->fit.train_loss,
                r->fit.heldout_loss, r->elo, r->elo_low, r->elo_high, r->accepted, r->seconds);
        fflush(log->csv);
        /* The weights kept so far are on disk after each generation: a stopped run loses little. */
        if (r->accepted && !log->failed &&
            weights_save(log->out, r->current, log->err, sizeof log->err) != DAMAS_OK)
            log->failed = 1;
    } else {
        /* On a terminal one line, rewritten; in a log a line as each stage begins and at each
         * tenth of it. */
        uint64_t tenth = r->total ? r->done * 10 / r->total : 0;
        if (log->tty || !log->stage || strcmp(log->stage, r->stage) || tenth != log->tenth) {
            char detail[256];
            stage_detail(r, detail, sizeof detail);
            fprintf(stderr, "%sgeneration %d/%d: %s%s%s; %.0f s%s", log->tty ? "\r" : "", r->generation,
                    log->generations, r->stage, detail[0] ? ", " : "", detail, r->seconds, log->tty ? "   " : "\n");
            log->stage = r->stage;
            log->tenth = tenth;
        }
    }
    fflush(stderr);
}

int cmd_train(int argc, char **argv)
{
    TrainArgs a = train_args();
    const char *from = NULL, *games_pdn = NULL, *value;
    uint64_t games = 400, generations = 3, match_games = 200, window = 0;
    double match_seconds = 0;
    a.epochs = 20;
    for (int i = 1; i < argc; i++) {
        int k;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(train_help, stdout);
            return CLI_OK;
        } else if ((k = shared_option(argc, argv, &i, &a))) {
            if (k < 0)
                return CLI_USAGE;
        } else if ((value = cli_option(argc, argv, &i, "--from"))) {
            from = value;
        } else if ((value = cli_option(argc, argv, &i, "--games"))) {
            bool number = cli_uint(value, 1000000, &games);
            if (!number && access(value, R_OK) == 0)
                games_pdn = value;
            else if (!number || games < 10)
                return cli_error(CLI_USAGE, "--games must be a number from 10 or a readable PDN file, not '%s'",
                                 value);
        } else if ((value = cli_option(argc, argv, &i, "--generations"))) {
            if (!cli_uint(value, 10000, &generations) || generations < 1)
                return cli_error(CLI_USAGE, "--generations must be a positive number, not '%s'", value);
        } else if ((value = cli_option(argc, argv, &i, "--match-games"))) {
            if (!cli_uint(value, 1000000, &match_games) || match_games < 2 || match_games % 2)
                return cli_error(CLI_USAGE, "--match-games must be an even number from 2, not '%s'", value);
        } else if ((value = cli_option(argc, argv, &i, "--match-time"))) {
            if (!cli_seconds(value, &match_seconds))
                return cli_error(CLI_USAGE, "--match-time must be a positive number of seconds, not '%s'", value);
        } else if ((value = cli_option(argc, argv, &i, "--window"))) {
            if (!cli_uint(value, UINT64_MAX / 4, &window) || window < 1)
                return cli_error(CLI_USAGE, "--window must be a positive number, not '%s'", value);
        } else {
            return cli_error(CLI_USAGE, "unexpected argument '%s' (see damas train --help)", argv[i]);
        }
    }
    Variant v;
    if (!cli_variant(a.variant, a.optional, &v))
        return CLI_USAGE;
    const char *out = a.out;
    if (!out)
        return cli_error(CLI_USAGE, "--out WEIGHTS.h5 is required (see damas train --help)");
    size_t len = strlen(out);
    char base[4096], csv_path[4200], pdn_path[4200], data_path[4200];
    snprintf(base, sizeof base, "%.*s", (int)(len > 3 && !strcmp(out + len - 3, ".h5") ? len - 3 : len), out);
    snprintf(csv_path, sizeof csv_path, "%s.csv", base);
    snprintf(pdn_path, sizeof pdn_path, "%s.pdn", base);
    snprintf(data_path, sizeof data_path, "%s.data.h5", base);
    if (games_pdn) {   /* real games instead of self-play: into the data set, then one fit */
        if (!a.data)
            a.data = data_path;
        int rc = import_pdn(&a, &v, games_pdn);
        return rc == CLI_OK ? fit_to(&a, &v, from) : rc;
    }
    Weights *start = malloc(sizeof *start), *result = malloc(sizeof *result);
    if (!start || !result)
        return cli_error(CLI_FAIL, "out of memory");
    if (!cli_weights(from ? from : "builtin", &v, start))
        return CLI_FAIL;
    char err[1024];
    DbProbe *db = NULL;
    if (a.db_dir && !(db = probe_open(a.db_dir, &v, PROBE_CACHE_SELFPLAY, err, sizeof err)))
        return cli_error(CLI_FAIL, "%s", err);
    Dataset *d = dataset_open(a.data ? a.data : data_path, &v, err, sizeof err);
    if (!d)
        return cli_error(CLI_FAIL, "%s", err);
    FILE *csv = fopen(csv_path, "w"), *pdn = fopen(pdn_path, "w");
    if (!csv || !pdn)
        return cli_error(CLI_FAIL, "cannot write %s and %s", csv_path, pdn_path);
    fprintf(csv, "generation,games,positions,games_per_second,train_loss,heldout_loss,elo,elo_low,elo_high,accepted,"
                 "seconds\n");
    TrainLog log = {csv, isatty(2), (int)generations, out, &v, 0, "", NULL, 0};
    FitOptions fit = train_fit_defaults();
    fit.epochs = (int)a.epochs;
    fit.lambda = a.lambda;
    fit.lr = a.lr;
    fit.l2 = a.l2;
    fit.frozen = a.frozen;
    if (a.batch)
        fit.batch = (int)a.batch;
    TrainOptions o = {(int)games, (int)generations, a.nodes, (int)a.threads, a.seed, (int)match_games, match_seconds,
                      window, fit, db};
    double t0 = system_now();
    if (train_run(&v, start, d, &o, train_progress, &log, pdn, result, err, sizeof err) != DAMAS_OK)
        return cli_error(CLI_FAIL, "%s", err);
    if (log.failed)
        return cli_error(CLI_FAIL, "%s", log.err);
    uint64_t positions = dataset_rows(d), played = dataset_games(d);
    dataset_close(d);
    /* The result against the compiled-in weights. */
    Position *openings = malloc(MATCH_OPENINGS_MAX * sizeof *openings);
    int nopen = openings ? match_openings_for(&v, (int)match_games / 2, openings, MATCH_OPENINGS_MAX) : 0;
    Weights *builtin = malloc(sizeof *builtin);
    if (!nopen || !builtin)
        return cli_error(CLI_FAIL, "out of memory");
    cli_weights("builtin", &v, builtin);
    Player players[2] = {{"trained", result, NULL, NULL, 0, NULL}, {"builtin", builtin, NULL, NULL, 0, NULL}};
    SearchLimits limits = train_match_limits(&o);
    MatchResult m;
    CliMatchProgress progress = {system_now(), (int)match_games};
    fprintf(stderr, "final match against the compiled-in weights:\n");
    int rc = match_run(&v, players, openings, nopen, (int)match_games, &limits, (int)a.threads, a.seed + 1, db, NULL,
                       &m, cli_match_progress, &progress, err, sizeof err);
    if (isatty(2))
        fputc('\n', stderr);
    if (rc != DAMAS_OK)
        return cli_error(CLI_FAIL, "the final match: %s", err);
    time_t t = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
    char time_option[48] = "";
    if (match_seconds > 0)
        snprintf(time_option, sizeof time_option, " --match-time %g", match_seconds);
    snprintf(result->provenance, sizeof result->provenance,
             "damas %s train --variant %s --generations %llu --games %llu --nodes %llu --epochs %d --lambda %g "
             "--threads %llu --seed %llu%s%s%s; "
             "%s; %llu games, %llu positions in the data set; final match against the compiled-in weights: %d games, "
             "+%d =%d -%d, Elo %+.1f [%+.1f, %+.1f]",
             DAMAS_VERSION_TEXT, v.name, (unsigned long long)generations, (unsigned long long)games,
             (unsigned long long)a.nodes, fit.epochs, fit.lambda, (unsigned long long)a.threads,
             (unsigned long long)a.seed, time_option,
             from ? " --from " : "", from ? from : "", date, (unsigned long long)played, (unsigned long long)positions,
             m.games, m.wins, m.draws, m.losses, m.elo, m.low, m.high);
    result->meta = (WeightsMeta){true,   (int)generations, played, positions, m.elo, m.low, m.high,
                                 a.seed, "",               DAMAS_VERSION_TEXT};
    snprintf(result->meta.date, sizeof result->meta.date, "%s", date);
    if (weights_save(out, result, err, sizeof err) != DAMAS_OK)
        return cli_error(CLI_FAIL, "%s", err);
    char elo[128];
    match_elo_text(&m, elo, sizeof elo);
    /* A comment line gnuplot skips; scripts/plot-training.sh puts it in the plot's title. */
    fprintf(csv, "# final match against the compiled-in weights: %d games, +%d =%d -%d, Elo %s\n", m.games, m.wins,
            m.draws, m.losses, elo);
    fclose(csv);
    fclose(pdn);
    printf("trained %s weights in %.0f s: against the compiled-in weights %d games, +%d =%d -%d, Elo %s\n", v.name,
           system_now() - t0, m.games, m.wins, m.draws, m.losses, elo);
    printf("weights: %s\nlog: %s\ngames: %s\ndata: %s\nplot: scripts/plot-training.sh %s\n", out, csv_path, pdn_path,
           a.data ? a.data : data_path, csv_path);
    free(openings);
    free(builtin);
    free(start);
    free(result);
    probe_close(db);
    return CLI_OK;
}

/* damas train: self-play training, with its log, games and final match. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/variant.h"
#include "../train/train.h"
#include "cli.h"

static const char train_help[] =
    "usage: damas train --variant V [--optional-capture] --out WEIGHTS.h5 [--db DIR] [--games N]\n"
    "                   [--generations G] [--nodes K] [--threads T] [--seed S] [--match-games M]\n"
    "                   [--epochs E] [--from W]\n"
    "\n"
    "Tunes the evaluation by self-play. Each generation plays N games (default 400) with the\n"
    "current weights at K nodes a move (default 1000) from the built-in openings plus random\n"
    "plies, labels their quiet positions by the result (or exactly by the database DIR where it\n"
    "covers them, which also ends games early), fits the weights by logistic regression (Adam,\n"
    "E epochs, default 20, a tenth of the games held out), and keeps the new weights only if they\n"
    "win a paired match of M games (default 200) against the current ones. Finally the result\n"
    "plays M games against the compiled-in weights. Writes WEIGHTS.h5, WEIGHTS.csv (one line per\n"
    "generation) and WEIGHTS.pdn (the self-play games); scripts/plot-training.sh WEIGHTS.csv\n"
    "draws the Elo and loss curves. The same seed and thread count give the same weights.\n"
    "  --from W   start from a weight file (default: the compiled-in weights)\n";

typedef struct {
    FILE *csv;
    bool tty;
    int generations;
    uint64_t positions;
} TrainLog;

static void train_progress(void *ctx, const TrainReport *r)
{
    TrainLog *log = ctx;
    double per_generation = r->generation > 1 ? r->seconds / (r->generation - (strcmp(r->stage, "done") ? 1 : 0)) : 0;
    double left = per_generation > 0 ? per_generation * (log->generations - r->generation) : 0;
    if (!strcmp(r->stage, "done")) {
        log->positions += (uint64_t)r->positions;
        fprintf(stderr, "%sgeneration %d/%d: %d games (%.1f games/s), %d positions, loss %.4f (held out %.4f), "
                        "Elo %+.1f [%+.1f, %+.1f] %s; %.0f s, ~%.0f s left\n",
                log->tty ? "\r" : "", r->generation, log->generations, r->games, r->games_per_second, r->positions,
                r->train_loss, r->heldout_loss, r->elo, r->elo_low, r->elo_high, r->accepted ? "kept" : "rejected",
                r->seconds, left);
        fprintf(log->csv, "%d,%d,%d,%.3f,%.6f,%.6f,%.2f,%.2f,%.2f,%d,%.1f\n", r->generation, r->games, r->positions,
                r->games_per_second, r->train_loss, r->heldout_loss, r->elo, r->elo_low, r->elo_high, r->accepted,
                r->seconds);
        fflush(log->csv);
    } else if (log->tty) {
        fprintf(stderr, "\rgeneration %d/%d: %-10s %.0f s   ", r->generation, log->generations, r->stage, r->seconds);
    }
    fflush(stderr);
}

int cmd_train(int argc, char **argv)
{
    const char *variant = NULL, *out = NULL, *db_dir = NULL, *from = NULL, *value;
    bool optional = false;
    uint64_t games = 400, generations = 3, nodes = 1000, threads = 1, seed = 1, match_games = 200, epochs = 20;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    threads = n > 0 ? (uint64_t)n : 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(train_help, stdout);
            return CLI_OK;
        } else if ((value = cli_option(argc, argv, &i, "--variant"))) {
            variant = value;
        } else if (!strcmp(argv[i], "--optional-capture")) {
            optional = true;
        } else if ((value = cli_option(argc, argv, &i, "--out"))) {
            out = value;
        } else if ((value = cli_option(argc, argv, &i, "--db"))) {
            db_dir = value;
        } else if ((value = cli_option(argc, argv, &i, "--from"))) {
            from = value;
        } else if ((value = cli_option(argc, argv, &i, "--games"))) {
            if (!cli_uint(value, 1000000, &games) || games < 10)
                return cli_error(CLI_USAGE, "--games must be a number from 10, not '%s'", value);
        } else if ((value = cli_option(argc, argv, &i, "--generations"))) {
            if (!cli_uint(value, 10000, &generations) || generations < 1)
                return cli_error(CLI_USAGE, "--generations must be a positive number, not '%s'", value);
        } else if ((value = cli_option(argc, argv, &i, "--nodes"))) {
            if (!cli_uint(value, UINT64_MAX, &nodes) || nodes < 1)
                return cli_error(CLI_USAGE, "--nodes must be a positive number, not '%s'", value);
        } else if ((value = cli_option(argc, argv, &i, "--match-games"))) {
            if (!cli_uint(value, 1000000, &match_games) || match_games < 2 || match_games % 2)
                return cli_error(CLI_USAGE, "--match-games must be an even number from 2, not '%s'", value);
        } else if ((value = cli_option(argc, argv, &i, "--epochs"))) {
            if (!cli_uint(value, 10000, &epochs) || epochs < 1)
                return cli_error(CLI_USAGE, "--epochs must be a positive number, not '%s'", value);
        } else if ((value = cli_option(argc, argv, &i, "--threads"))) {
            if (!cli_threads(value, &threads))
                return CLI_USAGE;
        } else if ((value = cli_option(argc, argv, &i, "--seed"))) {
            if (!cli_uint(value, UINT64_MAX, &seed))
                return cli_error(CLI_USAGE, "--seed must be a number, not '%s'", value);
        } else {
            return cli_error(CLI_USAGE, "unexpected argument '%s' (see damas train --help)", argv[i]);
        }
    }
    Variant v;
    if (!cli_variant(variant, optional, &v))
        return CLI_USAGE;
    if (!out)
        return cli_error(CLI_USAGE, "--out WEIGHTS.h5 is required (see damas train --help)");
    size_t len = strlen(out);
    char base[4096], csv_path[4200], pdn_path[4200];
    snprintf(base, sizeof base, "%.*s", (int)(len > 3 && !strcmp(out + len - 3, ".h5") ? len - 3 : len), out);
    snprintf(csv_path, sizeof csv_path, "%s.csv", base);
    snprintf(pdn_path, sizeof pdn_path, "%s.pdn", base);
    Weights *start = malloc(sizeof *start), *result = malloc(sizeof *result);
    if (!start || !result)
        return cli_error(CLI_FAIL, "out of memory");
    if (!cli_weights(from ? from : "builtin", &v, start))
        return CLI_FAIL;
    char err[1024];
    DbProbe *db = NULL;
    if (db_dir && !(db = probe_open(db_dir, &v, 512 << 20, err, sizeof err)))
        return cli_error(CLI_FAIL, "%s", err);
    FILE *csv = fopen(csv_path, "w"), *pdn = fopen(pdn_path, "w");
    if (!csv || !pdn)
        return cli_error(CLI_FAIL, "cannot write %s and %s", csv_path, pdn_path);
    fprintf(csv, "generation,games,positions,games_per_second,train_loss,heldout_loss,elo,elo_low,elo_high,accepted,"
                 "seconds\n");
    TrainLog log = {csv, isatty(2), (int)generations, 0};
    TrainOptions o = {(int)games, (int)generations, nodes, (int)threads, seed, (int)match_games, (int)epochs, db};
    TrainHooks hooks = {train_progress, &log, pdn};
    double t0 = cli_now();
    if (train_run(&v, start, &o, &hooks, result, err, sizeof err) != DAMAS_OK)
        return cli_error(CLI_FAIL, "%s", err);
    /* The result against the compiled-in weights. */
    Position *openings = malloc(4096 * sizeof *openings);
    int nopen = match_openings_for(&v, (int)match_games / 2, openings, 4096);
    Weights *builtin = malloc(sizeof *builtin);
    cli_weights("builtin", &v, builtin);
    Player players[2] = {{"trained", result, NULL}, {"builtin", builtin, NULL}};
    SearchLimits limits = {0, nodes, 0};
    MatchResult m;
    char merr[1024];
    if (match_run(&v, players, openings, nopen, (int)match_games, &limits, (int)threads, seed + 1, db, NULL, &m, NULL,
                  NULL, merr, sizeof merr) != DAMAS_OK)
        return cli_error(CLI_FAIL, "the final match: %s", merr);
    time_t t = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
    snprintf(result->provenance, sizeof result->provenance,
             "damas %s train --variant %s --generations %llu --games %llu --nodes %llu --threads %llu --seed %llu%s%s; "
             "%s; final match against the compiled-in weights: %d games, +%d =%d -%d, Elo %+.1f [%+.1f, %+.1f]",
             DAMAS_VERSION_TEXT, v.name, (unsigned long long)generations, (unsigned long long)games,
             (unsigned long long)nodes, (unsigned long long)threads, (unsigned long long)seed, from ? " --from " : "",
             from ? from : "", date, m.games, m.wins, m.draws, m.losses, m.elo, m.low, m.high);
    result->meta = (WeightsMeta){true, (int)generations, (uint64_t)(games * generations), log.positions, m.elo, m.low, m.high,
                                 seed, "", DAMAS_VERSION_TEXT};
    snprintf(result->meta.date, sizeof result->meta.date, "%s", date);
    if (weights_save(out, result, err, sizeof err) != DAMAS_OK)
        return cli_error(CLI_FAIL, "%s", err);
    fclose(csv);
    fclose(pdn);
    printf("trained %s weights in %.0f s: against the compiled-in weights %d games, +%d =%d -%d, Elo %+.1f "
           "(95%% interval %+.1f to %+.1f)\n",
           v.name, cli_now() - t0, m.games, m.wins, m.draws, m.losses, m.elo, m.low, m.high);
    printf("weights: %s\nlog: %s\ngames: %s\nplot: scripts/plot-training.sh %s\n", out, csv_path, pdn_path, csv_path);
    free(openings);
    free(builtin);
    free(start);
    free(result);
    probe_close(db);
    return CLI_OK;
}

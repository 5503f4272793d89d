/* damas analyze, eval and bench: the search and the evaluation from the command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/notation.h"
#include "../engine/search.h"
#include "../gen/gen.h"
#include "../core/variant.h"
#include "cli.h"

typedef struct {
    const char *dir;
    bool said;
} TablesNote;

static void tables_building(void *ctx, const GenUnitReport *r)
{
    TablesNote *note = ctx;
    if (!r->skipped && !note->said) {
        fprintf(stderr, "damas: building the endgame tables of up to %d pieces in %s (once)\n", CLI_TABLES_PIECES,
                note->dir);
        note->said = true;
    }
}

bool cli_engine_db(const char *dir, const Variant *v, DbProbe **out, char *err, size_t errlen)
{
    *out = NULL;
    if (dir && !strcmp(dir, "none"))
        return true;
    if (dir && dir[0])
        return (*out = probe_open(dir, v, PROBE_CACHE_SEARCH, err, errlen)) != NULL;
    char root[2048], tables[2560], why[1024];
    const char *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (cache && cache[0] == '/')
        snprintf(root, sizeof root, "%s/damas", cache);
    else if (home && home[0] == '/')
        snprintf(root, sizeof root, "%s/.cache/damas", home);
    else {
        fprintf(stderr, "warning: no endgame tables (neither XDG_CACHE_HOME nor HOME is set): give --db DIR\n");
        return true;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    TablesNote note = {tables, false};
    GenProgress progress = {tables_building, &note, NULL, NULL};
    if (gen_cached(v, CLI_TABLES_PIECES, root, cores > 0 && cores < 64 ? (int)cores : 1, &progress, tables,
                   sizeof tables, why, sizeof why) != DAMAS_OK ||
        !(*out = probe_open(tables, v, PROBE_CACHE_SEARCH, why, sizeof why)))
        fprintf(stderr, "warning: playing without endgame tables: %s\n", why);
    return true;
}

static const char analyze_help[] =
    "usage: damas analyze --variant V [--optional-capture] [--weights W] [--db DIR]\n"
    "                     [--depth D | --nodes N | --time S] [--tt-mb M] FEN\n"
    "\n"
    "Searches FEN and prints, per completed iteration, the depth, score (in men for the side to\n"
    "move, or the plies to a forced end), nodes, speed, database hits and the principal variation;\n"
    "then the best move. Without a limit it searches 5 seconds.\n"
    CLI_WEIGHTS_HELP CLI_DB_HELP;

static const char eval_help[] =
    "usage: damas eval --variant V [--optional-capture] [--weights W] FEN\n"
    "\n"
    "The static evaluation of FEN for the side to move, in men, and each feature group's share.\n"
    CLI_WEIGHTS_HELP;

static const char bench_help[] =
    "usage: damas bench [--depth D] [--weights W]\n"
    "\n"
    "Searches a compiled-in list of positions of every variant to a fixed depth (default 9; two\n"
    "less on 10x10) with the weights W (default 'builtin', the compiled-in ones; 'default' for the\n"
    "shipped ones), one thread, and ends with `OVERALL: <nodes> nodes <nps> nps`. With the\n"
    "compiled-in weights the node count changes only when the search's behaviour changes.\n";

/* The shipped weights of v: $DAMAS_WEIGHTS/<variant>.h5, else eval/weights/<variant>.h5 in
 * the binary's directory (the source tree), else ../share/damas/weights/<variant>.h5 from it
 * (`make install`); false if there are none, or (with a warning) if they cannot be read. */
static bool shipped_weights(const Variant *v, Weights *out)
{
    char path[4096], exe[4096];
    const char *env = getenv("DAMAS_WEIGHTS");
    if (env) {
        snprintf(path, sizeof path, "%s/%s.h5", env, v->name);
    } else {
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n <= 0)
            return false;
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        snprintf(path, sizeof path, "%.2000s/eval/weights/%.32s.h5", exe, v->name);
        if (access(path, R_OK) != 0)
            snprintf(path, sizeof path, "%.2000s/../share/damas/weights/%.32s.h5", exe, v->name);
    }
    char err[1024];
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "warning: no shipped weights for %s at %s (set DAMAS_WEIGHTS to their directory); using "
                "the compiled-in weights\n", v->name, path);
        return false;
    }
    if (weights_load(path, v, out, err, sizeof err) != DAMAS_OK) {
        fprintf(stderr, "warning: %s; using the compiled-in weights\n", err);
        return false;
    }
    return true;
}

bool cli_weights(const char *arg, const Variant *v, Weights *out)
{
    char err[1024];
    if (!arg || !strcmp(arg, "default")) {
        if (!shipped_weights(v, out))
            weights_default(v, out);
        return true;
    }
    if (!strcmp(arg, "builtin")) {
        weights_default(v, out);
        return true;
    }
    if (!strcmp(arg, "material")) {
        weights_material(v, out);
        return true;
    }
    if (weights_load(arg, v, out, err, sizeof err) != DAMAS_OK) {
        cli_error(CLI_FAIL, "%s", err);
        return false;
    }
    return true;
}

void cli_score_text(int score, char *buf, size_t len)
{
    if (score > SEARCH_WIN_MIN)
        snprintf(buf, len, "win in %d", SEARCH_WIN - score);
    else if (score < -SEARCH_WIN_MIN)
        snprintf(buf, len, "loss in %d", SEARCH_WIN + score);
    else
        snprintf(buf, len, "%+.2f", score / 100.0);
}

void cli_pv_text(const Variant *v, const Position *pos, const Move *pv, int n, char *buf, size_t len)
{
    Position cur = *pos;
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < n && used + NOTATION_MOVE_MAX + 2 < len; k++) {
        char text[NOTATION_MOVE_MAX];
        notation_move_write(v, &cur, &pv[k], NOTATION_NATIVE, text);
        used += (size_t)snprintf(buf + used, len - used, "%s%s", k ? " " : "", text);
        Undo u;
        pos_make(&cur, &pv[k], &u);
    }
}

typedef struct {
    const Variant *v;
    const Position *pos;
} AnalyzeCtx;

static void analyze_report(void *ctx, const SearchInfo *info)
{
    const AnalyzeCtx *a = ctx;
    char score[32], pv[4096];
    cli_score_text(info->score, score, sizeof score);
    cli_pv_text(a->v, a->pos, info->pv, info->pv_length, pv, sizeof pv);
    printf("depth %2d  score %-10s nodes %12llu  %6.2f M nodes/s  db hits %llu  %.2f s  pv %s\n", info->depth, score,
           (unsigned long long)info->nodes, info->seconds > 0 ? (double)info->nodes / info->seconds / 1e6 : 0,
           (unsigned long long)info->db_hits, info->seconds, pv);
    fflush(stdout);
}

/* Parses the options analyze and eval share; returns -1 to go on, else an exit code. */
typedef struct {
    const char *variant, *weights, *db, *fen;
    bool optional;
    SearchLimits limits;
    uint64_t tt_mb;
} EngineArgs;

static int engine_args(int argc, char **argv, const char *help, bool search, EngineArgs *a)
{
    const char *value;
    memset(a, 0, sizeof *a);
    a->tt_mb = SEARCH_TT_MB;
    for (int i = 1; i < argc; i++) {
        uint64_t n;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(help, stdout);
            return CLI_OK;
        } else if ((value = cli_option(argc, argv, &i, "--variant"))) {
            a->variant = value;
        } else if ((value = cli_option(argc, argv, &i, "--weights"))) {
            a->weights = value;
        } else if (!strcmp(argv[i], "--optional-capture")) {
            a->optional = true;
        } else if (search && (value = cli_option(argc, argv, &i, "--db"))) {
            a->db = value;
        } else if (search && (value = cli_option(argc, argv, &i, "--depth"))) {
            if (!cli_uint(value, SEARCH_MAX_PLY - 1, &n) || n < 1)
                return cli_error(CLI_USAGE, "--depth must be from 1 to %d, not '%s'", SEARCH_MAX_PLY - 1, value);
            a->limits.depth = (int)n;
        } else if (search && (value = cli_option(argc, argv, &i, "--nodes"))) {
            if (!cli_uint(value, UINT64_MAX, &n) || n < 1)
                return cli_error(CLI_USAGE, "--nodes must be a positive number, not '%s'", value);
            a->limits.nodes = n;
        } else if (search && (value = cli_option(argc, argv, &i, "--time"))) {
            if (!cli_seconds(value, &a->limits.seconds))
                return cli_error(CLI_USAGE, "--time must be a positive number of seconds, not '%s'", value);
        } else if (search && (value = cli_option(argc, argv, &i, "--tt-mb"))) {
            if (!cli_uint(value, 1 << 20, &a->tt_mb) || a->tt_mb < 1)
                return cli_error(CLI_USAGE, "--tt-mb must be a positive number, not '%s'", value);
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return cli_error(CLI_USAGE, "unknown option '%s' (see damas %s --help)", argv[i], search ? "analyze" : "eval");
        } else if (!a->fen) {
            a->fen = argv[i];
        } else {
            return cli_error(CLI_USAGE, "one FEN only (quote it if it has spaces)");
        }
    }
    if (!a->fen)
        return cli_error(CLI_USAGE, "a FEN is required (see damas %s --help)", search ? "analyze" : "eval");
    if (!a->limits.depth && !a->limits.nodes && !a->limits.seconds)
        a->limits.seconds = 5;
    return -1;
}

/* The variant, weights (new, for the caller to free) and position of a; -1 to go on, else the
 * exit code (the error printed). */
static int engine_setup(const EngineArgs *a, Variant *v, Weights **w, Position *pos)
{
    char err[1024];
    if (!cli_variant(a->variant, a->optional, v))
        return CLI_USAGE;
    if (!(*w = malloc(sizeof **w)))
        return cli_error(CLI_FAIL, "out of memory");
    if (!cli_weights(a->weights, v, *w)) {
        free(*w);
        return CLI_FAIL;
    }
    if (notation_fen_parse(v, a->fen, pos, err, sizeof err) != DAMAS_OK) {
        free(*w);
        return cli_error(CLI_USAGE, "%s", err);
    }
    return -1;
}

int cmd_analyze(int argc, char **argv)
{
    EngineArgs a;
    Variant v;
    Weights *w;
    Position pos;
    char err[1024];
    int rc = engine_args(argc, argv, analyze_help, true, &a);
    if (rc >= 0 || (rc = engine_setup(&a, &v, &w, &pos)) >= 0)
        return rc;
    DbProbe *db;
    if (!cli_engine_db(a.db, &v, &db, err, sizeof err)) {
        free(w);
        return cli_error(CLI_FAIL, "%s", err);
    }
    Search *s = search_new(&v, w, db, a.tt_mb);
    if (!s) {
        probe_close(db);
        free(w);
        return cli_error(CLI_FAIL, "out of memory for a %llu MB table", (unsigned long long)a.tt_mb);
    }
    SearchInfo info;
    AnalyzeCtx ctx = {&v, &pos};
    int n = search_run(s, &pos, NULL, 0, (GameClock){0, 0}, &a.limits, &info, analyze_report, &ctx);
    if (n == 0) {
        printf("no legal move: the side to move has lost\n");
    } else {
        char move[NOTATION_MOVE_MAX], score[32];
        notation_move_write(&v, &pos, &info.pv[0], NOTATION_NATIVE, move);
        cli_score_text(info.score, score, sizeof score);
        printf("best %s  score %s  depth %d  nodes %llu  %.2f s\n", move, score, info.depth,
               (unsigned long long)info.nodes, info.seconds);
    }
    search_free(s);
    probe_close(db);
    free(w);
    return CLI_OK;
}

int cmd_eval(int argc, char **argv)
{
    EngineArgs a;
    Variant v;
    Weights *w;
    Position pos;
    int rc = engine_args(argc, argv, eval_help, false, &a);
    if (rc >= 0 || (rc = engine_setup(&a, &v, &w, &pos)) >= 0)
        return rc;
    double by_group[EVAL_GROUPS];
    eval_by_group(w, &v, &pos, by_group);
    EvalFeatures f;
    eval_features(&v, &pos, &f);
    printf("evaluation %+.2f for %s (phase %.2f; weights: %s)\n", eval_position(w, &v, &pos) / 100.0,
           pos.side == WHITE ? "white" : "black", f.phase, w->provenance);
    for (int g = 0; g < EVAL_GROUPS; g++)
        printf("  %-14s %+8.2f\n", eval_group_names[g], by_group[g] / 100.0);
    free(w);
    return CLI_OK;
}

/* The bench positions: each variant's start, then positions from fixed random games. */
static const struct {
    const char *variant, *fen;
} bench_positions[] = {
    {"brazilian", NULL},
    {"brazilian", "W:We3,b2,d2,f2,h2,a1,c1,e1,g1:Bb8,d8,f8,h8,a7,c7,e7,g7,f6,h6,c5,f4"},
    {"brazilian", "W:Wa3,c3,g3,b2,h2,e1,g1:Bb8,d8,f8,h8,a7,b6,g5"},
    {"brazilian", "W:Wa5,g5,a3,g3,d2,c1,e1,g1:Bb8,f8,h8,g7,b6"},
    {"russian", NULL},
    {"russian", "W:Wb4,c3,b2,d2,h2,a1,c1,e1,g1:Bb8,d8,f8,h8,a7,c7,e7,g7,b6,e5,g5,d4"},
    {"russian", "W:Wa3,c3,e3,g3,b2,d2,h2,a1,e1,g1:Bb8,d8,h8,a7,c7,f6,h6,c5,g5"},
    {"russian", "W:Wa5,b2,d2,h2,c1,e1,g1:Bd8,h8,c7,b6,h6"},
    {"spanish", NULL},
    {"spanish", "W:W1-4,6-9,11,15:B14,21,22,24,25,27-32"},
    {"spanish", "W:W1-4,7,8,10,16:B18,22-25,28,31,32"},
    {"spanish", "W:W1,4-6,8,10,22:B15,21,25,28,32"},
    {"czech", NULL},
    {"czech", "W:Wb4,f4,a3,c3,e3,g3,d2,h2,a1,c1,e1,g1:Bd8,f8,h8,a7,c7,e7,g7,b6,d6,h6,c5,g5"},
    {"czech", "W:Wa5,g5,a3,g3,b2,d2,f2,a1,e1,g1:Bb8,f8,h8,a7,c7,e7,d6,c5,d4"},
    {"czech", "W:Wd4,e1,g1:Bh8,a7,c7,g7,b6,f6,h6,g5,Kc1"},
    {"italian", NULL},
    {"italian", "W:W20,21,23-25,28-32:B1-6,8,9,11,16"},
    {"italian", "W:W20,22,24,25,29-32:B1,3,4,6,7,9,12,13,17"},
    {"italian", "W:W20,29,32:B1,3,4,6,8,16,19,K23,K27"},
    {"american", NULL},
    {"american", "B:W15,20-23,25-30,32:B1-6,8,9,11,12,14"},
    {"american", "B:W13,18,20-23,26-30:B2,3,5-7,9,11,12,14"},
    {"american", "B:W14,21,24,25,28,30,32:B1,4,5,7,13,18"},
    {"international", NULL},
    {"international", "W:W16,30-33,35,36,38-50:B1-9,11-15,17-20,24"},
    {"international", "W:W26,27,32,35,36,38,40-50:B1,3-7,9-16,18,20,21"},
    {"international", "W:W34,36,37,41-44,46-50:B1-3,5-10,13,16,21,24,35"},
};

int cmd_bench(int argc, char **argv)
{
    uint64_t depth = 9;
    const char *value, *weights = "builtin";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(bench_help, stdout);
            return CLI_OK;
        } else if ((value = cli_option(argc, argv, &i, "--weights"))) {
            weights = value;
        } else if ((value = cli_option(argc, argv, &i, "--depth"))) {
            if (!cli_uint(value, SEARCH_MAX_PLY - 1, &depth) || depth < 1)
                return cli_error(CLI_USAGE, "--depth must be from 1 to %d, not '%s'", SEARCH_MAX_PLY - 1, value);
        } else {
            return cli_error(CLI_USAGE, "unexpected argument '%s' (see damas bench --help)", argv[i]);
        }
    }
    Weights *w = malloc(sizeof *w);
    if (!w)
        return cli_error(CLI_FAIL, "out of memory");
    uint64_t total = 0;
    double seconds = 0;
    for (size_t k = 0; k < sizeof bench_positions / sizeof *bench_positions; k++) {
        Variant v;
        char err[512];
        Position pos;
        if (variant_lookup(bench_positions[k].variant, false, &v, err, sizeof err) != DAMAS_OK ||
            (bench_positions[k].fen && notation_fen_parse(&v, bench_positions[k].fen, &pos, err, sizeof err) != DAMAS_OK)) {
            free(w);
            return cli_error(CLI_FAIL, "bench position %zu: %s", k + 1, err);
        }
        if (!bench_positions[k].fen)
            pos_start(&pos, &v);
        if (!cli_weights(weights, &v, w)) {
            free(w);
            return CLI_FAIL;
        }
        Search *s = search_new(&v, w, NULL, SEARCH_TT_MB_MATCH);
        if (!s) {
            free(w);
            return cli_error(CLI_FAIL, "out of memory");
        }
        /* 10x10 trees are wider: two plies less keeps each position's share similar. */
        SearchLimits limits = {.depth = v.rules.board_size == 10 ? (int)depth - 2 : (int)depth};
        if (limits.depth < 1)
            limits.depth = 1;
        SearchInfo info;
        search_run(s, &pos, NULL, 0, (GameClock){0, 0}, &limits, &info, NULL, NULL);
        char fen[NOTATION_FEN_MAX], score[32];
        notation_fen_write(&v, &pos, NOTATION_NATIVE, fen);
        cli_score_text(info.score, score, sizeof score);
        printf("%2zu %-13s depth %2d %12llu nodes %8.3f s  score %-8s %s\n", k + 1, v.name, info.depth,
               (unsigned long long)info.nodes, info.seconds, score, fen);
        total += info.nodes;
        seconds += info.seconds;
        search_free(s);
    }
    free(w);
    printf("OVERALL: %llu nodes %.0f nps\n", (unsigned long long)total, seconds > 0 ? (double)total / seconds : 0);
    return CLI_OK;
}

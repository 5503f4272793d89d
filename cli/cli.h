/* The damas command line: one function per subcommand, argument parsing and printing only. */
#ifndef DAMAS_CLI_H
#define DAMAS_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/types.h"
#include "../engine/match.h"
#include "../eval/eval.h"

#define DAMAS_VERSION_TEXT "0.3.0"

/* Exit codes: 0 success, 1 failure of the work, 2 bad usage or input. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

int cmd_perft(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_match(int argc, char **argv);
int cmd_play(int argc, char **argv);
int cmd_hub(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_selfplay(int argc, char **argv);
int cmd_fit(int argc, char **argv);

/* --weights: a file; "default" (or NULL): the tuned weights shipped for the variant
 * (eval/weights/<variant>.h5 beside the binary or ../share/damas/weights/ from it once
 * installed, or in $DAMAS_WEIGHTS), else the compiled-in
 * ones; "builtin": the compiled-in weights; "material": their material weights only. Prints
 * the error itself. */
bool cli_weights(const char *arg, const Variant *v, Weights *out);

/* The endgame tables a damas engine searches with (analyze, play, match, hub): the database in
 * `dir`; none if `dir` is "none"; if `dir` is NULL or empty, the variant's tables of at most
 * CLI_TABLES_PIECES pieces, built once (seconds) into $XDG_CACHE_HOME/damas or ~/.cache/damas
 * (gen_cached), or none, with a warning on stderr, where they cannot be. *out is NULL for
 * none. Returns false, with a message in err, only for a directory given that cannot be
 * opened. */
enum { CLI_TABLES_PIECES = 4 };
bool cli_engine_db(const char *dir, const Variant *v, DbProbe **out, char *err, size_t errlen);

#define CLI_DB_HELP                                                                                    \
    "  --db DIR      an endgame database of the variant: exact scores within its piece count;\n"     \
    "                without it the <=4-piece tables, built once into ~/.cache/damas; 'none': none\n"

/* --weights in a command's help. */
#define CLI_WEIGHTS_HELP                                                                                 \
    "  --weights W   a weight file (damas train); 'default': the variant's shipped weights\n"            \
    "                (eval/weights/<variant>.h5 beside the binary, or $DAMAS_WEIGHTS/<variant>.h5),\n" \
    "                else, with a warning, the compiled-in ones; 'builtin': the compiled-in weights;\n" \
    "                'material': their material weights only\n"

/* The progress of a match (match_run's callback): on a terminal, one line rewritten after each
 * game; in a log, a line at each tenth of the games: games, games/s, time left, A's wins,
 * draws and losses and the Elo so far. */
typedef struct {
    double start;   /* system_now() at the start */
    int games;
} CliMatchProgress;
void cli_match_progress(void *ctx, const MatchResult *so_far);

/* A size: a number of bytes, or with a K, M, G or T suffix (powers of 1024). */
bool cli_size(const char *text, uint64_t *bytes);

/* --rules NAME (variant_set_draw_rules) applied to *v; NULL keeps the default. Prints the
 * error itself. */
bool cli_draw_rules(const char *name, Variant *v);

#define CLI_RULES_HELP                                                                             \
    "  --rules R     the draw rules: 'default' (40 moves by each side without a capture or a\n"    \
    "                promotion, threefold repetition) or 'official' (the federation's: README)\n"

/* A search score as text: "+0.35" (men) or "win in 7" / "loss in 6" (plies). */
void cli_score_text(int score, char *buf, size_t len);

/* The moves pv[0..n) from pos in v's notation, separated by spaces. */
void cli_pv_text(const Variant *v, const Position *pos, const Move *pv, int n, char *buf, size_t len);

/* Prints "error: <message>" on stderr; returns `code` for `return cli_error(...)`. */
int cli_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The value of option argv[*i] ("--name VALUE" or "--name=VALUE") if argv[*i] is `name`;
 * advances *i past it. NULL if argv[*i] is another option; exits with a usage error if the
 * value is missing. */
const char *cli_option(int argc, char **argv, int *i, const char *name);

/* Parses a non-negative integer no larger than max, or returns false. */
bool cli_uint(const char *text, uint64_t max, uint64_t *out);

/* Parses a number of seconds: positive, finite and at most a day; else returns false. */
bool cli_seconds(const char *text, double *out);

/* Parses --threads' value into *threads (1..1024); prints the error itself. */
bool cli_threads(const char *text, uint64_t *threads);

/* Parses --contempt's value: one contempt in hundredths of a man (0 to SEARCH_CONTEMPT_MAX)
 * into out[0] and out[1], or two separated by a comma (player A's, then B's) when `pair`;
 * prints the error itself. */
bool cli_contempt(const char *text, bool pair, int out[2]);

/* Looks up --variant (with --optional-capture); prints the error itself. */
bool cli_variant(const char *name, bool optional_capture, Variant *out);

#endif

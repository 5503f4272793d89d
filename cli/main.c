#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/system.h"
#include "../core/variant.h"
#include "cli.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"perft", cmd_perft, "count leaf nodes of the move tree (move generator test and benchmark)"},
    {"gen", cmd_gen, "build endgame databases by retrograde analysis"},
    {"verify", cmd_verify, "check a database against its own successors, independently"},
    {"info", cmd_info, "statistics of a database: positions, wins, draws, losses, sizes"},
    {"probe", cmd_probe, "value, distance, every move's value and the best line from a database"},
    {"serve", cmd_serve, "the tablebase explorer in the browser and its JSON API (HTTP)"},
    {"analyze", cmd_analyze, "search a position: score, depth, principal variation"},
    {"eval", cmd_eval, "the static evaluation of a position, by feature group"},
    {"bench", cmd_bench, "fixed search over compiled-in positions: nodes and speed"},
    {"match", cmd_match, "games between two players (weights, random, a Hub engine), with Elo and PDN"},
    {"play", cmd_play, "play a game against the engine in the terminal"},
    {"hub", cmd_hub, "the Hub protocol engine, for GUIs and pydraughts"},
    {"selfplay", cmd_selfplay, "self-play games into a training data set (positions and labels)"},
    {"fit", cmd_fit, "fit evaluation weights to a training data set"},
    {"train", cmd_train, "generations of self-play and fitting, each kept if it wins a match"},
};

int cli_error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

const char *cli_option(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    const char *arg = argv[*i];
    if (strncmp(arg, name, n) != 0)
        return NULL;
    if (arg[n] == '=')
        return arg + n + 1;
    if (arg[n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        cli_error(CLI_USAGE, "option %s needs a value", name);
        exit(CLI_USAGE);
    }
    return argv[++*i];
}

bool cli_uint(const char *text, uint64_t max, uint64_t *out)
{
    if (!text || *text < '0' || *text > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end || v > max)
        return false;
    *out = v;
    return true;
}

bool cli_seconds(const char *text, double *out)
{
    if (!text || !*text)
        return false;
    char *end;
    double s = strtod(text, &end);
    if (*end || !(s > 0 && s <= 86400))
        return false;
    *out = s;
    return true;
}

bool cli_threads(const char *text, uint64_t *threads)
{
    if (cli_uint(text, 1024, threads) && *threads >= 1)
        return true;
    cli_error(CLI_USAGE, "--threads must be a number from 1 to 1024, not '%s'", text);
    return false;
}

bool cli_contempt(const char *text, bool pair, int out[2])
{
    char copy[64];
    snprintf(copy, sizeof copy, "%s", text);
    char *second = pair ? strchr(copy, ',') : NULL;
    if (second)
        *second++ = '\0';
    uint64_t a, b;
    if (strlen(text) < sizeof copy && cli_uint(copy, SEARCH_CONTEMPT_MAX, &a) &&
        (!second || cli_uint(second, SEARCH_CONTEMPT_MAX, &b))) {
        out[0] = (int)a;
        out[1] = second ? (int)b : (int)a;
        return true;
    }
    cli_error(CLI_USAGE, "--contempt must be %s from 0 to %d (hundredths of a man), not '%s'",
              pair ? "a number, or two separated by a comma," : "a number", SEARCH_CONTEMPT_MAX, text);
    return false;
}

bool cli_variant(const char *name, bool optional_capture, Variant *out)
{
    char err[256];
    if (!name) {
        cli_error(CLI_USAGE, "--variant is required (one of: %s)", variant_names());
        return false;
    }
    if (variant_lookup(name, optional_capture, out, err, sizeof err) != DAMAS_OK) {
        cli_error(CLI_USAGE, "%s", err);
        return false;
    }
    return true;
}

bool cli_size(const char *text, uint64_t *bytes)
{
    char *end;
    errno = 0;
    if (!text || *text < '0' || *text > '9')
        return false;
    unsigned long long n = strtoull(text, &end, 10);
    int shift = 0;
    switch (*end) {
    case 'K': case 'k': shift = 10; end++; break;
    case 'M': case 'm': shift = 20; end++; break;
    case 'G': case 'g': shift = 30; end++; break;
    case 'T': case 't': shift = 40; end++; break;
    default: break;
    }
    if (errno || *end || n > (UINT64_MAX >> shift))
        return false;
    *bytes = (uint64_t)n << shift;
    return true;
}

bool cli_draw_rules(const char *name, Variant *v)
{
    char err[256];
    if (name && variant_set_draw_rules(v, name, err, sizeof err) != DAMAS_OK) {
        cli_error(CLI_USAGE, "--rules: %s", err);
        return false;
    }
    return true;
}

static void usage(FILE *out)
{
    fprintf(out, "damas %s - draughts toolkit: rules, perft, endgame databases, search\n\n"
                 "usage: damas <command> [options]    (damas <command> --help for details)\n\ncommands:\n",
            DAMAS_VERSION_TEXT);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nvariants: %s\n", variant_names());
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return CLI_OK;
    }
    if (!strcmp(cmd, "--version")) {
        printf("damas %s\n", DAMAS_VERSION_TEXT);
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(cmd, commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    return cli_error(CLI_USAGE, "unknown command '%s' (see damas --help)", cmd);
}

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/notation.h"
#include "../db/answer.h"
#include "cli.h"

static const char probe_help[] =
    "usage: damas probe --db DIR [--variant V [--optional-capture]] [--json] [--cache-mb N] [FEN ...]\n"
    "\n"
    "For each position (the FENs given, else one per line on standard input): its value for the\n"
    "side to move (win, draw or loss) and distance in plies and moves, every legal move with its\n"
    "value sorted best first, and for a win or a loss the best line to the end of the game.\n"
    "Exits 2 if a FEN is malformed, 1 if a position cannot be answered (beyond the database,\n"
    "damaged file), after answering the others.\n"
    "  --json        one JSON object per position: {\"variant\", \"fen\", \"wdl\", \"dtw\" (null for a\n"
    "                draw), \"bestmove\", \"moves\" [{\"move\", \"from\", \"to\", \"capture\", \"wdl\",\n"
    "                \"dtw\", \"fen\" (after it)}], \"line\"},\n"
    "                or {\"fen\", \"error\"}; lines of standard input starting with # are skipped\n"
    "  --cache-mb N  decompressed chunks kept in memory (default 64)\n";

/* Answers one FEN; returns the exit code for it. */
static int probe_one(DbProbe *p, const char *fen, bool json)
{
    AnswerStatus status;
    char *text = json ? answer_json(p, fen, &status) : answer_text(p, fen, &status);
    if (!text) {
        if (json)
            printf("{\"error\":\"out of memory\"}\n");
        return cli_error(CLI_FAIL, "out of memory");
    }
    if (json)
        printf("%s\n", text);
    else if (status == ANSWER_OK)
        fputs(text, stdout);
    else
        fprintf(stderr, "error: %s\n", text);
    free(text);
    return status == ANSWER_OK ? CLI_OK : status == ANSWER_BAD_FEN ? CLI_USAGE : CLI_FAIL;
}

int cmd_probe(int argc, char **argv)
{
    const char *db = NULL, *variant = NULL, *value;
    bool json = false, optional = false;
    uint64_t cache_mb = 64;
    int first_fen = argc;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(probe_help, stdout);
            return CLI_OK;
        } else if ((value = cli_option(argc, argv, &i, "--db"))) {
            db = value;
        } else if ((value = cli_option(argc, argv, &i, "--variant"))) {
            variant = value;
        } else if ((value = cli_option(argc, argv, &i, "--cache-mb"))) {
            if (!cli_uint(value, 1 << 20, &cache_mb))
                return cli_error(CLI_USAGE, "--cache-mb must be a number of megabytes, not '%s'", value);
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (!strcmp(argv[i], "--optional-capture")) {
            optional = true;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return cli_error(CLI_USAGE, "unknown option '%s' (see damas probe --help)", argv[i]);
        } else {
            first_fen = i;
            break;
        }
    }
    if (!db)
        return cli_error(CLI_USAGE, "--db DIR is required (see damas probe --help)");
    Variant wanted;
    if (variant && !cli_variant(variant, optional, &wanted))
        return CLI_USAGE;
    char err[1024];
    DbProbe *p = probe_open(db, variant ? &wanted : NULL, (size_t)cache_mb << 20, err, sizeof err);
    if (!p)
        return cli_error(CLI_FAIL, "%s", err);
    int code = CLI_OK, rc;
    if (first_fen < argc) {
        for (int i = first_fen; i < argc; i++)
            if ((rc = probe_one(p, argv[i], json)) > code)
                code = rc;
    } else {
        char *buf = NULL;
        size_t cap = 0;
        ssize_t len;
        for (long number = 1; (len = getline(&buf, &cap, stdin)) >= 0; number++) {
            while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' '))
                buf[--len] = '\0';
            if (len == 0 || buf[0] == '#')   /* blank lines and comments */
                continue;
            if (strlen(buf) != (size_t)len) {   /* a NUL byte would silently cut the FEN */
                if (json)
                    printf("{\"error\":\"line %ld of the input holds a NUL byte\"}\n", number);
                else
                    fprintf(stderr, "error: line %ld of the input holds a NUL byte\n", number);
                code = code > CLI_USAGE ? code : CLI_USAGE;
                continue;
            }
            if ((rc = probe_one(p, buf, json)) > code)
                code = rc;
            fflush(stdout);
        }
        free(buf);
    }
    probe_close(p);
    return code;
}

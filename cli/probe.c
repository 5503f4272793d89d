#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/notation.h"
#include "../db/probe.h"
#include "cli.h"

static const char probe_help[] =
    "usage: damas probe --db DIR [--variant V [--optional-capture]] [--json] [--cache-mb N] [FEN ...]\n"
    "\n"
    "For each position (the FENs given, else one per line on standard input): its value for the\n"
    "side to move (win, draw or loss) and distance in plies and moves, every legal move with its\n"
    "value sorted best first, and for a win or a loss the best line to the end of the game.\n"
    "Exits 2 if a FEN is malformed, 1 if a position cannot be answered (beyond the database,\n"
    "damaged file), after answering the others.\n"
    "  --json        one JSON object per position: {\"fen\", \"wdl\", \"dtw\" (null for a draw),\n"
    "                \"bestmove\", \"moves\" [{\"move\", \"capture\", \"wdl\", \"dtw\"}], \"line\"},\n"
    "                or {\"fen\", \"error\"}; lines of standard input starting with # are skipped\n"
    "  --cache-mb N  decompressed chunks kept in memory (default 64)\n";

static const char *wdl_name(int wdl)
{
    return wdl == DB_WIN ? "win" : wdl == DB_DRAW ? "draw" : "loss";
}

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", *s);
        else
            putchar(*s);
    }
    putchar('"');
}

/* "win in 7 plies (4 moves)": the moves are the winner's (or the loser's) own. */
static void value_text(DbValue v, char *buf, size_t len)
{
    if (v.wdl == DB_DRAW)
        snprintf(buf, len, "draw");
    else
        snprintf(buf, len, "%s in %d %s (%d %s)", wdl_name(v.wdl), v.dtw, v.dtw == 1 ? "ply" : "plies", (v.dtw + 1) / 2,
                 (v.dtw + 1) / 2 == 1 ? "move" : "moves");
}

enum { LINE_MAX_PLIES = 1024 };

/* Answers one FEN; returns the exit code for it. */
/* A distance in JSON: null for a draw, which has none. */
static void json_dtw(DbValue v)
{
    if (v.wdl == DB_DRAW)
        printf("null");
    else
        printf("%d", v.dtw);
}

static int probe_one(DbProbe *p, const char *fen, bool json)
{
    const Variant *v = probe_variant(p);
    char err[1024];
    Position pos;
    int code = CLI_OK;
    DbValue value;
    int nmoves = 0, nline = 0;
    ProbeMove *moves = malloc(MOVELIST_MAX * sizeof *moves);
    Move *line = malloc(LINE_MAX_PLIES * sizeof *line);
    if (!moves || !line) {
        snprintf(err, sizeof err, "out of memory");
        code = CLI_FAIL;
    } else if (notation_fen_parse(v, fen, &pos, err, sizeof err) != DAMAS_OK) {
        code = CLI_USAGE;
    } else if (probe_value(p, &pos, &value, err, sizeof err) != DAMAS_OK ||
               probe_moves(p, &pos, moves, &nmoves, err, sizeof err) != DAMAS_OK ||
               probe_line(p, &pos, line, LINE_MAX_PLIES, &nline, err, sizeof err) != DAMAS_OK) {
        code = CLI_FAIL;
    }
    if (code != CLI_OK) {
        if (json) {
            printf("{\"fen\":");
            json_string(fen);
            printf(",\"error\":");
            json_string(err);
            printf("}\n");
        } else {
            fprintf(stderr, "error: %s: %s\n", fen, err);
        }
        free(moves);
        free(line);
        return code;
    }
    char text[NOTATION_MOVE_MAX], canonical[NOTATION_FEN_MAX], vt[64];
    notation_fen_write(v, &pos, NOTATION_NATIVE, canonical);
    if (json) {
        printf("{\"fen\":");
        json_string(canonical);
        printf(",\"wdl\":\"%s\",\"dtw\":", wdl_name(value.wdl));
        json_dtw(value);
        printf(",\"bestmove\":");
        if (nmoves > 0) {   /* the list is best first: a drawn position's best is a drawing move */
            notation_move_write(v, &pos, nline > 0 ? &line[0] : &moves[0].move, NOTATION_NATIVE, text);
            json_string(text);
        } else {
            printf("null");
        }
        printf(",\"moves\":[");
        for (int k = 0; k < nmoves; k++) {
            notation_move_write(v, &pos, &moves[k].move, NOTATION_NATIVE, text);
            printf("%s{\"move\":", k ? "," : "");
            json_string(text);
            printf(",\"capture\":%s,\"wdl\":\"%s\",\"dtw\":", moves[k].move.captured ? "true" : "false",
                   wdl_name(moves[k].value.wdl));
            json_dtw(moves[k].value);
            printf("}");
        }
        printf("],\"line\":[");
    } else {
        value_text(value, vt, sizeof vt);
        printf("%s\n  value: %s\n  moves:", canonical, vt);
        for (int k = 0; k < nmoves; k++) {
            notation_move_write(v, &pos, &moves[k].move, NOTATION_NATIVE, text);
            if (moves[k].value.wdl == DB_DRAW)
                printf("%s %s draw", k ? "," : "", text);
            else
                printf("%s %s %s %d", k ? "," : "", text, wdl_name(moves[k].value.wdl), moves[k].value.dtw);
        }
        printf("%s\n", nmoves ? "" : " none (the side to move has lost)");
        if (nline)
            printf("  line:");
    }
    Position cur = pos;
    for (int k = 0; k < nline; k++) {
        notation_move_write(v, &cur, &line[k], NOTATION_NATIVE, text);
        if (json) {
            printf("%s", k ? "," : "");
            json_string(text);
        } else {
            printf(" %s", text);
        }
        Undo u;
        pos_make(&cur, &line[k], &u);
    }
    printf(json ? "]}\n" : nline ? "\n" : "");
    free(moves);
    free(line);
    return CLI_OK;
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

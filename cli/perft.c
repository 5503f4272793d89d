#include <stdio.h>
#include <string.h>

#include "../core/movegen.h"
#include "../core/notation.h"
#include "../core/system.h"
#include "../core/variant.h"
#include "cli.h"

static const char perft_help[] =
    "usage: damas perft --variant V [--optional-capture] [--fen FEN] [--divide] [--keep] [--json] DEPTH\n"
    "\n"
    "Counts the leaf nodes DEPTH plies below a position (the last ply counted in bulk).\n"
    "  --variant V          brazilian, russian, spanish, czech, italian, american (english),\n"
    "                       international; or 'all' for a table of every start position\n"
    "  --optional-capture   the house rule: captures are not mandatory (8x8 only)\n"
    "  --fen FEN            start from FEN (default: the variant's start position)\n"
    "  --divide             print each root move with its count\n"
    "  --keep               count each order of capture as its own move (\"perft keep\")\n"
    "  --json               one JSON object on one line\n";

typedef struct {
    bool divide, json, keep, optional;
    const char *fen;
    int depth;
} PerftArgs;

static int perft_one(const Variant *v, const PerftArgs *a)
{
    Position pos;
    char err[256];
    if (a->fen) {
        if (notation_fen_parse(v, a->fen, &pos, err, sizeof err) != DAMAS_OK)
            return cli_error(CLI_USAGE, "bad FEN '%s': %s", a->fen, err);
    } else {
        pos_start(&pos, v);
    }
    MergeRule merge = a->keep ? MERGE_CAPTURE_ORDER : MERGE_CAPTURED_SET;
    char fen[NOTATION_FEN_MAX];
    notation_fen_write(v, &pos, NOTATION_NATIVE, fen);

    double t0 = system_now();
    uint64_t total = 0;
    if (a->json)
        printf("{\"variant\":\"%s\",\"fen\":\"%s\",\"depth\":%d", v->name, fen, a->depth);
    if (a->divide && a->depth > 0) {
        MoveList list;
        movegen_moves_merged(&pos, v, merge, &list);
        if (a->json)
            printf(",\"moves\":[");
        for (int i = 0; i < list.count; i++) {
            char text[NOTATION_MOVE_MAX];
            notation_move_write(v, &pos, &list.moves[i], NOTATION_NATIVE, text);
            Undo u;
            pos_make(&pos, &list.moves[i], &u);
            uint64_t n = movegen_perft(&pos, v, a->depth - 1, merge);
            pos_undo(&pos, &list.moves[i], &u);
            total += n;
            if (a->json)
                printf("%s{\"move\":\"%s\",\"leaves\":%llu}", i ? "," : "", text, (unsigned long long)n);
            else
                printf("%-12s %llu\n", text, (unsigned long long)n);
        }
        if (a->json)
            printf("]");
    } else {
        total = movegen_perft(&pos, v, a->depth, merge);
    }
    double secs = system_now() - t0;
    double rate = secs > 0 ? (double)total / secs : 0;
    if (a->json)
        printf(",\"leaves\":%llu,\"seconds\":%.3f,\"leaves_per_second\":%.0f}\n", (unsigned long long)total, secs,
               rate);
    else
        printf("%sperft(%d) = %llu  (%.3f s, %.1f M leaves/s)\n", a->divide ? "\n" : "", a->depth,
               (unsigned long long)total, secs, rate / 1e6);
    return CLI_OK;
}

static int perft_table(const PerftArgs *a)
{
    printf("%-14s %5s %14s %9s %14s\n", "variant", "depth", "leaves", "seconds", "leaves/s");
    for (int id = 0; id < VARIANT_COUNT; id++) {
        Variant v;
        if (variant_lookup(variant_get(id)->name, a->optional && variant_get(id)->rules.board_size == 8, &v,
                           NULL, 0) != DAMAS_OK)
            continue;
        Position pos;
        pos_start(&pos, &v);
        int depth = v.rules.board_size == 8 ? a->depth : (a->depth > 2 ? a->depth - 2 : a->depth);
        double t0 = system_now();
        uint64_t n = movegen_perft(&pos, &v, depth, a->keep ? MERGE_CAPTURE_ORDER : MERGE_CAPTURED_SET);
        double secs = system_now() - t0;
        printf("%-14s %5d %14llu %9.3f %14.0f\n", v.name, depth, (unsigned long long)n, secs,
               secs > 0 ? (double)n / secs : 0);
    }
    return CLI_OK;
}

int cmd_perft(int argc, char **argv)
{
    PerftArgs a = {0};
    const char *variant = NULL, *depth = NULL, *value;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(perft_help, stdout);
            return CLI_OK;
        } else if ((value = cli_option(argc, argv, &i, "--variant"))) {
            variant = value;
        } else if ((value = cli_option(argc, argv, &i, "--fen"))) {
            a.fen = value;
        } else if (!strcmp(argv[i], "--divide")) {
            a.divide = true;
        } else if (!strcmp(argv[i], "--json")) {
            a.json = true;
        } else if (!strcmp(argv[i], "--keep")) {
            a.keep = true;
        } else if (!strcmp(argv[i], "--optional-capture")) {
            a.optional = true;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_error(CLI_USAGE, "unknown option '%s' (see damas perft --help)", argv[i]);
        } else if (!depth) {
            depth = argv[i];
        } else {
            return cli_error(CLI_USAGE, "unexpected argument '%s' (see damas perft --help)", argv[i]);
        }
    }
    uint64_t d;
    if (!depth)
        return cli_error(CLI_USAGE, "perft needs a DEPTH (see damas perft --help)");
    if (!cli_uint(depth, 64, &d))
        return cli_error(CLI_USAGE, "DEPTH must be a whole number from 0 to 64, not '%s'", depth);
    a.depth = (int)d;
    if (variant && !strcmp(variant, "all")) {
        if (a.fen || a.divide || a.json)
            return cli_error(CLI_USAGE, "--variant all prints a table of start positions; it takes no --fen, "
                                        "--divide or --json");
        return perft_table(&a);
    }
    Variant v;
    if (!cli_variant(variant, a.optional, &v))
        return CLI_USAGE;
    return perft_one(&v, &a);
}

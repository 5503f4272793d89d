#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/variant.h"
#include "../web/server.h"
#include "cli.h"

static const char serve_help[] =
    "usage: damas serve --db DIR [--db DIR ...] [--host ADDRESS] [--port N] [--threads T] [--cache-mb N]\n"
    "\n"
    "The tablebase explorer in the browser and its JSON API, over HTTP, until Ctrl-C: one\n"
    "database per variant (each directory's manifest names its variant). Open the URL it\n"
    "prints. The page is built into the binary and works offline.\n"
    "  GET /api/variants                         the variants served, their squares and pieces\n"
    "  GET /api/probe?variant=V&fen=FEN          the answer of damas probe --json for FEN\n"
    "      [&optional-capture=1]                 (400: bad request or FEN; 404: not served or\n"
    "                                            beyond the database)\n"
    "  --host ADDRESS  address to listen on (default 127.0.0.1: this machine only)\n"
    "  --port N        TCP port (default 8080; 0: any free port, printed)\n"
    "  --threads T     requests answered at once (default 4)\n"
    "  --cache-mb N    decompressed chunks kept in memory per database (default 64)\n";

enum { SERVE_MAX_DBS = 16 };

int cmd_serve(int argc, char **argv)
{
    const char *dirs[SERVE_MAX_DBS], *value, *host = "127.0.0.1";
    int ndirs = 0;
    uint64_t port = 8080, threads = 4, cache_mb = 64;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(serve_help, stdout);
            return CLI_OK;
        } else if ((value = cli_option(argc, argv, &i, "--db"))) {
            if (ndirs == SERVE_MAX_DBS)
                return cli_error(CLI_USAGE, "at most %d databases (--db) can be served", SERVE_MAX_DBS);
            dirs[ndirs++] = value;
        } else if ((value = cli_option(argc, argv, &i, "--host"))) {
            host = value;
        } else if ((value = cli_option(argc, argv, &i, "--port"))) {
            if (!cli_uint(value, 65535, &port))
                return cli_error(CLI_USAGE, "--port must be a number from 0 to 65535, not '%s'", value);
        } else if ((value = cli_option(argc, argv, &i, "--threads"))) {
            if (!cli_threads(value, &threads))
                return CLI_USAGE;
        } else if ((value = cli_option(argc, argv, &i, "--cache-mb"))) {
            if (!cli_uint(value, 1 << 20, &cache_mb) || cache_mb == 0)
                return cli_error(CLI_USAGE, "--cache-mb must be a number of megabytes, not '%s'", value);
        } else {
            return cli_error(CLI_USAGE, "unknown argument '%s' (see damas serve --help)", argv[i]);
        }
    }
    if (ndirs == 0)
        return cli_error(CLI_USAGE, "--db DIR is required (see damas serve --help)");
    DbProbe *dbs[SERVE_MAX_DBS];
    char err[1024];
    int code = CLI_OK, opened = 0;
    for (; opened < ndirs; opened++) {
        dbs[opened] = probe_open(dirs[opened], NULL, (size_t)cache_mb << 20, err, sizeof err);
        if (!dbs[opened]) {
            code = cli_error(CLI_FAIL, "%s", err);
            break;
        }
        const Variant *v = probe_variant(dbs[opened]);
        for (int j = 0; j < opened; j++) {
            const Variant *w = probe_variant(dbs[j]);
            if (w->id == v->id && w->rules.optional_capture == v->rules.optional_capture) {
                code = cli_error(CLI_USAGE, "%s and %s both hold a %s database: serve one of them", dirs[j],
                                 dirs[opened], v->name);
                break;
            }
        }
        if (code != CLI_OK) {
            opened++;
            break;
        }
    }
    if (code == CLI_OK) {
        ServeConfig config = {.host = host, .port = (int)port, .threads = (int)threads, .dbs = dbs, .ndbs = ndirs};
        if (serve_run(&config, err, sizeof err) != DAMAS_OK)
            code = cli_error(CLI_FAIL, "%s", err);
    }
    for (int j = 0; j < opened; j++)
        probe_close(dbs[j]);
    return code;
}

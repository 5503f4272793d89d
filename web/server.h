/* `damas serve`: the tablebase explorer and its JSON API over HTTP (libmicrohttpd).
 *
 *   GET /                 the explorer page (built into the binary: works offline)
 *   GET /api/variants     the databases served: variant, board, pieces, every square's labels
 *   GET /api/probe?variant=V[&optional-capture=1]&fen=FEN
 *                         the position's answer, the same JSON object as `damas probe --json`
 *
 * Errors are JSON {"error": "..."}: 400 for a malformed or over-long request or FEN, 404 for a
 * variant not served or a position its database does not cover, 405 for a method other than
 * GET or HEAD, 500 for a damaged file, 503 when memory runs out. No file is ever opened by
 * name from a request: the pages are in the binary, the databases are opened at start. */
#ifndef DAMAS_WEB_SERVER_H
#define DAMAS_WEB_SERVER_H

#include <stdbool.h>
#include <stddef.h>

#include "../db/probe.h"

typedef struct {
    const char *host;      /* address to bind: a numeric IPv4 or IPv6 address or a host name */
    int port;              /* 0: any free port */
    int threads;           /* requests answered at once */
    DbProbe **dbs;         /* one open database per variant */
    int ndbs;
} ServeConfig;

/* Serves until SIGINT or SIGTERM, printing "serving http://HOST:PORT/" on standard output
 * once the socket listens. Returns DAMAS_OK, or an error with a message in err (the address
 * cannot be bound, ...). Blocks SIGINT and SIGTERM in the calling thread. */
int serve_run(const ServeConfig *config, char *err, size_t errlen);

/* The answer to one GET request (path and query already split and decoded), as the server
 * sends it. For the server and its tests. */
typedef struct {
    int status;
    const char *type;
    const char *body;
    size_t length;
    bool owned;            /* body was malloc'd: the caller frees it */
} ServeReply;

/* `arg(name, cls)` returns the decoded query argument or NULL; *len its length (a NUL byte in
 * an argument makes its length differ from strlen). */
typedef const char *ServeArg(const char *name, size_t *len, void *cls);
void serve_answer(const ServeConfig *config, const char *path, ServeArg *arg, void *cls, ServeReply *out);

#endif

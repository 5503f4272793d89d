#include "server.h"

#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/board.h"
#include "../core/notation.h"
#include "../core/variant.h"
#include "../db/answer.h"
#include "assets.h"

static const char json_type[] = "application/json";
static const char no_memory[] = "{\"error\":\"out of memory\"}";

/* A reply built with stdio on a growing string. */
typedef struct {
    FILE *out;
    char *buf;
    size_t len;
} Body;

static bool body_open(Body *b)
{
    b->buf = NULL;
    b->out = open_memstream(&b->buf, &b->len);
    return b->out != NULL;
}

/* Ends b into *r with `status`; a failure to build it becomes 503. */
static void body_reply(Body *b, int status, ServeReply *r)
{
    bool failed = ferror(b->out) != 0;
    if (fclose(b->out) != 0 || failed) {
        free(b->buf);
        *r = (ServeReply){503, json_type, no_memory, sizeof no_memory - 1, false};
        return;
    }
    *r = (ServeReply){status, json_type, b->buf, b->len, true};
}

static void reply_error(ServeReply *r, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void reply_error(ServeReply *r, int status, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    Body b;
    if (!body_open(&b)) {
        *r = (ServeReply){503, json_type, no_memory, sizeof no_memory - 1, false};
        return;
    }
    fputs("{\"error\":", b.out);
    answer_json_string(b.out, msg);
    fputc('}', b.out);
    body_reply(&b, status, r);
}

/* A position of the variant small enough for any database, for the page to start from. */
static const char *example_fen(const Variant *v)
{
    return variant_board(v)->size == 10 ? "W:WK46,28:B13" : "W:WK29,22:B13";
}

static void variants_json(const ServeConfig *c, ServeReply *r)
{
    Body b;
    if (!body_open(&b)) {
        reply_error(r, 503, "out of memory");
        return;
    }
    fputs("{\"variants\":[", b.out);
    for (int i = 0; i < c->ndbs; i++) {
        const Variant *v = probe_variant(c->dbs[i]);
        const Board *board = variant_board(v);
        fprintf(b.out, "%s{\"name\":", i ? "," : "");
        answer_json_string(b.out, v->name);
        fprintf(b.out, ",\"optional_capture\":%s,\"board\":%d,\"pieces\":%d,\"example\":",
                v->rules.optional_capture ? "true" : "false", board->size, probe_pieces(c->dbs[i]));
        answer_json_string(b.out, example_fen(v));
        /* Every square in the order of its number: its label in the variant's own notation and
         * where it is on the board as the variant's players see it (a1 bottom left). */
        fputs(",\"squares\":[", b.out);
        for (int n = 1; n <= board->squares; n++) {
            char number[8], label[NOTATION_SQUARE_MAX], at[NOTATION_SQUARE_MAX];
            const char *end;
            int sq;
            snprintf(number, sizeof number, "%d", n);
            if (notation_square_parse(v, number, &sq, &end, NULL, 0) != DAMAS_OK)
                continue;
            notation_square_write(v, sq, NOTATION_NATIVE, label);
            notation_square_write(v, sq, NOTATION_ALGEBRAIC, at);
            fprintf(b.out, "%s{\"label\":\"%s\",\"at\":\"%s\"}", n > 1 ? "," : "", label, at);
        }
        fputs("]}", b.out);
    }
    fputs("]}", b.out);
    body_reply(&b, 200, r);
}

/* The database a probe request names, or NULL with the error reply made. */
static DbProbe *request_db(const ServeConfig *c, ServeArg *arg, void *cls, ServeReply *r)
{
    size_t len = 0, optional_len = 0;
    const char *name = arg("variant", &len, cls);
    const char *optional = arg("optional-capture", &optional_len, cls);
    bool opt = false;
    if (optional && (!strcmp(optional, "1") || !strcmp(optional, "true")))
        opt = true;
    else if (optional && strcmp(optional, "0") && strcmp(optional, "false") && *optional) {
        reply_error(r, 400, "optional-capture must be 1 or 0");
        return NULL;
    }
    if (!name || !*name) {
        if (c->ndbs == 1 && !optional)
            return c->dbs[0];
        reply_error(r, 400, "variant= is required: %d databases are served (see /api/variants)", c->ndbs);
        return NULL;
    }
    Variant wanted;
    char err[256];
    if (len != strlen(name) || len > 64) {
        reply_error(r, 400, "malformed variant name");
        return NULL;
    }
    if (variant_lookup(name, opt, &wanted, err, sizeof err) != DAMAS_OK) {
        reply_error(r, 400, "%s", err);
        return NULL;
    }
    for (int i = 0; i < c->ndbs; i++) {
        const Variant *v = probe_variant(c->dbs[i]);
        if (v->id == wanted.id && v->rules.optional_capture == wanted.rules.optional_capture)
            return c->dbs[i];
    }
    reply_error(r, 404, "no %s%s database is served here (see /api/variants)", wanted.name,
                opt ? " optional-capture" : "");
    return NULL;
}

static void probe_json(const ServeConfig *c, ServeArg *arg, void *cls, ServeReply *r)
{
    DbProbe *db = request_db(c, arg, cls, r);
    if (!db)
        return;
    size_t len = 0;
    const char *fen = arg("fen", &len, cls);
    if (!fen || !*fen) {
        reply_error(r, 400, "fen= is required");
        return;
    }
    if (len >= NOTATION_FEN_MAX) {
        reply_error(r, 400, "the FEN is %zu bytes long; at most %d are accepted", len, NOTATION_FEN_MAX - 1);
        return;
    }
    if (len != strlen(fen)) {
        reply_error(r, 400, "the FEN holds a NUL byte");
        return;
    }
    AnswerStatus status;
    char *text = answer_json(db, fen, &status);
    if (!text) {
        reply_error(r, 503, "out of memory");
        return;
    }
    int code = status == ANSWER_OK ? 200 : status == ANSWER_BAD_FEN ? 400 : status == ANSWER_OUTSIDE ? 404 : 500;
    *r = (ServeReply){code, json_type, text, strlen(text), true};
}

void serve_answer(const ServeConfig *config, const char *path, ServeArg *arg, void *cls, ServeReply *out)
{
    if (!strcmp(path, "/api/probe")) {
        probe_json(config, arg, cls, out);
        return;
    }
    if (!strcmp(path, "/api/variants")) {
        variants_json(config, out);
        return;
    }
    for (int i = 0; i < web_asset_count; i++) {
        const WebAsset *a = &web_assets[i];
        if (!strcmp(path, a->path) || (!strcmp(a->path, "/") && !strcmp(path, "/index.html"))) {
            *out = (ServeReply){200, a->type, (const char *)a->data, a->length, false};
            return;
        }
    }
    reply_error(out, 404, "no such page; the API is /api/variants and /api/probe?variant=V&fen=FEN");
}

/* ---- HTTP ---- */

static const char *connection_arg(const char *name, size_t *len, void *cls)
{
    const char *value = NULL;
    if (MHD_lookup_connection_value_n(cls, MHD_GET_ARGUMENT_KIND, name, strlen(name), &value, len) != MHD_YES)
        return NULL;
    return value;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_size, void **state)
{
    (void)version;
    (void)upload_data;
    static int seen;
    const ServeConfig *config = cls;
    ServeReply r;
    bool get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
    /* A GET is answered on the second call, once the request is complete, so that the
     * connection can be kept alive; anything else at once, closing it (its body unread). */
    if (get && *state == NULL) {
        *state = &seen;
        return MHD_YES;
    }
    if (get && *upload_size != 0) {   /* a GET with a body: discard it */
        *upload_size = 0;
        return MHD_YES;
    }
    if (!get)
        reply_error(&r, 405, "method %.16s not allowed: only GET and HEAD", method);
    else
        serve_answer(config, url, connection_arg, connection, &r);
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        r.length, (void *)r.body, r.owned ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!resp) {
        if (r.owned)
            free((void *)r.body);
        return MHD_NO;
    }
    MHD_add_response_header(resp, "Content-Type", r.type);
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(resp, "Cache-Control", strncmp(url, "/api/", 5) ? "no-cache" : "no-store");
    MHD_add_response_header(resp, "Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'");
    if (!get)
        MHD_add_response_header(resp, "Allow", "GET, HEAD");
    enum MHD_Result rc = MHD_queue_response(connection, (unsigned)r.status, resp);
    MHD_destroy_response(resp);
    return rc;
}

int serve_run(const ServeConfig *config, char *err, size_t errlen)
{
    char port[16];
    snprintf(port, sizeof port, "%d", config->port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *addr = NULL;
    int gai = getaddrinfo(config->host, port, &hints, &addr);
    if (gai != 0) {
        snprintf(err, errlen, "cannot resolve host '%s': %s", config->host, gai_strerror(gai));
        return DAMAS_ERR_IO;
    }
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);   /* the server's threads inherit the mask */
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG;
    if (addr->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    errno = 0;
    struct MHD_Daemon *d = MHD_start_daemon(
        flags, (uint16_t)config->port, NULL, NULL, handle, (void *)config, MHD_OPTION_SOCK_ADDR, addr->ai_addr,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned)(config->threads > 1 ? config->threads : 1),
        MHD_OPTION_CONNECTION_LIMIT, 512u, MHD_OPTION_CONNECTION_TIMEOUT, 15u,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768, MHD_OPTION_END);
    int saved = errno;
    freeaddrinfo(addr);
    if (!d) {
        snprintf(err, errlen, "cannot listen on %s port %d%s%s", config->host, config->port, saved ? ": " : "",
                 saved ? strerror(saved) : "");
        return DAMAS_ERR_IO;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    bool v6 = strchr(config->host, ':') != NULL;
    printf("serving http://%s%s%s:%u/ :", v6 ? "[" : "", config->host, v6 ? "]" : "",
           info ? info->port : (unsigned)config->port);
    for (int i = 0; i < config->ndbs; i++) {
        const Variant *v = probe_variant(config->dbs[i]);
        printf(" %s%s (up to %d pieces)%s", v->name, v->rules.optional_capture ? " optional-capture" : "",
               probe_pieces(config->dbs[i]), i + 1 < config->ndbs ? "," : "");
    }
    printf("\n");
    fflush(stdout);
    int sig = 0;
    sigwait(&stop, &sig);
    MHD_stop_daemon(d);
    fprintf(stderr, "stopped (%s)\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    return DAMAS_OK;
}

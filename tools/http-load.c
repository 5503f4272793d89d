/* Load and abuse for `damas serve` (scripts/bench-serve.sh).
 *
 *   http-load PORT probe CLIENTS REQUESTS FENFILE VARIANT
 *       CLIENTS threads, each on one kept-alive connection, each sending REQUESTS probes of
 *       the FENs in FENFILE (one a line, taken in turn); prints requests/s, p50 and p99
 *       latency, the answers by kind, and the errors: no answer, or a status other than
 *       200, 400 (an illegal position) and 404 (beyond the database).
 *   http-load PORT abuse COUNT SEED
 *       COUNT malformed requests, each on its own connection: random bytes, bad request
 *       lines, huge headers and URLs, bad methods, bodies, half requests; then one good
 *       request, which must be answered. Prints how each kind was answered.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int port;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int connect_server(int timeout)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct timeval tv = {.tv_sec = timeout};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static bool send_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n <= 0)
            return false;
        buf += n;
        len -= (size_t)n;
    }
    return true;
}

/* Reads one response; returns its status, -1 if the connection ended first, -2 if nothing
 * came within the receive timeout. */
static int read_response(int fd, char *buf, size_t cap)
{
    size_t have = 0;
    char *end = NULL;
    while (!(end = strstr(buf, "\r\n\r\n"))) {
        if (have + 1 >= cap)
            return -1;
        ssize_t n = recv(fd, buf + have, cap - 1 - have, 0);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return -2;
        if (n <= 0)
            return -1;
        have += (size_t)n;
        buf[have] = '\0';
    }
    int status = 0;
    if (sscanf(buf, "HTTP/1.%*d %d", &status) != 1)
        return -1;
    const char *cl = NULL;   /* the Content-Length header, in any case */
    for (const char *p = buf; p < end && !cl; p++)
        if ((p == buf || p[-1] == '\n') && !strncasecmp(p, "content-length:", 15))
            cl = p;
    size_t body = cl ? strtoul(cl + 15, NULL, 10) : 0;
    size_t head = (size_t)(end + 4 - buf), got = have - head;
    while (got < body) {
        char sink[65536];
        ssize_t n = recv(fd, sink, sizeof sink < body - got ? sizeof sink : body - got, 0);
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    return status;
}

typedef struct {
    char **fens;
    int nfens, requests, first;
    const char *variant;
    double *latency;
    int ok, bad, outside, errors;   /* 200, 400, 404; anything else or no answer */
} Client;

static void url_encode(const char *s, char *out)
{
    for (; *s; s++) {
        if ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || strchr("-_.", *s))
            *out++ = *s;
        else
            out += sprintf(out, "%%%02X", (unsigned char)*s);
    }
    *out = '\0';
}

static void *client_run(void *arg)
{
    Client *c = arg;
    int fd = connect_server(20);
    char *resp = malloc(1 << 16);
    for (int i = 0; i < c->requests; i++) {
        char enc[2048], req[4096];
        url_encode(c->fens[(c->first + i) % c->nfens], enc);
        int len = snprintf(req, sizeof req, "GET /api/probe?variant=%s&fen=%s HTTP/1.1\r\nHost: localhost\r\n\r\n",
                           c->variant, enc);
        double t0 = now();
        int status = -1;
        for (int attempt = 0; attempt < 2 && status < 0; attempt++) {
            if (fd < 0 || !send_all(fd, req, (size_t)len) || (resp[0] = '\0', status = read_response(fd, resp, 1 << 16)) < 0) {
                if (fd >= 0)
                    close(fd);
                fd = connect_server(20);   /* the server closed a kept-alive connection */
            }
        }
        c->latency[i] = now() - t0;
        c->ok += status == 200;
        c->bad += status == 400;
        c->outside += status == 404;
        c->errors += status != 200 && status != 400 && status != 404;
    }
    if (fd >= 0)
        close(fd);
    free(resp);
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int probe_load(int clients, int requests, const char *file, const char *variant)
{
    FILE *f = fopen(file, "r");
    if (!f) {
        perror(file);
        return 1;
    }
    char **fens = NULL, line[1024];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!*line)
            continue;
        fens = realloc(fens, (size_t)(n + 1) * sizeof *fens);
        fens[n++] = strdup(line);
    }
    fclose(f);
    if (n == 0) {
        fprintf(stderr, "error: no FEN in %s\n", file);
        return 1;
    }
    Client *c = calloc((size_t)clients, sizeof *c);
    pthread_t *t = calloc((size_t)clients, sizeof *t);
    double *all = malloc((size_t)clients * (size_t)requests * sizeof *all);
    double t0 = now();
    for (int i = 0; i < clients; i++) {
        c[i] = (Client){fens, n, requests, i * 997, variant, all + (size_t)i * (size_t)requests, 0, 0, 0, 0};
        pthread_create(&t[i], NULL, client_run, &c[i]);
    }
    int ok = 0, bad = 0, outside = 0, errors = 0;
    for (int i = 0; i < clients; i++) {
        pthread_join(t[i], NULL);
        ok += c[i].ok;
        bad += c[i].bad;
        outside += c[i].outside;
        errors += c[i].errors;
    }
    double wall = now() - t0;
    size_t total = (size_t)clients * (size_t)requests;
    qsort(all, total, sizeof *all, cmp_double);
    printf("%d clients x %d probes: %zu requests in %.2f s, %.0f requests/s, p50 %.2f ms, p99 %.2f ms; "
           "answers: %d values, %d illegal positions (400), %d beyond the database (404), %d errors\n",
           clients, requests, total, wall, (double)total / wall, all[total / 2] * 1e3, all[total * 99 / 100] * 1e3,
           ok, bad, outside, errors);
    return errors ? 1 : 0;
}

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* One malformed request of kind k into buf; its length. */
static size_t malformed(int k, char *buf, size_t cap)
{
    size_t len = 0;
    switch (k) {
    case 0:   /* random bytes */
        len = 1 + rnd() % 2000;
        for (size_t i = 0; i < len; i++)
            buf[i] = (char)rnd();
        break;
    case 1:   /* a URL of 100 kB */
        len = (size_t)snprintf(buf, cap, "GET /api/probe?fen=");
        while (len < 100000)
            buf[len++] = 'W';
        len += (size_t)snprintf(buf + len, cap - len, " HTTP/1.1\r\nHost: x\r\n\r\n");
        break;
    case 2:   /* a header of 200 kB */
        len = (size_t)snprintf(buf, cap, "GET / HTTP/1.1\r\nX-A: ");
        while (len < 200000)
            buf[len++] = 'a';
        len += (size_t)snprintf(buf + len, cap - len, "\r\n\r\n");
        break;
    case 3:   /* an unknown method with a body */
        len = (size_t)snprintf(buf, cap, "DELETE /api/probe HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello");
        break;
    case 4:   /* a bad version */
        len = (size_t)snprintf(buf, cap, "GET / HTTP/9.9\r\n\r\n");
        break;
    case 5:   /* half a request, then the connection closed */
        len = (size_t)snprintf(buf, cap, "GET /api/probe?fen=W:W1");
        break;
    case 6: { /* a FEN of random bytes, percent-encoded */
        len = (size_t)snprintf(buf, cap, "GET /api/probe?fen=");
        for (int i = 0; i < 300; i++)
            len += (size_t)snprintf(buf + len, cap - len, "%%%02X", (unsigned)(rnd() & 0xff));
        len += (size_t)snprintf(buf + len, cap - len, " HTTP/1.1\r\nHost: x\r\n\r\n");
        break;
    }
    case 7:   /* a GET with a lying Content-Length */
        len = (size_t)snprintf(buf, cap, "GET /api/variants HTTP/1.1\r\nContent-Length: 99999999\r\n\r\nabc");
        break;
    default:  /* paths climbing out, encoded NULs, a bad percent code */
        len = (size_t)snprintf(buf, cap, "GET /../../etc/passwd%%00/%%zz?fen=%%00%%%% HTTP/1.1\r\n\r\n");
        break;
    }
    return len;
}

enum { ABUSE_KINDS = 9 };

static int abuse(int count, uint64_t seed)
{
    static char buf[1 << 18], resp[1 << 16];
    int answered[ABUSE_KINDS] = {0}, closed[ABUSE_KINDS] = {0}, waiting[ABUSE_KINDS] = {0}, sent[ABUSE_KINDS] = {0};
    rng_state = seed | 1;
    for (int i = 0; i < count; i++) {
        int k = i % ABUSE_KINDS;
        int fd = connect_server(1);
        if (fd < 0) {
            fprintf(stderr, "error: cannot connect after %d malformed requests\n", i);
            return 1;
        }
        size_t len = malformed(k, buf, sizeof buf);
        send_all(fd, buf, len);
        shutdown(fd, SHUT_WR);
        resp[0] = '\0';
        int status = read_response(fd, resp, sizeof resp);
        sent[k]++;
        answered[k] += status > 0;
        closed[k] += status == -1;
        waiting[k] += status == -2;   /* left to the server's connection timeout */
        close(fd);
    }
    static const char *names[ABUSE_KINDS] = {"random bytes", "100 kB URL", "200 kB header", "DELETE with body",
                                             "bad version", "half request", "random-byte FEN",
                                             "lying Content-Length", "climbing path, bad escapes"};
    for (int k = 0; k < ABUSE_KINDS; k++)
        printf("  %-28s %4d sent: %4d answered with an HTTP status, %4d closed, %4d left open (timeout)\n",
               names[k], sent[k], answered[k], closed[k], waiting[k]);
    int fd = connect_server(20);
    const char good[] = "GET /api/variants HTTP/1.1\r\nHost: x\r\n\r\n";
    resp[0] = '\0';
    int status = fd >= 0 && send_all(fd, good, sizeof good - 1) ? read_response(fd, resp, sizeof resp) : -1;
    printf("after %d malformed requests the server answers %d\n", count, status);
    return status == 200 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc >= 3)
        port = atoi(argv[1]);
    if (argc == 7 && !strcmp(argv[2], "probe"))
        return probe_load(atoi(argv[3]), atoi(argv[4]), argv[5], argv[6]);
    if (argc == 5 && !strcmp(argv[2], "abuse"))
        return abuse(atoi(argv[3]), strtoull(argv[4], NULL, 10));
    fprintf(stderr, "usage: http-load PORT probe CLIENTS REQUESTS FENFILE VARIANT | PORT abuse COUNT SEED\n");
    return 2;
}

/* pipe2: the pipes are close-on-exec from the start, so an engine started by one thread does
 * not inherit the pipes of another thread's engine (whose end would then never be seen). */
#define _GNU_SOURCE
#include "hub.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../core/board.h"
#include "../core/notation.h"
#include "../core/system.h"
#include "../core/variant.h"

/* The bit of square number k (1-based) in v's numbering, or -1. */
static int square_bit(const Variant *v, long k)
{
    char label[24];
    snprintf(label, sizeof label, "%ld", k);
    int bit;
    const char *end;
    return notation_square_parse(v, label, &bit, &end, NULL, 0) == DAMAS_OK && !*end ? bit : -1;
}

void hub_position_write(const Variant *v, const Position *pos, char *buf)
{
    const Board *b = variant_board(v);
    buf[0] = pos->side == WHITE ? 'W' : 'B';
    for (int k = 1; k <= b->squares; k++) {
        Bitboard m = 1ull << square_bit(v, k);
        bool king = pos->kings & m;
        buf[k] = pos->pieces[WHITE] & m ? (king ? 'W' : 'w') : pos->pieces[BLACK] & m ? (king ? 'B' : 'b') : 'e';
    }
    buf[b->squares + 1] = '\0';
}

bool hub_position_parse(const Variant *v, const char *text, Position *out)
{
    const Board *b = variant_board(v);
    if (!text || (int)strlen(text) != b->squares + 1 || (text[0] != 'W' && text[0] != 'B'))
        return false;
    pos_clear(out, text[0] == 'W' ? WHITE : BLACK);
    for (int k = 1; k <= b->squares; k++) {
        char c = text[k];
        int bit = square_bit(v, k);
        if (bit < 0)
            return false;
        if (c == 'w' || c == 'W')
            pos_put(out, WHITE, bit, c == 'W');
        else if (c == 'b' || c == 'B')
            pos_put(out, BLACK, bit, c == 'B');
        else if (c != 'e')
            return false;
    }
    return true;
}

void hub_move_write(const Variant *v, const Move *m, char *buf, size_t len)
{
    char from[NOTATION_SQUARE_MAX], to[NOTATION_SQUARE_MAX];
    notation_square_write(v, m->from, NOTATION_NUMERIC, from);
    notation_square_write(v, m->to, NOTATION_NUMERIC, to);
    size_t used = (size_t)snprintf(buf, len, "%s%c%s", from, m->captured ? 'x' : '-', to);
    for (Bitboard c = m->captured; c && used < len; c &= c - 1) {
        char sq[NOTATION_SQUARE_MAX];
        notation_square_write(v, __builtin_ctzll(c), NOTATION_NUMERIC, sq);
        used += (size_t)snprintf(buf + used, len - used, "x%s", sq);
    }
}

bool hub_move_parse(const Variant *v, const Position *pos, const char *text, Move *out)
{
    /* from, to, then the captured squares: numbers separated by '-' or 'x'. */
    int bits[64], n = 0;
    const char *p = text;
    while (*p && n < 64) {
        char *end;
        errno = 0;
        long k = strtol(p, &end, 10);
        if (end == p || errno || (bits[n++] = square_bit(v, k)) < 0)
            return false;
        p = end;
        if (*p && *p != '-' && *p != 'x')
            return false;
        if (*p && !*++p)   /* a separator must be followed by a square */
            return false;
    }
    if (*p || n < 2)
        return false;
    Bitboard captured = 0;
    for (int i = 2; i < n; i++)
        captured |= 1ull << bits[i];
    /* "fromxto" alone names a capture when only one legal move goes from there to there. */
    MoveList list;
    movegen_moves(pos, v, &list);
    int found = 0;
    for (int k = 0; k < list.count; k++) {
        const Move *m = &list.moves[k];
        if (m->from == bits[0] && m->to == bits[1] && (m->captured == captured || n == 2)) {
            *out = *m;
            found += 1 + (m->captured == captured) * 1000;
        }
    }
    if (found >= 1000) {   /* an exact match wins over the short form */
        for (int k = 0; k < list.count; k++)
            if (list.moves[k].from == bits[0] && list.moves[k].to == bits[1] && list.moves[k].captured == captured)
                *out = list.moves[k];
        return true;
    }
    return found == 1;
}

struct HubEngine {
    pid_t pid;
    int in, out;              /* the engine's standard input (we write) and output (we read) */
    char buf[65536];
    size_t used;
    char command[256];        /* for messages */
    const Variant *v;
};

enum { HUB_START_SECONDS = 10, HUB_GRACE_SECONDS = 5 };

extern char **environ;

static int fail(HubEngine *e, char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "Hub engine '%s': %s", e->command, what);
    return DAMAS_ERR_ILLEGAL;
}

static bool send_line(HubEngine *e, const char *line)
{
    size_t len = strlen(line), done = 0;
    while (done < len) {
        ssize_t k = write(e->in, line + done, len - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        done += (size_t)k;
    }
    return write(e->in, "\n", 1) == 1;
}

/* The next line the engine writes, until `deadline`: 1, 0 at the deadline, -1 at its end. */
static int read_line(HubEngine *e, char *line, size_t len, double deadline)
{
    for (;;) {
        char *nl = memchr(e->buf, '\n', e->used);
        if (nl) {
            size_t n = (size_t)(nl - e->buf);
            snprintf(line, len, "%.*s", (int)(n && nl[-1] == '\r' ? n - 1 : n), e->buf);
            memmove(e->buf, nl + 1, e->used - n - 1);
            e->used -= n + 1;
            return 1;
        }
        if (e->used == sizeof e->buf)   /* a line longer than the buffer: dropped */
            e->used = 0;
        double left = deadline - system_now();
        if (left <= 0)
            return 0;
        struct pollfd p = {e->out, POLLIN, 0};
        int r = poll(&p, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            continue;
        ssize_t k = read(e->out, e->buf + e->used, sizeof e->buf - e->used);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        e->used += (size_t)k;
    }
}

/* Reads lines until one starts with `word` (copied to line); an `error` line, the end of the
 * engine or the deadline fail with a message. */
static int expect(HubEngine *e, const char *word, char *line, size_t len, double deadline, char *err, size_t errlen)
{
    size_t wl = strlen(word);
    for (;;) {
        int r = read_line(e, line, len, deadline);
        if (r < 0)
            return fail(e, err, errlen, "the engine ended");
        if (r == 0) {
            char what[96];
            snprintf(what, sizeof what, "no '%s' in time", word);
            return fail(e, err, errlen, what);
        }
        if (!strncmp(line, "error", 5) && (!line[5] || line[5] == ' ')) {
            char what[512];
            snprintf(what, sizeof what, "it says %.480s", line);
            return fail(e, err, errlen, what);
        }
        if (!strncmp(line, word, wl) && (!line[wl] || line[wl] == ' '))
            return DAMAS_OK;
    }
}

/* The value of name=value (or name="value") in a Hub line, into buf; false if absent. */
static bool line_value(const char *line, const char *name, char *buf, size_t len)
{
    size_t nl = strlen(name);
    for (const char *p = line; (p = strstr(p, name)); p++) {
        if ((p != line && p[-1] != ' ') || p[nl] != '=')
            continue;
        p += nl + 1;
        size_t n = *p == '"' ? strcspn(++p, "\"") : strcspn(p, " ");
        snprintf(buf, len, "%.*s", (int)n, p);
        return true;
    }
    return false;
}

HubEngine *hub_engine_start(const char *command, const Variant *v, const char *db, char *err, size_t errlen)
{
    HubEngine *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(e->command, sizeof e->command, "%s", command);
    e->v = v;
    int to_child[2], from_child[2];
    if (pipe2(to_child, O_CLOEXEC) != 0) {
        free(e);
        snprintf(err, errlen, "cannot make a pipe: %s", strerror(errno));
        return NULL;
    }
    if (pipe2(from_child, O_CLOEXEC) != 0) {
        close(to_child[0]), close(to_child[1]), free(e);
        snprintf(err, errlen, "cannot make a pipe: %s", strerror(errno));
        return NULL;
    }
    signal(SIGPIPE, SIG_IGN);
    /* The engine's environment is ours without DAMAS_WEIGHTS: another damas finds its own
     * weights, not the ones this process was pointed at (an older release would otherwise fall
     * back to its compiled-in weights unannounced); the command can still set it itself. Built
     * before fork: the child of a threaded process only execs. */
    size_t nenv = 0;
    while (environ[nenv])
        nenv++;
    char **env = malloc((nenv + 1) * sizeof *env);
    if (!env) {
        close(to_child[0]), close(to_child[1]), close(from_child[0]), close(from_child[1]), free(e);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    size_t kept = 0;
    for (size_t k = 0; k < nenv; k++)
        if (strncmp(environ[k], "DAMAS_WEIGHTS=", 14) != 0)
            env[kept++] = environ[k];
    env[kept] = NULL;
    e->pid = fork();
    if (e->pid == 0) {
        dup2(to_child[0], 0);
        dup2(from_child[1], 1);
        close(to_child[0]), close(to_child[1]), close(from_child[0]), close(from_child[1]);
        char *argv[] = {"sh", "-c", (char *)command, NULL};
        execve("/bin/sh", argv, env);
        _exit(127);
    }
    free(env);
    close(to_child[0]);
    close(from_child[1]);
    e->in = to_child[1];
    e->out = from_child[0];
    if (e->pid < 0) {
        snprintf(err, errlen, "cannot start '%s': %s", command, strerror(errno));
        e->pid = 0;
        hub_engine_close(e);
        return NULL;
    }
    /* The handshake: the parameters the engine lists, up to `wait`; then the variant. */
    char line[4096], names[1024] = "", set[4200];
    bool rules = false, takes_db = false;   /* the engine takes the draw rules, a database (as damas does) */
    double deadline = system_now() + HUB_START_SECONDS;
    if (!send_line(e, "hub"))
        goto failed_to_talk;
    for (;;) {
        int r = read_line(e, line, sizeof line, deadline);
        if (r <= 0) {
            fail(e, err, errlen, r < 0 ? "the engine ended before 'wait'" : "no 'wait' in time after 'hub'");
            hub_engine_close(e);
            return NULL;
        }
        char name[64];
        if (!strncmp(line, "param ", 6) && line_value(line, "name", name, sizeof name)) {
            if (!strcmp(name, "variant"))
                line_value(line, "values", names, sizeof names);
            rules |= !strcmp(name, "rules");
            takes_db |= !strcmp(name, "db");
        }
        if (!strcmp(line, "wait"))
            break;
    }
    const char *variant = v->name;
    if (v->id == VARIANT_INTERNATIONAL && names[0] && !strstr(names, "international") && strstr(names, "normal"))
        variant = "normal";
    snprintf(set, sizeof set, "set-param name=variant value=%s", variant);
    if (!send_line(e, set))
        goto failed_to_talk;
    /* An engine that takes the draw rules plays under the match's. */
    snprintf(set, sizeof set, "set-param name=rules value=%s", v->draw->name);
    if (rules && !send_line(e, set))
        goto failed_to_talk;
    if (db && takes_db) {
        snprintf(set, sizeof set, "set-param name=db value=\"%s\"", db);
        if (!send_line(e, set))
            goto failed_to_talk;
    }
    if (!send_line(e, "init"))
        goto failed_to_talk;
    if (expect(e, "ready", line, sizeof line, deadline, err, errlen) != DAMAS_OK) {
        hub_engine_close(e);
        return NULL;
    }
    return e;
failed_to_talk:
    fail(e, err, errlen, "the engine ended (it reads no more)");
    hub_engine_close(e);
    return NULL;
}

int hub_engine_new_game(HubEngine *e, char *err, size_t errlen)
{
    return send_line(e, "new-game") ? DAMAS_OK : fail(e, err, errlen, "the engine ended (it reads no more)");
}

int hub_engine_play(HubEngine *e, const Position *start, const Move *moves, int nmoves, double seconds, Move *out,
                    char *err, size_t errlen)
{
    size_t cap = 64 + (size_t)nmoves * HUB_MOVE_MAX;
    char *line = malloc(cap), position[HUB_POSITION_MAX];
    if (!line)
        return fail(e, err, errlen, "out of memory");
    hub_position_write(e->v, start, position);
    size_t used = (size_t)snprintf(line, cap, "pos pos=%s", position);
    Position pos = *start;
    for (int k = 0; k < nmoves; k++) {
        char m[HUB_MOVE_MAX];
        hub_move_write(e->v, &moves[k], m, sizeof m);
        used += (size_t)snprintf(line + used, cap - used, "%s%s", k ? " " : " moves=\"", m);
        Undo u;
        pos_make(&pos, &moves[k], &u);
    }
    if (nmoves)
        snprintf(line + used, cap - used, "\"");
    char level[64];
    snprintf(level, sizeof level, "level move-time=%.3f", seconds);
    bool sent = send_line(e, line) && send_line(e, level) && send_line(e, "go think");
    free(line);
    if (!sent)
        return fail(e, err, errlen, "the engine ended (it reads no more)");
    char reply[4096], move[HUB_MOVE_MAX];
    int rc = expect(e, "done", reply, sizeof reply, system_now() + seconds + HUB_GRACE_SECONDS, err, errlen);
    if (rc != DAMAS_OK && strstr(err, "in time")) {
        /* Too slow: ask it to stop, and take the move it then gives, but say so. */
        send_line(e, "stop");
        char slow[512];
        snprintf(slow, sizeof slow, "%s", err);
        if (expect(e, "done", reply, sizeof reply, system_now() + HUB_GRACE_SECONDS, err, errlen) == DAMAS_OK)
            snprintf(err, errlen, "%s", slow);
        return rc;
    }
    if (rc != DAMAS_OK)
        return rc;
    if (!line_value(reply, "move", move, sizeof move)) {
        char what[600];
        snprintf(what, sizeof what, "no move in '%.500s'", reply);
        return fail(e, err, errlen, what);
    }
    if (!hub_move_parse(e->v, &pos, move, out)) {
        char what[400];
        snprintf(what, sizeof what, "'%.300s' is not a legal move here", move);
        return fail(e, err, errlen, what);
    }
    return DAMAS_OK;
}

void hub_engine_close(HubEngine *e)
{
    if (!e)
        return;
    if (e->pid > 0) {
        send_line(e, "quit");
        close(e->in);
        e->in = -1;
        /* A moment to end by itself, then it is killed. */
        for (int k = 0; k < 100 && waitpid(e->pid, NULL, WNOHANG) == 0; k++) {
            struct timespec ts = {0, 10000000};
            nanosleep(&ts, NULL);
            if (k == 99) {
                kill(e->pid, SIGKILL);
                waitpid(e->pid, NULL, 0);
            }
        }
    }
    if (e->in >= 0)
        close(e->in);
    close(e->out);
    free(e);
}

/* ---- lines ---- */

char *hub_line_parse(char *line, HubArgs *a)
{
    a->n = 0;
    char *p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p)
        return NULL;
    char *cmd = p;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    while (*p && a->n < HUB_MAX_ARGS) {
        *p++ = '\0';
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        a->name[a->n] = p;
        while (*p && *p != '=' && *p != ' ')
            p++;
        a->value[a->n] = "";
        if (*p == '=') {
            *p++ = '\0';
            if (*p == '"') {
                a->value[a->n] = ++p;
                while (*p && *p != '"')
                    p++;
                if (*p)
                    *p++ = '\0';
            } else {
                a->value[a->n] = p;
                while (*p && *p != ' ')
                    p++;
            }
        }
        a->n++;
    }
    return cmd;
}

const char *hub_arg(const HubArgs *a, const char *name)
{
    for (int i = 0; i < a->n; i++)
        if (!strcmp(a->name[i], name))
            return a->value[i];
    return NULL;
}

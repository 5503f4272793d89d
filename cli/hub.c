/* damas hub: the Hub protocol, version 2 (Scan 3's protocol.txt), on standard input/output,
 * with positions and moves as engine/hub.h writes them. The search runs in its own thread so
 * that `stop` and `ping` are answered while it thinks. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/board.h"
#include "../core/notation.h"
#include "../engine/hub.h"
#include "../engine/search.h"
#include "../core/variant.h"
#include "cli.h"

enum { HUB_TT_MB_MAX = 65536 };

typedef struct {
    pthread_mutex_t out;          /* one writer at a time on stdout */
    char variant[32], weights[1024], db[1024], rules[16];
    uint64_t tt_mb, contempt;
    bool ready;
    Variant v;
    Weights w;
    DbProbe *probe;
    Search *search;
    GameLog game;                 /* the position to search, after the game's moves */
    GameLog next;                 /* a `pos` being read (the game stays as it was if it is bad) */
    SearchLimits limits;
    pthread_t thread;
    bool searching;
} Hub;

static void hub_say(Hub *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void hub_say(Hub *h, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&h->out);
    vprintf(fmt, ap);
    putchar('\n');
    fflush(stdout);
    pthread_mutex_unlock(&h->out);
    va_end(ap);
}

static bool hub_set_position(Hub *h, const char *text, const char *moves)
{
    Position pos;
    if (!hub_position_parse(&h->v, text, &pos))
        return false;
    game_begin(&h->next, &pos);
    if (moves && *moves) {
        char buf[8192];
        snprintf(buf, sizeof buf, "%s", moves);
        char *save = NULL;
        for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
            Move m;
            if (!hub_move_parse(&h->v, game_pos(&h->next), t, &m) || !game_play(&h->next, &m))
                return false;
        }
    }
    h->game = h->next;
    return true;
}

static void hub_report(void *ctx, const SearchInfo *info)
{
    Hub *h = ctx;
    char pv[4096] = "";
    size_t used = 0;
    for (int k = 0; k < info->pv_length && used + 64 < sizeof pv; k++) {
        char m[HUB_MOVE_MAX];
        hub_move_write(&h->v, &info->pv[k], m, sizeof m);
        used += (size_t)snprintf(pv + used, sizeof pv - used, "%s%s", k ? " " : "", m);
    }
    double score = info->score > SEARCH_WIN_MIN    ? 100.0 - (SEARCH_WIN - info->score) / 100.0
                   : info->score < -SEARCH_WIN_MIN ? -100.0 + (SEARCH_WIN + info->score) / 100.0
                                                   : info->score / 100.0;
    hub_say(h, "info depth=%d score=%.2f nodes=%llu time=%.3f nps=%.2f pv=\"%s\"", info->depth, score,
            (unsigned long long)info->nodes, info->seconds,
            info->seconds > 0 ? (double)info->nodes / info->seconds / 1e6 : 0, pv);
}

static void *hub_think(void *arg)
{
    Hub *h = arg;
    SearchInfo info;
    int n = search_game(h->search, &h->game, &h->limits, &info, hub_report, h);
    if (n == 0) {
        hub_say(h, "error message=\"the position has no legal move\"");
        hub_say(h, "done");
        return NULL;
    }
    char move[HUB_MOVE_MAX], ponder[HUB_MOVE_MAX] = "";
    hub_move_write(&h->v, &info.pv[0], move, sizeof move);
    if (info.pv_length > 1) {
        hub_move_write(&h->v, &info.pv[1], ponder, sizeof ponder);
        hub_say(h, "done move=%s ponder=%s", move, ponder);
    } else {
        hub_say(h, "done move=%s", move);
    }
    return NULL;
}

/* Stops the search under way, if any, and waits for its `done`. */
static void hub_stop(Hub *h)
{
    if (h->searching) {
        search_stop(h->search);
        pthread_join(h->thread, NULL);
        h->searching = false;
    }
}

static bool hub_init(Hub *h, char *err, size_t errlen)
{
    if (variant_lookup(h->variant, false, &h->v, err, errlen) != DAMAS_OK ||
        variant_set_draw_rules(&h->v, h->rules, err, errlen) != DAMAS_OK)
        return false;
    if (!h->weights[0] || !strcmp(h->weights, "default") || !strcmp(h->weights, "builtin")) {
        if (!cli_weights(h->weights[0] ? h->weights : NULL, &h->v, &h->w)) {
            snprintf(err, errlen, "cannot load the weights");
            return false;
        }
    } else if (weights_load(h->weights, &h->v, &h->w, err, errlen) != DAMAS_OK) {
        return false;
    }
    probe_close(h->probe);
    h->probe = NULL;
    if (!cli_engine_db(h->db, &h->v, &h->probe, err, errlen))
        return false;
    search_free(h->search);
    if (!(h->search = search_new(&h->v, &h->w, h->probe, h->tt_mb))) {
        snprintf(err, errlen, "out of memory for the search");
        return false;
    }
    search_set_contempt(h->search, (int)h->contempt);
    Position start;
    pos_start(&start, &h->v);
    game_begin(&h->game, &start);
    h->limits = (SearchLimits){.seconds = 1.0};
    return true;
}

int cmd_hub(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        puts("usage: damas hub\n\nSpeaks the Hub protocol (version 2, as Scan 3) on standard input and output, for\n"
             "GUIs and pydraughts. Parameters: variant, rules (default or official: the draw rules),\n"
             "weights (a file or default), db (a database directory; empty: the <=4-piece tables, built\n"
             "once into ~/.cache/damas; none: no tables), tt-mb, contempt (how much worse than 0 a draw\n"
             "is for the engine, in hundredths of a man).");
        return CLI_OK;
    }
    Hub *h = calloc(1, sizeof *h);
    if (!h)
        return cli_error(CLI_FAIL, "out of memory");
    pthread_mutex_init(&h->out, NULL);
    snprintf(h->variant, sizeof h->variant, "international");
    snprintf(h->weights, sizeof h->weights, "default");
    snprintf(h->rules, sizeof h->rules, "default");
    h->tt_mb = SEARCH_TT_MB;
    char line[16384], err[1024];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        HubArgs a;
        char *cmd = hub_line_parse(line, &a);
        if (!cmd)
            continue;
        if (!strcmp(cmd, "hub")) {
            hub_say(h, "id name=damas version=%s author=\"damas developers\"", DAMAS_VERSION_TEXT);
            hub_say(h, "param name=variant value=%s type=enum values=\"%s\"", h->variant,
                    "brazilian russian spanish czech italian american international");
            hub_say(h, "param name=rules value=%s type=enum values=\"default official\"", h->rules);
            hub_say(h, "param name=weights value=\"%s\" type=string", h->weights);
            hub_say(h, "param name=db value=\"%s\" type=string", h->db);
            hub_say(h, "param name=tt-mb value=%llu type=int min=1 max=%d", (unsigned long long)h->tt_mb,
                    HUB_TT_MB_MAX);
            hub_say(h, "param name=contempt value=%llu type=int min=0 max=%d", (unsigned long long)h->contempt,
                    SEARCH_CONTEMPT_MAX);
            hub_say(h, "wait");
        } else if (!strcmp(cmd, "set-param")) {
            const char *name = hub_arg(&a, "name"), *value = hub_arg(&a, "value");
            if (!name || !value)
                hub_say(h, "error message=\"set-param needs name and value\"");
            else if (!strcmp(name, "variant"))
                snprintf(h->variant, sizeof h->variant, "%s", value);
            else if (!strcmp(name, "rules"))
                snprintf(h->rules, sizeof h->rules, "%s", value);
            else if (!strcmp(name, "weights"))
                snprintf(h->weights, sizeof h->weights, "%s", value);
            else if (!strcmp(name, "db"))
                snprintf(h->db, sizeof h->db, "%s", value);
            else if (!strcmp(name, "tt-mb")) {
                uint64_t mb;
                if (cli_uint(value, HUB_TT_MB_MAX, &mb) && mb >= 1)
                    h->tt_mb = mb;
                else
                    hub_say(h, "error message=\"tt-mb must be from 1 to %d\"", HUB_TT_MB_MAX);
            } else if (!strcmp(name, "contempt")) {
                if (!cli_uint(value, SEARCH_CONTEMPT_MAX, &h->contempt))
                    hub_say(h, "error message=\"contempt must be from 0 to %d\"", SEARCH_CONTEMPT_MAX);
            } else
                hub_say(h, "error message=\"unknown parameter %s\"", name);
        } else if (!strcmp(cmd, "init")) {
            hub_stop(h);
            h->ready = hub_init(h, err, sizeof err);
            if (h->ready)
                hub_say(h, "ready");
            else
                hub_say(h, "error message=\"%s\"", err);
        } else if (!strcmp(cmd, "ping")) {
            hub_say(h, "pong");
        } else if (!strcmp(cmd, "stop")) {
            hub_stop(h);
        } else if (!strcmp(cmd, "quit")) {
            break;
        } else if (!h->ready) {
            hub_say(h, "error message=\"send init first\"");
        } else if (!strcmp(cmd, "new-game")) {
            hub_stop(h);
            search_clear(h->search);
        } else if (!strcmp(cmd, "pos")) {
            hub_stop(h);
            if (!hub_set_position(h, hub_arg(&a, "pos"), hub_arg(&a, "moves")))
                hub_say(h, "error message=\"bad position or move for %s\"", h->v.name);
        } else if (!strcmp(cmd, "level")) {
            hub_stop(h);
            const char *depth = hub_arg(&a, "depth"), *move_time = hub_arg(&a, "move-time"),
                       *time = hub_arg(&a, "time"), *moves = hub_arg(&a, "moves"), *inc = hub_arg(&a, "inc");
            if (depth)
                h->limits = (SearchLimits){.depth = atoi(depth) > 0 ? atoi(depth) : 1};
            else if (move_time)
                h->limits = (SearchLimits){.seconds = atof(move_time) > 0 ? atof(move_time) : 0.01};
            else if (time) {
                /* An even share of the clock on average: no iteration begins past half of it,
                 * and none runs on past three shares or a quarter of the time left. */
                double left = atof(time), per = left / (moves && atoi(moves) > 0 ? atoi(moves) : 30);
                per += inc ? atof(inc) : 0;
                double hard = 3 * per < left / 4 ? 3 * per : left / 4;
                h->limits = (SearchLimits){.seconds = hard > 0.01 ? hard : 0.01, .soft = per / 2};
            } else if (hub_arg(&a, "infinite"))
                h->limits = (SearchLimits){0};
        } else if (!strcmp(cmd, "go")) {
            hub_stop(h);
            search_resume(h->search);   /* a `stop` from now on is never lost */
            if (pthread_create(&h->thread, NULL, hub_think, h) == 0)
                h->searching = true;
            else
                hub_say(h, "error message=\"cannot start the search\"");
        } else if (!strcmp(cmd, "ponder-hit")) {
            /* The search goes on as it is. */
        } else {
            hub_say(h, "error message=\"unknown command %s\"", cmd);
        }
    }
    hub_stop(h);   /* (end of input too) */
    search_free(h->search);
    probe_close(h->probe);
    pthread_mutex_destroy(&h->out);
    free(h);
    return CLI_OK;
}

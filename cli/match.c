/* damas match and damas play. */
#define _XOPEN_SOURCE 700   /* realpath */
#include <omp.h>
#include <unistd.h>
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/board.h"
#include "../core/notation.h"
#include "../core/system.h"
#include "../core/variant.h"
#include "../engine/match.h"
#include "../engine/pdn.h"
#include "cli.h"

static const char match_help[] =
    "usage: damas match --variant V [--optional-capture] --a W1 --b W2 --games N\n"
    "                   (--nodes K | --depth D | --time S) [--openings FILE] [--threads T] [--pdn FILE]\n"
    "                   [--db DIR] [--seed S] [--rules R] [--contempt C[,C2]]\n"
    "\n"
    "Plays N games between two players, each opening twice with the colours swapped, games in\n"
    "parallel, and prints the wins, draws and losses of A and the Elo difference A - B with its\n"
    "95% interval (from the pairs' scores); the same so far on stderr as it goes (a line rewritten\n"
    "on a terminal, a line each tenth of the games in a log). A player is a weight file,\n"
    "'default' (the variant's shipped weights: eval/weights/<variant>.h5 beside the binary or in\n"
    "$DAMAS_WEIGHTS), 'builtin' (the compiled-in weights), 'material' (their material weights\n"
    "only), 'random' (a uniformly random legal mover) or 'hub:COMMAND', a Hub engine started\n"
    "by /bin/sh (another damas, Scan, ...; one process per thread; it needs --time, and gets the\n"
    "same time a move; DAMAS_WEIGHTS is not passed on: another damas uses its own shipped\n"
    "weights).\n"
    "Openings: one FEN per line in FILE, or a PDN file (each game's final position: its FEN tag\n"
    "and moves), or the built-in set: the level positions a few plies from the start (a 6-ply\n"
    "search on material alone finds neither side a man ahead), as many as there are game pairs,\n"
    "so no pair repeats another.\n"
    "--pdn FILE saves the games; each move damas searched carries its score as a comment:\n"
    "{+0.35} in men for the mover, {win in 23} or {loss in 8} in plies to the game's end.\n"
    "--db DIR: both players search with this endgame database (a Hub engine if it lists a db\n"
    "parameter, as damas does: it is given the directory's absolute path), and a game ends as\n"
    "soon as the database covers its position without a capture to make (its value decides).\n"
    "Without --db, damas searches with its <=4-piece tables (built once into ~/.cache/damas) and\n"
    "games are played to their end; --db none: no tables.\n"
    "--contempt C: damas scores a draw C hundredths of a man below 0 for itself (default 0), so\n"
    "that it plays on where it judges itself better than that; C,C2 gives A's, then B's.\n"
    "\n" CLI_RULES_HELP "\n"
    "  damas match --variant russian --a default --b 'hub:/opt/damas-0.2/damas hub' --games 400 --time 0.1\n";

#define PLAY_COMMANDS                                                                              \
    "  moves       your legal moves          hint    the engine's choice for you\n"                   \
    "  undo        take back your last move and the engine's answer;  redo: play them again\n"       \
    "  resign      give up the game          save FILE.pdn  the game so far as PDN\n"                \
    "  depth N     the engine searches N plies;  time S: S seconds a move\n"                         \
    "  board       draw the board again      help    this list;  quit\n"

static const char play_help[] =
    "usage: damas play --variant V [--optional-capture] [--weights W] [--db DIR] [--depth D | --time S]\n"
    "                  [--black] [--fen FEN] [--rules R] [--contempt C]\n"
    "\n"
    "A game against the engine in the terminal. Type moves in the variant's notation; also:\n"
    PLAY_COMMANDS "\n"
    "--contempt C: the engine scores a draw C hundredths of a man below 0 for itself (default 0).\n"
    "\n" CLI_DB_HELP CLI_RULES_HELP;

typedef struct {
    const char *spec;
    Weights *w;          /* NULL for random or a Hub engine */
    const char *hub;     /* the command of a Hub engine */
} PlayerSpec;

static bool player_load(const char *spec, const Variant *v, PlayerSpec *p)
{
    p->spec = spec;
    p->w = NULL;
    p->hub = NULL;
    if (!strcmp(spec, "random"))
        return true;
    if (!strncmp(spec, "hub:", 4)) {
        p->hub = spec + 4;
        if (!*p->hub) {
            cli_error(CLI_USAGE, "'hub:' needs the engine's command, as in 'hub:/usr/local/bin/scan hub'");
            return false;
        }
        return true;
    }
    p->w = malloc(sizeof *p->w);
    if (!p->w) {
        cli_error(CLI_FAIL, "out of memory");
        return false;
    }
    if (!cli_weights(spec, v, p->w)) {
        free(p->w);
        p->w = NULL;
        return false;
    }
    return true;
}

typedef struct {
    Position *list;
    int n, cap;
} Openings;

/* A PDN game as an opening: the position after its moves. */
static bool add_game(void *ctx, const Game *g)
{
    Openings *o = ctx;
    if (o->n == o->cap) {
        Position *more = realloc(o->list, (size_t)(o->cap = 2 * o->cap + 64) * sizeof *more);
        if (!more)
            return false;
        o->list = more;
    }
    Position pos = g->start;
    for (int k = 0; k < g->nmoves; k++) {
        Undo u;
        pos_make(&pos, &g->moves[k], &u);
    }
    o->list[o->n++] = pos;
    return true;
}

/* Openings from a PDN file: each game's final position. */
static int read_pdn_openings(FILE *f, const char *path, const Variant *v, Position **out)
{
    Openings o = {NULL, 0, 0};
    char err[1024];
    int games = pdn_read(v, f, path, add_game, &o, err, sizeof err);
    fclose(f);
    if (games < 0 || o.n < games) {
        free(o.list);
        return games < 0 ? cli_error(-1, "%s", err) : cli_error(-1, "out of memory");
    }
    if (o.n == 0) {
        free(o.list);
        return cli_error(-1, "%s holds no game", path);
    }
    *out = o.list;
    return o.n;
}

/* Openings: one FEN a line, or (a file starting with a PDN tag) the games of a PDN file. */
static int read_openings(const char *path, const Variant *v, Position **out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return cli_error(-1, "cannot read %s", path);
    int first;
    while ((first = fgetc(f)) != EOF && isspace(first))
        ;
    rewind(f);
    if (first == '[')
        return read_pdn_openings(f, path, v, out);
    int n = 0, cap = 64, line = 0;
    Position *list = malloc((size_t)cap * sizeof *list);
    char buf[NOTATION_FEN_MAX + 2], err[512];
    while (list && fgets(buf, sizeof buf, f)) {
        line++;
        if (!strchr(buf, '\n') && !feof(f)) {
            fclose(f);
            free(list);
            return cli_error(-1, "%s line %d: longer than %d characters (not a FEN)", path, line, NOTATION_FEN_MAX);
        }
        buf[strcspn(buf, "\r\n")] = '\0';
        if (!buf[0] || buf[0] == '#')
            continue;
        if (n == cap && !(list = realloc(list, (size_t)(cap *= 2) * sizeof *list)))
            break;
        if (notation_fen_parse(v, buf, &list[n], err, sizeof err) != DAMAS_OK) {
            fclose(f);
            free(list);
            return cli_error(-1, "%s line %d: %s", path, line, err);
        }
        n++;
    }
    fclose(f);
    if (!list)
        return cli_error(-1, "out of memory");
    if (n == 0) {
        free(list);
        return cli_error(-1, "%s holds no opening", path);
    }
    *out = list;
    return n;
}

void cli_match_progress(void *ctx, const MatchResult *so_far)
{
    const CliMatchProgress *p = ctx;
    bool tty = isatty(2);
    /* In a log, a line at each tenth of the games. */
    if (!tty && so_far->games * 10 / p->games == (so_far->games - 1) * 10 / p->games)
        return;
    double seconds = system_now() - p->start, rate = seconds > 0 ? so_far->games / seconds : 0;
    char elo[64] = "";
    if (so_far->games >= 4 && match_elo_estimable(so_far))
        snprintf(elo, sizeof elo, ", Elo %+.0f (%+.0f to %+.0f)", so_far->elo, so_far->low, so_far->high);
    fprintf(stderr, "%s%d/%d games, %.1f games/s, ~%.0f s left: A +%d =%d -%d%s%s", tty ? "\r" : "", so_far->games,
            p->games, rate, rate > 0 ? (p->games - so_far->games) / rate : 0, so_far->wins, so_far->draws,
            so_far->losses, elo, tty ? "  " : "\n");
    fflush(stderr);
}

int cmd_match(int argc, char **argv)
{
    const char *variant = NULL, *a = NULL, *b = NULL, *openings = NULL, *pdn = NULL, *db_dir = NULL, *value,
               *rules = NULL;
    bool optional = false;
    uint64_t games = 0, threads = 1, seed = 1, n;
    int contempt[2] = {0, 0};
    SearchLimits limits = {0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(match_help, stdout);
            return CLI_OK;
        } else if ((value = cli_option(argc, argv, &i, "--variant"))) {
            variant = value;
        } else if (!strcmp(argv[i], "--optional-capture")) {
            optional = true;
        } else if ((value = cli_option(argc, argv, &i, "--rules"))) {
            rules = value;
        } else if ((value = cli_option(argc, argv, &i, "--a"))) {
            a = value;
        } else if ((value = cli_option(argc, argv, &i, "--b"))) {
            b = value;
        } else if ((value = cli_option(argc, argv, &i, "--openings"))) {
            openings = value;
        } else if ((value = cli_option(argc, argv, &i, "--pdn"))) {
            pdn = value;
        } else if ((value = cli_option(argc, argv, &i, "--db"))) {
            db_dir = value;
        } else if ((value = cli_option(argc, argv, &i, "--games"))) {
            if (!cli_uint(value, 1000000, &games) || games < 2 || games % 2)
                return cli_error(CLI_USAGE, "--games must be an even number from 2, not '%s'", value);
        } else if ((value = cli_option(argc, argv, &i, "--nodes"))) {
            if (!cli_uint(value, UINT64_MAX, &n) || n < 1)
                return cli_error(CLI_USAGE, "--nodes must be a positive number, not '%s'", value);
            limits.nodes = n;
        } else if ((value = cli_option(argc, argv, &i, "--depth"))) {
            if (!cli_uint(value, SEARCH_MAX_PLY - 1, &n) || n < 1)
                return cli_error(CLI_USAGE, "--depth must be from 1 to %d, not '%s'", SEARCH_MAX_PLY - 1, value);
            limits.depth = (int)n;
        } else if ((value = cli_option(argc, argv, &i, "--time"))) {
            if (!cli_seconds(value, &limits.seconds))
                return cli_error(CLI_USAGE, "--time must be a positive number of seconds, not '%s'", value);
        } else if ((value = cli_option(argc, argv, &i, "--threads"))) {
            if (!cli_threads(value, &threads))
                return CLI_USAGE;
        } else if ((value = cli_option(argc, argv, &i, "--seed"))) {
            if (!cli_uint(value, UINT64_MAX, &seed))
                return cli_error(CLI_USAGE, "--seed must be a number, not '%s'", value);
        } else if ((value = cli_option(argc, argv, &i, "--contempt"))) {
            if (!cli_contempt(value, true, contempt))
                return CLI_USAGE;
        } else {
            return cli_error(CLI_USAGE, "unexpected argument '%s' (see damas match --help)", argv[i]);
        }
    }
    Variant v;
    if (!cli_variant(variant, optional, &v) || !cli_draw_rules(rules, &v))
        return CLI_USAGE;
    if (!a || !b || !games)
        return cli_error(CLI_USAGE, "--a, --b and --games are required (see damas match --help)");
    if (!limits.nodes && !limits.depth && !limits.seconds)
        return cli_error(CLI_USAGE, "a limit per move is required: --nodes, --depth or --time");
    PlayerSpec pa, pb;
    if (!player_load(a, &v, &pa))
        return CLI_FAIL;
    if (!player_load(b, &v, &pb)) {
        free(pa.w);
        return CLI_FAIL;
    }
    if ((pa.hub || pb.hub) && (!limits.seconds || limits.nodes || limits.depth)) {
        free(pa.w);
        free(pb.w);
        return cli_error(CLI_USAGE, "a Hub engine plays on time: give --time (and neither --nodes nor --depth)");
    }
    /* From here every way out frees what was taken (at `done`). */
    Position *open = NULL;
    Game *played = NULL;
    DbProbe *db = NULL, *tables = NULL;
    int nopen, rc = CLI_OK;
    char err[1024], db_path[PATH_MAX] = "";
    if (openings) {
        if ((nopen = read_openings(openings, &v, &open)) < 0) {
            rc = CLI_FAIL;
            goto done;
        }
    } else {
        open = malloc(MATCH_OPENINGS_MAX * sizeof *open);
        nopen = open ? match_openings_for(&v, (int)(games / 2), open, MATCH_OPENINGS_MAX) : 0;
        if (!nopen) {
            rc = cli_error(CLI_FAIL, "out of memory for the openings");
            goto done;
        }
    }
    /* --db DIR: both search with it and it ends games; else damas's own tables, for searching. */
    if ((db_dir || pa.w || pb.w) && !cli_engine_db(db_dir, &v, db_dir ? &db : &tables, err, sizeof err)) {
        rc = cli_error(CLI_FAIL, "%s", err);
        goto done;
    }
    if (!db)   /* (--db none) */
        db_dir = NULL;
    /* A Hub engine that takes a database gets the same one, by its absolute path. */
    if (db_dir && (pa.hub || pb.hub) && (!realpath(db_dir, db_path) || strchr(db_path, '"'))) {
        rc = cli_error(CLI_USAGE, "--db %s: no absolute path a Hub engine can be given", db_dir);
        goto done;
    }
    const char *hub_db = db_path[0] ? db_path : NULL;
    if (!(played = malloc((size_t)games * sizeof *played))) {
        rc = cli_error(CLI_FAIL, "out of memory for %llu games", (unsigned long long)games);
        goto done;
    }
    Player players[2] = {{a, pa.w, pa.hub, hub_db, contempt[0], tables},
                         {b, pb.w, pb.hub, hub_db, contempt[1], tables}};
    CliMatchProgress progress = {system_now(), (int)games};
    MatchResult r;
    if (match_run(&v, players, open, nopen, (int)games, &limits, (int)threads, seed, db, played, &r,
                  cli_match_progress, &progress, err, sizeof err) != DAMAS_OK) {
        if (isatty(2))
            fputc('\n', stderr);
        rc = cli_error(CLI_FAIL, "%s", err);
        goto done;
    }
    if (isatty(2))
        fputc('\n', stderr);
    int npairs = (int)(games / 2);
    printf("%s: %s vs %s, %llu games (%d openings x 2 colours), %.1f s\n", v.name, a, b, (unsigned long long)games,
           npairs < nopen ? npairs : nopen, system_now() - progress.start);
    printf("A wins %d, draws %d, losses %d; score %.1f%%\n", r.wins, r.draws, r.losses,
           100.0 * (r.wins + 0.5 * r.draws) / (double)games);
    char elo[128];
    match_elo_text(&r, elo, sizeof elo);
    printf("Elo A - B: %s\n", elo);
    if (pdn) {
        FILE *f = fopen(pdn, "w");
        if (!f) {
            rc = cli_error(CLI_FAIL, "cannot write %s", pdn);
            goto done;
        }
        for (int g = 0; g < (int)games; g++) {
            bool a_white = match_a_colour(open, nopen, g) == WHITE;
            match_write_pdn(f, &v, &played[g], "damas match", a_white ? a : b, a_white ? b : a, g + 1);
        }
        if (fclose(f) != 0)
            rc = cli_error(CLI_FAIL, "cannot write %s (disk full?)", pdn);
    }
done:
    free(played);
    free(open);
    free(pa.w);
    free(pb.w);
    probe_close(db);
    probe_close(tables);
    return rc;
}

/* The board as the variant's players see it (Spanish and Italian mirrored: a1 is light), and
 * beside it, for variants written with numbers, the number of every playing square. */
static void draw_board(const Variant *v, const Position *pos)
{
    const Board *b = board_get(v->rules.board_size);
    bool numbers = !v->writes_algebraic;
    for (int row = 0; row < b->size; row++) {
        char pieces[64] = "", labels[64] = "";
        int np = 0, nl = 0;
        for (int col = 0; col < b->size; col++) {
            char at[4], label[NOTATION_SQUARE_MAX];
            snprintf(at, sizeof at, "%c%d", 'a' + col, b->size - row);
            int bit;
            const char *end;
            if (notation_square_parse(v, at, &bit, &end, NULL, 0) != DAMAS_OK) {
                np += snprintf(pieces + np, sizeof pieces - (size_t)np, "  ");
                nl += snprintf(labels + nl, sizeof labels - (size_t)nl, "   ");
                continue;
            }
            Bitboard m = 1ull << bit;
            bool king = pos->kings & m;
            char c = pos->pieces[WHITE] & m ? (king ? 'W' : 'w') : pos->pieces[BLACK] & m ? (king ? 'B' : 'b') : '-';
            np += snprintf(pieces + np, sizeof pieces - (size_t)np, " %c", c);
            notation_square_write(v, bit, NOTATION_NUMERIC, label);
            nl += snprintf(labels + nl, sizeof labels - (size_t)nl, " %2s", label);
        }
        printf("  %2d %s%s%s\n", b->size - row, pieces, numbers ? "      " : "", numbers ? labels : "");
    }
    printf("     ");
    for (int file = 0; file < b->size; file++)
        printf(" %c", 'a' + file);
    printf("\n  %s to move\n", pos->side == WHITE ? "White (w)" : "Black (b)");
}

/* Why `text` is not a legal move of pos, for a player: a capture to make, or the parser's
 * reason. */
static void explain_illegal(const Variant *v, const Position *pos, const char *why)
{
    MoveList list;
    movegen_moves(pos, v, &list);
    if (list.count > 0 && list.moves[0].captured && !v->rules.optional_capture) {
        printf("a capture is compulsory:");
        for (int k = 0; k < list.count; k++) {
            char text[NOTATION_MOVE_MAX];
            notation_move_write(v, pos, &list.moves[k], NOTATION_NATIVE, text);
            printf(" %s", text);
        }
        printf("\n");
        return;
    }
    printf("%s (type 'moves' for the legal moves)\n", why);
}

int cmd_play(int argc, char **argv)
{
    const char *variant = NULL, *weights = NULL, *db_dir = NULL, *fen = NULL, *rules = NULL, *value;
    bool optional = false, human_black = false;
    int contempt[2] = {0, 0};
    SearchLimits limits = {.seconds = 2.0};
    uint64_t n;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(play_help, stdout);
            return CLI_OK;
        } else if ((value = cli_option(argc, argv, &i, "--variant"))) {
            variant = value;
        } else if ((value = cli_option(argc, argv, &i, "--weights"))) {
            weights = value;
        } else if ((value = cli_option(argc, argv, &i, "--rules"))) {
            rules = value;
        } else if ((value = cli_option(argc, argv, &i, "--db"))) {
            db_dir = value;
        } else if ((value = cli_option(argc, argv, &i, "--fen"))) {
            fen = value;
        } else if ((value = cli_option(argc, argv, &i, "--depth"))) {
            if (!cli_uint(value, SEARCH_MAX_PLY - 1, &n) || n < 1)
                return cli_error(CLI_USAGE, "--depth must be from 1 to %d", SEARCH_MAX_PLY - 1);
            limits = (SearchLimits){.depth = (int)n};
        } else if ((value = cli_option(argc, argv, &i, "--time"))) {
            double s;
            if (!cli_seconds(value, &s))
                return cli_error(CLI_USAGE, "--time must be a positive number of seconds, not '%s'", value);
            limits = (SearchLimits){.seconds = s};
        } else if ((value = cli_option(argc, argv, &i, "--contempt"))) {
            if (!cli_contempt(value, false, contempt))
                return CLI_USAGE;
        } else if (!strcmp(argv[i], "--black")) {
            human_black = true;
        } else if (!strcmp(argv[i], "--optional-capture")) {
            optional = true;
        } else {
            return cli_error(CLI_USAGE, "unexpected argument '%s' (see damas play --help)", argv[i]);
        }
    }
    Variant v;
    Weights *w = malloc(sizeof *w);
    char err[1024];
    if (!w)
        return cli_error(CLI_FAIL, "out of memory");
    if (!cli_variant(variant, optional, &v) || !cli_draw_rules(rules, &v)) {
        free(w);
        return CLI_USAGE;
    }
    if (!cli_weights(weights, &v, w)) {
        free(w);
        return CLI_FAIL;
    }
    Position pos;
    pos_start(&pos, &v);
    if (fen && notation_fen_parse(&v, fen, &pos, err, sizeof err) != DAMAS_OK) {
        free(w);
        return cli_error(CLI_USAGE, "%s", err);
    }
    DbProbe *db;
    if (!cli_engine_db(db_dir, &v, &db, err, sizeof err)) {
        free(w);
        return cli_error(CLI_FAIL, "%s", err);
    }
    Search *s = search_new(&v, w, db, SEARCH_TT_MB);
    if (!s)
        return cli_error(CLI_FAIL, "out of memory");
    search_set_contempt(s, contempt[0]);
    int human = human_black ? BLACK : WHITE;
    /* The game as played (log: positions, hashes, counts; moves beyond log->n can be redone),
     * and as saved. */
    Game *game = calloc(1, sizeof *game);
    GameLog *log = malloc(sizeof *log);
    if (!game || !log) {
        free(game);
        free(log);
        search_free(s);
        return cli_error(CLI_FAIL, "out of memory");
    }
    game->start = pos;
    game_begin(log, &pos);
    char line[512];
    bool over = false, resigned = false;
    printf("draw rules: %s (%s)\n", v.draw->name, v.draw->source);
    draw_board(&v, &pos);
    for (;;) {
        pos = *game_pos(log);
        int ply = log->n;
        const char *reason;
        GameEnd end = game_end(&v, log, &reason);
        if (!over && (end != GAME_GOES_ON || resigned || ply >= MATCH_MAX_PLIES)) {
            over = true;
            game->result = RESULT_DRAW;
            if (resigned || end == GAME_LOST)
                game->result = (resigned ? human : pos.side) == WHITE ? RESULT_BLACK : RESULT_WHITE;
            game->reason = resigned ? "resigned" : end == GAME_GOES_ON ? "move limit" : reason;
            if (resigned)
                printf("game over: you resigned");
            else if (end == GAME_LOST)
                printf("game over: %s", pos.side == human ? "you lose (no move)" : "you win (no move)");
            else
                printf("game over: draw (%s)", end == GAME_GOES_ON ? "move limit"
                                                : end == GAME_DRAWN_REPETITION ? "third repetition" : reason);
            printf(" (undo, save FILE.pdn or quit)\n");
        }
        Move m;
        if (!over && pos.side != human) {
            SearchInfo info;
            search_game(s, log, &limits, &info, NULL, NULL);
            char text[NOTATION_MOVE_MAX], score[32];
            notation_move_write(&v, &pos, &info.pv[0], NOTATION_NATIVE, text);
            /* The score is the engine's; say whose side it favours. */
            cli_score_text(info.score, score, sizeof score);
            const char *who = info.score > 0 ? "for damas" : info.score < 0 ? "for you" : "level";
            printf("damas plays %s  (score %s %s, depth %d, %llu nodes)\n", text, score, who, info.depth,
                   (unsigned long long)info.nodes);
            m = info.pv[0];
        } else {
            printf(over ? "> " : "your move> ");
            fflush(stdout);
            if (!fgets(line, sizeof line, stdin))
                break;
            line[strcspn(line, "\r\n")] = '\0';
            if (!line[0])
                continue;
            if (!strcmp(line, "quit"))
                break;
            if (!strcmp(line, "help")) {
                fputs(PLAY_COMMANDS, stdout);
                continue;
            }
            if (!strcmp(line, "board")) {
                draw_board(&v, &pos);
                continue;
            }
            if (!strncmp(line, "save ", 5)) {
                FILE *f = fopen(line + 5, "w");
                game->nmoves = ply < MATCH_MAX_PLIES ? ply : MATCH_MAX_PLIES;
                memcpy(game->moves, log->moves, (size_t)game->nmoves * sizeof *log->moves);
                if (!over)
                    game->result = RESULT_DRAW, game->reason = "unfinished";
                if (f) {
                    match_write_pdn(f, &v, game, "damas play", human == WHITE ? "you" : "damas",
                                    human == WHITE ? "damas" : "you", 1);
                }
                if (!f || fclose(f) != 0)
                    printf("cannot write %s\n", line + 5);
                else
                    printf("saved %d plies to %s\n", ply, line + 5);
                continue;
            }
            if (!strcmp(line, "undo") || !strcmp(line, "redo")) {
                bool undo = line[0] == 'u';
                /* Back to (or on to) the human's previous (next) turn. */
                int to = ply;
                do
                    to += undo ? -1 : 1;
                while (to >= 0 && to <= log->last && log->pos[to].side != human);
                if (to < 0 || to > log->last) {
                    printf("nothing to %s\n", line);
                    continue;
                }
                game_goto(log, to);
                over = resigned = false;
                draw_board(&v, game_pos(log));
                continue;
            }
            if (over) {
                printf("the game is over: undo, save FILE.pdn or quit\n");
                continue;
            }
            if (!strcmp(line, "moves")) {
                MoveList list;
                movegen_moves(&pos, &v, &list);
                for (int k = 0; k < list.count; k++) {
                    char text[NOTATION_MOVE_MAX];
                    notation_move_write(&v, &pos, &list.moves[k], NOTATION_NATIVE, text);
                    printf("%s%s", k ? " " : "", text);
                }
                printf("\n");
                continue;
            }
            if (!strcmp(line, "hint")) {
                SearchInfo info;
                search_game(s, log, &limits, &info, NULL, NULL);
                char text[NOTATION_MOVE_MAX], score[32];
                notation_move_write(&v, &pos, &info.pv[0], NOTATION_NATIVE, text);
                cli_score_text(info.score, score, sizeof score);
                printf("hint: %s  (score %s for you)\n", text, score);
                continue;
            }
            if (!strcmp(line, "resign")) {
                resigned = true;
                continue;
            }
            if (!strncmp(line, "depth ", 6) && cli_uint(line + 6, SEARCH_MAX_PLY - 1, &n) && n > 0) {
                limits = (SearchLimits){.depth = (int)n};
                printf("the engine searches %llu plies\n", (unsigned long long)n);
                continue;
            }
            if (!strncmp(line, "time ", 5) && atof(line + 5) > 0) {
                limits = (SearchLimits){.seconds = atof(line + 5)};
                printf("the engine thinks %.1f s a move\n", limits.seconds);
                continue;
            }
            if (notation_move_parse(&v, &pos, line, &m, err, sizeof err) != DAMAS_OK) {
                explain_illegal(&v, &pos, err);
                continue;
            }
        }
        game_play(log, &m);   /* (a new move forgets the moves that could have been redone) */
        draw_board(&v, game_pos(log));
    }
    free(game);
    free(log);
    search_free(s);
    probe_close(db);
    free(w);
    return CLI_OK;
}

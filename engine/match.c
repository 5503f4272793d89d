#include "match.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/notation.h"
#include "../core/variant.h"

static uint64_t next_random(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t x = *s ^ (*s >> 29);
    x *= 0xbf58476d1ce4e5b9ull;
    return x ^ (x >> 32);
}

int match_game(const Variant *v, const Position *start, const Player players[2], const Seat seats[2],
               const SearchLimits *limits, uint64_t seed, DbProbe *adjudicate, Game *out, char *err, size_t errlen)
{
    int db_pieces = adjudicate ? probe_pieces(adjudicate) : 0;
    out->start = *start;
    out->nmoves = 0;
    out->result = RESULT_DRAW;
    out->reason = "engine error";
    GameLog *g = malloc(sizeof *g);
    if (!g) {
        snprintf(err, errlen, "out of memory for a game");
        return DAMAS_ERR_NOMEM;
    }
    game_begin(g, start);
    int rc = DAMAS_OK;
    for (int c = 0; c < 2; c++) {
        if (seats[c].search)
            search_clear(seats[c].search);
        if (seats[c].hub && hub_engine_new_game(seats[c].hub, err, errlen) != DAMAS_OK)
            rc = DAMAS_ERR_ILLEGAL;
    }
    while (rc == DAMAS_OK) {
        const Position *pos = game_pos(g);
        const char *reason;
        GameEnd end = game_end(v, g, &reason);
        if (end == GAME_LOST) {
            out->result = pos->side == WHITE ? RESULT_BLACK : RESULT_WHITE;
            out->reason = reason;
            break;
        }
        if (end != GAME_GOES_ON || out->nmoves >= MATCH_MAX_PLIES) {
            out->result = RESULT_DRAW;
            out->reason = end != GAME_GOES_ON ? reason : "move limit";
            break;
        }
        int wdl;
        if (db_pieces && pos_count(pos->pieces[0] | pos->pieces[1]) <= db_pieces && !movegen_has_capture(pos, v) &&
            probe_wdl(adjudicate, pos, &wdl, NULL, 0) == DAMAS_OK) {
            out->result = wdl == DB_DRAW ? RESULT_DRAW : (wdl == DB_WIN) == (pos->side == WHITE) ? RESULT_WHITE
                                                                                                : RESULT_BLACK;
            out->reason = "database";
            break;
        }
        Move m;
        int score = MATCH_NO_SCORE;
        const Seat *seat = &seats[pos->side];
        if (players[pos->side].hub) {
            rc = hub_engine_play(seat->hub, &out->start, out->moves, out->nmoves, limits->seconds, &m, err, errlen);
            if (rc != DAMAS_OK)
                break;
        } else if (!players[pos->side].w) {
            MoveList list;
            int n = movegen_moves(pos, v, &list);
            m = list.moves[next_random(&seed) % (uint64_t)n];
        } else {
            SearchInfo info;
            search_game(seat->search, g, limits, &info, NULL, NULL);
            m = info.pv[0];
            score = info.score < -32767 ? -32767 : info.score > 32767 ? 32767 : info.score;
        }
        out->scores[out->nmoves] = (int16_t)score;
        out->moves[out->nmoves++] = m;
        game_play(g, &m);
    }
    free(g);
    return rc;
}

int match_a_colour(const Position *openings, int nopen, int g)
{
    const Position *start = &openings[(g / 2) % nopen];
    return g % 2 == 0 ? start->side : 1 - start->side;
}

/* Records the first error of a match's threads (later ones are consequences or alike). */
static void first_error(int *failed, char *err, size_t errlen, const char *message)
{
#pragma omp critical(match_error)
    if (!__atomic_load_n(failed, __ATOMIC_RELAXED)) {
        snprintf(err, errlen, "%s", message);
        __atomic_store_n(failed, 1, __ATOMIC_RELAXED);
    }
}

int match_run(const Variant *v, const Player players[2], const Position *openings, int nopen, int games,
              const SearchLimits *limits, int threads, uint64_t seed, DbProbe *db, Game *out, MatchResult *r,
              void (*progress)(void *ctx, const MatchResult *so_far), void *ctx, char *err, size_t errlen)
{
    int npairs = games / 2, failed = 0;
    double *pair = calloc((size_t)(npairs ? npairs : 1), sizeof *pair);
    int8_t *score2 = calloc((size_t)(games ? games : 1), 1);   /* A's score, doubled */
    /* For the progress: the games of each pair played, and the scores of the pairs complete. */
    int8_t *pair_done = calloc((size_t)(npairs ? npairs : 1), 1);
    double *complete = calloc((size_t)(npairs ? npairs : 1), sizeof *complete);
    int ncomplete = 0;
    MatchResult so_far = {0};
    if (!pair || !score2 || !pair_done || !complete)
        first_error(&failed, err, errlen, "out of memory for the match");
#pragma omp parallel num_threads(threads) if (!failed)
    {
        char message[1024];
        Seat mine[2] = {{NULL, NULL}, {NULL, NULL}};
        for (int c = 0; c < 2; c++) {
            if (players[c].hub) {
                if (!(mine[c].hub = hub_engine_start(players[c].hub, v, players[c].hub_db, message, sizeof message)))
                    first_error(&failed, err, errlen, message);
            } else if (players[c].w && !(mine[c].search = search_new(v, players[c].w, players[c].db ? players[c].db : db,
                                                                      SEARCH_TT_MB_MATCH))) {
                first_error(&failed, err, errlen, "out of memory for the searches");
            } else if (mine[c].search) {
                search_set_contempt(mine[c].search, players[c].contempt);
            }
        }
        Game *game = malloc(sizeof *game);
        if (!game)
            first_error(&failed, err, errlen, "out of memory for the games");
#pragma omp for schedule(dynamic, 1)
        for (int g = 0; g < games; g++) {
            if (__atomic_load_n(&failed, __ATOMIC_RELAXED))
                continue;
            const Position *start = &openings[(g / 2) % nopen];
            int a = match_a_colour(openings, nopen, g);
            Player seat[2];
            Seat s[2];
            seat[a] = players[0];
            seat[1 - a] = players[1];
            s[a] = mine[0];
            s[1 - a] = mine[1];
            if (match_game(v, start, seat, s, limits, seed * 1000003u + (uint64_t)g, db, game, message,
                           sizeof message) != DAMAS_OK) {
                char where[1100];
                snprintf(where, sizeof where, "game %d: %s", g + 1, message);
                first_error(&failed, err, errlen, where);
                continue;
            }
            score2[g] = (int8_t)(game->result == RESULT_DRAW ? 1 : (game->result == RESULT_WHITE) == (a == WHITE) ? 2 : 0);
            if (out)
                out[g] = *game;
            if (progress) {
#pragma omp critical(match_progress)
                {
                    so_far.games++;
                    so_far.wins += score2[g] == 2;
                    so_far.draws += score2[g] == 1;
                    so_far.losses += score2[g] == 0;
                    if (++pair_done[g / 2] == 2)
                        complete[ncomplete++] = (score2[g & ~1] + score2[g | 1]) / 4.0;
                    match_elo(complete, ncomplete, &so_far.elo, &so_far.low, &so_far.high);
                    progress(ctx, &so_far);
                }
            }
        }
        free(game);
        for (int c = 0; c < 2; c++) {
            search_free(mine[c].search);
            hub_engine_close(mine[c].hub);
        }
    }
    if (failed) {
        free(pair);
        free(score2);
        free(pair_done);
        free(complete);
        return DAMAS_ERR_RANGE;
    }
    *r = (MatchResult){games, 0, 0, 0, 0, 0, 0};
    for (int g = 0; g < games; g++) {
        r->wins += score2[g] == 2;
        r->draws += score2[g] == 1;
        r->losses += score2[g] == 0;
        pair[g / 2] += score2[g] / 4.0;
    }
    match_elo(pair, npairs, &r->elo, &r->low, &r->high);
    free(pair);
    free(score2);
    free(pair_done);
    free(complete);
    return DAMAS_OK;
}

int match_openings(const Variant *v, int plies, Position *out, int max)
{
    Position pos;
    pos_start(&pos, v);
    out[0] = pos;
    int n = 1;
    for (int ply = 0; ply < plies; ply++) {
        Position next[MATCH_OPENINGS_MAX];
        int m = 0;
        for (int i = 0; i < n; i++) {
            MoveList list;
            movegen_moves(&out[i], v, &list);
            for (int k = 0; k < list.count && m < MATCH_OPENINGS_MAX; k++) {
                Position p = out[i];
                Undo u;
                pos_make(&p, &list.moves[k], &u);
                bool seen = false;
                for (int j = 0; j < m && !seen; j++)
                    seen = pos_equal(&next[j], &p);
                if (!seen)
                    next[m++] = p;
            }
        }
        n = m < max ? m : max;
        memcpy(out, next, (size_t)n * sizeof *out);
    }
    return n;
}

/* Whether an opening is level: a search of MATCH_LEVEL_DEPTH plies on material alone (captures
 * searched to their end, as always) finds neither side half a man ahead. Many positions a few
 * plies from the start are a man or two up, or a shot away from it (57 of the 200 Russian ones
 * 3 plies deep): both engines win such a one from the good side, and its pair measures nothing. */
static bool level(Search *s, const Position *pos)
{
    SearchLimits limits = {.depth = MATCH_LEVEL_DEPTH};
    SearchInfo info;
    search_run(s, pos, NULL, 0, (GameClock){0, 0}, &limits, &info, NULL, NULL);
    return abs(info.score) < 50;
}

int match_openings_for(const Variant *v, int pairs, Position *out, int max)
{
    enum { CAP = MATCH_OPENINGS_MAX };
    Position *all = malloc(CAP * sizeof *all);
    Weights *w = malloc(sizeof *w);
    Search *s = NULL;
    if (all && w) {
        weights_material(v, w);
        s = search_new(v, w, NULL, 1);
    }
    int n = 0;
    for (int plies = 2; s && plies <= 8; plies++) {
        int total = match_openings(v, plies, all, CAP);
        n = 0;
        for (int k = 0; k < total; k++)
            if (level(s, &all[k]))
                all[n++] = all[k];
        if (n >= pairs || total == CAP)
            break;
    }
    int want = pairs < n ? pairs : n;
    want = want < max ? want : max;
    for (int k = 0; k < want; k++)
        out[k] = all[(int)((long)k * n / want)];
    search_free(s);
    free(w);
    free(all);
    return want;
}

static double elo_of(double p)
{
    p = p < 0.001 ? 0.001 : p > 0.999 ? 0.999 : p;
    return 0.0 - 400.0 * log10(1.0 / p - 1.0);   /* (0.0 - : an even score is +0, not -0) */
}

void match_elo(const double *pair_scores, int n, double *elo, double *low, double *high)
{
    double mean = 0, var = 0;
    for (int k = 0; k < n; k++)
        mean += pair_scores[k];
    mean = n ? mean / n : 0.5;
    for (int k = 0; k < n; k++)
        var += (pair_scores[k] - mean) * (pair_scores[k] - mean);
    double se = n > 1 ? sqrt(var / (n - 1) / n) : 0.5;
    *elo = elo_of(mean);
    *low = elo_of(mean - 1.96 * se);
    *high = elo_of(mean + 1.96 * se);
}

bool match_elo_estimable(const MatchResult *r)
{
    return !(r->games > 0 && (r->wins == r->games || r->losses == r->games));
}

void match_elo_text(const MatchResult *r, char *buf, size_t len)
{
    if (!match_elo_estimable(r))
        snprintf(buf, len, "not estimable (%s won every game)", r->wins ? "A" : "B");
    else if (r->games < 4)
        snprintf(buf, len, "%+.1f (one pair of games: no interval)", r->elo);
    else
        snprintf(buf, len, "%+.1f (95%% interval %+.1f to %+.1f)", r->elo, r->low, r->high);
}

/* PDN result tokens from White's side: 10x10 scores a game 2 points, 8x8 types 1. */
static const char *pdn_result(const Variant *v, int result)
{
    bool ten = v->rules.board_size == 10;
    if (result == RESULT_WHITE)
        return ten ? "2-0" : "1-0";
    if (result == RESULT_BLACK)
        return ten ? "0-2" : "0-1";
    return ten ? "1-1" : "1/2-1/2";
}

void match_write_pdn(FILE *out, const Variant *v, const Game *g, const char *event, const char *white,
                     const char *black, int round)
{
    const char *result = pdn_result(v, g->result);
    char date[16] = "????.??.??";
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(date, sizeof date, "%Y.%m.%d", &tm);
    fprintf(out,
            "[Event \"%s\"]\n[Site \"?\"]\n[Date \"%s\"]\n[Round \"%d\"]\n[White \"%s\"]\n[Black \"%s\"]\n"
            "[Result \"%s\"]\n[GameType \"%d\"]\n",
            event, date, round, white, black, result, v->pdn_gametype);
    Position start;
    pos_start(&start, v);
    if (!pos_equal(&start, &g->start)) {
        char fen[NOTATION_FEN_MAX];
        notation_fen_write(v, &g->start, NOTATION_NATIVE, fen);
        fprintf(out, "[FEN \"%s\"]\n", fen);
    }
    fprintf(out, "[Termination \"%s\"]\n", g->reason);
    Position pos = g->start;
    int column = 0;
    /* Moves are numbered in pairs, the variant's first player's move first: a game starting
     * with the second player's move opens with "1...". */
    int shift = g->start.side == v->rules.first_mover ? 0 : 1;
    for (int k = 0; k < g->nmoves; k++) {
        char text[NOTATION_MOVE_MAX + 48], move[NOTATION_MOVE_MAX], score[24] = "";
        notation_move_write(v, &pos, &g->moves[k], NOTATION_NATIVE, move);
        /* The mover's search score, in men, as a comment: "{+0.35}", or "{win in 23}" and
         * "{loss in 8}" (plies to the game's end). */
        int sc = g->scores[k];
        if (sc != MATCH_NO_SCORE && sc > SEARCH_WIN_MIN)
            snprintf(score, sizeof score, " {win in %d}", SEARCH_WIN - sc);
        else if (sc != MATCH_NO_SCORE && sc < -SEARCH_WIN_MIN)
            snprintf(score, sizeof score, " {loss in %d}", SEARCH_WIN + sc);
        else if (sc != MATCH_NO_SCORE)
            snprintf(score, sizeof score, " {%+.2f}", sc / 100.0);
        int ply = k + shift;
        if (ply % 2 == 0)
            snprintf(text, sizeof text, "%d. %s%s", ply / 2 + 1, move, score);
        else if (k == 0)
            snprintf(text, sizeof text, "%d... %s%s", ply / 2 + 1, move, score);
        else
            snprintf(text, sizeof text, "%s%s", move, score);
        int len = (int)strlen(text);
        if (column + len + 1 > 79) {
            fputc('\n', out);
            column = 0;
        }
        column += fprintf(out, "%s%s", column ? " " : "", text);
        Undo u;
        pos_make(&pos, &g->moves[k], &u);
    }
    fprintf(out, "%s%s\n\n", column ? " " : "", result);
}

#include "match.h"

#include <math.h>
#include <string.h>

#include "../core/notation.h"
#include "../core/variant.h"

static uint64_t next_random(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t x = *s ^ (*s >> 29);
    x *= 0xbf58476d1ce4e5b9ull;
    return x ^ (x >> 32);
}

void match_game(const Variant *v, const Position *start, const Player players[2], Search *searches[2],
                const SearchLimits *limits, uint64_t seed, Game *out)
{
    out->start = *start;
    out->nmoves = 0;
    Position pos = *start;
    uint64_t hashes[MATCH_MAX_PLIES + 1];
    int reversible = 0;
    for (int c = 0; c < 2; c++)
        if (searches[c])
            search_clear(searches[c]);
    for (;;) {
        GameEnd end = search_game_end(v, &pos, hashes, out->nmoves, reversible);
        if (end == GAME_LOST) {
            out->result = pos.side == WHITE ? RESULT_BLACK : RESULT_WHITE;
            out->reason = "no move";
            return;
        }
        if (end != GAME_GOES_ON || out->nmoves >= MATCH_MAX_PLIES) {
            out->result = RESULT_DRAW;
            out->reason = end == GAME_DRAWN_40_MOVES ? "40 moves" : end == GAME_DRAWN_REPETITION ? "repetition"
                                                                                                 : "move limit";
            return;
        }
        Move m;
        const Player *p = &players[pos.side];
        if (!p->w) {
            MoveList list;
            int n = movegen_moves(&pos, v, &list);
            m = list.moves[next_random(&seed) % (uint64_t)n];
        } else {
            SearchInfo info;
            search_run(searches[pos.side], &pos, hashes, out->nmoves, reversible, limits, &info, NULL, NULL);
            m = info.pv[0];
        }
        bool king = (pos.kings >> m.from) & 1;
        reversible = king && !m.captured ? reversible + 1 : 0;
        hashes[out->nmoves] = pos.hash;
        out->moves[out->nmoves++] = m;
        Undo u;
        pos_make(&pos, &m, &u);
    }
}

int match_openings(const Variant *v, int plies, Position *out, int max)
{
    Position pos;
    pos_start(&pos, v);
    out[0] = pos;
    int n = 1;
    for (int ply = 0; ply < plies; ply++) {
        Position next[4096];
        int m = 0;
        for (int i = 0; i < n; i++) {
            MoveList list;
            movegen_moves(&out[i], v, &list);
            for (int k = 0; k < list.count && m < 4096; k++) {
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

static double elo_of(double p)
{
    p = p < 0.001 ? 0.001 : p > 0.999 ? 0.999 : p;
    return -400.0 * log10(1.0 / p - 1.0);
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

void match_write_pdn(FILE *out, const Variant *v, const Game *g, const char *event, const char *white,
                     const char *black, int round)
{
    const char *result = g->result == RESULT_WHITE ? "2-0" : g->result == RESULT_BLACK ? "0-2" : "1-1";
    fprintf(out, "[Event \"%s\"]\n[Round \"%d\"]\n[White \"%s\"]\n[Black \"%s\"]\n[Result \"%s\"]\n[GameType \"%d\"]\n",
            event, round, white, black, result, v->pdn_gametype);
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
    for (int k = 0; k < g->nmoves; k++) {
        char text[NOTATION_MOVE_MAX + 16], move[NOTATION_MOVE_MAX];
        notation_move_write(v, &pos, &g->moves[k], NOTATION_NATIVE, move);
        int number = k / 2 + 1;
        if (pos.side == g->start.side && (k % 2 == 0))
            snprintf(text, sizeof text, "%d. %s", number, move);
        else if (k == 0)
            snprintf(text, sizeof text, "%d... %s", number, move);
        else
            snprintf(text, sizeof text, "%s", move);
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

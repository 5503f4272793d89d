#include "game.h"

#include "movegen.h"

static bool count_applies(const DrawCount *d, const Position *pos)
{
    Bitboard white = pos->pieces[WHITE], black = pos->pieces[BLACK];
    int pieces = pos_count(white | black);
    if (pieces < d->min_pieces || pieces > d->max_pieces)
        return false;
    if (d->only_kings && (white | black) & ~pos->kings)
        return false;
    if (d->both_kings && (!(white & pos->kings) || !(black & pos->kings)))
        return false;
    bool lone = (pos_count(white) == 1 && (white & pos->kings)) || (pos_count(black) == 1 && (black & pos->kings));
    return lone || !d->lone_king;
}

const char *game_draw_count(const DrawRules *r, const Position *pos, GameClock c)
{
    for (int i = 0; i < r->ncounts; i++)
        if (c.quiet >= r->count[i].plies && count_applies(&r->count[i], pos))
            return r->count[i].name;
    return NULL;
}

void game_begin(GameLog *g, const Position *start)
{
    g->n = g->last = 0;
    g->pos[0] = *start;
    g->hashes[0] = start->hash;
    g->clock[0] = (GameClock){0, 0};
}

bool game_play(GameLog *g, const Move *m)
{
    if (g->n >= GAME_MAX_PLIES)
        return false;
    int n = g->n;
    g->moves[n] = *m;
    g->pos[n + 1] = g->pos[n];
    Undo u;
    pos_make(&g->pos[n + 1], m, &u);
    g->hashes[n + 1] = g->pos[n + 1].hash;
    g->clock[n + 1] = game_clock_after(g->clock[n], &g->pos[n], m);
    g->n = g->last = n + 1;
    return true;
}

void game_goto(GameLog *g, int ply)
{
    if (ply >= 0 && ply <= g->last)
        g->n = ply;
}

GameEnd game_end(const Variant *v, const GameLog *g, const char **reason)
{
    const Position *pos = game_pos(g);
    GameClock c = g->clock[g->n];
    const char *why = NULL;
    GameEnd end = GAME_GOES_ON;
    if (movegen_count(pos, v, MERGE_CAPTURED_SET) == 0)
        end = GAME_LOST, why = "no move";
    else if ((why = game_draw_rule(v, pos, c)))
        end = GAME_DRAWN_RULE;
    else if (game_occurrences(g->hashes, g->n, pos->hash, c.reversible) >= v->draw->repetition - 1)
        end = GAME_DRAWN_REPETITION, why = "repetition";
    if (reason)
        *reason = why;
    return end;
}

/* A game: its positions and moves, the counts its draw rule keeps, repetition and its end, one
 * definition for the search, matches, self-play, the Hub engine and play. The side to move with
 * no legal move has lost; the variant's draw rule (v->draw, variant.h: by default 40 moves by
 * each side with no capture and no promotion, and the third occurrence of a position with the
 * same side to move) draws. */
#ifndef DAMAS_GAME_H
#define DAMAS_GAME_H

#include "position.h"
#include "variant.h"

enum { GAME_MAX_PLIES = 1024 };

typedef enum { GAME_GOES_ON, GAME_LOST, GAME_DRAWN_RULE, GAME_DRAWN_REPETITION } GameEnd;

/* The counts the draw rules read, in plies: since the last capture or promotion (`quiet`), and
 * since the last capture or man's move (`reversible`: no position before it can repeat). */
typedef struct {
    int16_t quiet, reversible;
} GameClock;

/* The counts after move m of pos->side. */
static inline GameClock game_clock_after(GameClock c, const Position *pos, const Move *m)
{
    if (m->captured)
        return (GameClock){0, 0};
    bool man = !(pos->kings >> m->from & 1);
    return (GameClock){(int16_t)(m->flags & MOVE_PROMOTES ? 0 : c.quiet + 1), (int16_t)(man ? 0 : c.reversible + 1)};
}

/* The count of endings (DrawCount) of r that ends the game in pos with counts c, or NULL. */
const char *game_draw_count(const DrawRules *r, const Position *pos, GameClock c);

/* The draw rule of v->draw that ends the game in pos with counts c, as the reason text
 * ("40 moves", "16-move ending", ...), or NULL: repetition aside. Cheap: the search asks at
 * every node. */
static inline const char *game_draw_rule(const Variant *v, const Position *pos, GameClock c)
{
    const DrawRules *r = v->draw;
    if (r->quiet_plies && c.quiet >= r->quiet_plies)
        return r->quiet_name;
    if (r->king_plies && c.reversible >= r->king_plies)
        return r->king_name;
    return r->ncounts ? game_draw_count(r, pos, c) : NULL;
}

/* How often `hash`, the position after history[0..n), occurs in history with the same side to
 * move, at most `plies` plies back (no position before a capture or a man's move can repeat). */
static inline int game_occurrences(const uint64_t *history, int n, uint64_t hash, int plies)
{
    int count = 0;
    for (int i = n - 2; i >= 0 && i >= n - plies; i -= 2)
        count += history[i] == hash;
    return count;
}

/* How often the last of hashes[0..n) occurs before it (game_occurrences). */
static inline int game_repetitions(const uint64_t *hashes, int n, int plies)
{
    return game_occurrences(hashes, n - 1, hashes[n - 1], plies);
}

/* A game from a start position: pos[i], hashes[i] and clock[i] before move i, moves[i];
 * positions up to `last` can be returned to after going back (redo). */
typedef struct {
    int n, last;
    Position pos[GAME_MAX_PLIES + 1];
    uint64_t hashes[GAME_MAX_PLIES + 1];
    GameClock clock[GAME_MAX_PLIES + 1];
    Move moves[GAME_MAX_PLIES];
} GameLog;

void game_begin(GameLog *g, const Position *start);

/* Plays the legal move m in the current position (forgetting the moves that could be redone).
 * false when the log is full (GAME_MAX_PLIES). */
bool game_play(GameLog *g, const Move *m);

/* Goes back or on to ply `ply` (0..last). */
void game_goto(GameLog *g, int ply);

static inline const Position *game_pos(const GameLog *g)
{
    return &g->pos[g->n];
}

/* How the game stands in its current position under v's rules; *reason (if not NULL) gets
 * "no move", the draw rule's reason or "repetition" when it has ended. */
GameEnd game_end(const Variant *v, const GameLog *g, const char **reason);

#endif

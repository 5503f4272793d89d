/* The end of a game and its draw rule (../shared/RULES.md), one definition for the search,
 * matches, self-play, the Hub engine and play: the side to move with no legal move has lost;
 * 40 moves by each side (80 plies) with no capture and no promotion, or the third occurrence
 * of a position with the same side to move, is a draw. */
#ifndef DAMAS_GAME_H
#define DAMAS_GAME_H

#include "position.h"

enum { GAME_DRAW_PLIES = 80 };

typedef enum { GAME_GOES_ON, GAME_LOST, GAME_DRAWN_40_MOVES, GAME_DRAWN_REPETITION } GameEnd;

/* The draw rule's count of plies after move m, from `plies` before it: 0 after a capture or a
 * promotion, one more after any other move (a man's too). */
static inline int game_quiet_plies(int plies, const Move *m)
{
    return m->captured || (m->flags & MOVE_PROMOTES) ? 0 : plies + 1;
}

/* How often `hash`, the position after history[0..n), occurs in history with the same side to
 * move, at most `plies` plies back (no position before a capture or a promotion can repeat). */
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

/* How the game stands in pos after the positions `history` (oldest first, pos not included),
 * `plies` the draw rule's count in pos. */
GameEnd game_end(const Variant *v, const Position *pos, const uint64_t *history, int nhistory, int plies);

#endif

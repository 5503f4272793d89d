#include "game.h"

#include "movegen.h"

GameEnd game_end(const Variant *v, const Position *pos, const uint64_t *history, int nhistory, int plies)
{
    if (movegen_count(pos, v, MERGE_CAPTURED_SET) == 0)
        return GAME_LOST;
    if (plies >= GAME_DRAW_PLIES)
        return GAME_DRAWN_40_MOVES;
    return game_occurrences(history, nhistory, pos->hash, plies) >= 2 ? GAME_DRAWN_REPETITION : GAME_GOES_ON;
}

#include "game.h"

#include "movegen.h"

GameEnd game_end(const Variant *v, const Position *pos, const uint64_t *history, int nhistory, int plies)
{
    if (movegen_count(pos, v, MERGE_CAPTURED_SET) == 0)
        return GAME_LOST;
    if (plies >= GAME_DRAW_PLIES)
        return GAME_DRAWN_40_MOVES;
    int count = 0;
    for (int i = nhistory - 2; i >= 0 && i >= nhistory - plies; i -= 2)
        count += history[i] == pos->hash;
    return count >= 2 ? GAME_DRAWN_REPETITION : GAME_GOES_ON;
}

/* Retrograde analysis of one unit (a slice and its colour-flipped twin): win/draw/loss and
 * distance to win (plies to the end of the game, the winner shortest, the loser longest),
 * with counters and un-moves, level by level, OpenMP-parallel inside each level. */
#ifndef DAMAS_GEN_SOLVE_H
#define DAMAS_GEN_SOLVE_H

#include "../db/store.h"

/* Solves the unit of material m. `solved` must hold every unit m's captures and promotions
 * lead to. On success out[0..*nout-1] are new tables (m first, then its twin if different),
 * owned by the caller, with their dont_care flags (free them once written). Returns DAMAS_OK, or an error (missing dependency, out of memory).
 * Uses `threads` OpenMP threads. */
int unit_solve(const DbSet *solved, Material m, int threads, DbTable **out, int *nout, char *err, size_t errlen);

#endif

/* Retrograde analysis of one unit (a slice and its colour-flipped twin): win/draw/loss and
 * distance to win (plies to the end of the game, the winner shortest, the loser longest),
 * with counters and un-moves, level by level, OpenMP-parallel inside each level. */
#ifndef DAMAS_GEN_SOLVE_H
#define DAMAS_GEN_SOLVE_H

#include "../db/store.h"

/* Where a solve's time went, in seconds: initialising every position from its moves,
 * propagating level by level (`levels` of them, the longest distance + 1), building the
 * tables. */
typedef struct {
    double init, propagate, tables;
    int levels;
} SolveTimes;

/* Solves the unit of material m. `solved` must hold every unit m's captures and promotions
 * lead to. On success out[0..*nout-1] are new tables (m first, then its twin if different),
 * owned by the caller, with their dont_care flags (free them once written). Returns DAMAS_OK, or an error (missing dependency, out of memory).
 * Uses `threads` OpenMP threads; fills *times if not NULL. */
int unit_solve(const DbSet *solved, Material m, int threads, DbTable **out, int *nout, SolveTimes *times, char *err,
               size_t errlen);

#endif

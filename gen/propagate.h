/* The propagation of a unit's retrograde analysis: each decided position, level by level,
 * tells its predecessors. */
#ifndef DAMAS_GEN_PROPAGATE_H
#define DAMAS_GEN_PROPAGATE_H

#include "solver.h"

/* Propagates the n entries of blocks[0..nblocks) (at most ORDER_ROUND), decided at `level`,
 * on s->threads threads, round holding them in order meanwhile: each tells its predecessors,
 * which are decided, or queued, as they learn enough. Returns how many were decided
 * positions (a candidate win already decided otherwise is not). Sets s->failed on failure;
 * with a split, the updates for other ranks wait in s->out. */
uint64_t propagate_round(Solver *s, Round *round, QBlock *const *blocks, size_t nblocks, size_t n, int level);

/* After a level's rounds with a split: the updates for other ranks' positions go to them, and
 * those for this rank's positions are applied. False on failure. */
bool propagate_exchange(Solver *s, int threads, int level);

#endif

/* The initialisation of a unit's retrograde analysis: every position's state from its moves. */
#ifndef DAMAS_GEN_INIT_H
#define DAMAS_GEN_INIT_H

#include "solver.h"

/* Sets the state of every position of `part` owned here from its moves: lost without a move,
 * decided if every move leaves the unit (captures and promotions, looked up in the solved
 * tables), else undecided with its count of moves inside the unit; queues the decided ones,
 * the candidate wins through an exit, and the losses through an exit that wait for the moves
 * inside (W_EXIT_LOSS). On s->threads threads; sets s->failed on a missing
 * table or a count beyond what the state holds. *initialised counts the positions done, for
 * `watch` (may be NULL), out of `here`. */
void init_part(Solver *s, int part, const SolveWatch *watch, uint64_t *initialised, uint64_t here);

#endif

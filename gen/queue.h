/* The queue of positions to propagate, by level and part, and the order in which the
 * propagation takes a level's positions. Thread-safe where said. */
#ifndef DAMAS_GEN_QUEUE_H
#define DAMAS_GEN_QUEUE_H

#include "solver.h"

/* Queues position i of `part` at `level` (if cand, only flagged as waiting on an exit: see
 * QUEUED), in the calling thread's own queue; sets s->failed if memory runs out or the level
 * is beyond the distances the solver holds. Thread-safe. */
void queue_pend(Solver *s, int level, int part, int cand, uint64_t i);

/* The highest level from `from` on with positions to propagate, in any thread's queue; -1 if
 * none. */
int queue_top_level(const Solver *s, int from);

/* Block b, its level done, is free for another. Thread-safe. */
void queue_block_done(Solver *s, QBlock *b);

/* Every queue block goes back to memory. */
void queue_release(Solver *s);

/* Puts the entries of blocks b[0..nb) (ORDER_ROUND at most) in order of lane, then of the high
 * bits of their offset, into r->v (r->start: where each lane starts). Called by every thread
 * of an enclosing parallel region. */
void queue_round_order(const Solver *s, Round *r, QBlock *const *b, size_t nb);

/* Puts v[0..n), entries of one lane already in order of the high bits of their offset, in
 * full order of offset; tmp holds n entries. */
void queue_sort_by_index(uint32_t *v, size_t n, uint32_t *tmp);

#endif

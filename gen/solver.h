/* The working state of one unit's retrograde analysis, shared by its passes: the driver
 * (gen/solve.c), the queue of positions to propagate (gen/queue.c), the initialisation
 * (gen/init.c) and the propagation (gen/propagate.c). Internal to gen/. */
#ifndef DAMAS_GEN_SOLVER_H
#define DAMAS_GEN_SOLVER_H

#include <omp.h>
#include <stdbool.h>
#include <stdint.h>

#include "solve.h"

/* The working state of a position, one 16-bit word, so that an update touches one cache line
 * and a unit's words take 2 bytes a position (the largest 6-piece unit's 436 M: 0.87 GB):
 *   bits 14-15  DB_LOSS, DB_DRAW, DB_WIN, or UNDECIDED
 *   bit  13     don't-care (its side to move must capture)
 * decided:
 *   bits 0-12   distance
 * undecided, a summary of the moves:
 *   bits 0-10   moves inside the unit whose successor is not yet known to win
 *   bit  11     no exit draws or wins, and one (a capture or a promotion) leads to a win for
 *               the opponent: the position waits in the queue at the level of its longest such
 *               loss, and if its count reaches 0 before that level it stays undecided until then
 *   bit  12     an exit draws or wins: the position can no longer be lost */
typedef uint16_t Word;
enum { UNDECIDED = 3 };
#define W_STATE(w) ((int)((w) >> 14))
#define W_DONT_CARE ((Word)(1u << 13))
#define W_DTW(w) ((int)((w)&0x1fff))
#define W_DECIDED(state, dtw, w) ((Word)((unsigned)(state) << 14 | ((w)&W_DONT_CARE) | (unsigned)(dtw)))
#define W_UNDECIDED(dc, saved, exit_loss, count) \
    ((Word)((unsigned)UNDECIDED << 14 | (dc) | ((saved) ? W_SAVED : 0) | ((exit_loss) ? W_EXIT_LOSS : 0) | (count)))
#define W_COUNT(w) ((int)((w)&0x7ff))
#define W_EXIT_LOSS ((Word)(1u << 11))
#define W_SAVED ((Word)(1u << 12))
enum { MAX_COUNT = 0x7ff, MAX_DTW = 0x1fff };
_Static_assert((int)MAX_DTW <= (int)DB_MAX_DTW, "a distance the solver holds fits a table");

#define ITEM(part, cand, index) ((uint64_t)(part) << 63 | (uint64_t)(cand) << 62 | (index))
#define ITEM_PART(x) ((int)((x) >> 63))
#define ITEM_CAND(x) ((int)((x) >> 62) & 1)
#define ITEM_INDEX(x) ((x) & ((1ull << 62) - 1))

/* With a split, the updates for another rank's positions (ITEM), until the level's exchange. */
typedef struct {
    uint64_t *v;
    size_t n, cap;
} Vec;

/* A queue entry: a position's offset in its lane (below 2^31), and whether it is decided or
 * only flagged (`cand`) as waiting on an exit: at an odd level, a candidate win through an
 * exit; at an even one, a loss through an exit if its count has reached 0 (W_EXIT_LOSS). Wins
 * take an odd number of plies and losses an even one, so the level tells the two apart.
 * A lane is a run of 2^lane_bits indices of one part (lane_bits is SOLVE_LANE_BITS but in
 * tests), so that an entry stays 4 bytes in a slice of more than 2^31 positions (International
 * m1k2-m1k2 has 2.32 G): lane part * segs + (index >> lane_bits), where segs is the number of
 * lanes the larger part needs. */
#define QUEUED(cand, offset) ((uint32_t)(cand) << 31 | (uint32_t)(offset))
#define QUEUED_CAND(x) ((int)((x) >> 31))
#define QUEUED_OFFSET(x) ((uint64_t)((x) & 0x7fffffffu))

/* Entries in blocks, so that a list grows without copying and wastes at most one block: more
 * than half the positions of a unit may wait in the queue at once, 4 bytes each. Blocks are
 * carved from slabs of QSLAB (from mem_huge, released after the propagation) and reused once
 * their level is done. */
enum { QBLOCK = 4096, QSLAB = 128 };
typedef struct QBlock {
    struct QBlock *next;
    int lane;
    uint32_t n;
    uint32_t v[QBLOCK];
} QBlock;

/* Positions to propagate, by distance and lane, as one thread found them (so that threads
 * push without a lock, and no pass has to gather what they found): level[l * lanes + lane] is
 * a list of blocks, the one being filled first. */
typedef struct {
    QBlock **level;
    int n;
    uint64_t pushed;     /* entries ever queued */
    char pad[40];        /* a cache line a thread: pushes write `pushed` */
} Queue;
_Static_assert(sizeof(Queue) == 64, "one thread's queue fills a cache line");

typedef struct {
    const Variant *v;
    const DbSet *solved;
    DbProbe *disk;       /* units not in `solved` are read from disk through it; may be NULL */
    Slice slice[2];
    uint64_t lo[2], hi[2]; /* the positions this process owns, per part: all without a split */
    Word *w[2];          /* the working state of positions lo..hi-1, per part */
    int nparts;
    int lane_bits, segs, lanes; /* the queue's lanes (QUEUED): lanes = 2 * segs */
    Queue *queues;       /* per thread */
    int threads;
    SolveSplit *split;   /* NULL: the whole unit is solved here */
    Vec *out;            /* split: per thread and rank, updates for positions that rank owns */
    omp_lock_t blocks;   /* guards the three below */
    QBlock *spare;       /* blocks whose level is done */
    void **slabs;
    size_t nslabs;
    bool failed;
} Solver;

/* A level's queued positions are taken in rounds of at most ORDER_ROUND, each put in order of
 * lane, then of the high bits of their offset (queue_round_order; gen/propagate.c says why):
 * 2^(lane_bits - ORDER_SHIFT) keys a lane. */
enum { ORDER_SHIFT = 16, ORDER_ROUND = SOLVE_ORDER_ROUND };

typedef struct {
    uint32_t *v;          /* the round's entries, in order */
    uint32_t *count;      /* a counter a key, for each thread */
    size_t *start;        /* lanes + 1: where each lane's entries start in v, then the end */
} Round;

/* The lane of position i of `part`; a lane's part and first index; the index of queue entry
 * `queued` of a lane. */
static inline int lane_of(const Solver *s, int part, uint64_t i)
{
    return part * s->segs + (int)(i >> s->lane_bits);
}

static inline int lane_part(const Solver *s, int lane)
{
    return lane / s->segs;
}

static inline uint64_t lane_base(const Solver *s, int lane)
{
    return (uint64_t)(lane % s->segs) << s->lane_bits;
}

static inline uint64_t lane_index(const Solver *s, int lane, uint32_t queued)
{
    return lane_base(s, lane) + QUEUED_OFFSET(queued);
}

/* The head of thread queue q's list of blocks at `level` in `lane` (level < q->n). */
static inline QBlock **queue_head(const Solver *s, const Queue *q, int level, int lane)
{
    return &q->level[(size_t)level * (size_t)s->lanes + (size_t)lane];
}

/* The state word of position i of `part`, one this process owns. */
static inline Word *word(const Solver *s, int part, uint64_t i)
{
    return &s->w[part][i - s->lo[part]];
}

#endif

/* Retrograde analysis of one unit (a slice and its colour-flipped twin): win/draw/loss and
 * distance to win (plies to the end of the game, the winner shortest, the loser longest),
 * with counters and un-moves, level by level, OpenMP-parallel inside each level. */
#ifndef DAMAS_GEN_SOLVE_H
#define DAMAS_GEN_SOLVE_H

#include "../db/probe.h"
#include "../db/table.h"

/* Where a solve's time went, in seconds: initialising every position from its moves,
 * propagating level by level (`levels` of them, the longest distance + 1), building the
 * tables; and the most positions waiting in the queue at once, as a share of the positions
 * solved here (gen/gen.c plans memory for at most three quarters). */
typedef struct {
    double init, propagate, tables;
    int levels;
    double queue_peak;
} SolveTimes;

/* Solving one unit together with other processes (`mpirun damas gen --split`, gen/mpi.c):
 * this process owns share `rank` of `ranks` of each slice's index range (db_share), keeps
 * the working state and the finished table of those positions only, and hands the updates
 * that fall in other shares to `exchange` after each round of a level (SOLVE_EXCHANGE_ROUND).
 * The functions are collective: every rank calls them at the same point, in the same order
 * (`send`: the two ranks it names). */
typedef struct {
    int rank, ranks;
    /* Queued positions a rank propagates between two exchanges (whole queue blocks, at least
     * one); 0: SOLVE_EXCHANGE_ROUND. */
    size_t round;
    void *ctx;
    /* Sends send[0..) to the ranks, count[r] words to rank r in rank order (count[rank] is 0),
     * and returns what all ranks sent this one, malloc'ed, its length in *received; NULL on
     * failure. */
    uint64_t *(*exchange)(void *ctx, const uint64_t *send, const size_t *count, size_t *received);
    /* The largest `value` of all ranks. */
    int (*max)(void *ctx, int value);
    /* Copies bytes [0, bytes) of buf on rank `root` to buf on every rank; false on failure. */
    bool (*broadcast)(void *ctx, void *buf, size_t bytes, int root);
    /* Copies `bytes` bytes of buf on rank `from` to buf on rank `to`; false on failure. */
    bool (*send)(void *ctx, void *buf, size_t bytes, int from, int to);
    /* Added up by unit_solve_split, for the work balance: positions owned, decided positions
     * whose predecessors this rank generated, updates sent to other ranks and received. */
    uint64_t owned, propagated, sent, received;
} SolveSplit;

/* The split's collectives as the table and storage code takes them (db/table.h). */
static inline DbShares solve_shares(const SolveSplit *split)
{
    return (DbShares){split->rank, split->ranks, split->ctx, split->broadcast, split->send};
}

/* Progress inside a solve, for a display: tick(ctx, phase, level, done, total) is called now
 * and then by one thread: at the start and while initialising (SOLVE_INIT, done = positions
 * initialised so far), after each level (SOLVE_PROPAGATE, done = positions decided and
 * propagated so far), and once before the tables are built (SOLVE_TABLES); total = the
 * positions solved here. */
enum { SOLVE_INIT, SOLVE_PROPAGATE, SOLVE_TABLES };

typedef struct {
    void (*tick)(void *ctx, int phase, int level, uint64_t done, uint64_t total);
    void *ctx;
} SolveWatch;

/* A level's queued positions are taken at most this many at a time and put in order of their
 * index first: solving a unit holds 4 bytes each for them besides its state and queue. */
enum { SOLVE_ORDER_ROUND = 1 << 22 };

/* A queued position is 4 bytes: its offset in a lane of 2^SOLVE_LANE_BITS indices of its slice
 * (gen/solver.h), so a slice of more than 2^31 positions is queued in several lanes. Tests
 * narrow the lanes through solve_lane_bits (from 16 to SOLVE_LANE_BITS) so that small units
 * take the path of the largest. */
enum { SOLVE_LANE_BITS = 31 };
extern int solve_lane_bits;

/* With a split, a level's positions are propagated at most this many at a time on each rank,
 * every rank exchanging its updates after each round (an empty one when it has none left), so
 * the updates in flight stay bounded however large the level: about 10 a position, 8 bytes
 * each, in the senders' buffers, a copy to send and the receivers' buffer. */
enum { SOLVE_EXCHANGE_ROUND = 1 << 20 };

/* Solves the unit of material m. `solved` must hold every unit m's captures and promotions
 * lead to. On success out[0..*nout-1] are new tables (m first, then its twin if different),
 * owned by the caller, with their dont_care flags (free them once written). Returns DAMAS_OK, or an error (missing dependency, out of memory).
 * Uses `threads` OpenMP threads; fills *times if not NULL. */
int unit_solve(const DbSet *solved, Material m, int threads, DbTable **out, int *nout, SolveTimes *times, char *err,
               size_t errlen);

/* unit_solve with the dependencies missing from `solved` read from disk through `disk` (NULL:
 * all must be in `solved`), the unit shared among the ranks of `split` (NULL: unit_solve),
 * and its progress reported to `watch` (may be NULL).
 * With a split, each rank gets the tables of its share only (allocated for the whole slices,
 * written only in the share), with the statistics of the whole slices
 * (store_write_unit_shared writes them). A failure on one rank may leave the others waiting in
 * a collective: the caller ends the job (MPI_Abort). */
int unit_solve_split(const DbSet *solved, DbProbe *disk, Material m, int threads, SolveSplit *split,
                     const SolveWatch *watch, DbTable **out, int *nout, SolveTimes *times, char *err, size_t errlen);

#endif

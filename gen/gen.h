/* Building a database: every unit up to a piece count, in dependency order, resumable
 * (gen/gen.c); and the independent verifier that checks stored values against their
 * successors (gen/verify.c). */
#ifndef DAMAS_GEN_GEN_H
#define DAMAS_GEN_GEN_H

#include "../db/store.h"
#include "solve.h"

/* The chunk cache through which a low-memory build, and the verifier, read the units they do
 * not hold (gen/gen.c, gen/verify.c). */
#define DISK_CACHE_BYTES ((size_t)256 << 20)

/* How gen_unit went: the unit was on disk (then only read), or solved and written. */
typedef struct {
    bool skipped;
    SolveTimes solve;
    double write;        /* seconds packing, compressing and writing it */
} GenUnitTimes;

typedef struct {
    int done, total;                 /* units */
    const char *name;                /* of the unit just finished */
    uint64_t positions;              /* in it */
    double seconds;                  /* spent on it */
    bool skipped;                    /* it was complete on disk */
    uint64_t positions_done, positions_total;
    const GenUnitTimes *times;       /* where the time went; NULL if not known */
} GenUnitReport;

/* Where the solve of a unit has got to (SolveWatch's figures). */
typedef struct {
    int unit, total;                 /* the unit's place among the units (from 1), of total */
    const char *name;
    int phase, level;                /* SOLVE_INIT, SOLVE_PROPAGATE (after `level`) or SOLVE_TABLES */
    uint64_t done, positions;        /* positions initialised, or decided, so far; of positions */
} GenTick;

typedef struct {
    void (*unit_done)(void *ctx, const GenUnitReport *r); /* after each unit; may be NULL */
    void *ctx;
    void (*note)(void *ctx, const char *message);        /* what the run will do; may be NULL */
    void (*unit_tick)(void *ctx, const GenTick *t);      /* now and then while a unit is solved
                                                          * (one process); may be NULL */
} GenProgress;

/* Builds every slice of v with at most `pieces` pieces into dir (created if missing). A unit
 * complete on disk is not redone (only read if a unit to solve needs it); each new unit is
 * written atomically; a table is kept in memory only while a unit left needs it. Returns
 * DAMAS_OK or an error with a message (another variant's database in dir, a damaged unit
 * file, a full disk, memory). */
int gen_run(const Variant *v, int pieces, const char *dir, int threads, const GenProgress *progress, char *err,
            size_t errlen);

/* The small tables an engine plays with when given no database: every slice of v with at most
 * `pieces` pieces, in the directory <root>/<variant>[-optional]-<pieces> (written to dir),
 * built there by gen_run first where it is not complete. Processes that start together take
 * turns (the first builds, the others wait for it, then find it complete); a killed build is
 * resumed by the next. Returns DAMAS_OK or gen_run's error, or one for a root that cannot be
 * written. */
int gen_cached(const Variant *v, int pieces, const char *root, int threads, const GenProgress *progress, char *dir,
               size_t dirlen, char *err, size_t errlen);

/* gen_run with every unit solved together by the ranks of `split` (unit_solve_split; NULL:
 * gen_run): each rank holds its share of the unit being solved and no other table, reads
 * every unit it needs from dir through the probe cache, and the ranks write each file
 * together (store_write_unit_shared). The caller has checked the memory (gen_check_memory)
 * and the directory's manifest, on every rank; `progress` should be given on one rank only.
 * Without a split, the low-memory plan (gen_plan_lean) is followed if `low_memory`, or if the
 * usual one would not fit in this machine's memory. */
int gen_run_split(const Variant *v, int pieces, const char *dir, int threads, SolveSplit *split, bool low_memory,
                  const GenProgress *progress, char *err, size_t errlen);

/* The canonical units (store_unit_name) of every slice with at most `pieces` pieces, in an
 * order in which each comes after the units it needs. Returns the count; units must hold
 * DB_MAX_MATERIALS. */
int gen_units(int pieces, int board_size, Material *units);

/* Whether solving unit a needs unit b's values: a move in a or its twin (a capture or a
 * promotion) can lead into b. False for a unit and itself. */
bool gen_unit_needs(Material a, Material b);

/* Positions in the unit of m (both slices). */
uint64_t gen_unit_size(Material m, int board_size);

/* Bytes a finished table kept for lookups is planned at, a position (its codes: two bytes
 * once a distance exceeds one). */
enum { GEN_KEPT_BYTES = 2 };

/* This machine's memory in bytes, or the limit set (the lower). */
uint64_t gen_memory_size(void);

/* Plans as if this process had at most `bytes` of memory (0: no limit; with it, the ranks of
 * an MPI build are each held to it instead of sharing their node's memory): `damas gen
 * --max-memory`. Process-wide. */
void gen_set_memory_limit(uint64_t bytes);

/* The limit set (0: none). */
uint64_t gen_memory_limit(void);

/* What a low-memory plan may hold keeping top units: 15/16 of gen_memory_size(), the rest
 * left to the system and the page cache. */
uint64_t gen_keep_budget(void);

/* The plans for building v up to `pieces` into dir (NULL: nothing on disk yet), as `damas
 * gen --plan` prints them. */
typedef struct {
    int units, on_disk;
    uint64_t positions, largest_unit;
    uint64_t usual_bytes;     /* peak keeping the tables the units to solve need (one process) */
    uint64_t lean_bytes;      /* peak of the low-memory plan */
    uint64_t lean_keep_bytes; /* the same keeping top units within memory_bytes */
    int lean_kept, top_units; /* of the top units solved that others promote into, those it keeps */
    uint64_t split_bytes;     /* peak a rank with every unit split over `ranks` (--split) */
    uint64_t split_traffic;   /* bytes of updates sent between the ranks, estimated */
    uint64_t memory_bytes;    /* gen_memory_size() */
    bool lean;                /* gen follows the low-memory plan */
    bool fits;                /* and it fits in memory_bytes */
} GenPlanSummary;
int gen_plan_summary(const Variant *v, int pieces, const char *dir, int ranks, bool low_memory, GenPlanSummary *out);

/* Refuses (DAMAS_ERR_RANGE, with the figures) a build of v up to `pieces` needing `need`
 * bytes, more than this machine has; `how` says why so much. */
int gen_memory_fits(const Variant *v, int pieces, uint64_t need, const char *how, char *err, size_t errlen);

/* Bytes to hold every table in dir at once (board size `board`), and the largest unpacked
 * beside its table while loading. */
uint64_t gen_load_bytes(const char *dir, int board);

/* What gen_run holds in memory: which units on disk it loads (those a unit to solve needs,
 * and the units their captures lead to), after which unit it drops each unit it holds (-1:
 * never held), and the most bytes it holds at once. In a low-memory plan, the units from
 * lean_from on (those with the most pieces) are solved as gen_lean_holds says and dropped
 * once written; lean_from is n in the usual plan. */
typedef struct {
    bool load[DB_MAX_MATERIALS];
    int free_after[DB_MAX_MATERIALS];
    int lean_from;
    int lean_kept;            /* top units kept for the top units promoting into them */
    uint64_t peak_bytes;
} GenPlan;

/* The plan for building the n units (gen_units order) of which those marked on_disk exist in
 * one process (a split: gen_split_plan). */
void gen_plan(const Material *units, int n, const bool *on_disk, int board, GenPlan *plan);

/* The low-memory plan for one process: the usual one for the units with fewer pieces than the
 * last unit (N), except that those of fewer than N - 1 pieces are kept to the end; then each
 * N-piece unit is solved holding only the (N - 1)-piece units it needs (loading them again
 * from disk if they were dropped), reading the N-piece units it promotes into from disk
 * through a probe cache, and dropped once written, unless it can be kept for the N-piece units
 * promoting into it within `budget` bytes (0: none kept; peak_bytes then is the least the
 * build needs). For builds that keeping every table a later unit needs would not fit: ≤7
 * pieces on 8x8. */
void gen_plan_lean(const Material *units, int n, const bool *on_disk, int board, uint64_t budget, GenPlan *plan);

/* The most bytes a rank holds building the units not on_disk with every unit split over
 * `ranks` (gen_run_split), and the bytes of updates the ranks send each other in all
 * (estimated: docs/DISTRIBUTED.md). */
void gen_split_plan(const Material *units, int n, const bool *on_disk, int board, int ranks, uint64_t *bytes,
                    uint64_t *traffic);

/* Whether a build follows the low-memory plan: if asked (`low_memory`), or if the usual plan's
 * `usual` bytes exceed `have` and the low-memory plan's `lean` are fewer. */
static inline bool gen_lean_chosen(bool low_memory, uint64_t usual, uint64_t lean, uint64_t have)
{
    return low_memory || (usual > have && lean < usual);
}

/* In a low-memory plan, whether unit d (of N - 1 pieces) is held while top unit u is solved:
 * u needs it. */
bool gen_lean_holds(const Material *units, const GenPlan *plan, int u, int d);

/* Refuses (DAMAS_ERR_RANGE, with the figures) an MPI build of `ranks` ranks that would not fit
 * in this machine's memory with `node_ranks` of them on it (or, under --max-memory, in that
 * much a rank): with units split among the ranks (`split`), gen_split_plan's figure for the
 * units not on_disk (n = gen_units' count); without, each keeping every table it loads.
 * (gen_run checks its own plan's peak.) */
int gen_check_memory(const Variant *v, int pieces, int ranks, int node_ranks, bool split, const bool *on_disk,
                     char *err, size_t errlen);

/* One unit: loaded into set if complete in dir (times->skipped), else solved from the units it needs
 * (which must be in set) and written atomically to dir; either way its tables join set. */
int gen_unit(DbSet *set, Material m, const char *dir, int threads, GenUnitTimes *times, char *err, size_t errlen);

#ifdef DAMAS_MPI
/* gen_run across the ranks of MPI_COMM_WORLD (initialising and finalising MPI): rank 0 hands
 * out units whose dependencies are on disk, every rank (0 too) solves units with `threads`
 * OpenMP threads, reads the units it needs from dir and writes its own there. Progress is
 * reported on rank 0 only. With `split`, the ranks instead solve each unit together, each
 * owning a share of its positions (gen_run_split). Output is byte-identical to gen_run's. On a
 * rank's failure the job is aborted with the message (MPI_Abort); *rank tells the caller which
 * rank it is. `low_memory` (gen_run_split) is for one rank only. */
int gen_run_mpi(const Variant *v, int pieces, const char *dir, int threads, bool split, bool low_memory,
                const GenProgress *progress, int *rank, char *err, size_t errlen);
#endif

/* Loads every unit file present in dir into s (which must be initialised for dir's variant),
 * values too if `data` (refused, DAMAS_ERR_RANGE, if they would not fit in this machine's
 * memory). Returns the number of slices loaded in *slices. A unit file missing below the
 * largest piece count present is DAMAS_ERR_UNKNOWN, naming it. */
int gen_load_all(const char *dir, DbSet *s, bool data, int *slices, char *err, size_t errlen);

/* Of the units before `end` (gen_units order) with `pieces` pieces (and on disk: present,
 * NULL if all are), those unit u needs are held in set (loaded from dir if they are not) and
 * the others dropped. */
int gen_hold_needed(DbSet *set, const Material *units, int end, const bool *present, int u, int pieces,
                    const char *dir, char *err, size_t errlen);

/* Whether gen_load_all of dir's tables (board size `board`) fits in this machine's memory. */
bool gen_load_fits(const char *dir, int board);

typedef struct {
    uint64_t positions;      /* positions checked */
    int slices;
    bool ok;
    char failure[512];       /* the first inconsistency: slice, position and what is wrong */
} VerifyReport;

/* Checks every stored position of s against its successors' stored values: a win at d has a
 * losing successor at d-1 and none shorter; a loss has only winning successors, the longest
 * at d-1 (d = 0 without moves); a draw has no losing successor and a drawing one. Reports
 * each slice checked to progress->unit_done (progress may be NULL). */
int verify_set(const DbSet *s, int threads, const GenProgress *progress, VerifyReport *r);

/* Whether unit m is among the n units of `only` (each named by either slice); all if n is 0. */
bool gen_unit_selected(Material m, const Material *only, int n);

/* verify_set on the database of v in dir, one unit at a time, for databases too large to hold:
 * it holds the units of fewer than N - 1 pieces (N the most in dir), the units of one piece
 * fewer that the unit being checked needs, and that unit; successors in other units are read
 * through a probe cache. Slower. With nonly > 0, checks only the units of `only` (each named
 * by either slice; an error if one is not in dir), holding just what each needs. Reports
 * each unit checked to progress->unit_done (may be NULL). Returns DAMAS_OK (the outcome in r)
 * or an error (a file that does not load, a unit asked for that is missing). */
int verify_dir(const Variant *v, const char *dir, const Material *only, int nonly, int threads,
               const GenProgress *progress, VerifyReport *r, char *err, size_t errlen);

#endif

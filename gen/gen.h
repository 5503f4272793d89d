/* Building a database: every unit up to a piece count, in dependency order, resumable; and
 * the independent verifier that checks stored values against their successors. */
#ifndef DAMAS_GEN_GEN_H
#define DAMAS_GEN_GEN_H

#include "../db/store.h"

typedef struct {
    int done, total;                 /* units */
    const char *name;                /* of the unit just finished */
    uint64_t positions;              /* in it */
    double seconds;                  /* spent on it */
    bool skipped;                    /* it was complete on disk */
    uint64_t positions_done, positions_total;
} GenUnitReport;

typedef struct {
    void (*unit_done)(void *ctx, const GenUnitReport *r); /* after each unit; may be NULL */
    void *ctx;
} GenProgress;

/* Builds every slice of v with at most `pieces` pieces into dir (created if missing). A unit
 * complete on disk is loaded, not redone; each new unit is written atomically. Returns
 * DAMAS_OK or an error with a message (another variant's database in dir, a damaged unit
 * file, a full disk, memory). */
int gen_run(const Variant *v, int pieces, const char *dir, int threads, const GenProgress *progress, char *err,
            size_t errlen);

/* Loads every unit file present in dir into s (which must be initialised for dir's variant),
 * values too if `data`. Returns the number of slices loaded in *slices. */
int gen_load_all(const char *dir, DbSet *s, bool data, int *slices, char *err, size_t errlen);

typedef struct {
    uint64_t positions;      /* positions checked */
    int slices;
    bool ok;
    char failure[512];       /* the first inconsistency: slice, position and what is wrong */
} VerifyReport;

/* Checks every stored position of s against its successors' stored values: a win at d has a
 * losing successor at d-1 and none shorter; a loss has only winning successors, the longest
 * at d-1 (d = 0 without moves); a draw has no losing successor and a drawing one. */
int verify_set(const DbSet *s, int threads, VerifyReport *r);

#endif

/* The stored layout of a slice's values (docs/FORMAT.md), both ways: positions whose value
 * does not matter (don't-cares: the side to move must capture) take the value of the position
 * before them, which makes the longest runs; win/draw/loss two bits a position, distances
 * halved (the parity follows from win or loss) and their don't-cares (draws too) filled the
 * same way. Library code inside db/. */
#ifndef DAMAS_DB_PACK_H
#define DAMAS_DB_PACK_H

#include <stdint.h>

#include "table.h"

/* A slice's values as stored. constant_wdl / constant_dtw: the single value when there is only
 * one (then that array is not stored, and its pointer may be NULL), else -1. */
typedef struct {
    uint8_t *wdl2;        /* (size + 3) / 4 bytes, position i at bits 2 (i % 4) */
    void *half;           /* dtw / 2, half_size bytes each */
    int half_size;        /* 1 or 2 */
    int constant_wdl, constant_dtw;
} Packed;

/* Packs t's values into new arrays of p, dc[i] != 0 marking the don't-cares (in parallel).
 * Returns 0, or -1 out of memory (then packed_free(p) still applies). */
int pack_values(const DbTable *t, const uint8_t *dc, Packed *p);

/* pack_values for a table held in shares (db_share; db_share_align a multiple of the runs
 * of PACK_RUN positions in which the values are carried): p's arrays are filled in this
 * process's share only, its width and constants are those of the whole slice. Collective.
 * Returns 0, or -1 out of memory or if a transfer failed. */
int pack_values_shared(const DbTable *t, const uint8_t *dc, const DbShares *sh, Packed *p);

/* Releases p's arrays (from pack_values). */
void packed_free(Packed *p);

/* The longest distance p's n positions may unpack to (filled don't-cares included). */
int pack_max_dtw(const Packed *p, uint64_t n);

/* Unpacks p into t's codes (table_alloc'ed for pack_max_dtw); don't-cares get the filled
 * values. Returns 0, or -1 if a stored value is not win, draw or loss (damaged data). */
int pack_expand(const Packed *p, DbTable *t);

#endif

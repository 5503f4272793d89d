/* Endgame tables in memory and on disk. A database directory holds a manifest
 * (damas-db.txt: variant and rules) and one HDF5 file per unit (a slice and its colour-flipped
 * twin), each slice a group with an LZ4-compressed `wdl` (uint8) and `dtw` (uint16) dataset and
 * its statistics as attributes (docs/FORMAT.md). Library code: returns DamasStatus codes with
 * a message in err. */
#ifndef DAMAS_DB_STORE_H
#define DAMAS_DB_STORE_H

#include <hdf5.h>

#include "../core/variant.h"
#include "chunk.h"
#include "index.h"
#include "value.h"

enum { STORE_PATH_MAX = 4096 };

/* Version of the storage format of docs/FORMAT.md (packing, don't-cares, checksums). */
enum { DB_FORMAT_VERSION = 2 };

/* The value of a successor position for its side to move; DAMAS_OK or an error. */
typedef int (*DbSuccessorValue)(void *ctx, const Position *after, DbValue *out);

/* Told of a successor before any value is asked for (a probe starts fetching what it will
 * read, so that the successors' cache misses overlap). */
typedef void (*DbSuccessorFetch)(void *ctx, const Position *after);

/* The best value for pos's side to move over its legal moves, each successor valued by
 * value(ctx, ...) (an error is passed on); with first_win, the first winning move ends the
 * search (its distance may then not be the shortest). No move: a loss in 0. If fetch is not
 * NULL, fetch(ctx, ...) is first called for every successor, in the order in which value
 * is then called for them. (The hash of the positions passed to both is not set.) */
int db_best_move_value(const Variant *v, const Position *pos, DbSuccessorValue value, DbSuccessorFetch fetch,
                       void *ctx, bool first_win, DbValue *out);

/* Whether pos's stored value does not matter: its side to move must capture (captures are
 * mandatory and it has one), so the value follows from the captures. */
bool db_dont_care(const Variant *v, const Position *pos);

/* A position's value and distance as one number, its code: 0 for a draw, else the distance
 * + 1. A win's distance is odd and a loss's even (the winner makes the last move), so the
 * code's parity tells them apart: odd codes are losses, even ones wins. */
static inline unsigned db_code(int wdl, int dtw)
{
    return wdl == DB_DRAW ? 0u : (unsigned)dtw + 1u;
}

static inline int db_code_wdl(unsigned code)
{
    return code == 0 ? DB_DRAW : code & 1 ? DB_LOSS : DB_WIN;
}

static inline int db_code_dtw(unsigned code)
{
    return code ? (int)code - 1 : 0;
}

/* The longest distances a table holds in codes of one byte a position (up to 255), and in
 * codes of two. */
enum { DB_NARROW_MAX_DTW = 254, DB_MAX_DTW = 65534 };

typedef struct {
    Slice slice;
    /* The codes (db_code) per index: one byte each while every distance is at most
     * DB_NARROW_MAX_DTW (code8), else two (code16); the other is NULL. A table looked up
     * while solving is then one byte a position, and one cache line a lookup. */
    uint8_t *code8;
    uint16_t *code16;
    uint8_t *dont_care;    /* 1 per position whose side to move must capture; may be NULL */
    uint64_t wins, draws, losses;
    int max_dtw;           /* the longest win */
    uint64_t checksum;     /* of the raw values: docs/FORMAT.md */
    uint64_t bytes;        /* bytes on disk of the values, distances and their checksums */
    uint64_t bytes_wdl;    /* of which the values (win/draw/loss) and their checksums */
} DbTable;

/* Gives t (its slice set) arrays for its codes: two bytes a position if `wide`. False if
 * memory ran out. */
bool table_alloc(DbTable *t, bool wide);

/* Where the code of position i is, for a prefetch. */
static inline const void *table_code_at(const DbTable *t, uint64_t i)
{
    return t->code8 ? (const void *)&t->code8[i] : (const void *)&t->code16[i];
}

static inline unsigned table_code(const DbTable *t, uint64_t i)
{
    return t->code8 ? t->code8[i] : t->code16[i];
}

static inline int table_wdl(const DbTable *t, uint64_t i)
{
    return db_code_wdl(table_code(t, i));
}

static inline int table_dtw(const DbTable *t, uint64_t i)
{
    return db_code_dtw(table_code(t, i));
}

/* Sets position i's value and distance; the distance must fit (table_alloc's `wide`). */
static inline void table_set(DbTable *t, uint64_t i, int wdl, int dtw)
{
    unsigned code = db_code(wdl, dtw);
    if (t->code8)
        t->code8[i] = (uint8_t)code;
    else
        t->code16[i] = (uint16_t)code;
}

/* Counts, longest win and checksum of t's values. */
void table_stats(DbTable *t);
/* The checksums of tables t[0..n-1], whose counts and longest wins are set: each is one chain
 * of steps, so the tables are shared among the threads. */
void table_checksums(DbTable *const *t, int n);
void table_free(DbTable *t);

/* Every table of a database in memory, by material. */
typedef struct {
    Variant variant;
    DbTable *t[DB_MAX_PIECES + 1][DB_MAX_PIECES + 1][DB_MAX_PIECES + 1][DB_MAX_PIECES + 1];
} DbSet;

void dbset_init(DbSet *s, const Variant *v);
void dbset_free(DbSet *s);
DbTable *dbset_get(const DbSet *s, Material m);

/* Frees the tables of the unit of m (m and its swap) held in s, if any. */
void dbset_drop(DbSet *s, Material m);

/* The next table of s from slot *k on (in a fixed order), advancing *k past it; NULL after
 * the last. Start with *k = 0. */
DbTable *dbset_next(const DbSet *s, size_t *k);

/* The value of pos for its side to move (any side; flipped as needed), its distance in *dtw.
 * A side to move with no piece has lost (dtw 0). Returns -1 if pos's slice is not in s. */
int dbset_value(const DbSet *s, const Position *pos, uint16_t *dtw);

/* The canonical name of the unit of m: the smaller name of m and its swap. */
void store_unit_name(Material m, char *buf);

/* Checks that dir's manifest is for variant v (and its rule options), or (create) writes one
 * if there is none. */
int store_manifest(const char *dir, const Variant *v, bool create, char *err, size_t errlen);

/* Reads the variant recorded in dir's manifest. */
int store_manifest_variant(const char *dir, Variant *v, char *err, size_t errlen);

/* Takes the exclusive lock of database directory dir (an existing directory; the lock file
 * damas-db.lock in it) for this process, and removes the temporary files killed runs left.
 * Returns the lock's descriptor (store_unlock releases it), or -1 with a message when another
 * process holds it or it cannot be taken. */
int store_lock(const char *dir, char *err, size_t errlen);
void store_unlock(int fd);

/* Whether the unit file of m is complete on disk. */
bool store_unit_exists(const char *dir, Material m);

/* Writes the n tables of one unit atomically (temporary file, fsync, rename), packed and
 * compressed (docs/FORMAT.md). The tables' statistics must be current (table_stats; unit_solve
 * leaves them so); their dont_care flags are computed if NULL. */
int store_write_unit(const char *dir, const Variant *v, DbTable *const *tables, int n, char *err, size_t errlen);

/* Loads the unit containing m (its slices) into s, checking variant, index and format
 * versions, sizes and checksums; the positions stored as don't-cares get their values from
 * their captures, so the units those lead to must be in s already (load in gen_units order).
 * Without `data`, reads only the statistics (the codes stay NULL). */
int store_load_unit(const char *dir, Material m, bool data, DbSet *s, char *err, size_t errlen);

/* Opens the unit file of m in dir read-only (*file; its path in path, STORE_PATH_MAX),
 * checking it is an HDF5 file of this storage format. The caller closes it (H5Fclose). */
int store_open_unit(const char *dir, Material m, hid_t *file, char *path, char *err, size_t errlen);

/* Opens the stored values of `slice` in an open unit file, checking the slice's variant,
 * rules, index scheme and size. */
int store_open_slice(hid_t file, const char *path, const Variant *v, const Slice *slice, StoredSlice *st,
                     char *err, size_t errlen);

#endif

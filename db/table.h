/* Endgame tables in memory: a slice's values and distances as one code a position, the set
 * of a database's tables, and the value of a position from its successors' values. Library
 * code inside db/ (the disk side is store.h). */
#ifndef DAMAS_DB_TABLE_H
#define DAMAS_DB_TABLE_H

#include "../core/variant.h"
#include "index.h"
#include "value.h"

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

/* Position i's value, its distance in *dtw. */
static inline int table_value(const DbTable *t, uint64_t i, uint16_t *dtw)
{
    unsigned c = table_code(t, i);
    *dtw = (uint16_t)db_code_dtw(c);
    return db_code_wdl(c);
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

/* ---- a table held in shares by several processes (`damas gen --split`) ----
 *
 * Process `rank` of `ranks` holds the positions [first, end) of every slice (db_share): the
 * shares start at multiples of db_share_align positions, so that every stored chunk of a
 * slice's values and distances (db/chunk.h) lies in one share. Its table is allocated for the
 * whole slice but written, and so resident, only in its share. The functions taking DbShares
 * are collective: every process calls them at the same point, in the same order. */
enum { DB_SHARE_ALIGN = 1 << 20 };
extern uint64_t db_share_align;   /* DB_SHARE_ALIGN; tests of the solver narrow it */

void db_share(uint64_t size, int rank, int ranks, uint64_t *first, uint64_t *end);

typedef struct {
    int rank, ranks;
    void *ctx;
    /* Copies bytes [0, bytes) of buf on process `root` to buf on every process. */
    bool (*broadcast)(void *ctx, void *buf, size_t bytes, int root);
    /* Copies `bytes` bytes of buf on process `from` to buf on process `to` (the others do
     * nothing). */
    bool (*send)(void *ctx, void *buf, size_t bytes, int from, int to);
} DbShares;

/* table_stats of a table held in shares: the counts added up over the processes, the
 * checksum chained from share to share; every process gets them. False if a transfer failed. */
bool table_stats_shared(DbTable *t, const DbShares *sh);
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

/* The table of s holding pos's value, with pos's index in it in *i; NULL if the side to move
 * has no piece (a loss, in no table) or pos's slice is not in s. */
const DbTable *dbset_place(const DbSet *s, const Position *pos, uint64_t *i);

/* The value of pos for its side to move (any side; flipped as needed), its distance in *dtw.
 * A side to move with no piece has lost (dtw 0). Returns -1 if pos's slice is not in s. */
int dbset_value(const DbSet *s, const Position *pos, uint16_t *dtw);

/* The value of pos, which has a capture to make, from its captures' successors in s: 0, or -1
 * if one of them is not in s. */
int dbset_value_by_captures(const DbSet *s, const Position *pos, DbValue *out);

#endif

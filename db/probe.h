/* Probing endgame databases: the public interface of damas' databases, for search, training
 * and the command line.
 *
 * A DbProbe reads a database directory written by `damas gen` without loading it: unit files
 * are opened on first use, and decompressed chunks are kept in a bounded cache with CLOCK
 * eviction (an approximation of LRU) whose hits take no lock at all and make no HDF5 call.
 * Positions whose side to move must capture are answered by searching the captures, whatever
 * the file stores for them. Values are for the side to move: DB_WIN, DB_DRAW or DB_LOSS, with
 * the distance to win in plies (the winner ending the game as soon as it can, the loser as late
 * as it can; 0 for draws and for a side with no move or no piece).
 *
 * Every function taking a DbProbe may be called from several threads at once on the same
 * handle, except probe_close. Errors come back as a DamasStatus with a message in err:
 * DAMAS_ERR_RANGE for a position the database does not cover (too many pieces, a slice not
 * built, another board size), DAMAS_ERR_ILLEGAL for one that cannot arise (the side that has
 * just moved has no piece), DAMAS_ERR_CORRUPT for a damaged or foreign file (naming file,
 * slice and chunk), DAMAS_ERR_UNKNOWN for a missing file, DAMAS_ERR_IO for one that cannot be
 * read, DAMAS_ERR_NOMEM when memory runs out (not remembered: a later probe tries again). */
#ifndef DAMAS_DB_PROBE_H
#define DAMAS_DB_PROBE_H

#include <stddef.h>

#include "../core/movegen.h"
#include "../core/variant.h"
#include "value.h"

typedef struct DbProbe DbProbe;

/* Chunk cache sizes: what an engine keeps for its search (analyze, play, match, hub), and what
 * self-play keeps (its games probe on every thread, and end in the database). */
#define PROBE_CACHE_SEARCH ((size_t)256 << 20)
#define PROBE_CACHE_SELFPLAY ((size_t)512 << 20)

/* Opens the database in dir with a chunk cache of at most cache_bytes of decoded chunks (at
 * least one chunk), on huge pages where the system gives them. Returns the handle, or NULL with a message in err (no database
 * there, an unreadable manifest, out of memory). `variant`, if not NULL, must be the one the
 * database was built for (else NULL and a message). */
DbProbe *probe_open(const char *dir, const Variant *variant, size_t cache_bytes, char *err, size_t errlen);

/* Closes p and frees its cache. Not while other threads use p. NULL is ignored. */
void probe_close(DbProbe *p);

/* The variant of p's database. */
const Variant *probe_variant(const DbProbe *p);

/* The largest n such that every slice with at most n pieces is in p's database (0 if none). */
int probe_pieces(const DbProbe *p);

/* The win/draw/loss value of pos for its side to move in *wdl. Returns DAMAS_OK or an error
 * (see above); *wdl is untouched on error. Reads only the win/draw/loss tables. */
int probe_wdl(DbProbe *p, const Position *pos, int *wdl, char *err, size_t errlen);

/* The value and distance of pos for its side to move in *out. Returns DAMAS_OK or an error;
 * *out is untouched on error. */
int probe_value(DbProbe *p, const Position *pos, DbValue *out, char *err, size_t errlen);

typedef struct {
    Move move;
    DbValue value;       /* for the side making the move, as if it were pos's value */
} ProbeMove;

/* Every legal move of pos with its value, best first (the shortest win, then draws, then the
 * longest loss; ties in move generation order), in out (MOVELIST_MAX entries); the count in
 * *n. Returns DAMAS_OK or an error (then *n is 0). */
int probe_moves(DbProbe *p, const Position *pos, ProbeMove *out, int *n, char *err, size_t errlen);

/* The best line from pos to the end of the game: for a win or a loss, a best move at every
 * ply (its length is the distance); for a draw, no moves. At most max moves in line; the
 * count in *n. Returns DAMAS_OK or an error. */
int probe_line(DbProbe *p, const Position *pos, Move *line, int max, int *n, char *err, size_t errlen);

typedef struct {
    uint64_t hits, misses;  /* chunk lookups since the handle was opened */
    size_t cached_bytes;    /* decompressed bytes in the cache now */
} ProbeStats;

/* p's cache counters (approximate while other threads probe). */
void probe_stats(const DbProbe *p, ProbeStats *s);

#endif

/* Shared fixtures for the Criterion suites: variants and positions from text, and the
 * legal-move set of a position as sorted text. */
#ifndef DAMAS_TEST_HELPERS_H
#define DAMAS_TEST_HELPERS_H

#include <pthread.h>
#include <stdint.h>

#include "../core/board.h"
#include "../core/movegen.h"
#include "../core/notation.h"
#include "../core/position.h"
#include "../core/variant.h"

/* The variant `name` (optional capture if `optional`); fails the test if unknown. */
Variant test_variant(const char *name, bool optional);

/* The position `fen` of variant v; fails the test if it does not parse. */
Position test_position(const Variant *v, const char *fen);

/* The legal moves of fen, each in v's own notation, sorted and separated by one space. */
void test_moves_text(const Variant *v, const char *fen, char *out, size_t len);

/* Asserts the legal moves of fen are exactly `expected` (space separated, any order). */
void assert_moves(const char *variant, const char *fen, const char *expected);
void assert_moves_optional(const char *variant, const char *fen, const char *expected);

/* The legal move of fen written `text`; fails the test if there is none. */
Move test_move(const Variant *v, const Position *pos, const char *text);

/* Positions reached by `count` deterministic random games of up to `plies` plies from the
 * start (seeded by `seed`); returns how many were written to out. */
int test_random_positions(const Variant *v, uint64_t seed, int count, int plies, Position *out);

/* Marks a test that checks a property exhaustively (every position of several databases,
 * many threads) and takes seconds to minutes: `make check` (DAMAS_TEST_QUICK set) skips it,
 * `make test` runs it. */
void test_exhaustive(void);

/* A database of v up to `pieces` built once for the whole run, shared by the tests that only
 * read it: its directory in dir, when the run has a cache ($DAMAS_TEST_DB_CACHE, set by
 * `make test` and `make check`); false without one (the caller builds its own). Built under a
 * lock, so parallel tests wait for the first. */
bool test_db_shared(const Variant *v, int pieces, char *dir, size_t len);

/* Replaces attribute `name` of object `object` (a group, or "/") in the HDF5 file `path` by
 * an array of 64 integers, where readers expect one value; fails the test if it cannot. */
void test_h5_attr_as_array(const char *path, const char *object, const char *name);

/* In-process stand-ins for the collectives of processes that share work (`damas gen
 * --split`, tables held in shares): one thread per rank, meeting at a barrier. A thread's ctx
 * for them points to its FakeProc (or to a struct that begins with one). */
enum { FAKE_RANKS = 4 };

typedef struct {
    int ranks;
    pthread_barrier_t barrier;
    pthread_mutex_t lock;
    pthread_cond_t moved;
    void *buf[FAKE_RANKS];
    int value[FAKE_RANKS];
    const uint64_t *send[FAKE_RANKS];
    const size_t *count[FAKE_RANKS];
    const void *mail[FAKE_RANKS][FAKE_RANKS];   /* [from][to]: a send's buffer, until taken */
    size_t mail_bytes[FAKE_RANKS][FAKE_RANKS];
} FakeWorld;

typedef struct {
    FakeWorld *world;
    int rank;
} FakeProc;

void fake_world_init(FakeWorld *w, int ranks);
void fake_world_free(FakeWorld *w);
bool fake_broadcast(void *ctx, void *buf, size_t bytes, int root);
bool fake_send(void *ctx, void *buf, size_t bytes, int from, int to);
int fake_max(void *ctx, int value);
uint64_t *fake_exchange(void *ctx, const uint64_t *send, const size_t *count, size_t *received);

#endif

/* damas: probing draughts endgame databases from C (and, through libdamas.so, from any
 * language with a C interface). The public header of libdamas, installed as <damas/damas.h>:
 *
 *     cc prog.c $(pkg-config --cflags --libs damas)
 *
 * A database is a directory written by `damas gen` for one variant (Brazilian, Russian,
 * Spanish, Czech, Italian, American, International). Positions are PDN FENs in the variant's
 * own notation ("W:W21,K5:B14", "B:Wc3:Bd8,Kf6"); moves come back in that notation too.
 * Values are for the side to move; distances count plies to the end of the game, the winner
 * ending it as soon as it can and the loser as late as it can.
 *
 * Every function may be called from several threads at once on one handle, except
 * damas_close. Error messages go to err (errlen bytes, when err is not NULL). */
#ifndef DAMAS_DAMAS_H
#define DAMAS_DAMAS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DAMAS_API_VERSION 1

typedef struct damas_db damas_db;

/* What a probe returns. */
enum {
    DAMAS_PROBE_OK = 0,
    DAMAS_PROBE_BAD_FEN = 1,   /* not a FEN, or not a position of the database's variant */
    DAMAS_PROBE_OUTSIDE = 2,   /* a position the database does not cover (too many pieces) */
    DAMAS_PROBE_FAILED = 3,    /* a damaged or unreadable file, out of memory */
};

/* Values for the side to move. */
enum { DAMAS_LOSS = 0, DAMAS_DRAW = 1, DAMAS_WIN = 2 };

enum { DAMAS_MOVE_TEXT = 160, DAMAS_FEN_TEXT = 512 };

typedef struct {
    int wdl;                     /* DAMAS_WIN, DAMAS_DRAW or DAMAS_LOSS */
    int dtw;                     /* plies to the end of the game; 0 for a draw */
} damas_value;

typedef struct {
    char move[DAMAS_MOVE_TEXT];  /* "11-15", "c3:e5", "27x18x11" */
    char fen[DAMAS_FEN_TEXT];    /* the position after it */
    int capture;                 /* 1 if it captures */
    damas_value value;           /* for the side making it */
} damas_move;

/* Opens the database in dir, keeping at most cache_mb megabytes of decompressed chunks
 * (0: 64). NULL with a message in err if there is no database there. */
damas_db *damas_open(const char *dir, size_t cache_mb, char *err, size_t errlen);

/* Closes db (NULL is ignored). */
void damas_close(damas_db *db);

/* The variant's name ("russian"); "+optional" follows it for the optional-capture rule. */
const char *damas_variant(const damas_db *db);

/* The largest n such that every position of at most n pieces is covered. */
int damas_pieces(const damas_db *db);

/* The value of the position fen in *out. Returns a DAMAS_PROBE_* code. */
int damas_probe(damas_db *db, const char *fen, damas_value *out, char *err, size_t errlen);

/* Every legal move of fen with its value, best first (the shortest win, then draws, then the
 * longest loss): the best max of them in out, their count in *n. Returns a DAMAS_PROBE_* code. */
int damas_moves(damas_db *db, const char *fen, damas_move *out, int max, int *n, char *err, size_t errlen);

/* The whole answer as one JSON object, as `damas probe --json` prints it (value, every move
 * with its value and the position after it, the best line), or {"fen", "error"}; the code in
 * *status. Free it with damas_free. NULL if memory runs out. */
char *damas_probe_json(damas_db *db, const char *fen, int *status);

void damas_free(void *p);

#ifdef __cplusplus
}
#endif

#endif

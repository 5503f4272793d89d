/* Database values: what a probe answers, without the tables or files behind it (so that the
 * probe API's users need not see HDF5). */
#ifndef DAMAS_DB_VALUE_H
#define DAMAS_DB_VALUE_H

/* Values for the side to move. */
enum { DB_LOSS = 0, DB_DRAW = 1, DB_WIN = 2 };

/* A value for the side to move: DB_LOSS, DB_DRAW or DB_WIN, and the distance in plies. */
typedef struct {
    int wdl, dtw;
} DbValue;

/* The value for the mover of a move leading to a position worth `next` to its side to move. */
DbValue db_value_after(DbValue next);

/* Orders values for the side to move: higher is better (a shorter win, a longer loss). */
int db_value_score(DbValue v);

#endif

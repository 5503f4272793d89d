/* Training data sets: labelled positions in an HDF5 file (docs/FORMAT.md), one compound
 * dataset `positions`, chunked, LZ4-compressed and extendible, so that self-play appends to
 * it and a killed run loses at most the batch it was writing. The file records its variant
 * (with its rules) and how many games were played into it, so a rerun goes on from there. */
#ifndef DAMAS_TRAIN_DATASET_H
#define DAMAS_TRAIN_DATASET_H

#include "../core/types.h"

/* No search score recorded for a position. */
enum { DATASET_NO_SCORE = -32768 };

typedef struct {
    Bitboard white, black, kings;   /* in the padded layout of core/board.h */
    uint32_t game;                  /* the game it comes from: held-out sets are whole games */
    float label;                    /* expected score of the side to move: the game's result, or the database's value */
    int16_t score;                  /* the search's score for the side to move, or DATASET_NO_SCORE */
    uint8_t side;                   /* to move */
    uint8_t exact;                  /* 1 if the label is the database's value */
} DatasetRow;

typedef struct Dataset Dataset;

/* Opens path for v, creating it if it does not exist. NULL with a message if it cannot be
 * created or read, is not a damas data set, or holds positions of another variant or rules. */
Dataset *dataset_open(const char *path, const Variant *v, char *err, size_t errlen);

/* Rows in the file, and games played into it. */
uint64_t dataset_rows(const Dataset *d);
uint64_t dataset_games(const Dataset *d);

/* Appends rows[0..n) and sets the game count to `games`, then flushes the file. Returns
 * DAMAS_OK or an error with a message (disk full: the rows already there are intact). */
int dataset_append(Dataset *d, const DatasetRow *rows, size_t n, uint64_t games, char *err, size_t errlen);

/* Reads rows [from, from + n) into out. Returns DAMAS_OK or an error with a message. */
int dataset_read(Dataset *d, uint64_t from, size_t n, DatasetRow *out, char *err, size_t errlen);

/* The position of a row (with its hash). */
void dataset_position(const DatasetRow *row, Position *out);

/* Closes d (NULL is a no-op). */
void dataset_close(Dataset *d);

#endif

/* Forward types shared by every module, so headers never include each other for a type. */
#ifndef DAMAS_TYPES_H
#define DAMAS_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A set of squares in the padded layout of core/board.h (bit = square + square / (2 * width)). */
typedef uint64_t Bitboard;

enum { WHITE = 0, BLACK = 1 };

/* Library error codes; 0 is success. Messages go to a caller-supplied buffer. */
typedef enum {
    DAMAS_OK = 0,
    DAMAS_ERR_SYNTAX = -1,   /* text that does not parse */
    DAMAS_ERR_RANGE = -2,    /* a number or square outside what the board allows */
    DAMAS_ERR_ILLEGAL = -3,  /* well-formed but not a legal position or move */
    DAMAS_ERR_AMBIGUOUS = -4,/* a move text that matches several legal moves */
    DAMAS_ERR_UNKNOWN = -5,  /* an unknown name (variant, option), or a missing file */
    DAMAS_ERR_IO = -6,       /* a file that cannot be read, written or renamed (disk full, read-only) */
    DAMAS_ERR_NOMEM = -7,    /* out of memory: may succeed later */
    DAMAS_ERR_CORRUPT = -8,  /* a damaged or foreign file */
} DamasStatus;

typedef struct Board Board;
typedef struct Rules Rules;
typedef struct Variant Variant;
typedef struct Position Position;
typedef struct Move Move;
typedef struct MoveList MoveList;
typedef struct Undo Undo;

#endif

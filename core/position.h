/* Positions: pieces by colour, kings, side to move, Zobrist hash; make/undo and colour flip. */
#ifndef DAMAS_POSITION_H
#define DAMAS_POSITION_H

#include "types.h"

struct Position {
    Bitboard pieces[2];   /* by colour, men and kings */
    Bitboard kings;       /* kings of both colours */
    uint64_t hash;        /* Zobrist key of the above and the side to move */
    int side;             /* colour to move */
};

/* A move: from and to squares (bits of the padded layout), the set of captured pieces, and
 * whether the moving man ends as a king. `order` identifies the order of capture (used only
 * when perft counts capture orders separately). */
enum { MOVE_PROMOTES = 1 };

struct Move {
    Bitboard captured;
    uint32_t order;
    uint8_t from;
    uint8_t to;
    uint8_t flags;
};

/* What pos_make saves for pos_undo. */
struct Undo {
    Bitboard captured_kings;
    uint64_t hash;
};

/* The variant's start position with its first mover to move. */
void pos_start(Position *pos, const Variant *v);

/* An empty board with `side` to move. */
void pos_clear(Position *pos, int side);

/* Puts a piece of `colour` on bit `sq` (which must be empty); `king` for a king. */
void pos_put(Position *pos, int colour, int sq, bool king);

/* Plays a legal move of pos->side; `undo` receives what pos_undo needs. */
void pos_make(Position *pos, const Move *m, Undo *undo);
void pos_undo(Position *pos, const Move *m, const Undo *undo);

/* The position after the legal move m of pos->side in *out (which may be pos), without its
 * hash (out->hash is 0): for a retrograde solver's lookups, which index positions and need no
 * key. Writes out field by field from pos's fields, so no copy of a whole position that was
 * just built is read back (a wide load of narrow stores waits for them to reach the cache). */
void pos_after(const Position *pos, const Move *m, Position *out);

/* The Zobrist key of one piece, and of Black to move: pos->hash is the xor of the keys of
 * its pieces, and of the side key when Black is to move. */
uint64_t pos_piece_key(int colour, bool king, int sq);
uint64_t pos_side_key(void);

/* The hash computed from scratch (pos->hash is kept up to date incrementally). */
uint64_t pos_hash(const Position *pos);

/* Colours swapped and board rotated 180 degrees: the same game seen from the other side. */
void pos_flip(const Position *pos, const Board *b, Position *out);

/* Men and kings of a colour. */
static inline Bitboard pos_men(const Position *pos, int colour) { return pos->pieces[colour] & ~pos->kings; }
static inline Bitboard pos_kings(const Position *pos, int colour) { return pos->pieces[colour] & pos->kings; }
static inline int pos_count(Bitboard set) { return __builtin_popcountll(set); }

bool pos_equal(const Position *a, const Position *b);

#endif

/* Material signatures (slices) and the index of a slice: a bijection between the positions of
 * a slice, side to move = White = "us" moving up, and 0..size-1.
 *
 * Scheme (version DB_INDEX_VERSION): our men stand on the rows below our promotion row, their
 * men on the rows above theirs. The board splits into row 0 (only their men), the last row
 * (only our men) and the rows between (both). Positions are grouped in blocks by how many of
 * their men are on row 0 (a) and of our men on the last row (c); inside a block the index is
 * mixed radix over: their men on row 0, our men on the last row, our men in the middle, their
 * men in the middle squares left, their kings on the squares left, our kings on the rest —
 * each a combinatorial (colex) rank. (Scheme 1 had our kings before theirs; with ours varying
 * fastest, neighbouring indices more often share a value: the win/draw/loss files of the
 * largest slices compress 10-50% better.) */
#ifndef DAMAS_DB_INDEX_H
#define DAMAS_DB_INDEX_H

#include "../core/position.h"
#include "../core/types.h"

enum { DB_INDEX_VERSION = 2, DB_MAX_PIECES = 8, DB_NAME_MAX = 32 };

typedef struct {
    int8_t um, uk, tm, tk;   /* our men, our kings, their men, their kings */
} Material;

/* Mixed-radix digits of an index inside a block, least significant first: our kings, their
 * kings, their men in the middle, our men in the middle, our men on the last row (the rest is
 * their men on row 0). */
enum { SLICE_DIGITS = 5 };

typedef struct {
    int a, c;                /* their men on row 0, our men on the last row */
    uint64_t start;          /* index of the block's first position */
    uint64_t radix[SLICE_DIGITS];
    uint64_t magic[SLICE_DIGITS]; /* ceil(2^64 / radix), 0 for radix 1: division by multiply */
} SliceBlock;

typedef struct {
    Material m;
    int size8;               /* board size: 8 or 10 */
    uint64_t size;           /* positions in the slice */
    int N, W, B, free;       /* squares; per row; in the middle rows; left by the men */
    uint64_t kings_tk, kings_uk; /* placements of their kings, then of ours */
    int nblocks;
    SliceBlock blocks[36];   /* the non-empty blocks in index order */
    int8_t block_of[6][6];   /* by a and c: the block's place in blocks, -1 if empty */
} Slice;

/* Builds slice m on board `board_size`; false if the material cannot stand on the board. */
bool slice_init(Slice *s, Material m, int board_size);

/* The index of pos seen from its side to move ("us"; with Black to move the board is turned
 * round, as pos_flip does), which must have material s->m. */
uint64_t slice_rank(const Slice *s, const Position *pos);

/* slice_rank in two steps, for ranking many positions that differ only in their kings (the
 * predecessors of a position by king moves): the men's part once, then each position's. */
typedef struct {
    uint64_t base;       /* index with no king placed */
    uint64_t radix_uk;   /* placements of our kings */
    uint64_t men;        /* squares (0..N-1) of all men */
} SliceMenRank;

void slice_rank_men(const Slice *s, const Position *pos, SliceMenRank *r);

/* The index of pos, whose side to move and men are those of the position r was made from. */
uint64_t slice_rank_kings(const Slice *s, const SliceMenRank *r, const Position *pos);

/* slice_rank for positions that differ only in where one king of the side to move stands (the
 * predecessors of a position by one king's un-moves): what the others contribute once, then
 * each square's. */
typedef struct {
    uint64_t base;       /* index with every piece placed but that king */
    uint64_t others;     /* our other kings, ranked among the squares our kings range over */
    uint64_t range;      /* those squares (0..N-1: no man, no king of theirs) */
    const int8_t *square; /* board bit -> square 0..N-1 */
    int turn;            /* N - 1 if the board is turned round (Black to move), else 0 */
} SliceKingMove;

/* For pos (whose men r was made from), with a king of its side to move on board bit `sq`. */
void slice_king_move(const Slice *s, const SliceMenRank *r, const Position *pos, int sq, SliceKingMove *k);

/* The index of that position with the king on board bit `sq` instead, an empty square. */
uint64_t slice_rank_king_at(const SliceKingMove *k, int sq);

/* The position (White to move) at index i < s->size. */
void slice_unrank(const Slice *s, uint64_t i, Position *pos);

/* slice_unrank for indices taken in order, neighbours of which often share their men: an
 * index whose men are those of the last one unranked with u reuses their digits. Zero u before
 * the first call; it may be used with several slices. */
typedef struct {
    const Slice *s;      /* the slice of the last index unranked, NULL if none */
    uint64_t size;       /* its size, and its material, so that another slice at s is told apart */
    Material m;
    uint64_t lo, hi;     /* the indices with that position's men */
    uint64_t radix_uk, magic_uk; /* the block's placements of our kings, and its division magic */
    uint64_t set[SLICE_DIGITS + 1];
} SliceUnrank;

/* As slice_unrank; true if i's men are those of the index unranked before with u. */
bool slice_unrank_near(const Slice *s, uint64_t i, SliceUnrank *u, Position *pos);

/* A walk through consecutive indices of a slice, much faster than unranking each: after
 * slice_walk_start(s, i, &w), w.pos is the position at w.index = i; each slice_walk_next moves
 * to the next index, which must be < s->size. The walk does not hash: w.pos.hash is 0. */
typedef struct {
    uint64_t index;
    Position pos;
    uint64_t set[SLICE_DIGITS + 1];     /* per digit, the compact set it ranks */
    uint64_t limit[SLICE_DIGITS + 1];   /* per digit, 1 << the squares the set ranges over */
} SliceWalk;

void slice_walk_start(const Slice *s, uint64_t i, SliceWalk *w);
void slice_walk_next(const Slice *s, SliceWalk *w);

/* Calls visit(ctx, i, pos) for every index i of s and its position (hash not set), in
 * parallel on `threads` OpenMP threads (0: the default count), each thread walking runs of
 * consecutive indices. */
typedef void (*SliceVisit)(void *ctx, uint64_t i, const Position *pos);
void slice_each(const Slice *s, int threads, SliceVisit visit, void *ctx);

/* The material of pos seen from its side to move ("us"). */
Material material_of(const Position *pos);

/* The slice seen from the other side: us and them swapped. */
Material material_swap(Material m);
bool material_equal(Material a, Material b);
int material_pieces(Material m);

/* "m1k2-m0k1": our men and kings, then theirs. Parses back with material_parse. */
void material_name(Material m, char *buf);
bool material_parse(const char *name, Material *m);

/* Every material with at most `pieces` pieces, both sides present, that fits the board, in
 * an order in which each unit comes after the units it depends on: fewer pieces first, then
 * fewer men (a promotion keeps the count and loses a man). Returns the count; out must hold
 * DB_MAX_MATERIALS. */
enum { DB_MAX_MATERIALS = 1024 };
int material_all(int pieces, int board_size, Material *out);

#endif

/* Board geometry for 8x8 and 10x10 draughts as bitboards.
 *
 * Squares are bits of a padded layout: the dark squares are numbered 0..N-1 from the top
 * left (b8 / b10, Black's back row) left to right, top to bottom, and square s lives at bit
 * s + s / (2 * width). The bit after every second row is a ghost square, so the four
 * diagonal steps are the fixed offsets -(w+1), -w, +w, +(w+1) and never wrap round an edge.
 * White men move up (toward row 0, negative offsets); Black men move down. */
#ifndef DAMAS_BOARD_H
#define DAMAS_BOARD_H

#include "types.h"

#ifdef __GFNI__
#include <immintrin.h>
#endif

enum { BOARD_MAX_SQUARES = 50, BOARD_MAX_SIZE = 10 };

/* Diagonal directions, indexes into Board.step. */
enum { DIR_UL = 0, DIR_UR = 1, DIR_DL = 2, DIR_DR = 3 };

struct Board {
    int size;                       /* 8 or 10 */
    int width;                      /* dark squares per row: size / 2 */
    int squares;                    /* 32 or 50 */
    int bits;                       /* length of the padded layout: 35 or 54 */
    int step[4];                    /* bit offset of one diagonal step, by DIR_* */
    Bitboard all;                   /* every playing square */
    Bitboard row[BOARD_MAX_SIZE];   /* row 0 is the top: White's promotion row */
    int8_t square_bit[BOARD_MAX_SQUARES];
    int8_t bit_square[64];          /* -1 for ghost and unused bits */
    int8_t bit_row[64];
    int8_t bit_file[64];            /* 0 = file a, with a1 a dark square */
};

/* The geometry for size 8 or 10; NULL for any other size. Static data, thread-safe. */
const Board *board_get(int size);

/* b moved one step by offset d; bits leaving the board are dropped. */
static inline Bitboard board_shift(const Board *b, Bitboard set, int d)
{
    return (d > 0 ? set << d : set >> -d) & b->all;
}

/* The 180-degree rotation of a set of squares (bit i <-> bit bits-1-i). Inline: the endgame
 * generator turns every position it looks up. */
static inline Bitboard board_rotate(const Board *b, Bitboard set)
{
#ifdef __GFNI__
    /* The bits of each byte reversed in one instruction (an affine map over GF(2)). */
    __m128i v = _mm_gf2p8affine_epi64_epi8(_mm_cvtsi64_si128((long long)set),
                                           _mm_set1_epi64x(0x8040201008040201ll), 0);
    return __builtin_bswap64((Bitboard)_mm_cvtsi128_si64(v)) >> (64 - b->bits);
#else
    Bitboard x = set;
    x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
    x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
    x = ((x >> 4) & 0x0F0F0F0F0F0F0F0Full) | ((x & 0x0F0F0F0F0F0F0F0Full) << 4);
    return __builtin_bswap64(x) >> (64 - b->bits);
#endif
}

#endif

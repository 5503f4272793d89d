#include "board.h"

static Board boards[2];

static void board_build(Board *b, int size)
{
    b->size = size;
    b->width = size / 2;
    b->squares = size * size / 2;
    b->bits = b->squares + b->squares / (2 * b->width) - 1;
    b->step[DIR_UL] = -(b->width + 1);
    b->step[DIR_UR] = -b->width;
    b->step[DIR_DL] = b->width;
    b->step[DIR_DR] = b->width + 1;
    b->all = 0;
    for (int i = 0; i < 64; i++) {
        b->bit_square[i] = -1;
        b->bit_row[i] = -1;
        b->bit_file[i] = -1;
    }
    for (int r = 0; r < BOARD_MAX_SIZE; r++)
        b->row[r] = 0;
    for (int s = 0; s < b->squares; s++) {
        int bit = s + s / (2 * b->width);
        int row = s / b->width;
        int col = s % b->width;
        b->square_bit[s] = (int8_t)bit;
        b->bit_square[bit] = (int8_t)s;
        b->bit_row[bit] = (int8_t)row;
        /* With a1 dark, the top row's dark squares are on files b, d, f, ... */
        b->bit_file[bit] = (int8_t)(row % 2 == 0 ? 2 * col + 1 : 2 * col);
        b->all |= 1ull << bit;
        b->row[row] |= 1ull << bit;
    }
}

__attribute__((constructor)) static void board_init(void)
{
    board_build(&boards[0], 8);
    board_build(&boards[1], 10);
}

const Board *board_get(int size)
{
    if (size == 8)
        return &boards[0];
    if (size == 10)
        return &boards[1];
    return NULL;
}

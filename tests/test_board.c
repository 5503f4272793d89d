/* Board geometry: the padded layout's fixed steps are exactly the diagonal neighbours. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "helpers.h"

Test(board, steps_reach_exactly_the_diagonal_neighbours)
{
    for (int size = 8; size <= 10; size += 2) {
        const Board *b = board_get(size);
        cr_assert_eq(pos_count(b->all), b->squares);
        for (int s = 0; s < b->squares; s++) {
            int bit = b->square_bit[s];
            for (int d = 0; d < 4; d++) {
                Bitboard to = board_shift(b, 1ull << bit, b->step[d]);
                int row = b->bit_row[bit] + (d < 2 ? -1 : 1);
                int file = b->bit_file[bit] + (d % 2 == 0 ? -1 : 1);
                bool inside = row >= 0 && row < size && file >= 0 && file < size;
                cr_assert_eq(to != 0, inside, "size %d square %d direction %d", size, s + 1, d);
                if (inside) {
                    int t = __builtin_ctzll(to);
                    cr_assert_eq(b->bit_row[t], row);
                    cr_assert_eq(b->bit_file[t], file);
                }
            }
        }
    }
}

Test(board, rotation_maps_square_n_to_its_mirror_through_the_centre)
{
    for (int size = 8; size <= 10; size += 2) {
        const Board *b = board_get(size);
        cr_assert_eq(board_rotate(b, b->all), b->all);
        for (int s = 0; s < b->squares; s++) {
            Bitboard r = board_rotate(b, 1ull << b->square_bit[s]);
            cr_assert_eq(r, 1ull << b->square_bit[b->squares - 1 - s]);
        }
    }
}

Test(board, only_8x8_and_10x10_exist)
{
    cr_assert_null(board_get(12));
    cr_assert_not_null(board_get(8));
}

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/memory.h"

enum { MIB = 1 << 20 };

/* (Each test runs in a process of its own: nothing is kept at its start, and no limit set.) */

/* An array of `mib` MiB, its bytes set to `mark`. */
static uint8_t *marked(int mib, uint8_t mark)
{
    uint8_t *a = mem_huge((size_t)mib * MIB);
    cr_assert_not_null(a);
    memset(a, mark, (size_t)mib * MIB);
    return a;
}

/* Whether a's first and last bytes of `mib` MiB still hold `mark` (pages a released array
 * held, handed out again: fresh memory would not). */
static bool holds(const uint8_t *a, int mib, uint8_t mark)
{
    return a[0] == mark && a[(size_t)mib * MIB - 1] == mark;
}

Test(memory, no_array_is_kept_without_a_limit)
{
    mem_release(marked(8, 1));
    cr_assert_eq(mem_kept_bytes(), 0);
    mem_keep_limit(64 * MIB);
    uint8_t *b = mem_huge(8 * MIB);
    cr_assert_eq(mem_kept_bytes(), 0);
    mem_release(b);
    cr_assert_eq(mem_kept_bytes(), 8 * MIB, "made under a limit: kept");
}

Test(memory, a_released_array_is_handed_out_again_for_a_request_it_holds)
{
    mem_keep_limit(64 * MIB);
    uint8_t *a = marked(16, 7);
    mem_release(a);
    cr_assert_eq(mem_kept_bytes(), 16 * MIB);
    uint8_t *b = mem_huge(12 * MIB);
    cr_assert_eq(b, a);
    cr_assert(holds(b, 12, 7), "the kept pages, not fresh memory");
    cr_assert_eq(mem_kept_bytes(), 4 * MIB, "the rest of the released array stays kept");
    uint8_t *c = mem_huge(12 * MIB);
    cr_assert(c >= b + 12 * MIB || c + 12 * MIB <= b, "an array in use is not handed out twice");
    mem_release(b);
    mem_release(c);
}

Test(memory, a_request_takes_the_smallest_kept_array_that_holds_it)
{
    mem_keep_limit(64 * MIB);
    uint8_t *big = marked(32, 1), *wall = marked(1, 0), *small = marked(16, 2), *wall2 = marked(1, 0);
    mem_release(big);
    mem_release(small);
    uint8_t *x = mem_huge(12 * MIB);
    cr_assert(x == small && holds(x, 12, 2), "16 MiB, not 32, serves 12 MiB");
    uint8_t *y = mem_huge(24 * MIB);
    cr_assert(y == big && holds(y, 24, 1));
    mem_release(x);
    mem_release(y);
    mem_release(wall);
    mem_release(wall2);
}

Test(memory, released_neighbours_join_to_serve_a_larger_request)
{
    mem_keep_limit(64 * MIB);
    uint8_t *a = marked(8, 1), *b = marked(8, 2);
    cr_assert_eq(b, a + 8 * MIB, "(arrays made one after the other lie side by side)");
    mem_release(a);
    mem_release(b);
    uint8_t *c = mem_huge(16 * MIB);
    cr_assert(c == a && holds(c, 8, 1) && holds(c + 8 * MIB, 8, 2), "both arrays' pages, none fresh");
    mem_release(c);
}

Test(memory, kept_pages_serve_part_of_a_request_larger_than_them)
{
    mem_keep_limit(64 * MIB);
    uint8_t *a = marked(16, 5);
    mem_release(a);
    uint8_t *b = mem_huge(24 * MIB);
    cr_assert(b == a && holds(b, 16, 5), "the 16 kept MiB first, then 8 fresh");
    cr_assert_eq(mem_kept_bytes(), 0);
    mem_release(b);
}

Test(memory, a_release_beyond_the_limit_keeps_only_the_limit)
{
    mem_keep_limit(40 * MIB);
    uint8_t *a = marked(8, 1), *b = marked(32, 2), *c = marked(24, 3);
    mem_release(a);
    mem_release(b);
    cr_assert_eq(mem_kept_bytes(), 40 * MIB);
    mem_release(c);
    cr_assert_eq(mem_kept_bytes(), 40 * MIB, "the highest pages go back to the kernel");
    uint8_t *d = mem_huge(8 * MIB);
    cr_assert(d == a && holds(d, 8, 1), "the lowest pages are the ones kept");
    mem_release(d);
}

Test(memory, lowering_the_limit_gives_kept_pages_back)
{
    mem_keep_limit(64 * MIB);
    uint8_t *a = marked(16, 1), *b = marked(16, 2);
    mem_release(a);
    mem_release(b);
    cr_assert_eq(mem_kept_bytes(), 32 * MIB);
    mem_keep_limit(16 * MIB);
    cr_assert_eq(mem_kept_bytes(), 16 * MIB);
    mem_keep_limit(0);
    cr_assert_eq(mem_kept_bytes(), 0);
}

Test(memory, arrays_in_use_never_overlap_whatever_the_order_of_requests_and_releases)
{
    enum { SLOTS = 24, ROUNDS = 3000 };
    mem_keep_limit(48 * MIB);
    uint8_t *a[SLOTS] = {0};
    size_t size[SLOTS] = {0};
    srand(12345);
    for (int r = 0; r < ROUNDS; r++) {
        int k = rand() % SLOTS;
        if (a[k]) {
            for (size_t i = 0; i < size[k]; i += 4093)
                cr_assert_eq(a[k][i], (uint8_t)k, "array %d was written by another one", k);
            cr_assert_eq(a[k][size[k] - 1], (uint8_t)k);
            mem_release(a[k]);
            a[k] = NULL;
        } else {
            size[k] = (size_t)(rand() % (6 * MIB)) + 1;
            a[k] = mem_huge(size[k]);
            cr_assert_not_null(a[k]);
            memset(a[k], k, size[k]);
        }
        cr_assert_leq(mem_kept_bytes(), 48 * MIB);
    }
    for (int k = 0; k < SLOTS; k++)
        mem_release(a[k]);
    mem_keep_limit(0);
    cr_assert_eq(mem_kept_bytes(), 0);
}

Test(memory, arrays_not_from_mem_huge_and_null_are_freed)
{
    mem_keep_limit(64 * MIB);
    mem_release(NULL);
    mem_release(malloc(100));
    cr_assert_eq(mem_kept_bytes(), 0);
    uint8_t *a = mem_huge(0);
    cr_assert_not_null(a);
    mem_release(a);
    cr_assert(mem_kept_bytes() > 0 && mem_kept_bytes() < MIB, "a whole grain of 64 KiB");
}

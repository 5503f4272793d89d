#include <criterion/criterion.h>
#include <stdint.h>
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

/* Whether a's first and last bytes of `mib` MiB still hold `mark` (a kept array handed out
 * again: fresh memory would not). */
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
    cr_assert(holds(b, 12, 7), "the kept array's bytes, not fresh memory");
    cr_assert_eq(mem_kept_bytes(), 0);
    uint8_t *c = mem_huge(12 * MIB);
    cr_assert_neq(c, a, "an array in use is not handed out twice");
    mem_release(b);
    mem_release(c);
    cr_assert_eq(mem_kept_bytes(), 28 * MIB);
}

Test(memory, an_array_more_than_twice_the_request_is_not_handed_out)
{
    mem_keep_limit(64 * MIB);
    uint8_t *a = marked(32, 3);
    mem_release(a);
    uint8_t *b = mem_huge(15 * MIB);
    cr_assert_eq(mem_kept_bytes(), 32 * MIB, "a 15 MiB request leaves the 32 MiB array kept");
    uint8_t *c = mem_huge(16 * MIB);
    cr_assert(c == a && holds(c, 16, 3));
    mem_release(b);
    mem_release(c);
}

Test(memory, a_release_beyond_the_limit_is_freed_unless_smaller_kept_arrays_make_room)
{
    mem_keep_limit(40 * MIB);
    uint8_t *small = marked(8, 1), *big = marked(32, 2), *other = marked(24, 3);
    mem_release(small);   /* kept: 8 */
    mem_release(big);     /* 8 + 32 = 40: kept */
    mem_release(other);   /* 40 + 24 > 40, and freeing the 8 MiB one would not make room */
    cr_assert_eq(mem_kept_bytes(), 40 * MIB);
    uint8_t *x = mem_huge(24 * MIB);
    cr_assert(x == big && holds(x, 24, 2), "the 32 MiB array serves 24 MiB; the 24 MiB one was freed");
    /* x holds 8 MiB beyond its request, `small` 8 kept: a 32 MiB array released now fits
     * only if `small` goes. */
    uint8_t *y = marked(32, 4);
    mem_release(y);
    cr_assert_eq(mem_kept_bytes(), 32 * MIB, "the 8 MiB array made room for the 32 MiB one");
    uint8_t *z = mem_huge(30 * MIB);
    cr_assert(z == y && holds(z, 30, 4));
    mem_release(x);
    mem_release(z);
    cr_assert_eq(mem_kept_bytes(), 32 * MIB, "32 + 32 > 40: the first released stays, the second is freed");
}

Test(memory, lowering_the_limit_frees_kept_arrays)
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

Test(memory, arrays_not_from_mem_huge_and_null_are_freed)
{
    mem_keep_limit(64 * MIB);
    mem_release(NULL);
    mem_release(malloc(100));
    cr_assert_eq(mem_kept_bytes(), 0);
    uint8_t *a = mem_huge(0);
    cr_assert_not_null(a);
    mem_release(a);
    cr_assert_eq(mem_kept_bytes(), 1);
}

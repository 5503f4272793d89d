/* The LZ4 chunk codec of HDF5 filter 32004: round trips, and malformed chunks refused
 * without reading or writing out of bounds (run under the sanitizers by make dev). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../db/h5lz4.h"

static void round_trip(const unsigned char *data, size_t n, unsigned block)
{
    for (int level = 0; level <= 9; level += 9) {
        unsigned char *chunk = NULL;
        size_t len = h5lz4_encode(data, n, block, level, &chunk);
        cr_assert_gt(len, 12);
        cr_assert_eq(h5lz4_decoded_size(chunk, len), n);
        unsigned char *back = malloc(n);
        cr_assert_eq(h5lz4_decode(chunk, len, back, n), n);
        cr_assert_eq(memcmp(back, data, n), 0, "level %d", level);
        /* A range: the block holding its first byte on to exactly its last byte, whatever block
         * that is in; the blocks before left alone. */
        size_t blk = block == 0 || block > n ? n : block;
        for (size_t want = 1; want < n; want = want * 3 + 7)
            for (size_t from = 0; from < want; from += want / 3 + 1) {
                memset(back, 0xEE, n);
                size_t lo = 99;
                cr_assert_eq(h5lz4_decode_range(chunk, len, back, n, from, want, &lo), want);
                cr_assert_eq(lo, from / blk * blk, "from %zu, block %zu", from, blk);
                cr_assert_eq(memcmp(back + lo, data + lo, want - lo), 0, "[%zu, %zu), level %d", from, want, level);
                for (size_t i = 0; i < lo; i++)
                    cr_assert_eq(back[i], 0xEE, "byte %zu before the range was written", i);
            }
        cr_assert_eq(h5lz4_decode_range(chunk, len, back, n, 0, n + 5, NULL), n, "more than the chunk: all of it");
        free(back);
        free(chunk);
    }
}

Test(h5lz4, chunks_round_trip_compressible_and_random_data_fast_and_hc)
{
    size_t n = 100000;
    unsigned char *data = malloc(n);
    for (size_t i = 0; i < n; i++)
        data[i] = (unsigned char)(i / 1000 % 3);
    round_trip(data, n, 0);
    round_trip(data, n, 4096);
    uint64_t x = 1;
    for (size_t i = 0; i < n; i++)
        data[i] = (unsigned char)((x = x * 6364136223846793005ull + 1) >> 56);
    round_trip(data, n, 0);    /* incompressible: stored raw */
    round_trip(data, n, 1000); /* several blocks, the last one short */
    round_trip(data, 1, 0);
    free(data);
}

Test(h5lz4, malformed_chunks_are_refused_without_overrun)
{
    size_t n = 20000;
    unsigned char *data = calloc(n, 1), *out = malloc(n);
    unsigned char *chunk = NULL;
    size_t len = h5lz4_encode(data, n, 4096, 0, &chunk);
    cr_assert_eq(h5lz4_decode(chunk, len, out, n - 1), 0, "too small an output buffer");
    for (size_t cut = 0; cut < len; cut += 1 + cut / 7) {
        unsigned char *part = malloc(cut ? cut : 1);
        memcpy(part, chunk, cut);
        cr_assert_eq(h5lz4_decode(part, cut, out, n), 0, "truncated to %zu bytes", cut);
        free(part);
    }
    uint64_t x = 7;
    for (int trial = 0; trial < 2000; trial++) {
        unsigned char *bad = malloc(len);
        memcpy(bad, chunk, len);
        for (int flips = 0; flips < 3; flips++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            bad[(x >> 33) % len] ^= (unsigned char)(1u << ((x >> 20) & 7));
        }
        size_t got = h5lz4_decode(bad, len, out, n);
        cr_assert(got == 0 || got <= n);
        got = h5lz4_decode_range(bad, len, out, n, (size_t)trial * 7 % n, (size_t)trial * 10 % n + 1, NULL);
        cr_assert(got == 0 || got <= n);
        free(bad);
    }
    free(chunk);
    free(data);
    free(out);
}

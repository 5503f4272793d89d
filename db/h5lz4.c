#include "h5lz4.h"

#include <hdf5.h>
#include <lz4.h>
#include <lz4hc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { DEFAULT_BLOCK = 1 << 30 };

static uint64_t get_be64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

static uint32_t get_be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be64(unsigned char *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (unsigned char)v;
}

static void put_be32(unsigned char *p, uint32_t v)
{
    for (int i = 3; i >= 0; i--, v >>= 8)
        p[i] = (unsigned char)v;
}

size_t h5lz4_decoded_size(const void *in, size_t in_len)
{
    return in_len < 12 ? 0 : (size_t)get_be64(in);
}

size_t h5lz4_decode_range(const void *in, size_t in_len, void *out, size_t out_cap, size_t from, size_t want,
                          size_t *lo)
{
    const unsigned char *p = in, *end = p + in_len;
    if (in_len < 12)
        return 0;
    uint64_t total = get_be64(p);
    uint64_t block = get_be32(p + 8);
    p += 12;
    if (total == 0 || total > out_cap || total > INT32_MAX || block == 0)
        return 0;
    if (block > total)
        block = total;
    if (from >= want || from >= total)
        from = 0;
    unsigned char *o = out;
    uint64_t done = 0, first = from / block * block;
    while (done < total && done < want) {
        uint64_t size = total - done < block ? total - done : block;
        /* The block holding the last byte wanted is decoded only up to it. */
        uint64_t part = want - done < size ? want - done : size;
        if (end - p < 4)
            return 0;
        uint64_t stored = get_be32(p);
        p += 4;
        if (stored > (uint64_t)(end - p))
            return 0;
        if (done < first) {   /* before the block holding `from`: skipped */
            part = size;
        } else if (stored == size) {
            memcpy(o + done, p, part);
        } else {
            int got = part < size ? LZ4_decompress_safe_partial((const char *)p, (char *)o + done, (int)stored,
                                                                (int)part, (int)size)
                                  : LZ4_decompress_safe((const char *)p, (char *)o + done, (int)stored, (int)size);
            if (got < 0 || (uint64_t)got != part)
                return 0;
        }
        p += stored;
        done += part;
    }
    if (lo)
        *lo = (size_t)first;
    return (size_t)done;
}

size_t h5lz4_decode(const void *in, size_t in_len, void *out, size_t out_cap)
{
    return h5lz4_decode_range(in, in_len, out, out_cap, 0, SIZE_MAX, NULL);
}

size_t h5lz4_encode(const void *src, size_t nbytes, unsigned block, int level, unsigned char **outp)
{
    const unsigned char *in = src;
    if (nbytes == 0 || nbytes > INT32_MAX)
        return 0;
    if (block == 0 || block > nbytes)
        block = (uint32_t)nbytes;
    size_t blocks = (nbytes + block - 1) / block;
    size_t cap = 12 + blocks * (4 + (size_t)LZ4_compressBound((int)block));
    unsigned char *out = malloc(cap), *o = out + 12;
    if (!out)
        return 0;
    put_be64(out, nbytes);
    put_be32(out + 8, block);
    for (size_t done = 0; done < nbytes;) {
        size_t want = nbytes - done < block ? nbytes - done : block;
        int n = level > 0 ? LZ4_compress_HC((const char *)in + done, (char *)o + 4, (int)want,
                                            LZ4_compressBound((int)want), level)
                          : LZ4_compress_default((const char *)in + done, (char *)o + 4, (int)want,
                                                 LZ4_compressBound((int)want));
        if (n <= 0 || (size_t)n >= want) { /* incompressible: store the block raw */
            memcpy(o + 4, in + done, want);
            n = (int)want;
        }
        put_be32(o, (uint32_t)n);
        o += 4 + n;
        done += want;
    }
    *outp = out;
    return (size_t)(o - out);
}

static size_t lz4_filter(unsigned int flags, size_t cd_nelmts, const unsigned int cd_values[], size_t nbytes,
                         size_t *buf_size, void **buf)
{
    unsigned char *out = NULL;
    size_t n;
    if (flags & H5Z_FLAG_REVERSE) {
        size_t total = h5lz4_decoded_size(*buf, nbytes);
        if (total == 0 || total > INT32_MAX || !(out = malloc(total)))
            return 0;
        n = h5lz4_decode(*buf, nbytes, out, total);
        if (n == 0) {
            free(out);
            return 0;
        }
        *buf_size = total;
    } else {
        n = h5lz4_encode(*buf, nbytes, cd_nelmts > 0 ? cd_values[0] : DEFAULT_BLOCK, 0, &out);
        if (n == 0)
            return 0;
        *buf_size = n;
    }
    free(*buf);
    *buf = out;
    return n;
}

static const H5Z_class2_t lz4_class = {
    H5Z_CLASS_T_VERS, (H5Z_filter_t)H5LZ4_FILTER_ID, 1, 1, "lz4 (damas)", NULL, NULL, lz4_filter,
};

static int registered = -1;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void do_register(void)
{
    registered = H5Zregister(&lz4_class) < 0 ? -1 : 0;
}

int h5lz4_register(void)
{
    pthread_once(&once, do_register);
    return registered;
}

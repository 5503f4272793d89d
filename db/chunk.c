#include "chunk.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "h5lz4.h"
#include "h5util.h"

/* The checksum of a stored chunk: a 64-bit multiply-xorshift hash over little-endian words
 * (docs/FORMAT.md). */
static uint64_t chunk_hash(const uint8_t *p, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w = 0;
        for (int k = 0; k < 8; k++)
            w |= (uint64_t)p[i + k] << (8 * k);
        h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
    }
    uint64_t w = 0;
    for (int k = 0; i + (size_t)k < n; k++)
        w |= (uint64_t)p[i + k] << (8 * k);
    h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 29);
}

uint64_t chunk_elements(uint64_t elements, int size)
{
    uint64_t full = CHUNK_BYTES / (uint64_t)size;
    return elements < full ? (elements ? elements : 1) : full;
}

static hid_t u_type(int size)
{
    return size == 1 ? H5T_STD_U8LE : H5T_STD_U16LE;
}

/* The hash of a checksum array, as little-endian bytes. */
static uint64_t summary_of(const uint64_t *check, uint64_t n)
{
    uint64_t h = 0;
    for (uint64_t k = 0; k < n; k++) {
        uint8_t b[8];
        for (int i = 0; i < 8; i++)
            b[i] = (uint8_t)(check[k] >> (8 * i));
        h = chunk_hash(b, 8) ^ (h * 0x9E3779B97F4A7C15ull);
    }
    return h;
}

uint64_t stored_values_check(int constant_wdl, int constant_dtw, uint64_t wdl_summary, uint64_t dtw_summary)
{
    uint8_t b[32];
    uint64_t w[4] = {(uint64_t)(int64_t)constant_wdl, (uint64_t)(int64_t)constant_dtw, wdl_summary, dtw_summary};
    for (int k = 0; k < 32; k++)
        b[k] = (uint8_t)(w[k / 8] >> (8 * (k % 8)));
    return chunk_hash(b, sizeof b);
}

/* Chunks k0..k1-1 of a dataset of `elements` values of `size` bytes (per_chunk a chunk) from
 * data, encoded in parallel: enc[k - k0] (malloc'ed) of len[k - k0] bytes, its checksum in
 * check[k - k0]. A len of 0 marks a chunk that could not be encoded (out of memory). */
static void encode_chunks(int size, const void *data, uint64_t elements, uint64_t per_chunk, uint64_t k0,
                          uint64_t k1, unsigned block, int level, unsigned char **enc, size_t *len, uint64_t *check)
{
    uint64_t chunk_bytes = per_chunk * (uint64_t)size;
    /* Encoding (LZ4HC) is the slow part. */
#pragma omp parallel for schedule(dynamic, 1) if (k1 - k0 > 1)
    for (uint64_t k = k0; k < k1; k++) {
        /* The chunk's bytes, little-endian, zero past the end of the dataset. */
        uint8_t *raw = calloc(chunk_bytes, 1);
        uint64_t first = k * per_chunk, n = elements - first < per_chunk ? elements - first : per_chunk;
        if (raw && size == 1) {
            memcpy(raw, (const uint8_t *)data + first, n);
        } else if (raw) {
            const uint16_t *v = (const uint16_t *)data + first;
            for (uint64_t i = 0; i < n; i++) {
                raw[2 * i] = (uint8_t)v[i];
                raw[2 * i + 1] = (uint8_t)(v[i] >> 8);
            }
        }
        enc[k - k0] = NULL;
        len[k - k0] = raw ? h5lz4_encode(raw, chunk_bytes, block, level, &enc[k - k0]) : 0;
        check[k - k0] = len[k - k0] ? chunk_hash(enc[k - k0], len[k - k0]) : 0;
        free(raw);
    }
}

/* Dataset `name` of g for `elements` values of `size` bytes in chunks of per_chunk, created
 * empty; or -1. */
static hid_t create_chunked(hid_t g, const char *name, int size, uint64_t elements, uint64_t per_chunk)
{
    hsize_t dims[1] = {elements}, cdims[1] = {per_chunk};
    hid_t space = H5Screate_simple(1, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, cdims);
    H5Pset_obj_track_times(dcpl, 0); /* no timestamps: reruns give identical bytes */
    H5Pset_filter(dcpl, H5LZ4_FILTER_ID, H5Z_FLAG_MANDATORY, 0, NULL);
    hid_t d = H5Dcreate2(g, name, u_type(size), space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    return d;
}

/* Writes encoded chunks k0..k1-1 (as encode_chunks left them) into d, in order. */
static int write_chunks(hid_t d, uint64_t per_chunk, uint64_t k0, uint64_t k1, unsigned char *const *enc,
                        const size_t *len)
{
    for (uint64_t k = k0; k < k1; k++) {
        hsize_t offset[1] = {k * per_chunk};
        if (len[k - k0] == 0 || H5Dwrite_chunk(d, H5P_DEFAULT, 0, offset, len[k - k0], enc[k - k0]) < 0)
            return -1;
    }
    return 0;
}

/* Dataset `<name>_check` of g: the nchunks checksums. */
static int write_checks(hid_t g, const char *name, const uint64_t *check, uint64_t nchunks)
{
    char cname[128];
    snprintf(cname, sizeof cname, "%s_check", name);
    hsize_t cd[1] = {nchunks};
    hid_t cs = H5Screate_simple(1, cd, NULL);
    hid_t ccpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_obj_track_times(ccpl, 0);
    hid_t c = H5Dcreate2(g, cname, H5T_STD_U64LE, cs, H5P_DEFAULT, ccpl, H5P_DEFAULT);
    int rc = c < 0 || H5Dwrite(c, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, check) < 0 ? -1 : 0;
    if (c >= 0)
        H5Dclose(c);
    H5Pclose(ccpl);
    H5Sclose(cs);
    return rc;
}

static void free_chunks(unsigned char **enc, uint64_t n)
{
    for (uint64_t k = 0; enc && k < n; k++)
        free(enc[k]);
    free(enc);
}

int chunk_write(hid_t g, const char *name, int size, const void *data, uint64_t elements, unsigned block, int level,
                uint64_t *summary)
{
    return chunk_write_shared(g, name, size, data, elements, 0, 1, block, level, NULL, summary);
}

int chunk_write_shared(hid_t g, const char *name, int size, const void *data, uint64_t elements,
                       uint64_t positions, unsigned per_element, unsigned block, int level, const DbShares *sh,
                       uint64_t *summary)
{
    uint64_t per_chunk = chunk_elements(elements, size), nchunks = (elements + per_chunk - 1) / per_chunk;
    int rank = sh ? sh->rank : 0, ranks = sh ? sh->ranks : 1;
    /* Process r encodes the chunks that start in its share of the positions. */
    uint64_t *from = malloc(((size_t)ranks + 1) * sizeof *from);
    if (!from)
        return -1;
    for (int r = 0; r < ranks; r++) {
        uint64_t first = 0, end = elements;
        if (sh) {
            db_share(positions, r, ranks, &first, &end);
            first /= per_element;
        }
        from[r] = (first + per_chunk - 1) / per_chunk;
        from[r] = from[r] < nchunks ? from[r] : nchunks;
    }
    from[ranks] = nchunks;
    uint64_t k0 = from[rank], k1 = from[rank + 1], most = 0;
    for (int r = 0; r < ranks; r++)
        most = from[r + 1] - from[r] > most ? from[r + 1] - from[r] : most;
    /* Rank 0 holds every checksum, and each other rank's chunks in turn. */
    uint64_t *check = malloc((rank == 0 ? nchunks : k1 - k0 + 1) * sizeof *check);
    unsigned char **enc = calloc(most + 1, sizeof *enc);
    size_t *len = calloc(most + 1, sizeof *len);
    bool ok = check && enc && len;
    if (ok)
        encode_chunks(size, data, elements, per_chunk, k0, k1, block, level, enc, len, check);
    hid_t d = rank == 0 && ok ? create_chunked(g, name, size, elements, per_chunk) : -1;
    if (rank == 0) {
        ok = ok && d >= 0 && write_chunks(d, per_chunk, k0, k1, enc, len) == 0;
        for (uint64_t k = 0; enc && k < k1 - k0; k++) {
            free(enc[k]);
            enc[k] = NULL;
        }
    }
    /* Then each other rank's chunks go to rank 0 in order (so that the file is laid out as one
     * process lays it out): their lengths and checksums, then, if rank 0 could make room for
     * them (it tells every rank), their bytes. A length of 0 marks a chunk its rank could not
     * encode. The transfers take place whatever failed before, so that no process waits for
     * one that never comes. */
    for (int r = 1; r < ranks; r++) {
        uint64_t n = from[r + 1] - from[r];
        if (n == 0)
            continue;
        if (rank == r && !ok)
            memset(len, 0, n * sizeof *len);
        bool sent = sh->send(sh->ctx, len, n * sizeof *len, r, 0);
        sent &= sh->send(sh->ctx, rank == 0 ? check + from[r] : check, n * sizeof *check, r, 0);
        unsigned char *bytes = NULL;
        size_t total = 0;
        for (uint64_t k = 0; rank == 0 && k < n; k++)
            total += len[k];
        int room = rank == 0 && (bytes = malloc(total ? total : 1)) != NULL;
        sent &= sh->broadcast(sh->ctx, &room, sizeof room, 0);
        for (uint64_t k = 0, at = 0; room && k < n && (rank == 0 || rank == r); at += len[k++])
            if (len[k])
                sent &= sh->send(sh->ctx, rank == 0 ? bytes + at : enc[k], len[k], r, 0);
        ok &= sent && room;
        if (rank == 0 && ok) {
            for (uint64_t k = 0, at = 0; k < n; at += len[k++])
                enc[k] = bytes + at;
            ok = write_chunks(d, per_chunk, from[r], from[r + 1], enc, len) == 0;
            memset(enc, 0, n * sizeof *enc);
        }
        free(bytes);
    }
    free_chunks(enc, most + 1);
    free(len);
    free(from);
    if (d >= 0)
        H5Dclose(d);
    if (rank == 0 && ok) {
        *summary = summary_of(check, nchunks);
        ok = write_checks(g, name, check, nchunks) == 0;
    }
    free(check);
    /* Every process learns rank 0's outcome. */
    int rc = ok ? 0 : -1;
    if (sh && !sh->broadcast(sh->ctx, &rc, sizeof rc, 0))
        rc = -1;
    return rc;
}

/* The single dimension of dataset d, or -1 if it is not 1-D. */
static int64_t extent(hid_t d)
{
    hid_t space = H5Dget_space(d);
    hsize_t dims[1] = {0};
    int ok = space >= 0 && H5Sget_simple_extent_ndims(space) == 1 && H5Sget_simple_extent_dims(space, dims, NULL) == 1;
    if (space >= 0)
        H5Sclose(space);
    return ok ? (int64_t)dims[0] : -1;
}

int chunk_open(hid_t g, const char *name, int size, ChunkSet *c)
{
    memset(c, 0, sizeof *c);
    c->d = -1;
    char cname[128];
    snprintf(cname, sizeof cname, "%s_check", name);
    if (H5Lexists(g, name, H5P_DEFAULT) <= 0 || H5Lexists(g, cname, H5P_DEFAULT) <= 0)
        return -1;
    c->d = H5Dopen2(g, name, H5P_DEFAULT);
    hid_t cd = H5Dopen2(g, cname, H5P_DEFAULT);
    int64_t n = c->d < 0 ? -1 : extent(c->d), nc = cd < 0 ? -1 : extent(cd);
    hid_t type = c->d < 0 ? -1 : H5Dget_type(c->d);
    bool ok = n >= 0 && nc >= 0 && type >= 0 && H5Tget_class(type) == H5T_INTEGER && H5Tget_sign(type) == H5T_SGN_NONE;
    int got = type >= 0 ? (int)H5Tget_size(type) : 0;
    ok = ok && (got == 1 || got == 2) && (size == 0 || got == size);
    if (type >= 0)
        H5Tclose(type);
    if (ok) {
        c->size = got;
        c->elements = (uint64_t)n;
        uint64_t per_chunk = c->chunk_elements = chunk_elements(c->elements, got);
        c->nchunks = (c->elements + per_chunk - 1) / per_chunk;
        ok = (uint64_t)nc == c->nchunks;
    }
    if (ok) {
        c->check = malloc((c->nchunks ? c->nchunks : 1) * sizeof *c->check);
        ok = c->check && H5Dread(cd, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, c->check) >= 0;
        c->bytes = H5Dget_storage_size(c->d) + H5Dget_storage_size(cd);
        c->summary = ok ? summary_of(c->check, c->nchunks) : 0;
    }
    if (cd >= 0)
        H5Dclose(cd);
    if (!ok) {
        chunk_close(c);
        return -1;
    }
    return 0;
}

void chunk_close(ChunkSet *c)
{
    if (c->d >= 0)
        H5Dclose(c->d);
    free(c->check);
    free(c->addr);
    free(c->stored);
    c->check = NULL;
    c->addr = NULL;
    c->stored = NULL;
    c->d = -1;
}

pthread_mutex_t chunk_hdf5_lock = PTHREAD_MUTEX_INITIALIZER;

/* Reads chunk k of c through HDF5, checks it and decodes it into out (chunk_elements * size
 * bytes, at most CHUNK_BYTES: the values of elements k * chunk_elements onward,
 * little-endian). Returns 0, or -1 if the chunk is missing, fails its checksum or does not
 * decode. */
static int chunk_read(const ChunkSet *c, uint64_t k, uint8_t *out)
{
    if (k >= c->nchunks)
        return -1;
    hsize_t offset[1] = {k * c->chunk_elements};
    size_t want = c->chunk_elements * (uint64_t)c->size;
    hsize_t stored = 0;
    uint8_t *raw = NULL;
    uint32_t filters = 0;
    bool read = false;
    if (H5Dget_chunk_storage_size(c->d, offset, &stored) >= 0 && stored >= 12 && stored <= 2 * CHUNK_BYTES &&
        (raw = malloc(stored)))
        read = H5Dread_chunk(c->d, H5P_DEFAULT, offset, &filters, raw) >= 0 && filters == 0;
    int rc = read && chunk_hash(raw, stored) == c->check[k] && h5lz4_decode(raw, stored, out, want) == want ? 0 : -1;
    free(raw);
    return rc;
}

int chunk_locate(ChunkSet *c, uint64_t file_size)
{
    c->addr = malloc((c->nchunks ? c->nchunks : 1) * sizeof *c->addr);
    c->stored = malloc((c->nchunks ? c->nchunks : 1) * sizeof *c->stored);
    if (!c->addr || !c->stored)
        return -1;
    for (uint64_t k = 0; k < c->nchunks; k++) {
        hsize_t offset[1] = {k * c->chunk_elements}, size = 0;
        haddr_t addr = HADDR_UNDEF;
        unsigned filters = 0;
        if (H5Dget_chunk_info_by_coord(c->d, offset, &filters, &addr, &size) < 0 || filters != 0 ||
            addr == HADDR_UNDEF || size < 12 || size > 2 * CHUNK_BYTES || addr > file_size || size > file_size - addr)
            return -1;
        c->addr[k] = addr;
        c->stored[k] = (uint32_t)size;
    }
    return 0;
}

void chunk_detach(ChunkSet *c)
{
    if (c->d >= 0)
        H5Dclose(c->d);
    c->d = -1;
}

size_t chunk_read_located(const ChunkSet *c, int fd, uint64_t k, uint8_t *out, size_t from, size_t want, size_t *lo)
{
    if (k >= c->nchunks || !c->addr)
        return 0;
    size_t n = c->stored[k], got = 0;
    uint8_t *raw = malloc(n);
    while (raw && got < n) {
        ssize_t r = pread(fd, raw + got, n - got, (off_t)(c->addr[k] + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    size_t decoded = 0;
    size_t bytes = c->chunk_elements * (uint64_t)c->size;
    if (raw && got == n && chunk_hash(raw, n) == c->check[k] && h5lz4_decoded_size(raw, n) == bytes)
        decoded = h5lz4_decode_range(raw, n, out, bytes, from, want, lo);
    free(raw);
    return decoded;
}

uint64_t chunk_read_all(const ChunkSet *c, void *out)
{
    uint8_t *buf = malloc(CHUNK_BYTES);
    if (!buf)
        return 1;
    uint64_t per_chunk = c->chunk_elements, bad = 0;
    for (uint64_t k = 0; k < c->nchunks && !bad; k++) {
        if (chunk_read(c, k, buf) < 0) {
            bad = k + 1;
            break;
        }
        uint64_t first = k * per_chunk, n = c->elements - first < per_chunk ? c->elements - first : per_chunk;
        if (c->size == 1) {
            memcpy((uint8_t *)out + first, buf, n);
        } else {
            uint16_t *v = (uint16_t *)out + first;
            for (uint64_t i = 0; i < n; i++)
                v[i] = (uint16_t)(buf[2 * i] | buf[2 * i + 1] << 8);
        }
    }
    free(buf);
    return bad;
}

/* A u64 attribute of g, or -1 if absent, malformed or above 65535. */
static int64_t attr_value(hid_t g, const char *name)
{
    uint64_t v = 0;
    return h5_attr_u64(g, name, &v) != H5A_OK || v > 65535 ? -1 : (int64_t)v;
}

int stored_open(hid_t g, uint64_t positions, StoredSlice *s)
{
    memset(s, 0, sizeof *s);
    s->wdl.d = s->dtw.d = -1;
    s->constant_wdl = (int)attr_value(g, "wdl_constant");
    s->constant_dtw = (int)attr_value(g, "dtw_constant");
    bool ok = s->constant_wdl <= 2;
    if (ok && s->constant_wdl < 0)
        ok = chunk_open(g, "wdl", 1, &s->wdl) == 0 && s->wdl.elements == (positions + 3) / 4;
    if (ok && s->constant_dtw < 0)
        ok = chunk_open(g, "dtw", 0, &s->dtw) == 0 && s->dtw.elements == positions;
    /* The constants and every chunk checksum are covered by one more checksum, so a damaged
     * attribute or checksum array is caught here, before any answer. */
    uint64_t want = 0;
    ok = ok && h5_attr_u64(g, "values_check", &want) == H5A_OK && want == stored_values_check(s->constant_wdl, s->constant_dtw, s->wdl.summary, s->dtw.summary);
    if (!ok)
        stored_close(s);
    return ok ? 0 : -1;
}

void stored_close(StoredSlice *s)
{
    if (s->wdl.d >= 0 || s->wdl.check)
        chunk_close(&s->wdl);
    if (s->dtw.d >= 0 || s->dtw.check)
        chunk_close(&s->dtw);
}

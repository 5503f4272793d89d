#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/error.h"
#include "../core/memory.h"
#include "../core/position.h"
#include "store.h"

/* ---- the chunk cache ----
 *
 * Decoded chunks live in buffers carved from huge-page slabs, and every opened slice has a slot
 * per chunk pointing at the buffer that holds it (NULL when it is not cached). A hit is: load
 * the slot, read the bytes, check the buffer's sequence number and key; no lock, no list
 * update, and rarely a TLB miss. Eviction is CLOCK (second chance), the usual approximation of
 * LRU: a hit sets the buffer's reference bit, and a miss sweeps a hand past referenced buffers
 * (clearing their bits) to the first unreferenced one. Misses take the cache's lock only to
 * claim a buffer and to publish it, not while reading and decoding.
 *
 * A buffer being refilled has an odd sequence number. A reader that sees an odd number, a
 * number that changed while it read, or the key of another chunk (the buffer was evicted and
 * refilled between its loading the slot and reading) treats the lookup as a miss, so it never
 * answers from a buffer that no longer holds its chunk (a seqlock). */

enum { HEAD_BYTES = 64, BUFFER_BYTES = HEAD_BYTES + CHUNK_BYTES, SLAB_BUFFERS = 511, HIT_STRIPES = 16 };

typedef struct {
    uint32_t seq;                  /* odd while being refilled */
    uint32_t ref;                  /* CLOCK's reference bit */
    uint64_t key;                  /* the chunk held, 0 for none */
    uint8_t **slot;                /* the slice's slot pointing here, NULL for none */
    size_t lo, hi;                 /* decoded bytes held: [lo, hi) of the chunk */
} Head;
_Static_assert(sizeof(Head) <= HEAD_BYTES, "a buffer's head fits before its data");

typedef struct {
    pthread_mutex_t lock;          /* claiming and publishing buffers */
    size_t cap, count, hand;       /* buffers allowed, made, CLOCK's hand */
    Head **buffers;                /* count of them */
    uint8_t **slabs;
    size_t nslabs;
    uint64_t misses;
    size_t bytes;
    struct {
        uint64_t n;
        char pad[56];
    } hits[HIT_STRIPES + 1];       /* a line a thread, and one shared: see count_hit */
} Cache;

/* The hit stripe of this thread: threads are numbered as they first hit, the first
 * HIT_STRIPES of them own a stripe each, and the others share the last. */
static unsigned hit_stripe_next;
static _Thread_local unsigned hit_stripe = UINT_MAX;

/* Counts a hit. A thread that owns its stripe adds with a plain load and store: a locked add
 * costs tens of cycles and waits for the loads before it, which would undo the overlap of a
 * probe's misses. The threads sharing the last stripe add atomically. */
static void count_hit(Cache *c)
{
    unsigned t = hit_stripe;
    if (t == UINT_MAX)
        t = hit_stripe = __atomic_fetch_add(&hit_stripe_next, 1, __ATOMIC_RELAXED);
    if (t < HIT_STRIPES) {
        uint64_t *n = &c->hits[t].n;
        __atomic_store_n(n, __atomic_load_n(n, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
    } else {
        __atomic_fetch_add(&c->hits[HIT_STRIPES].n, 1, __ATOMIC_RELAXED);
    }
}

static uint8_t *data_of(Head *h)
{
    return (uint8_t *)h + HEAD_BYTES;
}

static Head *head_of(uint8_t *data)
{
    return (Head *)(data - HEAD_BYTES);
}

static int cache_init(Cache *c, size_t bytes)
{
    memset(c, 0, sizeof *c);
    c->cap = bytes / CHUNK_BYTES ? bytes / CHUNK_BYTES : 1;
    size_t slabs = (c->cap + SLAB_BUFFERS - 1) / SLAB_BUFFERS;
    c->buffers = malloc(c->cap * sizeof *c->buffers);
    c->slabs = calloc(slabs, sizeof *c->slabs);
    pthread_mutex_init(&c->lock, NULL);
    return c->buffers && c->slabs ? 0 : -1;
}

static void cache_free(Cache *c)
{
    for (size_t i = 0; i < c->nslabs; i++)
        mem_release(c->slabs[i]);
    free(c->slabs);
    free(c->buffers);
    pthread_mutex_destroy(&c->lock);
}

/* Copies n bytes at `offset` of the chunk `key` through its slot to out and returns true, or
 * false if it is not cached. Lock-free. */
static bool cache_get(Cache *c, uint8_t **slot, uint64_t key, size_t offset, int n, uint8_t *out)
{
    uint8_t *data = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!data)
        return false;
    Head *h = head_of(data);
    uint32_t seq = __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE);
    uint64_t held = __atomic_load_n(&h->key, __ATOMIC_RELAXED);
    size_t lo = __atomic_load_n(&h->lo, __ATOMIC_RELAXED), hi = __atomic_load_n(&h->hi, __ATOMIC_RELAXED);
    if (offset < lo || offset + (size_t)n > hi)   /* (also when a refill has emptied the buffer) */
        return false;
    for (int i = 0; i < n; i++)
        out[i] = __atomic_load_n(&data[offset + (size_t)i], __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if ((seq & 1) || held != key || __atomic_load_n(&h->seq, __ATOMIC_RELAXED) != seq)
        return false;
    if (!__atomic_load_n(&h->ref, __ATOMIC_RELAXED))
        __atomic_store_n(&h->ref, 1, __ATOMIC_RELAXED);
    count_hit(c);
    return true;
}

/* Empties buffer h, dropping its chunk from the cache (under the cache's lock). */
static void retire(Cache *c, Head *h)
{
    __atomic_store_n(&h->seq, h->seq + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    if (h->slot)
        __atomic_store_n(h->slot, NULL, __ATOMIC_RELEASE);
    c->bytes -= h->hi - h->lo;
    __atomic_store_n(&h->key, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&h->lo, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&h->hi, 0, __ATOMIC_RELAXED);
    h->slot = NULL;
    __atomic_store_n(&h->ref, 0, __ATOMIC_RELAXED);
}

/* A buffer to decode a missing chunk into, marked as being refilled: a new one while the cache
 * has room, else CLOCK's victim (its chunk dropped from the cache). NULL if every buffer is
 * being refilled by other threads (the chunk is then decoded without caching) or memory ran
 * out. */
static Head *cache_claim(Cache *c)
{
    Head *h = NULL;
    pthread_mutex_lock(&c->lock);
    c->misses++;
    if (c->count < c->cap) {
        size_t i = c->count % SLAB_BUFFERS;
        if (i == 0) {
            size_t left = c->cap - c->count, n = left < SLAB_BUFFERS ? left : SLAB_BUFFERS;
            uint8_t *slab = mem_huge(n * BUFFER_BYTES);
            if (slab)
                c->slabs[c->nslabs++] = slab;
        }
        if (c->nslabs * SLAB_BUFFERS > c->count) {
            h = (Head *)(c->slabs[c->nslabs - 1] + i * BUFFER_BYTES);
            *h = (Head){1, 0, 0, NULL, 0, 0};
            c->buffers[c->count++] = h;
        }
    } else {
        for (size_t step = 0; step < 2 * c->count && !h; step++) {
            Head *x = c->buffers[c->hand];
            c->hand = (c->hand + 1) % c->count;
            if (x->seq & 1)
                continue;
            if (__atomic_load_n(&x->ref, __ATOMIC_RELAXED)) {   /* (readers set it without the lock) */
                __atomic_store_n(&x->ref, 0, __ATOMIC_RELAXED);
                continue;
            }
            h = x;
        }
        if (h)
            retire(c, h);   /* left odd: being refilled */
    }
    pthread_mutex_unlock(&c->lock);
    return h;
}

/* Ends the refill of h: it now holds the decoded bytes [lo, hi) of chunk `key`, published in
 * *slot in place of a smaller range, unless `ok` is false or another thread cached as much
 * meanwhile (then h is left empty). */
static void cache_publish(Cache *c, Head *h, uint8_t **slot, uint64_t key, size_t lo, size_t hi, bool ok)
{
    pthread_mutex_lock(&c->lock);
    uint8_t *old = __atomic_load_n(slot, __ATOMIC_RELAXED);
    ok = ok && (!old || head_of(old)->hi - head_of(old)->lo < hi - lo);
    if (ok && old) {
        Head *o = head_of(old);
        retire(c, o);
        __atomic_store_n(&o->seq, o->seq + 1, __ATOMIC_RELEASE);
    }
    if (ok) {
        __atomic_store_n(&h->key, key, __ATOMIC_RELAXED);
        __atomic_store_n(&h->lo, lo, __ATOMIC_RELAXED);
        __atomic_store_n(&h->hi, hi, __ATOMIC_RELAXED);
        h->slot = slot;
        __atomic_store_n(&h->ref, 1, __ATOMIC_RELAXED);
        c->bytes += hi - lo;
    }
    __atomic_store_n(&h->seq, h->seq + 1, __ATOMIC_RELEASE);
    if (ok)
        __atomic_store_n(slot, data_of(h), __ATOMIC_RELEASE);
    pthread_mutex_unlock(&c->lock);
}

/* ---- slices ---- */

typedef struct {
    Slice slice;
    int id;                 /* in the cache keys */
    int state;              /* 0 not opened yet, 1 open, -1 failed (error in `error`, code in `code`) */
    int code;
    StoredSlice st;
    uint8_t **cached[2];    /* per chunk of the values and of the distances, when open: its
                             * cache buffer's data, or NULL */
    hid_t file;             /* while opening */
    int fd;                 /* the unit file, for pread */
    char path[STORE_PATH_MAX];
    char error[STORE_PATH_MAX + 256];
} ProbeSlice;

struct DbProbe {
    Variant v;
    char dir[STORE_PATH_MAX];
    ProbeSlice *slices[DB_MAX_PIECES + 1][DB_MAX_PIECES + 1][DB_MAX_PIECES + 1][DB_MAX_PIECES + 1];
    int nslices, pieces;
    pthread_mutex_t open_lock;
    Cache cache;
};

DbProbe *probe_open(const char *dir, const Variant *variant, size_t cache_bytes, char *err, size_t errlen)
{
    Variant v;
    if (store_manifest_variant(dir, &v, err, errlen) != DAMAS_OK)
        return NULL;
    if (variant && store_manifest(dir, variant, false, err, errlen) != DAMAS_OK)
        return NULL;
    DbProbe *p = calloc(1, sizeof *p);
    if (!p || strlen(dir) >= sizeof p->dir) {
        snprintf(err, errlen, p ? "directory name too long" : "out of memory");
        free(p);
        return NULL;
    }
    if (cache_init(&p->cache, cache_bytes) != 0) {
        cache_free(&p->cache);
        free(p);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    p->v = v;
    strcpy(p->dir, dir);
    pthread_mutex_init(&p->open_lock, NULL);
    Material all[DB_MAX_MATERIALS];
    int n = material_all(DB_MAX_PIECES, v.rules.board_size, all);
    int missing_from = DB_MAX_PIECES + 1;
    for (int i = 0; i < n; i++) {
        Material m = all[i];
        if (!store_unit_exists(dir, m)) {
            int pc = material_pieces(m);
            missing_from = pc < missing_from ? pc : missing_from;
            continue;
        }
        ProbeSlice *s = calloc(1, sizeof *s);
        if (!s) {
            probe_close(p);
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        slice_init(&s->slice, m, v.rules.board_size);
        s->id = p->nslices++;
        s->file = -1;
        s->fd = -1;
        p->slices[m.um][m.uk][m.tm][m.tk] = s;
    }
    p->pieces = missing_from - 1;
    if (p->nslices == 0) {
        snprintf(err, errlen, "%s holds no unit files yet (build them with damas gen)", dir);
        probe_close(p);
        return NULL;
    }
    return p;
}

void probe_close(DbProbe *p)
{
    if (!p)
        return;
    ProbeSlice **slots = &p->slices[0][0][0][0];
    size_t n = sizeof p->slices / sizeof *slots;
    pthread_mutex_lock(&chunk_hdf5_lock);
    for (size_t k = 0; k < n; k++) {
        if (!slots[k])
            continue;
        if (slots[k]->state == 1) {
            stored_close(&slots[k]->st);
            close(slots[k]->fd);
        }
        free(slots[k]->cached[0]);
        free(slots[k]->cached[1]);
        free(slots[k]);
    }
    pthread_mutex_unlock(&chunk_hdf5_lock);
    cache_free(&p->cache);
    pthread_mutex_destroy(&p->open_lock);
    free(p);
}

const Variant *probe_variant(const DbProbe *p)
{
    return &p->v;
}

int probe_pieces(const DbProbe *p)
{
    return p->pieces;
}

void probe_stats(const DbProbe *p, ProbeStats *st)
{
    memset(st, 0, sizeof *st);
    for (int i = 0; i <= HIT_STRIPES; i++)
        st->hits += __atomic_load_n(&p->cache.hits[i].n, __ATOMIC_RELAXED);
    DbProbe *q = (DbProbe *)p;   /* the lock, not the handle, changes */
    pthread_mutex_lock(&q->cache.lock);
    st->misses = p->cache.misses;
    st->cached_bytes = p->cache.bytes;
    pthread_mutex_unlock(&q->cache.lock);
}

/* Opens slice s (of material m): its unit file through HDF5 for the attributes, checksums and
 * where the chunks lie (then closed in HDF5), and as a descriptor for pread; its slot arrays.
 * DAMAS_OK, or an error in s->error. */
static int slice_open(DbProbe *p, ProbeSlice *s, Material m)
{
    pthread_mutex_lock(&chunk_hdf5_lock);
    int r = store_open_unit(p->dir, m, &s->file, s->path, s->error, sizeof s->error);
    if (r == DAMAS_OK && (r = store_open_slice(s->file, s->path, &p->v, &s->slice, &s->st, s->error,
                                                sizeof s->error)) != DAMAS_OK)
        H5Fclose(s->file);
    if (r != DAMAS_OK) {
        pthread_mutex_unlock(&chunk_hdf5_lock);
        return r;
    }
    struct stat st;
    s->fd = open(s->path, O_RDONLY | O_CLOEXEC);
    if (s->fd < 0 || fstat(s->fd, &st) != 0) {
        snprintf(s->error, sizeof s->error, "%s: %s", s->path, strerror(errno));
        r = errno == ENOENT ? DAMAS_ERR_UNKNOWN : DAMAS_ERR_IO;
    } else if ((s->st.wdl.d >= 0 && chunk_locate(&s->st.wdl, (uint64_t)st.st_size) != 0) ||
               (s->st.dtw.d >= 0 && chunk_locate(&s->st.dtw, (uint64_t)st.st_size) != 0)) {
        char name[DB_NAME_MAX];
        material_name(m, name);
        snprintf(s->error, sizeof s->error,
                 "%s: slice %s: a chunk is missing or lies beyond the end of the file (damaged or truncated file)",
                 s->path, name);
        r = DAMAS_ERR_CORRUPT;
    } else {
        s->cached[0] = calloc(s->st.wdl.nchunks + 1, sizeof *s->cached[0]);
        s->cached[1] = calloc(s->st.dtw.nchunks + 1, sizeof *s->cached[1]);
        if (!s->cached[0] || !s->cached[1]) {
            snprintf(s->error, sizeof s->error, "out of memory");
            r = DAMAS_ERR_NOMEM;
        }
    }
    if (r != DAMAS_OK) {
        if (s->fd >= 0)
            close(s->fd);
        s->fd = -1;
        stored_close(&s->st);
    } else {
        /* Probes read with pread from here on: HDF5 need not keep the file (its metadata
         * cache, a file descriptor) open. */
        chunk_detach(&s->st.wdl);
        chunk_detach(&s->st.dtw);
    }
    H5Fclose(s->file);
    s->file = -1;
    pthread_mutex_unlock(&chunk_hdf5_lock);
    return r;
}

/* The slice of m, opened on first use; NULL with the error if absent or unreadable. */
static ProbeSlice *slice_of(DbProbe *p, Material m, int *rc, char *err, size_t errlen)
{
    ProbeSlice *s = material_pieces(m) <= DB_MAX_PIECES ? p->slices[m.um][m.uk][m.tm][m.tk] : NULL;
    if (!s) {
        char name[DB_NAME_MAX];
        material_name(m, name);
        *rc = DAMAS_ERR_RANGE;
        snprintf(err, errlen, "slice %s (%d pieces) is not in the database %s (it covers up to %d pieces)", name,
                 material_pieces(m), p->dir, p->pieces);
        return NULL;
    }
    int state = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
    if (state == 0) {
        pthread_mutex_lock(&p->open_lock);
        int r = DAMAS_OK;
        if (s->state == 0) {
            r = slice_open(p, s, m);
            /* Running out of memory may pass: only other failures are kept for good. */
            if (r != DAMAS_ERR_NOMEM) {
                s->code = r;
                __atomic_store_n(&s->state, r == DAMAS_OK ? 1 : -1, __ATOMIC_RELEASE);
            } else {   /* (copied under the lock: another thread may try again at once) */
                *rc = r;
                snprintf(err, errlen, "%s", s->error);
            }
        }
        pthread_mutex_unlock(&p->open_lock);
        if (r == DAMAS_ERR_NOMEM)
            return NULL;
        state = s->state;
    }
    if (state < 0) {
        *rc = s->code;
        snprintf(err, errlen, "%s", s->error);
        return NULL;
    }
    return s;
}

/* n bytes (1 or 2) of the decoded chunk holding element i of c (`kind` 0 wdl, 1 dtw) into out,
 * through the cache. */
static int read_at(DbProbe *p, ProbeSlice *s, const ChunkSet *c, int kind, uint64_t element, int n, uint8_t *out,
                   char *err, size_t errlen)
{
    uint64_t k = element / c->chunk_elements;
    size_t offset = (size_t)(element % c->chunk_elements) * (size_t)n;
    uint64_t key = (uint64_t)(s->id + 1) << 41 | (uint64_t)kind << 40 | k;   /* never 0 */
    uint8_t **slot = &s->cached[kind][k];
    if (cache_get(&p->cache, slot, key, offset, n, out))
        return DAMAS_OK;
    /* A chunk's first miss decodes only the bytes wanted, from the start of their LZ4 block (a
     * distances chunk has several); a later miss elsewhere in it (its slot then holds the
     * smaller range) decodes it whole. */
    size_t size = c->chunk_elements * (size_t)c->size, lo = 0;
    bool whole = __atomic_load_n(slot, __ATOMIC_RELAXED) != NULL;
    Head *h = cache_claim(&p->cache);
    uint8_t *data = h ? data_of(h) : malloc(size);
    if (!data)
        FAIL(DAMAS_ERR_NOMEM, "out of memory");
    size_t got = chunk_read_located(c, s->fd, k, data, whole ? 0 : offset, whole ? size : offset + (size_t)n, &lo);
    bool ok = got >= offset + (size_t)n && lo <= offset;
    if (ok)
        memcpy(out, data + offset, (size_t)n);
    if (h)
        cache_publish(&p->cache, h, slot, key, lo, got, ok);
    else
        free(data);
    if (!ok) {
        char name[DB_NAME_MAX];
        material_name(s->slice.m, name);
        FAIL(DAMAS_ERR_CORRUPT, "%s: slice %s: chunk %llu of its %s fails its checksum or does not decode (damaged file)",
             s->path, name, (unsigned long long)k, kind ? "distances" : "values");
    }
    return DAMAS_OK;
}

/* Starts fetching the cached bytes of element `element` of c (`kind` 0 wdl, 1 dtw) of slice
 * s, if its chunk is cached. A hint only: the buffer may be refilled meanwhile (read_at checks
 * what it reads). */
static void fetch_at(const ProbeSlice *s, const ChunkSet *c, int kind, uint64_t element)
{
    uint8_t *data = __atomic_load_n(&s->cached[kind][element / c->chunk_elements], __ATOMIC_RELAXED);
    if (data)
        __builtin_prefetch(data + (size_t)(element % c->chunk_elements) * (size_t)c->size);
}

/* The stored value of index i of slice s (a position without a capture to make). */
static int stored_value(DbProbe *p, ProbeSlice *s, uint64_t i, bool dtw, DbValue *out, char *err, size_t errlen)
{
    int w = s->st.constant_wdl;
    /* The distance is read after the value (not for a draw): fetched now, the misses overlap. */
    if (dtw && s->st.constant_dtw < 0)
        fetch_at(s, &s->st.dtw, 1, i);
    if (w < 0) {
        uint8_t b;
        int rc = read_at(p, s, &s->st.wdl, 0, i / 4, 1, &b, err, errlen);
        if (rc != DAMAS_OK)
            return rc;
        w = b >> (2 * (i % 4)) & 3;
    }
    if (w > DB_WIN) {
        char name[DB_NAME_MAX];
        material_name(s->slice.m, name);
        FAIL(DAMAS_ERR_CORRUPT, "%s: slice %s: position %llu holds value 3, which is not win, draw or loss (damaged file)",
             s->path, name, (unsigned long long)i);
    }
    int h = 0;
    if (dtw && w != DB_DRAW) {
        h = s->st.constant_dtw;
        if (h < 0) {
            uint8_t b[2] = {0, 0};
            int rc = read_at(p, s, &s->st.dtw, 1, i, s->st.dtw.size, b, err, errlen);
            if (rc != DAMAS_OK)
                return rc;
            h = b[0] | b[1] << 8;
        }
    }
    out->wdl = w;
    out->dtw = w == DB_WIN ? 2 * h + 1 : w == DB_LOSS ? 2 * h : 0;
    return DAMAS_OK;
}

static int probe_any(DbProbe *p, const Position *pos, bool dtw, DbValue *out, char *err, size_t errlen);
static int probe_captures(DbProbe *p, const Position *pos, bool dtw, DbValue *out, char *err, size_t errlen);

/* A capture position's successors: the first FETCH_AHEAD are located in their slices and
 * their table bytes fetched before any is read (fetch_successor), so that their misses
 * overlap; probe_successor then reads them in the same order. */
enum { FETCH_AHEAD = 32 };

typedef struct {
    DbProbe *p;
    bool dtw;
    char *err;
    size_t errlen;
    int fetched, valued;                /* successors seen by each */
    ProbeSlice *slice[FETCH_AHEAD];     /* NULL: read through probe_any, or searched if `captures` */
    uint64_t index[FETCH_AHEAD];
    bool captures[FETCH_AHEAD];         /* the successor has a capture to make */
} ProbeCall;

static void fetch_successor(void *ctx, const Position *after)
{
    ProbeCall *c = ctx;
    int k = c->fetched++;
    if (k >= FETCH_AHEAD)
        return;
    c->slice[k] = NULL;
    c->captures[k] = false;
    Material m = material_of(after);
    int rc;
    ProbeSlice *s;
    if (m.um + m.uk == 0)
        return;
    if ((c->captures[k] = db_dont_care(&c->p->v, after)))
        return;
    /* (A failure here is met again, and reported, when the successor is read.) */
    if (!(s = slice_of(c->p, m, &rc, c->err, c->errlen)))
        return;
    uint64_t i = slice_rank(&s->slice, after);
    if (s->st.constant_wdl < 0)
        fetch_at(s, &s->st.wdl, 0, i / 4);
    if (c->dtw && s->st.constant_dtw < 0)
        fetch_at(s, &s->st.dtw, 1, i);
    c->slice[k] = s;
    c->index[k] = i;
}

static int probe_successor(void *ctx, const Position *after, DbValue *out)
{
    ProbeCall *c = ctx;
    int k = c->valued++;
    if (k < FETCH_AHEAD && k < c->fetched && c->slice[k])
        return stored_value(c->p, c->slice[k], c->index[k], c->dtw, out, c->err, c->errlen);
    if (k < FETCH_AHEAD && k < c->fetched && c->captures[k])
        return probe_captures(c->p, after, c->dtw, out, c->err, c->errlen);
    return probe_any(c->p, after, c->dtw, out, c->err, c->errlen);
}

static int probe_any(DbProbe *p, const Position *pos, bool dtw, DbValue *out, char *err, size_t errlen)
{
    Material m = material_of(pos);
    if (m.um + m.uk == 0) {
        *out = (DbValue){DB_LOSS, 0};
        return DAMAS_OK;
    }
    if (m.tm + m.tk == 0)   /* the side that just moved has no piece: it had lost before */
        FAIL(DAMAS_ERR_ILLEGAL, "%s has no piece and is not to move: the game ended before this position",
             pos->side == WHITE ? "black" : "white");
    if (db_dont_care(&p->v, pos))
        return probe_captures(p, pos, dtw, out, err, errlen);
    int rc;
    ProbeSlice *s = slice_of(p, m, &rc, err, errlen);
    if (!s)
        return rc;
    return stored_value(p, s, slice_rank(&s->slice, pos), dtw, out, err, errlen);
}

/* The value of pos, which has a capture to make, from its captures' successors. */
static int probe_captures(DbProbe *p, const Position *pos, bool dtw, DbValue *out, char *err, size_t errlen)
{
    ProbeCall call;
    call.p = p;
    call.dtw = dtw;
    call.err = err;
    call.errlen = errlen;
    call.fetched = call.valued = 0;
    return db_best_move_value(&p->v, pos, probe_successor, fetch_successor, &call, !dtw, out);
}

int probe_wdl(DbProbe *p, const Position *pos, int *wdl, char *err, size_t errlen)
{
    DbValue v;
    int rc = probe_any(p, pos, false, &v, err, errlen);
    if (rc == DAMAS_OK)
        *wdl = v.wdl;
    return rc;
}

int probe_value(DbProbe *p, const Position *pos, DbValue *out, char *err, size_t errlen)
{
    DbValue v;
    int rc = probe_any(p, pos, true, &v, err, errlen);
    if (rc == DAMAS_OK)
        *out = v;
    return rc;
}

int probe_moves(DbProbe *p, const Position *pos, ProbeMove *out, int *n, char *err, size_t errlen)
{
    MoveList *list = malloc(sizeof *list);
    *n = 0;
    if (!list)
        FAIL(DAMAS_ERR_NOMEM, "out of memory");
    movegen_moves(pos, &p->v, list);
    int rc = DAMAS_OK;
    for (int k = 0; k < list->count && rc == DAMAS_OK; k++) {
        Position after = *pos;
        Undo u;
        pos_make(&after, &list->moves[k], &u);
        DbValue next;
        rc = probe_any(p, &after, true, &next, err, errlen);
        out[k] = (ProbeMove){list->moves[k], db_value_after(next)};
    }
    if (rc == DAMAS_OK) {
        /* Insertion sort, stable: move lists are short. */
        for (int i = 1; i < list->count; i++) {
            ProbeMove x = out[i];
            int j = i;
            for (; j > 0 && db_value_score(out[j - 1].value) < db_value_score(x.value); j--)
                out[j] = out[j - 1];
            out[j] = x;
        }
        *n = list->count;
    }
    free(list);
    return rc;
}

int probe_line(DbProbe *p, const Position *pos, Move *line, int max, int *n, char *err, size_t errlen)
{
    *n = 0;
    DbValue v;
    int rc = probe_value(p, pos, &v, err, errlen);
    if (rc != DAMAS_OK || v.wdl == DB_DRAW)
        return rc;
    ProbeMove *moves = malloc(MOVELIST_MAX * sizeof *moves);
    if (!moves)
        FAIL(DAMAS_ERR_NOMEM, "out of memory");
    Position cur = *pos;
    while (*n < max) {
        int count;
        rc = probe_moves(p, &cur, moves, &count, err, errlen);
        if (rc != DAMAS_OK || count == 0)
            break;
        line[(*n)++] = moves[0].move;
        Undo u;
        pos_make(&cur, &moves[0].move, &u);
    }
    free(moves);
    return rc;
}

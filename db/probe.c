#include "probe.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/error.h"
#include "../core/position.h"

/* ---- the chunk cache ----
 *
 * Decoded chunks, found through a slot per chunk of each opened slice (no hashing on a hit),
 * kept in one LRU list per shard; a chunk's shard follows from its key, and the shard's lock
 * guards its list and the slots of its chunks. A hit moves the chunk to the front only if it
 * has dropped out of the newest quarter of its shard, which keeps the order LRU for eviction
 * while sparing most hits the list updates. */

typedef struct Entry {
    struct Entry **slot;           /* the slice's pointer to this entry */
    uint8_t *data;
    size_t size;
    uint64_t stamp;                /* shard tick when last moved to the front */
    struct Entry *older, *newer;   /* LRU list */
} Entry;

typedef struct {
    pthread_mutex_t lock;
    size_t count, cap;
    uint64_t tick;
    Entry *newest, *oldest;
    uint64_t hits, misses;
    size_t bytes;
    char pad[64];
} Shard;

enum { MAX_SHARDS = 64 };

typedef struct {
    Shard shard[MAX_SHARDS];
    int nshards;
} Cache;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static void cache_init(Cache *c, size_t bytes)
{
    size_t chunks = bytes / CHUNK_BYTES;
    c->nshards = chunks < MAX_SHARDS ? (chunks ? (int)chunks : 1) : MAX_SHARDS;
    for (int i = 0; i < c->nshards; i++) {
        Shard *s = &c->shard[i];
        memset(s, 0, sizeof *s);
        pthread_mutex_init(&s->lock, NULL);
        s->cap = chunks / (size_t)c->nshards;
        s->cap = s->cap ? s->cap : 1;
    }
}

static void cache_free(Cache *c)
{
    for (int i = 0; i < c->nshards; i++) {
        Shard *s = &c->shard[i];
        for (Entry *e = s->newest, *older; e; e = older) {
            older = e->older;
            free(e->data);
            free(e);
        }
        pthread_mutex_destroy(&s->lock);
    }
}

static void lru_unlink(Shard *s, Entry *e)
{
    if (e->older)
        e->older->newer = e->newer;
    else
        s->oldest = e->newer;
    if (e->newer)
        e->newer->older = e->older;
    else
        s->newest = e->older;
}

static void lru_push(Shard *s, Entry *e)
{
    e->newer = NULL;
    e->older = s->newest;
    if (s->newest)
        s->newest->newer = e;
    s->newest = e;
    if (!s->oldest)
        s->oldest = e;
    e->stamp = ++s->tick;
}

static Shard *shard_of(Cache *c, uint64_t key)
{
    return &c->shard[mix(key) % (uint64_t)c->nshards];
}

/* Copies `n` bytes at `offset` of the chunk in *slot (of key `key`) to out and returns true,
 * or false if it is not cached. */
static bool cache_get(Cache *c, Entry **slot, uint64_t key, size_t offset, int n, uint8_t *out)
{
    Shard *s = shard_of(c, key);
    pthread_mutex_lock(&s->lock);
    Entry *e = *slot;
    if (e) {
        memcpy(out, e->data + offset, (size_t)n);
        if (s->tick - e->stamp > s->cap / 4) {
            lru_unlink(s, e);
            lru_push(s, e);
        }
        s->hits++;
    } else {
        s->misses++;
    }
    pthread_mutex_unlock(&s->lock);
    return e != NULL;
}

/* Caches `data` (taken) in *slot, evicting the least recently used chunk of the shard when
 * full, and copies n bytes at offset to out. If another thread cached it meanwhile, data is
 * freed. */
static void cache_put(Cache *c, Entry **slot, uint64_t key, uint8_t *data, size_t size, size_t offset, int n,
                      uint8_t *out)
{
    Shard *s = shard_of(c, key);
    memcpy(out, data + offset, (size_t)n);
    pthread_mutex_lock(&s->lock);
    Entry *e = NULL;
    if (!*slot) {
        if (s->count >= s->cap) {
            e = s->oldest;
            lru_unlink(s, e);
            *e->slot = NULL;
            s->count--;
            s->bytes -= e->size;
            free(e->data);
        } else {
            e = malloc(sizeof *e);
        }
    }
    if (e) {
        *e = (Entry){slot, data, size, 0, NULL, NULL};
        *slot = e;
        lru_push(s, e);
        s->count++;
        s->bytes += size;
    }
    pthread_mutex_unlock(&s->lock);
    if (!e)   /* cached meanwhile, or out of memory: answered without caching */
        free(data);
}

/* ---- slices ---- */

typedef struct {
    Slice slice;
    int id;                 /* in the cache keys */
    int state;              /* 0 not opened yet, 1 open, -1 failed (error in `error`) */
    StoredSlice st;
    Entry **cached[2];      /* per chunk of the values and of the distances, when open */
    hid_t file;
    char path[STORE_PATH_MAX];
    char error[512];
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
    cache_init(&p->cache, cache_bytes);
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
            H5Fclose(slots[k]->file);
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
    for (int i = 0; i < p->cache.nshards; i++) {
        st->hits += p->cache.shard[i].hits;
        st->misses += p->cache.shard[i].misses;
        st->cached_bytes += p->cache.shard[i].bytes;
    }
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
        if (s->state == 0) {
            pthread_mutex_lock(&chunk_hdf5_lock);
            int r = store_open_unit(p->dir, m, &s->file, s->path, s->error, sizeof s->error);
            if (r == DAMAS_OK) {
                r = store_open_slice(s->file, s->path, &p->v, &s->slice, &s->st, s->error, sizeof s->error);
                if (r != DAMAS_OK)
                    H5Fclose(s->file);
            }
            if (r == DAMAS_OK) {
                s->cached[0] = calloc(s->st.wdl.nchunks + 1, sizeof *s->cached[0]);
                s->cached[1] = calloc(s->st.dtw.nchunks + 1, sizeof *s->cached[1]);
                if (!s->cached[0] || !s->cached[1]) {
                    snprintf(s->error, sizeof s->error, "out of memory");
                    stored_close(&s->st);
                    H5Fclose(s->file);
                    r = DAMAS_ERR_RANGE;
                }
            }
            pthread_mutex_unlock(&chunk_hdf5_lock);
            __atomic_store_n(&s->state, r == DAMAS_OK ? 1 : -1, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&p->open_lock);
        state = s->state;
    }
    if (state < 0) {
        *rc = DAMAS_ERR_SYNTAX;
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
    uint64_t key = (uint64_t)s->id << 41 | (uint64_t)kind << 40 | k;
    Entry **slot = &s->cached[kind][k];
    if (cache_get(&p->cache, slot, key, offset, n, out))
        return DAMAS_OK;
    size_t size = c->chunk_elements * (size_t)c->size;
    uint8_t *data = malloc(size);
    if (!data)
        FAIL(DAMAS_ERR_RANGE, "out of memory");
    if (chunk_read(c, k, data, true) < 0) {
        free(data);
        char name[DB_NAME_MAX];
        material_name(s->slice.m, name);
        FAIL(DAMAS_ERR_SYNTAX, "%s: slice %s: chunk %llu of its %s fails its checksum or does not decode (damaged file)",
             s->path, name, (unsigned long long)k, kind ? "distances" : "values");
    }
    cache_put(&p->cache, slot, key, data, size, offset, n, out);
    return DAMAS_OK;
}

/* The stored value of pos (White to move, no capture to make) in slice s. */
static int stored_value(DbProbe *p, ProbeSlice *s, const Position *pos, bool dtw, DbValue *out, char *err,
                        size_t errlen)
{
    uint64_t i = slice_rank(&s->slice, pos);
    int w = s->st.constant_wdl;
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
        FAIL(DAMAS_ERR_SYNTAX, "%s: slice %s: position %llu holds value 3, which is not win, draw or loss (damaged file)",
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

typedef struct {
    DbProbe *p;
    bool dtw;
    char *err;
    size_t errlen;
} ProbeCall;

static int probe_successor(void *ctx, const Position *after, DbValue *out)
{
    ProbeCall *c = ctx;
    return probe_any(c->p, after, c->dtw, out, c->err, c->errlen);
}

static int probe_any(DbProbe *p, const Position *pos, bool dtw, DbValue *out, char *err, size_t errlen)
{
    Material m = material_of(pos);
    if (m.um + m.uk == 0) {
        *out = (DbValue){DB_LOSS, 0};
        return DAMAS_OK;
    }
    if (db_dont_care(&p->v, pos)) {
        ProbeCall call = {p, dtw, err, errlen};
        return db_best_move_value(&p->v, pos, probe_successor, &call, !dtw, out);
    }
    int rc;
    ProbeSlice *s = slice_of(p, m, &rc, err, errlen);
    if (!s)
        return rc;
    return stored_value(p, s, pos, dtw, out, err, errlen);
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
        FAIL(DAMAS_ERR_RANGE, "out of memory");
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
        FAIL(DAMAS_ERR_RANGE, "out of memory");
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

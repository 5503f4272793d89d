#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/error.h"
#include "../core/memory.h"
#include "../core/movegen.h"
#include "../core/position.h"
#include "chunk.h"
#include "h5util.h"
#include "pack.h"

enum { PATH_LEN = STORE_PATH_MAX };
static const char manifest_name[] = "damas-db.txt";
static const char lock_name[] = "damas-db.lock";

/* ---- names and the manifest ---- */

void store_unit_name(Material m, char *buf)
{
    char a[DB_NAME_MAX], b[DB_NAME_MAX];
    material_name(m, a);
    material_name(material_swap(m), b);
    snprintf(buf, DB_NAME_MAX, "%s", strcmp(a, b) <= 0 ? a : b);
}

static void unit_path(const char *dir, Material m, const char *suffix, char *path)
{
    char name[DB_NAME_MAX];
    store_unit_name(m, name);
    snprintf(path, PATH_LEN, "%s/%s.h5%s", dir, name, suffix);
}

int store_lock(const char *dir, char *err, size_t errlen)
{
    char path[PATH_LEN];
    snprintf(path, sizeof path, "%s/%s", dir, lock_name);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(fd);
        if (e == EWOULDBLOCK)
            snprintf(err, errlen, "another damas gen is writing %s (it holds %s): wait for it to end", dir, path);
        else
            snprintf(err, errlen, "cannot lock %s: %s", path, strerror(e));
        return -1;
    }
    /* Holding the lock, any temporary file in dir is a killed run's: removed. */
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len > 4 && !strcmp(e->d_name + len - 4, ".tmp") &&
            (!strncmp(e->d_name, manifest_name, strlen(manifest_name)) || e->d_name[0] == 'm')) {
            char stale[PATH_LEN + 256];
            snprintf(stale, sizeof stale, "%s/%s", dir, e->d_name);
            unlink(stale);
        }
    }
    if (d)
        closedir(d);
    return fd;
}

void store_unlock(int fd)
{
    if (fd >= 0)
        close(fd);
}

void store_unit_path(const char *dir, Material m, char *path)
{
    unit_path(dir, m, "", path);
}

bool store_unit_exists(const char *dir, Material m)
{
    char path[PATH_LEN];
    unit_path(dir, m, "", path);
    return access(path, R_OK) == 0;
}

static int read_manifest(const char *dir, char *variant, char *rules, int *version, char *err, size_t errlen)
{
    char path[PATH_LEN], line[512];
    snprintf(path, sizeof path, "%s/%s", dir, manifest_name);
    FILE *f = fopen(path, "r");
    if (!f && errno == ENOENT)
        return DAMAS_ERR_UNKNOWN;
    if (!f)
        FAIL(DAMAS_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    variant[0] = rules[0] = '\0';
    *version = -1;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (!strncmp(line, "variant ", 8))
            snprintf(variant, 64, "%.63s", line + 8);
        else if (!strncmp(line, "rules ", 6))
            snprintf(rules, VARIANT_RULES_MAX, "%.319s", line + 6);
        else if (!strncmp(line, "index_version ", 14))
            *version = atoi(line + 14);
    }
    fclose(f);
    if (!variant[0] || !rules[0] || *version < 0)
        FAIL(DAMAS_ERR_SYNTAX, "%s is not a damas database manifest", path);
    return DAMAS_OK;
}

int store_manifest_variant(const char *dir, Variant *v, char *err, size_t errlen)
{
    char variant[64], rules[VARIANT_RULES_MAX];
    int version;
    int rc = read_manifest(dir, variant, rules, &version, err, errlen);
    if (rc == DAMAS_ERR_UNKNOWN)
        FAIL(rc, "%s is not a damas database (no %s)", dir, manifest_name);
    if (rc != DAMAS_OK)
        return rc;
    bool optional = strstr(rules, "optional_capture=1") != NULL;
    return variant_lookup(variant, optional, v, err, errlen);
}

int store_make_dir(const char *dir, char *err, size_t errlen)
{
    char path[PATH_LEN];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1;; p++)   /* mkdir -p */
        if (*p == '/' || !*p) {
            char c = *p;
            *p = '\0';
            if (mkdir(path, 0777) != 0 && errno != EEXIST)
                FAIL(DAMAS_ERR_IO, "cannot create %s: %s", dir, strerror(errno));
            if (!c)
                return DAMAS_OK;
            *p = c;
        }
}

int store_manifest(const char *dir, const Variant *v, bool create, char *err, size_t errlen)
{
    char variant[64], rules[VARIANT_RULES_MAX], want[VARIANT_RULES_MAX];
    int version;
    variant_rules_text(v, want);
    int rc = read_manifest(dir, variant, rules, &version, err, errlen);
    if (rc == DAMAS_OK) {
        if (strcmp(variant, v->name))
            FAIL(DAMAS_ERR_ILLEGAL, "%s holds a %s database, not %s", dir, variant, v->name);
        if (strcmp(rules, want))
            FAIL(DAMAS_ERR_ILLEGAL, "%s holds a %s database with other rules (%s), not (%s)", dir, variant, rules, want);
        if (version != DB_INDEX_VERSION)
            FAIL(DAMAS_ERR_ILLEGAL,
                 "%s uses index scheme %d; this damas reads scheme %d (build the database again with this "
                 "damas, into a new directory or after deleting this one)",
                 dir, version, DB_INDEX_VERSION);
        return DAMAS_OK;
    }
    if (rc != DAMAS_ERR_UNKNOWN)
        return rc;
    if (!create)
        FAIL(DAMAS_ERR_UNKNOWN, "%s is not a damas database (no %s)", dir, manifest_name);
    if (store_make_dir(dir, err, errlen) != DAMAS_OK)
        return DAMAS_ERR_IO;
    char path[PATH_LEN], tmp[PATH_LEN + 32];
    snprintf(path, sizeof path, "%s/%s", dir, manifest_name);
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        FAIL(DAMAS_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
    fprintf(f, "damas endgame database\nvariant %s\nrules %s\nindex_version %d\n", v->name, want, DB_INDEX_VERSION);
    int bad = fflush(f) != 0 || fsync(fileno(f)) != 0;
    int saved = errno;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        saved = bad ? saved : errno;
        unlink(tmp);   /* nothing half-written is left behind */
        FAIL(DAMAS_ERR_IO, "cannot write %s: %s", path, strerror(saved));
    }
    return DAMAS_OK;
}

/* ---- HDF5 ---- */

typedef struct {
    const Variant *v;
    uint8_t *dc;
} DontCares;

static void dont_care_visit(void *ctx, uint64_t i, const Position *pos)
{
    DontCares *d = ctx;
    d->dc[i] = db_dont_care(d->v, pos);
}

/* The don't-care flags of t's positions: those whose side to move must capture. */
static uint8_t *dont_care_of(const Variant *v, const DbTable *t)
{
    DontCares d = {v, malloc(t->slice.size)};
    if (d.dc)
        slice_each(&t->slice, 0, dont_care_visit, &d);
    return d.dc;
}

/* Slice t into the open file (rank 0 of sh; the file -1 on the others) or, without sh (NULL),
 * written by this process alone. */
static int write_slice(hid_t file, const Variant *v, DbTable *t, const DbShares *sh)
{
    bool writer = !sh || sh->rank == 0;
    hid_t g = -1;
    int bad = 0;
    if (writer) {
        char name[DB_NAME_MAX], rules[VARIANT_RULES_MAX];
        material_name(t->slice.m, name);
        variant_rules_text(v, rules);
        hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
        H5Pset_obj_track_times(gcpl, 0);
        g = file >= 0 ? H5Gcreate2(file, name, H5P_DEFAULT, gcpl, H5P_DEFAULT) : -1;
        H5Pclose(gcpl);
        bad |= g < 0;
        if (g >= 0) {
            bad |= h5_attr_write_string(g, "variant", v->name) < 0;
            bad |= h5_attr_write_string(g, "rules", rules) < 0;
            bad |= h5_attr_write_u64(g, "index_version", DB_INDEX_VERSION) < 0;
            int8_t mat[4] = {t->slice.m.um, t->slice.m.uk, t->slice.m.tm, t->slice.m.tk};
            hsize_t four = 4;
            hid_t mt = H5Tarray_create2(H5T_NATIVE_INT8, 1, &four);
            bad |= h5_attr_write(g, "material", mt, mat) < 0;
            H5Tclose(mt);
            bad |= h5_attr_write_u64(g, "positions", t->slice.size) < 0;
            bad |= h5_attr_write_u64(g, "wins", t->wins) < 0;
            bad |= h5_attr_write_u64(g, "draws", t->draws) < 0;
            bad |= h5_attr_write_u64(g, "losses", t->losses) < 0;
            bad |= h5_attr_write_u64(g, "max_dtw", (uint64_t)t->max_dtw) < 0;
            bad |= h5_attr_write_u64(g, "checksum", t->checksum) < 0;
        }
    }
    /* (With shares, every process goes through the same steps below whatever failed, so that
     * none waits for another; the outcome is rank 0's.) */
    uint8_t *dc = t->dont_care || sh ? t->dont_care : dont_care_of(v, t);
    Packed p = {0};
    bool packed = dc && pack_values_shared(t, dc, sh, &p) == 0;
    bad |= !packed;
    uint64_t n = t->slice.size, sw = 0, sd = 0;
    /* Every process goes on only if all packed their share. */
    for (int r = 0; sh && r < sh->ranks; r++) {
        bool theirs = packed;
        if (!sh->broadcast(sh->ctx, &theirs, sizeof theirs, r) || !theirs)
            packed = false;
    }
    if (packed) {
        if (p.constant_wdl >= 0 && writer)
            bad |= h5_attr_write_u64(g, "wdl_constant", (uint64_t)p.constant_wdl) < 0;
        else if (p.constant_wdl < 0)
            bad |= chunk_write_shared(g, "wdl", 1, p.wdl2, (n + 3) / 4, n, 4, 0, CHUNK_LZ4HC_LEVEL, sh, &sw) < 0;
        if (p.constant_dtw >= 0 && writer)
            bad |= h5_attr_write_u64(g, "dtw_constant", (uint64_t)p.constant_dtw) < 0;
        else if (p.constant_dtw < 0)
            bad |= chunk_write_shared(g, "dtw", p.half_size, p.half, n, n, 1, CHUNK_DTW_BLOCK, CHUNK_DTW_LZ4HC_LEVEL,
                                      sh, &sd) < 0;
        if (writer)
            bad |= h5_attr_write_u64(g, "values_check",
                                     stored_values_check(p.constant_wdl >= 0 ? p.constant_wdl : -1,
                                                         p.constant_dtw >= 0 ? p.constant_dtw : -1, sw, sd)) < 0;
    }
    packed_free(&p);
    if (dc != t->dont_care)
        free(dc);
    if (g >= 0)
        H5Gclose(g);
    return bad ? -1 : 0;
}

static int fsync_path(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int store_write_unit(const char *dir, const Variant *v, DbTable *const *tables, int n, char *err, size_t errlen)
{
    return store_write_unit_shared(dir, v, tables, n, NULL, err, errlen);
}

int store_write_unit_shared(const char *dir, const Variant *v, DbTable *const *tables, int n, const DbShares *sh,
                            char *err, size_t errlen)
{
    char path[PATH_LEN], tmp[PATH_LEN], rules[VARIANT_RULES_MAX];
    bool writer = !sh || sh->rank == 0;
    if (sh && db_share_align % DB_SHARE_ALIGN != 0)
        FAIL(DAMAS_ERR_RANGE, "shares of %llu positions do not hold whole chunks", (unsigned long long)db_share_align);
    if (h5_init() < 0)
        FAIL(DAMAS_ERR_RANGE, "cannot register the HDF5 LZ4 filter");
    unit_path(dir, tables[0]->slice.m, "", path);
    char suffix[32];
    snprintf(suffix, sizeof suffix, ".%ld.tmp", (long)getpid());
    unit_path(dir, tables[0]->slice.m, suffix, tmp);
    hid_t file = -1;
    int bad = 0;
    if (writer) {
        hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
        H5Pset_obj_track_times(fcpl, 0);
        hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST);
        file = H5Fcreate(tmp, H5F_ACC_TRUNC, fcpl, fapl);
        H5Pclose(fcpl);
        H5Pclose(fapl);
        variant_rules_text(v, rules);
        if (file < 0 && !sh)
            FAIL(DAMAS_ERR_IO, "cannot create %s (directory missing, read-only or full?)", tmp);
        bad = file < 0;
        if (file >= 0) {
            bad |= h5_attr_write_string(file, "format", "damas endgame database") < 0;
            bad |= h5_attr_write_string(file, "variant", v->name) < 0;
            bad |= h5_attr_write_string(file, "rules", rules) < 0;
            bad |= h5_attr_write_u64(file, "index_version", DB_INDEX_VERSION) < 0;
            bad |= h5_attr_write_u64(file, "format_version", DB_FORMAT_VERSION) < 0;
        }
    }
    /* (With shares, every slice is written whatever failed: the steps are collective.) */
    for (int i = 0; i < n && (sh || !bad); i++)
        bad |= write_slice(file, v, tables[i], sh) < 0;
    if (file >= 0)
        bad |= H5Fclose(file) < 0;
    if (writer) {
        if (bad || fsync_path(tmp) != 0) {
            unlink(tmp);
            bad = 1;
            snprintf(err, errlen, "cannot write %s (disk full?)", tmp);
        } else if (rename(tmp, path) != 0) {
            unlink(tmp);
            bad = 2;
            snprintf(err, errlen, "cannot rename %s: %s", tmp, strerror(errno));
        } else {
            fsync_path(dir);
        }
    }
    if (sh && !sh->broadcast(sh->ctx, &bad, sizeof bad, 0))
        bad = 1;
    if (bad && !writer)
        snprintf(err, errlen, "rank 0 could not write %s", path);
    return bad ? DAMAS_ERR_IO : DAMAS_OK;
}

/* Checks slice group g's attributes against v and the expected size; its checksum in *checksum. */
static int check_slice(hid_t g, const char *path, const char *name, const Variant *v, uint64_t size,
                       uint64_t *checksum, char *err, size_t errlen)
{
    char variant[64], rules[VARIANT_RULES_MAX], want[VARIANT_RULES_MAX];
    uint64_t version = 0, positions = 0;
    variant_rules_text(v, want);
    const char *attr = "variant";
    int rc = h5_attr_string(g, attr, variant, sizeof variant);
    if (rc == H5A_OK)
        rc = h5_attr_string(g, attr = "rules", rules, sizeof rules);
    if (rc == H5A_OK)
        rc = h5_attr_u64(g, attr = "index_version", &version);
    if (rc == H5A_OK)
        rc = h5_attr_u64(g, attr = "positions", &positions);
    if (rc == H5A_OK)
        rc = h5_attr_u64(g, attr = "checksum", checksum);
    if (rc != H5A_OK)
        FAIL(DAMAS_ERR_CORRUPT, "%s: slice %s: attribute '%s' is %s (damaged file, or not a damas database)", path,
             name, attr, h5_attr_problem(rc));
    if (strcmp(variant, v->name) || strcmp(rules, want))
        FAIL(DAMAS_ERR_ILLEGAL, "%s: slice %s is %s (%s), not %s", path, name, variant, rules, v->name);
    if (version != DB_INDEX_VERSION || positions != size)
        FAIL(DAMAS_ERR_ILLEGAL, "%s: slice %s has index scheme %llu with %llu positions; expected scheme %d with %llu",
             path, name, (unsigned long long)version, (unsigned long long)positions, DB_INDEX_VERSION,
             (unsigned long long)size);
    return DAMAS_OK;
}

typedef struct {
    const DbSet *s;
    DbTable *t;
    bool missing;       /* a capture leads to a unit not in s */
    bool too_long;      /* a distance does not fit t's codes of one byte */
    bool beyond;        /* a distance is beyond DB_MAX_DTW */
} Restore;

/* Gives a don't-care position its true value, from its captures. */
static void restore_visit(void *ctx, uint64_t i, const Position *pos)
{
    Restore *r = ctx;
    DbValue v;
    if (!db_dont_care(&r->s->variant, pos))
        return;
    if (dbset_value_by_captures(r->s, pos, &v) < 0) {
        __atomic_store_n(&r->missing, true, __ATOMIC_RELAXED);
        return;
    }
    if (v.dtw > DB_MAX_DTW)
        __atomic_store_n(&r->beyond, true, __ATOMIC_RELAXED);
    else if (r->t->code8 && v.dtw > DB_NARROW_MAX_DTW)
        __atomic_store_n(&r->too_long, true, __ATOMIC_RELAXED);
    else
        table_set(r->t, i, v.wdl, v.dtw);
}

/* Unpacks st into new codes of t and gives the don't-care positions their true values from
 * their captures. Returns 0; -1 out of memory; -2 if a capture leads to a unit not in s; -3
 * for a stored value that is no value or a distance beyond DB_MAX_DTW; or (chunk + 1) << 1 |
 * (1 for the distances) for a damaged chunk. */
static int stored_unpack(const StoredSlice *st, const DbSet *s, DbTable *t)
{
    uint64_t n = t->slice.size;
    uint8_t *wdl2 = st->constant_wdl < 0 ? mem_huge((n + 3) / 4) : NULL;
    void *half = st->constant_dtw < 0 ? mem_huge(n * (size_t)st->dtw.size) : NULL;
    int rc = 0;
    if ((st->constant_wdl < 0 && !wdl2) || (st->constant_dtw < 0 && !half))
        rc = -1;
    uint64_t bad;
    if (rc == 0 && wdl2 && (bad = chunk_read_all(&st->wdl, wdl2)))
        rc = (int)(bad << 1);
    if (rc == 0 && half && (bad = chunk_read_all(&st->dtw, half)))
        rc = (int)(bad << 1 | 1);
    Packed p = {wdl2, half, st->dtw.size, st->constant_wdl, st->constant_dtw};
    /* One byte a position unless a stored distance is too long for it; a restored one may be
     * too, and then the table is unpacked again, two bytes a position. */
    int longest = pack_max_dtw(&p, n);
    if (rc == 0 && longest > DB_MAX_DTW)
        rc = -3;
    for (bool wide = longest > DB_NARROW_MAX_DTW; rc == 0;) {
        if (!table_alloc(t, wide)) {
            rc = -1;
            break;
        }
        if (pack_expand(&p, t) < 0) {
            rc = -3;
            break;
        }
        Restore r = {s, t, false, false, false};
        slice_each(&t->slice, 0, restore_visit, &r);
        if (r.missing)
            rc = -2;
        else if (r.beyond)
            rc = -3;
        if (!r.too_long)
            break;
        mem_release(t->code8);
        t->code8 = NULL;
        wide = true;
    }
    mem_release(wdl2);
    mem_release(half);
    return rc;
}

/* Reads the slice group g of file `path` into t (whose slice is set): attributes always,
 * the values too if `data`. */
static int read_slice(hid_t g, const char *path, const char *name, const DbSet *s, bool data, DbTable *t,
                      char *err, size_t errlen)
{
    uint64_t checksum = 0;
    int rc = check_slice(g, path, name, &s->variant, t->slice.size, &checksum, err, errlen);
    if (rc != DAMAS_OK)
        return rc;
    uint64_t stats[4];
    const char *names[4] = {"wins", "draws", "losses", "max_dtw"};
    for (int k = 0; k < 4; k++)
        if ((rc = h5_attr_u64(g, names[k], &stats[k])) != H5A_OK)
            FAIL(DAMAS_ERR_CORRUPT, "%s: slice %s: attribute '%s' is %s (damaged file)", path, name, names[k],
                 h5_attr_problem(rc));
    StoredSlice st;
    if (stored_open(g, t->slice.size, &st) < 0)
        FAIL(DAMAS_ERR_CORRUPT, "%s: slice %s: its values are missing or malformed (damaged file)", path, name);
    t->bytes = st.wdl.bytes + st.dtw.bytes;
    t->bytes_wdl = st.wdl.bytes;
    if (!data) {
        stored_close(&st);
        t->wins = stats[0];
        t->draws = stats[1];
        t->losses = stats[2];
        t->max_dtw = (int)stats[3];
        t->checksum = checksum;
        return DAMAS_OK;
    }
    rc = stored_unpack(&st, s, t);
    stored_close(&st);
    if (rc == -1)
        FAIL(DAMAS_ERR_NOMEM, "out of memory loading slice %s", name);
    if (rc > 0)
        FAIL(DAMAS_ERR_CORRUPT, "%s: slice %s: chunk %d of its %s fails its checksum or does not decode (damaged file)",
             path, name, (rc >> 1) - 1, rc & 1 ? "distances" : "values");
    if (rc == -2)
        FAIL(DAMAS_ERR_ILLEGAL, "%s: slice %s: load the units its captures lead to first", path, name);
    if (rc == -3)
        FAIL(DAMAS_ERR_CORRUPT,
             "%s: slice %s stores a value that is not win, draw or loss, or a distance beyond %d plies (damaged "
             "file)",
             path, name, DB_MAX_DTW);
    table_stats(t);
    if (t->checksum != checksum)
        FAIL(DAMAS_ERR_CORRUPT, "%s: slice %s fails its checksum (damaged file)", path, name);
    return DAMAS_OK;
}

static int load_slice(hid_t file, const char *path, const Variant *v, Material m, bool data, DbSet *s, char *err,
                      size_t errlen)
{
    char name[DB_NAME_MAX];
    material_name(m, name);
    if (H5Lexists(file, name, H5P_DEFAULT) <= 0)
        FAIL(DAMAS_ERR_CORRUPT, "%s: slice %s is missing", path, name);
    hid_t g = H5Gopen2(file, name, H5P_DEFAULT);
    if (g < 0)
        FAIL(DAMAS_ERR_CORRUPT, "%s: cannot open slice %s", path, name);
    DbTable *t = calloc(1, sizeof *t);
    int rc = DAMAS_ERR_RANGE;
    if (!t)
        snprintf(err, errlen, "out of memory loading slice %s", name);
    else if (!slice_init(&t->slice, m, v->rules.board_size))
        snprintf(err, errlen, "%s: slice %s does not fit the %s board", path, name, v->name);
    else
        rc = read_slice(g, path, name, s, data, t, err, errlen);
    H5Gclose(g);
    if (rc != DAMAS_OK) {
        table_free(t);
        return rc;
    }
    table_free(s->t[m.um][m.uk][m.tm][m.tk]);
    s->t[m.um][m.uk][m.tm][m.tk] = t;
    return DAMAS_OK;
}

int store_open_unit(const char *dir, Material m, hid_t *file, char *path, char *err, size_t errlen)
{
    if (h5_init() < 0)
        FAIL(DAMAS_ERR_RANGE, "cannot register the HDF5 LZ4 filter");
    unit_path(dir, m, "", path);
    if (access(path, R_OK) != 0)
        FAIL(DAMAS_ERR_UNKNOWN, "%s: %s", path, strerror(errno));
    if (H5Fis_hdf5(path) <= 0)
        FAIL(DAMAS_ERR_CORRUPT, "%s is not a readable HDF5 file (damaged or truncated)", path);
    *file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (*file < 0)
        FAIL(DAMAS_ERR_CORRUPT, "%s cannot be opened (damaged or truncated)", path);
    uint64_t format = 0;
    int rc = h5_attr_u64(*file, "format_version", &format);
    if (rc != H5A_OK) {
        H5Fclose(*file);
        FAIL(DAMAS_ERR_CORRUPT, "%s: attribute 'format_version' is %s (damaged file, or not a damas database)", path,
             h5_attr_problem(rc));
    }
    if (format != DB_FORMAT_VERSION) {
        H5Fclose(*file);
        FAIL(DAMAS_ERR_ILLEGAL, "%s is in storage format %llu, not %d (written by another damas version: build it again)",
             path, (unsigned long long)format, DB_FORMAT_VERSION);
    }
    return DAMAS_OK;
}

int store_open_slice(hid_t file, const char *path, const Variant *v, const Slice *slice, StoredSlice *st,
                     char *err, size_t errlen)
{
    char name[DB_NAME_MAX];
    material_name(slice->m, name);
    if (H5Lexists(file, name, H5P_DEFAULT) <= 0)
        FAIL(DAMAS_ERR_CORRUPT, "%s: slice %s is missing", path, name);
    hid_t g = H5Gopen2(file, name, H5P_DEFAULT);
    if (g < 0)
        FAIL(DAMAS_ERR_CORRUPT, "%s: cannot open slice %s", path, name);
    uint64_t checksum;
    int rc = check_slice(g, path, name, v, slice->size, &checksum, err, errlen);
    if (rc == DAMAS_OK && stored_open(g, slice->size, st) < 0) {
        snprintf(err, errlen, "%s: slice %s: its values are missing or malformed (damaged file)", path, name);
        rc = DAMAS_ERR_CORRUPT;
    }
    H5Gclose(g);
    return rc;
}

int store_load_unit(const char *dir, Material m, bool data, DbSet *s, char *err, size_t errlen)
{
    char path[STORE_PATH_MAX];
    hid_t file;
    int rc = store_open_unit(dir, m, &file, path, err, errlen);
    if (rc != DAMAS_OK)
        return rc;
    rc = load_slice(file, path, &s->variant, m, data, s, err, errlen);
    if (rc == DAMAS_OK && !material_equal(m, material_swap(m)))
        rc = load_slice(file, path, &s->variant, material_swap(m), data, s, err, errlen);
    H5Fclose(file);
    return rc;
}

/* Unit files: round trip, the manifest, and damaged or foreign files refused clearly. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/memory.h"
#include "../gen/gen.h"
#include "helpers.h"

static char dir[64];

/* A 3-piece Russian database in a fresh directory. */
static void build(void)
{
    snprintf(dir, sizeof dir, "/tmp/damas-store-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    Variant v = test_variant("russian", false);
    char err[512];
    cr_assert_eq(gen_run(&v, 3, dir, 2, NULL, err, sizeof err), DAMAS_OK, "%s", err);
}

/* An empty database of `variant` (its manifest only) in a fresh directory. */
static Variant empty_db(const char *variant)
{
    snprintf(dir, sizeof dir, "/tmp/damas-store-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    Variant v = test_variant(variant, false);
    char err[512];
    cr_assert_eq(store_manifest(dir, &v, true, err, sizeof err), DAMAS_OK, "%s", err);
    return v;
}

static void cleanup(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        cr_log_warn("could not remove %s", dir);
}

static int load(const char *variant, Material m, char *err, size_t len)
{
    Variant v = test_variant(variant, false);
    DbSet *s = malloc(sizeof *s);
    dbset_init(s, &v);
    int slices, rc = gen_load_all(dir, s, true, &slices, err, len);
    cr_assert(rc != DAMAS_OK || dbset_get(s, m), "unit loaded");
    dbset_free(s);
    free(s);
    return rc;
}

static const Material unit = {1, 1, 0, 1};

static void copy_file(const char *from, const char *to)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cp %s %s", from, to);
    cr_assert_eq(system(cmd), 0);
}

Test(store, unit_reads_back_with_its_statistics_after_the_units_it_needs, .init = build, .fini = cleanup)
{
    Variant v = test_variant("russian", false);
    DbSet *s = malloc(sizeof *s);
    dbset_init(s, &v);
    char err[512];
    cr_assert_eq(store_load_unit(dir, unit, true, s, err, sizeof err), DAMAS_ERR_ILLEGAL,
                 "without the units its captures lead to, the don't-cares cannot be restored");
    cr_assert(strstr(err, "load the units its captures lead to first"), "%s", err);
    int slices;
    cr_assert_eq(gen_load_all(dir, s, true, &slices, err, sizeof err), DAMAS_OK, "%s", err);
    DbTable *t = dbset_get(s, unit);
    cr_assert_not_null(t);
    cr_assert_not_null(dbset_get(s, material_swap(unit)), "both slices of the unit");
    cr_assert_eq(t->wins + t->draws + t->losses, t->slice.size);
    cr_assert_gt(t->bytes, 0);
    DbSet *stats = malloc(sizeof *stats);
    dbset_init(stats, &v);
    cr_assert_eq(store_load_unit(dir, unit, false, stats, err, sizeof err), DAMAS_OK, "%s", err);
    DbTable *u = dbset_get(stats, unit);
    cr_assert(u->wins == t->wins && u->draws == t->draws && u->max_dtw == t->max_dtw && u->bytes == t->bytes);
    cr_assert(!u->code8 && !u->code16);
    dbset_free(s);
    dbset_free(stats);
    free(s);
    free(stats);
}

Test(store, database_of_another_variant_is_refused, .init = build, .fini = cleanup)
{
    char err[512];
    Variant other = test_variant("brazilian", false), optional = test_variant("russian", true);
    cr_assert_eq(store_manifest(dir, &other, true, err, sizeof err), DAMAS_ERR_ILLEGAL);
    cr_assert(strstr(err, "russian") && strstr(err, "brazilian"), "%s", err);
    cr_assert_eq(store_manifest(dir, &optional, true, err, sizeof err), DAMAS_ERR_ILLEGAL, "other rule options");
    cr_assert_eq(gen_run(&other, 3, dir, 1, NULL, err, sizeof err), DAMAS_ERR_ILLEGAL);
    cr_assert_neq(load("czech", unit, err, sizeof err), DAMAS_OK);
    cr_assert(strstr(err, "not czech"), "%s", err);
}

Test(store, database_of_an_older_index_scheme_is_refused, .init = build, .fini = cleanup)
{
    char path[600], text[1024], err[512];
    snprintf(path, sizeof path, "%s/damas-db.txt", dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    char *line = strstr(text, "index_version ");
    cr_assert_not_null(line);
    line[14] = '1';
    cr_assert(line[15] == '\n', "the manifest's version has one digit");
    f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    Variant v = test_variant("russian", false);
    cr_assert_eq(store_manifest(dir, &v, false, err, sizeof err), DAMAS_ERR_ILLEGAL);
    cr_assert(strstr(err, "index scheme 1"), "%s", err);
    cr_assert_eq(gen_run(&v, 3, dir, 1, NULL, err, sizeof err), DAMAS_ERR_ILLEGAL, "a build into it is refused");
}

Test(store, directory_without_manifest_is_not_a_database)
{
    Variant v;
    char err[512];
    cr_assert_eq(store_manifest_variant("/tmp", &v, err, sizeof err), DAMAS_ERR_UNKNOWN);
    cr_assert(strstr(err, "not a damas database"), "%s", err);
}

Test(store, truncated_unit_file_is_reported, .init = build, .fini = cleanup)
{
    char path[256], name[DB_NAME_MAX], err[512];
    store_unit_name(unit, name);
    snprintf(path, sizeof path, "%s/%s.h5", dir, name);
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    for (long keep = 0; keep < size; keep += size / 9 + 1) {
        cr_assert_eq(truncate(path, keep), 0);
        cr_assert_neq(load("russian", unit, err, sizeof err), DAMAS_OK, "truncated to %ld bytes", keep);
        cr_assert(strstr(err, name), "the message names the file: %s", err);
    }
}

/* Readers expect one value in each attribute: an array in its place (a damaged or hostile
 * file) is refused with a message naming the file and the attribute, not read past. */
Test(store, an_attribute_holding_an_array_is_refused_with_its_name, .init = build, .fini = cleanup)
{
    char path[256], name[DB_NAME_MAX], group[DB_NAME_MAX + 1], err[512];
    store_unit_name(unit, name);
    snprintf(path, sizeof path, "%s/%s.h5", dir, name);
    char saved[300];
    snprintf(saved, sizeof saved, "%s.intact", path);
    copy_file(path, saved);
    material_name(unit, group + 1);
    group[0] = '/';
    const char *slice_attrs[] = {"positions", "checksum", "index_version", "variant", "wins", "values_check"};
    for (size_t k = 0; k < sizeof slice_attrs / sizeof *slice_attrs; k++) {
        copy_file(saved, path);
        test_h5_attr_as_array(path, group, slice_attrs[k]);
        cr_assert_neq(load("russian", unit, err, sizeof err), DAMAS_OK, "%s as an array", slice_attrs[k]);
        cr_assert(strstr(err, name), "the message names the file: %s", err);
        if (strcmp(slice_attrs[k], "values_check"))   /* (that one is reported as damaged values) */
            cr_assert(strstr(err, slice_attrs[k]) && strstr(err, "malformed"), "%s", err);
    }
    copy_file(saved, path);
    test_h5_attr_as_array(path, "/", "format_version");
    cr_assert_eq(load("russian", unit, err, sizeof err), DAMAS_ERR_CORRUPT);
    cr_assert(strstr(err, "'format_version' is malformed"), "%s", err);
}

/* One writer per directory: while another holds the lock, gen fails at once, naming it. */
Test(store, a_second_writer_of_a_directory_is_refused_at_once, .init = build, .fini = cleanup)
{
    char err[512];
    int lock = store_lock(dir, err, sizeof err);
    cr_assert_geq(lock, 0, "%s", err);
    Variant v = test_variant("russian", false);
    cr_assert_eq(gen_run(&v, 3, dir, 1, NULL, err, sizeof err), DAMAS_ERR_IO);
    cr_assert(strstr(err, "another damas gen is writing"), "%s", err);
    store_unlock(lock);
    cr_assert_eq(gen_run(&v, 3, dir, 1, NULL, err, sizeof err), DAMAS_OK, "%s", err);
}

/* A rerun checks the units it finds: a damaged one (a truncated file, or a temporary file a
 * killed run left) is built again, the same as before, not reported done. */
Test(store, a_rerun_builds_a_damaged_unit_again, .init = build, .fini = cleanup)
{
    char path[256], name[DB_NAME_MAX], saved[300], stale[300], err[512];
    store_unit_name(unit, name);
    snprintf(path, sizeof path, "%s/%s.h5", dir, name);
    snprintf(saved, sizeof saved, "%s.intact", path);
    snprintf(stale, sizeof stale, "%s.999999.tmp", path);
    copy_file(path, saved);
    copy_file(path, stale);
    cr_assert_eq(truncate(path, 2000), 0);
    Variant v = test_variant("russian", false);
    cr_assert_eq(gen_run(&v, 3, dir, 1, NULL, err, sizeof err), DAMAS_OK, "%s", err);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "cmp -s %s %s", path, saved);
    cr_assert_eq(system(cmd), 0, "the unit was built again, byte for byte");
    cr_assert_neq(access(stale, F_OK), 0, "the killed run's temporary file is gone");
    cr_assert_eq(load("russian", unit, err, sizeof err), DAMAS_OK, "%s", err);
}

Test(store, flipped_bytes_are_detected_or_harmless, .init = build, .fini = cleanup)
{
    test_exhaustive();
    char path[256], backup[300], name[DB_NAME_MAX], err[512];
    store_unit_name(unit, name);
    snprintf(path, sizeof path, "%s/%s.h5", dir, name);
    snprintf(backup, sizeof backup, "%s.orig", path);
    copy_file(path, backup);
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    int detected = 0, trials = 300;
    uint64_t x = 12345;
    for (int trial = 0; trial < trials; trial++) {
        copy_file(backup, path);
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        long at = (long)((x >> 33) % (uint64_t)size);
        f = fopen(path, "r+b");
        fseek(f, at, SEEK_SET);
        int c = fgetc(f);
        fseek(f, at, SEEK_SET);
        fputc(c ^ (1 << ((x >> 20) & 7)), f);
        fclose(f);
        /* Either refused with a message, or read back with the same checksums (the byte
         * was in unused space): never wrong values, never a crash. */
        detected += load("russian", unit, err, sizeof err) != DAMAS_OK;
    }
    cr_assert_gt(detected, 0);
    cr_log_info("%d of %d flips detected", detected, trials);
}

/* A synthetic table of slice m0k1-m0k5 (10,874,304 positions: several of the writer's packing
 * runs of 2^20) with pseudo-random values and don't-cares: a leading stretch of don't-cares,
 * one that covers the whole third run, and scattered ones. With `one_value`, every position
 * that matters is a win in 7 plies; with `split` too, those from the second run on are losses
 * in 6 instead (each run holds one value, the slice two). */
static DbTable *synthetic_table(bool one_value, bool split)
{
    DbTable *t = calloc(1, sizeof *t);
    cr_assert(slice_init(&t->slice, (Material){0, 1, 0, 5}, 8));
    uint64_t n = t->slice.size, seed = 7;
    /* Random distances up to 1023 need codes of two bytes. */
    cr_assert(table_alloc(t, !one_value));
    t->dont_care = malloc(n);
    cr_assert(t->dont_care);
    for (uint64_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t r = seed >> 33;
        bool later = split && i >= (1u << 20);
        int w = one_value ? (later ? DB_LOSS : DB_WIN) : (int)(r % 3);
        int h = (int)(r >> 8 & 511);   /* half the distance */
        table_set(t, i, w, one_value ? (later ? 6 : 7) : w == DB_DRAW ? 0 : 2 * h + (w == DB_WIN));
        t->dont_care[i] = i < 3000 || ((1u << 21) - 100 <= i && i < (3u << 20) + 100) || r % 3 == 0;
        if (one_value && t->dont_care[i]) {   /* values nobody reads, all different */
            w = (int)(r % 3);
            table_set(t, i, w, w == DB_DRAW ? 0 : 2 * (h % 100) + (w == DB_WIN));
        }
    }
    table_stats(t);
    return t;
}

/* The stored arrays of slice t of the unit file in dir, decoded. */
static void read_stored(const DbTable *t, StoredSlice *st, uint8_t **wdl2, uint8_t **half)
{
    Variant v = test_variant("brazilian", false);
    hid_t file;
    char path[STORE_PATH_MAX], err[512];
    cr_assert_eq(store_open_unit(dir, t->slice.m, &file, path, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert_eq(store_open_slice(file, path, &v, &t->slice, st, err, sizeof err), DAMAS_OK, "%s", err);
    *wdl2 = *half = NULL;
    if (st->constant_wdl < 0) {
        *wdl2 = malloc(st->wdl.elements * (uint64_t)st->wdl.size);
        cr_assert_eq(chunk_read_all(&st->wdl, *wdl2), 0);
    }
    if (st->constant_dtw < 0) {
        *half = malloc(st->dtw.elements * (uint64_t)st->dtw.size);
        cr_assert_eq(chunk_read_all(&st->dtw, *half), 0);
    }
    stored_close(st);
    H5Fclose(file);
}

Test(store, stored_dont_cares_take_the_last_value_that_matters_across_packing_runs, .fini = cleanup)
{
    Variant v = empty_db("brazilian");
    char err[512];
    DbTable *t = synthetic_table(false, false);
    uint64_t n = t->slice.size, count[3] = {0, 0, 0};
    int max = 0;
    for (uint64_t i = 0; i < n; i++) {
        count[table_wdl(t, i)]++;
        max = table_wdl(t, i) == DB_WIN && table_dtw(t, i) > max ? table_dtw(t, i) : max;
    }
    cr_assert(t->losses == count[DB_LOSS] && t->draws == count[DB_DRAW] && t->wins == count[DB_WIN] &&
              t->max_dtw == max, "the statistics, counted on several threads, are the counts");
    cr_assert_eq(store_write_unit(dir, &v, &t, 1, err, sizeof err), DAMAS_OK, "%s", err);
    StoredSlice st;
    uint8_t *wdl2, *half;
    read_stored(t, &st, &wdl2, &half);
    cr_assert(wdl2 && half, "values and distances stored");
    /* One pass, as the format describes it: a don't-care takes the last value that matters
     * before it (the first one for those before any), a draw and a don't-care the last
     * distance of a win or a loss. */
    uint64_t first = 0;
    while (t->dont_care[first])
        first++;
    int w = table_wdl(t, first), h = 0;
    for (uint64_t i = 0; i < n; i++)
        if (!t->dont_care[i] && table_wdl(t, i) != DB_DRAW) {
            h = table_dtw(t, i) / 2;
            break;
        }
    for (uint64_t i = 0; i < n; i++) {
        if (!t->dont_care[i]) {
            w = table_wdl(t, i);
            h = w != DB_DRAW ? table_dtw(t, i) / 2 : h;
        }
        int got_w = wdl2[i / 4] >> (2 * (i % 4)) & 3;
        int got_h = st.dtw.size == 1 ? half[i] : half[2 * i] | half[2 * i + 1] << 8;
        if (got_w != w || got_h != h)
            cr_assert_fail("position %llu: stored %d/%d, expected %d/%d", (unsigned long long)i, got_w, got_h, w, h);
    }
    free(wdl2);
    free(half);
    table_free(t);

    /* One value that matters, in every run: stored as constants, whatever the don't-cares hold. */
    t = synthetic_table(true, false);
    cr_assert_eq(store_write_unit(dir, &v, &t, 1, err, sizeof err), DAMAS_OK, "%s", err);
    read_stored(t, &st, &wdl2, &half);
    cr_assert(st.constant_wdl == DB_WIN && st.constant_dtw == 3 && !wdl2 && !half, "constants %d and %d",
              st.constant_wdl, st.constant_dtw);
    table_free(t);
    /* One value a run, two in the slice: the values are stored, the distance (3 halved) not. */
    t = synthetic_table(true, true);
    cr_assert_eq(store_write_unit(dir, &v, &t, 1, err, sizeof err), DAMAS_OK, "%s", err);
    read_stored(t, &st, &wdl2, &half);
    cr_assert(st.constant_wdl < 0 && wdl2 && st.constant_dtw == 3 && !half, "constants %d and %d",
              st.constant_wdl, st.constant_dtw);
    cr_assert_eq(wdl2[0] & 3, DB_WIN);
    cr_assert_eq(wdl2[(t->slice.size - 1) / 4] >> (2 * ((t->slice.size - 1) % 4)) & 3, DB_LOSS);
    free(wdl2);
    table_free(t);
    cleanup();
}

/* The bytes of the unit file of m in dir (its size in *n). */
static uint8_t *unit_bytes(Material m, size_t *n)
{
    char name[DB_NAME_MAX], path[STORE_PATH_MAX + DB_NAME_MAX];
    store_unit_name(m, name);
    snprintf(path, sizeof path, "%s/%s.h5", dir, name);
    FILE *f = fopen(path, "rb");
    cr_assert(f, "%s", path);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    rewind(f);
    uint8_t *b = malloc(*n);
    cr_assert(b && fread(b, 1, *n, f) == *n);
    fclose(f);
    return b;
}

typedef struct {
    FakeProc proc;   /* first: the collectives' ctx */
    DbTable t;       /* the whole table's codes outside the share overwritten */
    const Variant *v;
    int rc;
    char err[512];
} ShareWriter;

static void *write_share(void *arg)
{
    ShareWriter *me = arg;
    DbShares sh = {me->proc.rank, me->proc.world->ranks, me, fake_broadcast, fake_send};
    DbTable *t = &me->t;
    me->rc = table_stats_shared(t, &sh) ? store_write_unit_shared(dir, me->v, &t, 1, &sh, me->err, sizeof me->err)
                                        : DAMAS_ERR_RANGE;
    return NULL;
}

/* A slice's file written by 2, 3 and 4 processes, each holding only its share of the positions
 * (the rest of its copy scrambled), is the same file, byte for byte, as one process writes:
 * values and distances stored, constants, one value a run. */
Test(store, a_unit_written_in_shares_is_the_file_one_process_writes, .fini = cleanup)
{
    Variant v = empty_db("brazilian");
    char err[512];
    bool kinds[3][2] = {{false, false}, {true, false}, {true, true}};
    for (int kind = 0; kind < 3; kind++) {
        DbTable *t = synthetic_table(kinds[kind][0], kinds[kind][1]);
        uint64_t n = t->slice.size;
        size_t one_n;
        cr_assert_eq(store_write_unit(dir, &v, &t, 1, err, sizeof err), DAMAS_OK, "%s", err);
        uint8_t *one = unit_bytes(t->slice.m, &one_n);
        for (int ranks = 2; ranks <= FAKE_RANKS; ranks++) {
            FakeWorld w;
            fake_world_init(&w, ranks);
            ShareWriter r[FAKE_RANKS];
            pthread_t th[FAKE_RANKS];
            for (int k = 0; k < ranks; k++) {
                uint64_t first, end;
                db_share(n, k, ranks, &first, &end);
                r[k] = (ShareWriter){.proc = {&w, k}, .t = {.slice = t->slice}, .v = &v};
                cr_assert(table_alloc(&r[k].t, t->code16 != NULL));
                r[k].t.dont_care = malloc(n);
                for (uint64_t i = 0; i < n; i++) {
                    bool mine = first <= i && i < end;
                    table_set(&r[k].t, i, mine ? table_wdl(t, i) : (int)(i % 3),
                              mine ? table_dtw(t, i) : i % 3 == DB_DRAW ? 0 : 2 * (int)(i % 50) + (i % 3 == DB_WIN));
                    r[k].t.dont_care[i] = mine ? t->dont_care[i] : (uint8_t)(i & 1);
                }
                cr_assert_eq(pthread_create(&th[k], NULL, write_share, &r[k]), 0);
            }
            for (int k = 0; k < ranks; k++)
                pthread_join(th[k], NULL);
            for (int k = 0; k < ranks; k++) {
                cr_assert_eq(r[k].rc, DAMAS_OK, "kind %d, %d ranks, rank %d: %s", kind, ranks, k, r[k].err);
                cr_assert(r[k].t.wins == t->wins && r[k].t.draws == t->draws && r[k].t.losses == t->losses &&
                              r[k].t.max_dtw == t->max_dtw && r[k].t.checksum == t->checksum,
                          "kind %d, %d ranks, rank %d: statistics and checksum of the whole slice", kind, ranks, k);
                mem_release(r[k].t.code8);
                mem_release(r[k].t.code16);
                free(r[k].t.dont_care);
            }
            size_t shared_n;
            uint8_t *shared = unit_bytes(t->slice.m, &shared_n);
            cr_assert(shared_n == one_n && memcmp(shared, one, one_n) == 0,
                      "kind %d, %d ranks: %zu bytes, not the %zu of one process or other bytes", kind, ranks,
                      shared_n, one_n);
            free(shared);
            fake_world_free(&w);
        }
        free(one);
        table_free(t);
    }
}

/* The value of a successor from the tables of set ctx (db_best_move_value's callback). */
static int set_value(void *ctx, const Position *after, DbValue *out)
{
    uint16_t dtw = 0;   /* (dbset_value leaves it unset when it fails) */
    int wdl = dbset_value(ctx, after, &dtw);
    *out = (DbValue){wdl, dtw};
    return wdl < 0 ? DAMAS_ERR_RANGE : DAMAS_OK;
}

/* A table of slice m with made-up values: a win (if `wins`, else a loss) in `dtw` plies for
 * the positions without a capture, and for the capture positions their true values from the
 * tables in s; codes of two bytes if `wide`. */
static DbTable *made_up_table(const DbSet *s, Material m, bool wins, int dtw, bool wide)
{
    DbTable *t = calloc(1, sizeof *t);
    cr_assert(t && slice_init(&t->slice, m, 8) && table_alloc(t, wide));
    for (uint64_t i = 0; i < t->slice.size; i++) {
        Position pos;
        slice_unrank(&t->slice, i, &pos);
        DbValue v = {wins ? DB_WIN : DB_LOSS, dtw};
        if (db_dont_care(&s->variant, &pos))
            cr_assert_eq(db_best_move_value(&s->variant, &pos, set_value, NULL, (void *)s, false, &v), DAMAS_OK);
        table_set(t, i, v.wdl, v.dtw);
    }
    table_stats(t);
    return t;
}

Test(store, distances_beyond_a_byte_take_two_bytes_also_when_only_restored_captures_reach_them, .fini = cleanup)
{
    Variant v = empty_db("russian");
    char err[512];
    DbSet *made = malloc(sizeof *made), *loaded = malloc(sizeof *loaded);
    dbset_init(made, &v);
    dbset_init(loaded, &v);
    /* King against king, lost in 300 plies where no capture is on: stored in two bytes. */
    Material kk = {0, 1, 0, 1}, k2 = {0, 1, 0, 2}, twin = material_swap(k2);
    DbTable *t = made_up_table(made, kk, false, 300, true);
    made->t[0][1][0][1] = t;
    cr_assert_eq(store_write_unit(dir, &v, &t, 1, err, sizeof err), DAMAS_OK, "%s", err);
    /* A king against two: stored distances of 3 and 2 only, but a capture into the king
     * against king positions wins in 301. */
    DbTable *u[2] = {made_up_table(made, k2, true, 3, true), made_up_table(made, twin, false, 2, false)};
    cr_assert_gt(u[0]->max_dtw, DB_NARROW_MAX_DTW, "a restored capture is that long");
    cr_assert_eq(store_write_unit(dir, &v, u, 2, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert_eq(store_load_unit(dir, kk, true, loaded, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert_eq(store_load_unit(dir, k2, true, loaded, err, sizeof err), DAMAS_OK, "%s", err);
    const DbTable *back[3] = {dbset_get(loaded, kk), dbset_get(loaded, k2), dbset_get(loaded, twin)};
    const DbTable *want[3] = {t, u[0], u[1]};
    bool wide[3] = {true, true, false};
    for (int k = 0; k < 3; k++) {
        cr_assert_eq(back[k]->code16 != NULL, wide[k], "table %d: %s codes", k, wide[k] ? "two-byte" : "one-byte");
        for (uint64_t i = 0; i < want[k]->slice.size; i++)
            cr_assert_eq(table_code(back[k], i), table_code(want[k], i), "table %d, index %llu", k,
                         (unsigned long long)i);
    }
    table_free(u[0]);
    table_free(u[1]);
    dbset_free(made);
    dbset_free(loaded);
    free(made);
    free(loaded);
}

/* The checksum of true values as docs/FORMAT.md defines it, from a table's codes: the
 * win/draw/loss bytes, then the distances as little-endian 16-bit values, eight bytes a word. */
static uint64_t format_checksum(const uint8_t *codes, uint64_t n)
{
    uint64_t h = 0xcbf29ce484222325ull, total = 3 * n;
    uint8_t *bytes = calloc(total + 8, 1);
    for (uint64_t i = 0; i < n; i++) {
        unsigned c = codes[i], dtw = c ? c - 1 : 0;
        bytes[i] = c == 0 ? 1 : c % 2 ? 0 : 2;
        bytes[n + 2 * i] = (uint8_t)dtw;
        bytes[n + 2 * i + 1] = (uint8_t)(dtw >> 8);
    }
    /* The two parts are padded each to a whole word. */
    uint64_t parts[2][2] = {{0, n}, {n, 2 * n}};
    for (int p = 0; p < 2; p++)
        for (uint64_t at = parts[p][0]; at < parts[p][0] + parts[p][1]; at += 8) {
            uint64_t w = 0;
            for (int k = 0; k < 8 && at + (uint64_t)k < parts[p][0] + parts[p][1]; k++)
                w |= (uint64_t)bytes[at + (uint64_t)k] << (8 * k);
            h = (h ^ w) * 0x9E3779B97F4A7C15ull;
            h ^= h >> 32;
        }
    free(bytes);
    return h;
}

Test(store, table_checksum_follows_the_format_for_every_length_and_code)
{
    uint64_t rng = 12345;
    uint64_t sizes[] = {1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 63, 64, 65, 1000, 4099};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        uint64_t n = sizes[k];
        DbTable t = {0};
        t.slice.size = n;
        t.code8 = malloc(n);
        for (uint64_t i = 0; i < n; i++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            /* Every code from 0 (a draw) to 255 (a loss in 254), draws and short ones often. */
            unsigned r = (unsigned)(rng >> 40);
            t.code8[i] = (uint8_t)(r % 4 == 0 ? 0 : r % 4 == 1 ? r % 8 : r % 256);
        }
        table_stats(&t);
        cr_assert_eq(t.checksum, format_checksum(t.code8, n), "length %llu", (unsigned long long)n);
        free(t.code8);
    }
}

/* Probing stored databases: answers equal the generator's in-memory values on every position,
 * moves and lines agree with the successors, threads agree, and damaged files give errors,
 * never wrong answers. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../db/probe.h"
#include "../gen/gen.h"
#include "../gen/solve.h"
#include "helpers.h"

typedef struct {
    Variant v;
    char dir[64];
    bool shared;         /* the run's database (test_db_shared): read, never changed or removed */
    DbSet *mem;          /* the same units solved in memory: true values everywhere */
} Fixture;

static void fixture_build(Fixture *f, const char *variant, bool optional, int pieces)
{
    f->v = test_variant(variant, optional);
    char err[512];
    f->shared = test_db_shared(&f->v, pieces, f->dir, sizeof f->dir);
    if (!f->shared) {
        snprintf(f->dir, sizeof f->dir, "/tmp/damas-probe-XXXXXX");
        cr_assert_not_null(mkdtemp(f->dir));
        cr_assert_eq(gen_run(&f->v, pieces, f->dir, 2, NULL, err, sizeof err), DAMAS_OK, "%s", err);
    }
    f->mem = malloc(sizeof *f->mem);
    dbset_init(f->mem, &f->v);
    Material units[DB_MAX_MATERIALS];
    int n = gen_units(pieces, f->v.rules.board_size, units);
    for (int u = 0; u < n; u++) {
        DbTable *out[2];
        int nout;
        cr_assert_eq(unit_solve(f->mem, units[u], 2, out, &nout, NULL, err, sizeof err), DAMAS_OK, "%s", err);
        for (int i = 0; i < nout; i++) {
            Material m = out[i]->slice.m;
            f->mem->t[m.um][m.uk][m.tm][m.tk] = out[i];
        }
    }
}

static void fixture_free(Fixture *f)
{
    dbset_free(f->mem);
    free(f->mem);
    if (f->shared)
        return;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
    if (system(cmd) != 0)
        cr_log_warn("could not remove %s", f->dir);
}

static DbProbe *open_probe(const char *dir, size_t cache)
{
    char err[512];
    DbProbe *p = probe_open(dir, NULL, cache, err, sizeof err);
    cr_assert_not_null(p, "%s", err);
    return p;
}

/* Every position of every slice probed (in index order, or from the last index down) equals
 * the in-memory value; returns the count. */
static uint64_t assert_probe_matches_order(const Fixture *f, DbProbe *p, int threads, bool descending)
{
    uint64_t count = 0;
    const DbTable *t;
    for (size_t k = 0; (t = dbset_next(f->mem, &k));) {
        uint64_t bad = UINT64_MAX;
        char why[600] = "";
#pragma omp parallel for num_threads(threads) schedule(dynamic, 512)
        for (uint64_t j = 0; j < t->slice.size; j++) {
            uint64_t i = descending ? t->slice.size - 1 - j : j;
            Position pos;
            slice_unrank(&t->slice, i, &pos);
            DbValue v = {-1, -1};   /* as printed if the probe fails */
            int wdl = -1;
            char err[512] = "";
            bool ok = probe_value(p, &pos, &v, err, sizeof err) == DAMAS_OK && v.wdl == table_wdl(t, i) &&
                      v.dtw == table_dtw(t, i) && probe_wdl(p, &pos, &wdl, err, sizeof err) == DAMAS_OK &&
                      wdl == table_wdl(t, i);
            if (!ok) {
#pragma omp critical(probe_mismatch)
                if (i < bad) {
                    bad = i;
                    snprintf(why, sizeof why, "index %llu: probe %d/%d, memory %d/%d (%s)", (unsigned long long)i,
                             v.wdl, v.dtw, table_wdl(t, i), table_dtw(t, i), err);
                }
            }
        }
        char name[DB_NAME_MAX];
        material_name(t->slice.m, name);
        cr_assert_eq(bad, UINT64_MAX, "%s slice %s: %s", f->v.name, name, why);
        count += t->slice.size;
    }
    return count;
}

static uint64_t assert_probe_matches(const Fixture *f, DbProbe *p, int threads)
{
    return assert_probe_matches_order(f, p, threads, false);
}

static void check_variant(const char *variant, bool optional, int pieces)
{
    Fixture f;
    fixture_build(&f, variant, optional, pieces);
    DbProbe *p = open_probe(f.dir, 8 << 20);
    cr_assert_eq(probe_pieces(p), pieces);
    cr_assert_gt(assert_probe_matches(&f, p, 2), 0);
    probe_close(p);
    fixture_free(&f);
}

Test(probe, answers_equal_the_generator_on_every_position_of_every_8x8_variant, .timeout = 300)
{
    test_exhaustive();
    const char *variants[] = {"brazilian", "russian", "spanish", "czech", "italian", "american"};
    for (int i = 0; i < 6; i++)
        check_variant(variants[i], false, 3);
    check_variant("russian", true, 3);
    check_variant("american", true, 3);
}

Test(probe, answers_equal_the_generator_on_four_pieces_and_on_10x10, .timeout = 300)
{
    test_exhaustive();
    check_variant("russian", false, 4);
    check_variant("international", false, 3);
}

Test(probe, moves_and_lines_agree_with_the_successors)
{
    test_exhaustive();
    Fixture f;
    fixture_build(&f, "brazilian", false, 4);
    DbProbe *p = open_probe(f.dir, 8 << 20);
    const DbTable *t = dbset_get(f.mem, (Material){1, 1, 0, 2});
    ProbeMove *moves = malloc(MOVELIST_MAX * sizeof *moves);
    Move line[512];
    char err[512];
    int checked_lines = 0;
    for (uint64_t i = 0; i < t->slice.size; i += 97) {
        Position pos;
        slice_unrank(&t->slice, i, &pos);
        DbValue v;
        int n, nline;
        cr_assert_eq(probe_value(p, &pos, &v, err, sizeof err), DAMAS_OK, "%s", err);
        cr_assert_eq(probe_moves(p, &pos, moves, &n, err, sizeof err), DAMAS_OK, "%s", err);
        MoveList list;
        cr_assert_eq(n, movegen_moves(&pos, &f.v, &list), "every legal move is listed");
        for (int k = 0; k < n; k++) {
            Position after = pos;
            Undo u;
            pos_make(&after, &moves[k].move, &u);
            DbValue next = {0, 0};   /* (cr_assert below stops the test if the probe fails) */
            cr_assert_eq(probe_value(p, &after, &next, err, sizeof err), DAMAS_OK, "%s", err);
            DbValue want = db_value_after(next);
            cr_assert(want.wdl == moves[k].value.wdl && want.dtw == moves[k].value.dtw);
            if (k > 0)
                cr_assert_geq(db_value_score(moves[k - 1].value), db_value_score(moves[k].value), "best first");
        }
        if (n > 0)
            cr_assert(moves[0].value.wdl == v.wdl && moves[0].value.dtw == v.dtw, "the best move has the value");
        cr_assert_eq(probe_line(p, &pos, line, 512, &nline, err, sizeof err), DAMAS_OK, "%s", err);
        if (v.wdl == DB_DRAW) {
            cr_assert_eq(nline, 0);
            continue;
        }
        cr_assert_eq(nline, v.dtw, "a line as long as the distance");
        Position cur = pos;
        for (int k = 0; k < nline; k++) {
            Undo u;
            pos_make(&cur, &line[k], &u);
        }
        cr_assert_eq(movegen_moves(&cur, &f.v, &list), 0, "the line ends the game");
        checked_lines++;
    }
    cr_assert_gt(checked_lines, 100);
    free(moves);
    probe_close(p);
    fixture_free(&f);
}

Test(probe, all_threads_with_a_tiny_cache_answer_as_one_thread)
{
    test_exhaustive();
    Fixture f;
    fixture_build(&f, "russian", false, 4);
    DbProbe *p = open_probe(f.dir, 1 << 20);   /* 16 chunks: constant eviction */
    assert_probe_matches(&f, p, 8);
    ProbeStats st;
    probe_stats(p, &st);
    cr_assert_gt(st.misses, 16, "the cache was too small to hold everything");
    cr_assert_leq(st.cached_bytes, (size_t)1 << 20);
    probe_close(p);
    fixture_free(&f);
}

/* Every chunk lookup is counted once, a hit or a miss, however many threads probe: twenty
 * threads (more than the cache has hit stripes, so some share one) make the lookups one
 * thread makes for the same positions. */
Test(probe, hits_and_misses_count_every_lookup_on_any_number_of_threads)
{
    test_exhaustive();
    Fixture f;
    fixture_build(&f, "russian", false, 4);
    uint64_t lookups[2];
    for (int k = 0; k < 2; k++) {
        DbProbe *p = open_probe(f.dir, 1 << 20);
        assert_probe_matches(&f, p, k ? 20 : 1);
        ProbeStats st;
        probe_stats(p, &st);
        lookups[k] = st.hits + st.misses;
        probe_close(p);
    }
    cr_assert_gt(lookups[0], 1000);
    cr_assert_eq(lookups[1], lookups[0], "20 threads: %llu lookups counted, one thread %llu",
                 (unsigned long long)lookups[1], (unsigned long long)lookups[0]);
    fixture_free(&f);
}

/* Walking down, a chunk's first miss is in the last LZ4 block of its distances, so the cache
 * holds a range that does not start at the chunk's first byte; the next miss below it decodes
 * the chunk whole. */
Test(probe, probes_walking_down_the_indices_answer_as_the_generator)
{
    test_exhaustive();
    Fixture f;
    fixture_build(&f, "russian", false, 4);
    DbProbe *p = open_probe(f.dir, 1 << 20);
    assert_probe_matches_order(&f, p, 1, true);
    probe_close(p);
    fixture_free(&f);
}

/* One buffer for eight threads: most misses find it being refilled and decode without
 * caching, and readers keep meeting a buffer that was refilled under them. */
Test(probe, all_threads_sharing_a_one_chunk_cache_answer_as_one_thread)
{
    test_exhaustive();
    Fixture f;
    fixture_build(&f, "brazilian", false, 4);
    DbProbe *p = open_probe(f.dir, 0);
    assert_probe_matches(&f, p, 8);
    ProbeStats st;
    probe_stats(p, &st);
    cr_assert_leq(st.cached_bytes, (size_t)CHUNK_BYTES);
    probe_close(p);
    fixture_free(&f);
}

Test(probe, positions_beyond_the_database_are_refused)
{
    test_exhaustive();
    Fixture f;
    fixture_build(&f, "russian", false, 3);
    DbProbe *p = open_probe(f.dir, 1 << 20);
    Position pos = test_position(&f.v, "W:W21,22:B10,11");
    DbValue v;
    char err[512];
    cr_assert_eq(probe_value(p, &pos, &v, err, sizeof err), DAMAS_ERR_RANGE);
    cr_assert(strstr(err, "4 pieces") && strstr(err, "up to 3"), "%s", err);
    probe_close(p);
    Variant other = test_variant("american", false);
    cr_assert_null(probe_open(f.dir, &other, 1 << 20, err, sizeof err));
    cr_assert(strstr(err, "russian"), "%s", err);
    cr_assert_null(probe_open("/nonexistent", NULL, 1 << 20, err, sizeof err));
    fixture_free(&f);
}

static void copy_tree(const char *from, const char *to)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s && cp -r %s %s", to, from, to);
    cr_assert_eq(system(cmd), 0);
}

/* Probes every position of unit m's slices: each answer is right or an error. Returns the
 * number of errors. */
static int probe_unit_checked(const Fixture *f, const char *dir, Material m, const char *what)
{
    char err[512];
    DbProbe *p = probe_open(dir, NULL, 1 << 20, err, sizeof err);
    if (!p)
        return 1;
    int errors = 0;
    Material ms[2] = {m, material_swap(m)};
    for (int s = 0; s < 2; s++) {
        const DbTable *t = dbset_get(f->mem, ms[s]);
        for (uint64_t i = 0; i < t->slice.size; i++) {
            Position pos;
            slice_unrank(&t->slice, i, &pos);
            DbValue v;
            if (probe_value(p, &pos, &v, err, sizeof err) != DAMAS_OK) {
                errors++;
                continue;
            }
            cr_assert(v.wdl == table_wdl(t, i) && v.dtw == table_dtw(t, i), "%s: a wrong answer at index %llu", what,
                      (unsigned long long)i);
        }
    }
    probe_close(p);
    return errors;
}

Test(probe, damaged_files_give_errors_never_wrong_answers, .timeout = 300)
{
    test_exhaustive();
    Fixture f;
    fixture_build(&f, "russian", false, 4);
    Material m = {1, 1, 1, 0};
    char name[DB_NAME_MAX], path[300], work[80];
    store_unit_name(m, name);
    snprintf(work, sizeof work, "%s-damaged", f.dir);
    snprintf(path, sizeof path, "%s/%s.h5", work, name);
    uint64_t seed = 12345;
    int detected = 0, trials = 100;
    for (int trial = 0; trial < trials; trial++) {
        copy_tree(f.dir, work);
        struct stat st;
        cr_assert_eq(stat(path, &st), 0);
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        FILE *file = fopen(path, "r+b");
        cr_assert_not_null(file);
        char what[128];
        if (trial % 5 == 4) {   /* truncation */
            long at = (long)((seed >> 20) % (uint64_t)st.st_size);
            cr_assert_eq(ftruncate(fileno(file), at), 0);
            snprintf(what, sizeof what, "truncated at %ld of %ld", at, (long)st.st_size);
        } else {                /* one bit flipped */
            long at = (long)((seed >> 20) % (uint64_t)st.st_size);
            fseek(file, at, SEEK_SET);
            int c = fgetc(file);
            fseek(file, at, SEEK_SET);
            fputc(c ^ (1 << (seed >> 60 & 7)), file);
            snprintf(what, sizeof what, "bit %d of byte %ld flipped", (int)(seed >> 60 & 7), at);
        }
        fclose(file);
        detected += probe_unit_checked(&f, work, m, what) > 0;
    }
    cr_log_info("%d of %d damaged files reported (the others were damaged where no answer depends)", detected,
                trials);
    cr_assert_gt(detected, trials / 4);
    char cmd[120];
    snprintf(cmd, sizeof cmd, "rm -rf %s", work);
    cr_assert_eq(system(cmd), 0);
    fixture_free(&f);
}

/* Errors say what happened: a unit file gone since the database was opened is
 * DAMAS_ERR_UNKNOWN (and stays so), a truncated one DAMAS_ERR_CORRUPT, naming the file. */
Test(probe, a_missing_file_and_a_damaged_one_give_their_own_error_codes)
{
    Fixture f;
    fixture_build(&f, "russian", false, 3);
    char work[80], path[300], name[DB_NAME_MAX], err[512];
    snprintf(work, sizeof work, "%s-codes", f.dir);
    copy_tree(f.dir, work);
    Material m = {1, 0, 1, 0};
    store_unit_name(m, name);
    snprintf(path, sizeof path, "%s/%s.h5", work, name);
    Position pos = test_position(&f.v, "W:Wc3:Bf6");
    DbValue v;
    DbProbe *p = open_probe(work, 1 << 20);   /* (a unit file is opened on first use) */
    cr_assert_eq(unlink(path), 0);
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(probe_value(p, &pos, &v, err, sizeof err), DAMAS_ERR_UNKNOWN, "%s", err);
        cr_assert(strstr(err, name), "%s", err);
    }
    probe_close(p);
    copy_tree(f.dir, work);
    cr_assert_eq(truncate(path, 1500), 0);
    p = open_probe(work, 1 << 20);
    cr_assert_eq(probe_value(p, &pos, &v, err, sizeof err), DAMAS_ERR_CORRUPT, "%s", err);
    cr_assert(strstr(err, name), "%s", err);
    probe_close(p);
    char cmd[120];
    snprintf(cmd, sizeof cmd, "rm -rf %s", work);
    cr_assert_eq(system(cmd), 0);
    fixture_free(&f);
}

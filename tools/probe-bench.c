/* Probe speed and compression of a built database (scripts/bench-probe.sh).
 *
 * usage: build/rel/probe-bench DIR [POSITIONS] [RAW_DIR] [--no-table]
 * Draws POSITIONS (default 1,000,000) positions uniformly from every position of the database,
 * and as many from the positions without a capture to make (those a search probes), and
 * probes each sample through db/probe.h: win/draw/loss only (what a search reads) and with the
 * distance, on 1 thread and on all, with a warm cache (passes after a first one over the same
 * positions, the cache large enough to hold every chunk they touch) and a cold one (a
 * one-chunk cache: every probe reads and decodes a chunk; the files themselves are in the OS
 * page cache). Each figure is the median of PASSES timed passes, printed with the fastest and
 * slowest: on a shared virtual machine one pass varies by 10-20%. For the positions without a
 * capture, also a one-ply search (every successor's win/draw/loss probed until one wins):
 * what answering a position the tables left out would cost.
 * Then the compression table per piece count: stored bytes of the win/draw/loss values and
 * of the distances, for comparison LZ4 (fast, 64 KiB blocks) on the raw 2-bit values
 * without don't-care filling, and the win/draw/loss bytes if only the smaller slice of each
 * unit were stored (a bound on leaving one side to move out). With RAW_DIR, writes those raw
 * 2-bit values per piece count to RAW_DIR/raw-<n>.bin for the script to compress with xz -9.
 * --no-table: the probes only (the table loads every table into memory first). */
#include <lz4.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../db/probe.h"
#include "../gen/gen.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t x = *s;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    return x ^ (x >> 32);
}

enum { PASSES = 3 };

/* What a probe asks for: the value, the value and distance, or the value found by a one-ply
 * search (every move's successor probed for its win/draw/loss, until a move wins): what a
 * position left out of the tables would cost to answer. (Through probe.h, which does not
 * prefetch the successors as the probe's own capture search does.) */
enum { ASK_WDL, ASK_VALUE, ASK_SEARCH };

typedef struct {
    DbProbe *p;
    char *err;
    size_t errlen;
} SearchCtx;

static int successor_wdl(void *ctx, const Position *after, DbValue *out)
{
    SearchCtx *c = ctx;
    out->dtw = 0;
    return probe_wdl(c->p, after, &out->wdl, c->err, c->errlen);
}

static int search_wdl(DbProbe *p, const Position *pos, int *wdl, char *err, size_t errlen)
{
    SearchCtx c = {p, err, errlen};
    DbValue v;
    int rc = db_best_move_value(probe_variant(p), pos, successor_wdl, NULL, &c, true, &v);
    if (rc == DAMAS_OK)
        *wdl = v.wdl;
    return rc;
}

/* Probes every position; returns seconds. */
static double run(DbProbe *p, const Position *pos, size_t n, int threads, int ask)
{
    double t0 = now();
    int failures = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : failures)
    for (size_t i = 0; i < n; i++) {
        char err[256];
        DbValue v;
        int w;
        failures += (ask == ASK_VALUE    ? probe_value(p, &pos[i], &v, err, sizeof err)
                     : ask == ASK_SEARCH ? search_wdl(p, &pos[i], &w, err, sizeof err)
                                         : probe_wdl(p, &pos[i], &w, err, sizeof err)) != DAMAS_OK;
    }
    double t = now() - t0;
    if (failures) {
        fprintf(stderr, "error: %d probes failed\n", failures);
        exit(1);
    }
    return t;
}

/* The compression table's columns: positions, then stored win/draw/loss bytes, distance
 * bytes, LZ4 on the raw 2-bit values, win/draw/loss with one slice a unit. */
enum { COLUMNS = 5 };

/* One row of the compression table: positions, then each column's bytes and positions a byte. */
static void print_row(const char *label, const uint64_t *row)
{
    printf("%-7s %14llu", label, (unsigned long long)row[0]);
    static const int width[COLUMNS] = {0, 12, 12, 14, 14};
    for (int c = 1; c < COLUMNS; c++)
        printf(" %*llu %10.1f", width[c], (unsigned long long)row[c], (double)row[0] / (double)row[c]);
    printf("\n");
}

int main(int argc, char **argv)
{
    bool no_table = argc > 1 && !strcmp(argv[argc - 1], "--no-table");
    argc -= no_table;
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [POSITIONS] [RAW_DIR] [--no-table]\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1], *raw_dir = argc > 3 ? argv[3] : NULL;
    size_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000000;
    char err[1024];
    Variant v;
    DbSet *set = malloc(sizeof *set);
    if (!set || store_manifest_variant(dir, &v, err, sizeof err) != DAMAS_OK) {
        fprintf(stderr, "error: %s\n", set ? err : "out of memory");
        return 1;
    }
    /* Positions drawn from the slices' sizes alone: no table is loaded for the probes. */
    Material materials[DB_MAX_MATERIALS];
    Slice *slices = malloc(DB_MAX_MATERIALS * sizeof *slices);
    if (!slices) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    int ns = 0, nm = material_all(DB_MAX_PIECES, v.rules.board_size, materials);
    uint64_t total = 0;
    for (int i = 0; i < nm; i++) {
        if (store_unit_exists(dir, materials[i])) {
            slice_init(&slices[ns], materials[i], v.rules.board_size);
            total += slices[ns++].size;
        }
    }
    /* Two samples: every position, and only positions without a capture to make (the ones a
     * search probes; the others are answered by probing their captures' successors). */
    Position *sample[2] = {malloc(n * sizeof(Position)), malloc(n * sizeof(Position))};
    if (!sample[0] || !sample[1] || total == 0) {
        fprintf(stderr, "error: %s\n", sample[0] && sample[1] ? "the database holds no unit yet" : "out of memory");
        return 1;
    }
    uint64_t seed = 2026;
    size_t captures = 0;
    for (int stored = 0; stored <= 1; stored++) {
        for (size_t i = 0; i < n;) {
            uint64_t r = next(&seed) % total;
            int j = 0;
            while (r >= slices[j].size)
                r -= slices[j++].size;
            slice_unrank(&slices[j], r, &sample[stored][i]);
            bool capture = db_dont_care(&v, &sample[stored][i]);
            captures += !stored && capture;
            i += !stored || !capture;
        }
    }
    int cores = omp_get_num_procs();
    printf("%s: %d slices, %llu positions; %zu random positions probed, %.1f%% of them with a capture to make\n",
           v.name, ns, (unsigned long long)total, n, 100.0 * (double)captures / (double)n);
    printf("%-40s %8s %14s %12s %17s\n", "probe", "threads", "probes/s", "us/probe", "passes: min-max");
    for (int stored = 0; stored <= 1; stored++) {
        for (int ask = ASK_WDL; ask <= (stored ? ASK_SEARCH : ASK_VALUE); ask++) {
            for (int cold = 0; cold <= 1; cold++) {
                for (int threads = 1; threads <= cores; threads = threads < cores ? cores : cores + 1) {
                    DbProbe *p = probe_open(dir, NULL, cold ? 0 : (size_t)8 << 30, err, sizeof err);
                    if (!p) {
                        fprintf(stderr, "error: %s\n", err);
                        return 1;
                    }
                    size_t m = cold ? n / 10 : n;
                    if (!cold)
                        run(p, sample[stored], m, threads, ask);   /* fills the cache */
                    double t[PASSES];
                    for (int k = 0; k < PASSES; k++) {   /* timed, in order of speed */
                        double s = run(p, sample[stored], m, threads, ask);
                        int j = k;
                        for (; j > 0 && t[j - 1] > s; j--)
                            t[j] = t[j - 1];
                        t[j] = s;
                    }
                    double s = t[PASSES / 2], us = 1e6 * threads / (double)m;
                    char label[64];
                    static const char *asked[] = {"win/draw/loss", "value + distance", "one-ply search"};
                    snprintf(label, sizeof label, "%s, %s cache%s", asked[ask], cold ? "cold" : "warm",
                             stored ? ", no capture" : "");
                    printf("%-40s %8d %14.0f %12.3f %8.3f-%.3f\n", label, threads, (double)m / s, s * us, t[0] * us,
                           t[PASSES - 1] * us);
                    probe_close(p);
                }
            }
        }
    }
    free(sample[0]);
    free(sample[1]);
    free(slices);
    if (no_table) {
        free(set);
        return 0;
    }
    dbset_init(set, &v);
    int loaded;
    /* The values too: the compression table compares against the raw values. */
    if (gen_load_all(dir, set, true, &loaded, err, sizeof err) != DAMAS_OK) {
        fprintf(stderr, "error: %s\n", err);
        return 1;
    }
    const DbTable *tables[DB_MAX_MATERIALS * 2];
    int nt = 0;
    const DbTable *t;
    for (size_t k = 0; (t = dbset_next(set, &k));)
        tables[nt++] = t;
    printf("\n%-7s %14s %12s %10s %12s %10s %14s %10s %14s %10s\n", "pieces", "positions", "wdl bytes", "pos/byte",
           "dtw bytes", "pos/byte", "raw 2-bit lz4", "pos/byte", "wdl one/unit", "pos/byte");
    uint64_t sum[COLUMNS] = {0};
    for (int pc = 2; pc <= DB_MAX_PIECES; pc++) {
        /* positions, then the bytes of each column; one/unit counted twice, once from each
         * slice of a unit */
        uint64_t row[COLUMNS] = {0};
        FILE *raw = NULL;
        if (raw_dir) {
            char path[512];
            snprintf(path, sizeof path, "%s/raw-%d.bin", raw_dir, pc);
            raw = fopen(path, "wb");
        }
        for (int j = 0; j < nt; j++) {
            t = tables[j];
            if (material_pieces(t->slice.m) != pc)
                continue;
            row[0] += t->slice.size;
            row[1] += t->bytes_wdl;
            row[2] += t->bytes - t->bytes_wdl;
            /* "one/unit": the win/draw/loss bytes if only the smaller slice of each unit were
             * stored (the other answered by a one-ply search into it): a bound on leaving out
             * one side to move. */
            const DbTable *twin = dbset_get(set, material_swap(t->slice.m));
            bool pair = twin && twin != t;
            row[4] += pair ? (t->bytes_wdl < twin->bytes_wdl ? t->bytes_wdl : twin->bytes_wdl) : 2 * t->bytes_wdl;
            size_t nb = (t->slice.size + 3) / 4;
            uint8_t *packed = calloc(nb, 1);
            for (uint64_t i = 0; i < t->slice.size; i++)
                packed[i / 4] |= (uint8_t)(table_wdl(t, i) << (2 * (i % 4)));
            char *out = malloc((size_t)LZ4_compressBound(1 << 16));
            for (size_t o = 0; o < nb; o += 1 << 16) {
                int len = (int)(nb - o < (1 << 16) ? nb - o : 1 << 16);
                row[3] += (uint64_t)LZ4_compress_default((const char *)packed + o, out, len, LZ4_compressBound(len));
            }
            if (raw)
                fwrite(packed, 1, nb, raw);
            free(out);
            free(packed);
        }
        if (raw)
            fclose(raw);
        if (!row[0])
            continue;
        row[4] /= 2;
        char label[8];
        snprintf(label, sizeof label, "%d", pc);
        print_row(label, row);
        for (int c = 0; c < COLUMNS; c++)
            sum[c] += row[c];
    }
    print_row("all", sum);
    dbset_free(set);
    free(set);
    return 0;
}

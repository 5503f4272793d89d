/* Simulates splitting one unit's index range over R ranks (docs/DISTRIBUTED.md): every rank
 * owns a contiguous share of each slice; when a position is decided its predecessors are
 * updated, locally or by a message to the rank owning them. From a built database, counts over
 * every decided position (only those propagate) the predecessor updates that stay local and
 * those that cross to each other rank, and prints the figures the design note's estimate uses.
 *
 * usage: build/rel/split-sim DIR UNIT RANKS [STEP]   (every STEP-th position; default 1) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/movegen.h"
#include "../core/position.h"
#include "../db/store.h"

static int owner(uint64_t i, uint64_t size, int ranks)
{
    return (int)((unsigned __int128)i * (unsigned)ranks / size);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s DIR UNIT RANKS [STEP]\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    Material m;
    int ranks = atoi(argv[3]);
    uint64_t step = argc > 4 ? strtoull(argv[4], NULL, 10) : 1;
    if (!material_parse(argv[2], &m) || ranks < 1 || ranks > 64 || step < 1) {
        fprintf(stderr, "error: bad unit name '%s', rank count or step\n", argv[2]);
        return 2;
    }
    char err[1024];
    Variant v;
    DbSet *set = malloc(sizeof *set);
    if (!set || store_manifest_variant(dir, &v, err, sizeof err) != DAMAS_OK) {
        fprintf(stderr, "error: %s\n", set ? err : "out of memory");
        return 1;
    }
    dbset_init(set, &v);
    if (store_load_unit(dir, m, true, set, err, sizeof err) != DAMAS_OK) {
        fprintf(stderr, "error: %s\n", err);
        return 1;
    }
    Material ms[2] = {m, material_swap(m)};
    int nparts = material_equal(ms[0], ms[1]) ? 1 : 2;
    static uint64_t sent[64][64];   /* [from][to] predecessor updates */
    uint64_t decided = 0, positions = 0, share[64] = {0};
    int max_dtw = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : decided, positions)
    for (int job = 0; job < 64 * nparts; job++) {
        int part = job / 64;
        const DbTable *t = dbset_get(set, ms[part]), *pt = dbset_get(set, ms[1 - part]);
        if (nparts == 1)
            pt = t;
        uint64_t local[64][64] = {{0}};
        uint64_t lo = t->slice.size * (uint64_t)(job % 64) / 64, hi = t->slice.size * (uint64_t)(job % 64 + 1) / 64;
        lo = (lo + step - 1) / step * step;
        for (uint64_t i = lo; i < hi; i += step) {
            positions++;
            if (table_wdl(t, i) == DB_DRAW)
                continue;
            Position q, after;
            slice_unrank(&t->slice, i, &q);
            decided++;
            pos_flip(&q, variant_board(&v), &after);
            MoveList un;
            movegen_unmoves(&after, &v, false, &un);
            int from = owner(i, t->slice.size, ranks);
            for (int k = 0; k < un.count; k++) {
                Position before;
                movegen_unmake(&after, &un.moves[k], &before);
                local[from][owner(slice_rank(&pt->slice, &before), pt->slice.size, ranks)]++;
            }
        }
#pragma omp critical
        for (int a = 0; a < ranks; a++)
            for (int b = 0; b < ranks; b++)
                sent[a][b] += local[a][b];
    }
    for (int p = 0; p < nparts; p++) {
        const DbTable *t = dbset_get(set, ms[p]);
        max_dtw = t->max_dtw > max_dtw ? t->max_dtw : max_dtw;
        for (int r = 0; r < ranks; r++)
            share[r] += (t->slice.size * (uint64_t)(r + 1)) / (uint64_t)ranks - (t->slice.size * (uint64_t)r) / (uint64_t)ranks;
    }
    uint64_t total = 0, remote = 0;
    for (int a = 0; a < ranks; a++)
        for (int b = 0; b < ranks; b++) {
            total += sent[a][b];
            remote += a == b ? 0 : sent[a][b];
        }
    printf("unit %s, %d ranks, every %llu-th position: %llu sampled, %llu decided (win or loss)\n", argv[2], ranks,
           (unsigned long long)step, (unsigned long long)positions, (unsigned long long)decided);
    printf("predecessor updates: %llu, %.1f per decided position; crossing ranks: %llu (%.1f%%)\n",
           (unsigned long long)total, decided ? (double)total / (double)decided : 0, (unsigned long long)remote,
           total ? 100.0 * (double)remote / (double)total : 0);
    printf("passes (levels): %d; batched messages per pass: %d\n", max_dtw + 1, ranks * (ranks - 1));
    for (int a = 0; a < ranks; a++) {
        printf("rank %d: %llu positions owned, sends", a, (unsigned long long)share[a]);
        for (int b = 0; b < ranks; b++)
            printf(" %llu", (unsigned long long)(sent[a][b] * step));
        printf(" updates to ranks 0..%d\n", ranks - 1);
    }
    dbset_free(set);
    free(set);
    return 0;
}

/* How the win/draw/loss values of one slice would compress in other index orders, and with a
 * simple predictor (docs/PERFORMANCE.md, "Probing and compression").
 *
 * usage: order-sim DIR SLICE [ORDERS]
 *
 * Reads the slice's stored values from DIR (no restoring: don't-care positions are filled
 * again here), then for each order of the four piece groups (our men UM, their men TM, our
 * kings UK, their kings TK; most significant first) and each way of ranking a group (colex;
 * revolving door, where neighbouring sets differ by one square; either, reversed on every
 * other step of the groups above it: "snake"), lays the values out in that order, fills the
 * don't-care positions with the value before them, packs two bits a value and compresses
 * it in chunks as damas does (chunk_write's chunk size, level and filter header). ORDERS (e.g. "UM>TM>TK>UK UM>TM>UK>TK")
 * limits the group orders tried ("none": no other order). First, in index order, two larger
 * sets of don't-care positions: those whose every move leaves the opponent a capture, and
 * those where the opponent threatens a capture (an upper bound: restoring them by a one-ply
 * search need not end). Then the predictor: positions classed by the captures the side not to
 * move threatens and by the moves of the side to move; each class's most common value
 * subtracted (mod 3) before compressing. 8x8 only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/board.h"
#include "../core/movegen.h"
#include "../core/variant.h"
#include "../db/chunk.h"
#include "../db/h5lz4.h"
#include "../db/store.h"

enum { GROUPS = 4, SQUARES = 32, DONT_CARE = 3, CLASSES = 24 };
static const char *group_name[GROUPS] = {"UM", "TM", "UK", "TK"};
static uint64_t binom[SQUARES + 1][SQUARES + 1];

/* One position: its groups as square sets (0..31, from the side to move's view), its value
 * (DONT_CARE if the side to move must capture). */
typedef struct {
    uint32_t group[GROUPS];
    uint8_t value;
} Item;

typedef struct {
    uint64_t key;
    uint32_t index;
} Keyed;

static uint64_t rank_colex(uint32_t set)
{
    uint64_t r = 0;
    for (int i = 1; set; set &= set - 1, i++)
        r += binom[__builtin_ctz(set)][i];
    return r;
}

/* Rank in the revolving-door order (Kreher and Stinson, algorithm 2.12), elements 1-based. */
static uint64_t rank_revolving(uint32_t set, int k)
{
    int t[SQUARES + 1], n = 0;
    for (; set; set &= set - 1)
        t[++n] = __builtin_ctz(set) + 1;
    int64_t r = -(k % 2), sign = 1;
    for (int i = k; i >= 1; i--, sign = -sign)
        r += sign * (int64_t)binom[t[i]][i];
    return (uint64_t)r;
}

static int by_key(const void *a, const void *b)
{
    const Keyed *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* Bytes of values[0..n) stored as damas stores them: don't-cares take the value before them
 * (the first ones: the first that matters), two bits a value, chunks encoded for the HDF5
 * LZ4 filter. */
static size_t stored_bytes(const uint8_t *values, uint64_t n)
{
    uint64_t bytes = (n + 3) / 4;
    uint8_t *packed = calloc(bytes ? bytes : 1, 1);
    if (!packed) {
        fprintf(stderr, "error: out of memory\n");
        exit(1);
    }
    int fill = 1;
    for (uint64_t i = 0; i < n; i++)
        if (values[i] != DONT_CARE) {
            fill = values[i];
            break;
        }
    for (uint64_t i = 0; i < n; i++) {
        if (values[i] != DONT_CARE)
            fill = values[i];
        packed[i / 4] |= (uint8_t)(fill << (2 * (i % 4)));
    }
    size_t total = 0;
    uint64_t chunks = (bytes + CHUNK_BYTES - 1) / CHUNK_BYTES;
#pragma omp parallel for reduction(+ : total) schedule(dynamic)
    for (uint64_t c = 0; c < chunks; c++) {
        uint64_t at = c * CHUNK_BYTES, len = bytes - at < CHUNK_BYTES ? bytes - at : CHUNK_BYTES;
        unsigned char *out = NULL;
        total += h5lz4_encode(packed + at, len, 0, CHUNK_LZ4HC_LEVEL, &out);   /* as chunk_write does */
        free(out);
    }
    free(packed);
    return total;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: order-sim DIR SLICE [ORDERS]\n");
        return 2;
    }
    for (int n = 0; n <= SQUARES; n++)
        for (int k = 0; k <= n; k++)
            binom[n][k] = k == 0 ? 1 : binom[n - 1][k - 1] + (k < n ? binom[n - 1][k] : 0);
    char err[512], path[STORE_PATH_MAX];
    Variant v;
    Material m = {0, 0, 0, 0};
    Slice slice;
    hid_t file;
    StoredSlice st;
    if (store_manifest_variant(argv[1], &v, err, sizeof err) != DAMAS_OK ||
        store_open_unit(argv[1], (material_parse(argv[2], &m) ? m : (Material){0}), &file, path, err,
                        sizeof err) != DAMAS_OK) {
        fprintf(stderr, "error: %s\n", err);
        return 1;
    }
    if (v.rules.board_size != 8 || !slice_init(&slice, m, 8) ||
        store_open_slice(file, path, &v, &slice, &st, err, sizeof err) != DAMAS_OK) {
        fprintf(stderr, "error: %s: not an 8x8 slice of this database%s%s\n", argv[2], err[0] ? ": " : "", err);
        return 1;
    }
    uint64_t n = slice.size;
    uint8_t *wdl2 = malloc((n + 3) / 4), *values = malloc(n), *cls = malloc(n), *more = malloc(n);
    Item *items = malloc(n * sizeof *items);
    Keyed *keyed = malloc(n * sizeof *keyed);
    if (!wdl2 || !values || !cls || !more || !items || !keyed) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    if (st.constant_wdl >= 0) {
        printf("%s: one value, nothing stored\n", argv[2]);
        return 0;
    }
    if (chunk_read_all(&st.wdl, wdl2) != 0) {
        fprintf(stderr, "error: %s: a damaged chunk\n", path);
        return 1;
    }
    const Board *b = board_get(8);
    uint64_t dont_care = 0;
#pragma omp parallel for schedule(dynamic, 4096) reduction(+ : dont_care)
    for (uint64_t i = 0; i < n; i++) {
        Position pos, turned;
        slice_unrank(&slice, i, &pos);
        int us = pos.side;
        Bitboard sets[GROUPS] = {pos_men(&pos, us), pos_men(&pos, us ^ 1), pos_kings(&pos, us), pos_kings(&pos, us ^ 1)};
        for (int g = 0; g < GROUPS; g++)
            items[i].group[g] = (uint32_t)__builtin_ia32_pext_di(sets[g], b->all);
        bool dc = db_dont_care(&v, &pos);
        items[i].value = dc ? DONT_CARE : (uint8_t)(wdl2[i / 4] >> (2 * (i % 4)) & 3);
        values[i] = items[i].value;
        dont_care += dc;
        /* The predictor's class: captures the other side threatens, moves we have. */
        turned = pos;
        turned.side ^= 1;
        MoveList list;
        int threats = dc ? 0 : movegen_has_capture(&turned, &v) ? movegen_moves(&turned, &v, &list) : 0;
        int moves = dc ? 0 : movegen_moves(&pos, &v, &list);
        cls[i] = (uint8_t)((threats > 3 ? 3 : threats) * 6 + (moves > 5 ? 5 : moves));
        /* bit 0: every move leaves the opponent a capture; bit 1: the opponent threatens one */
        int giving = 0;
        for (int j = 0; j < moves; j++) {
            Position after = pos;
            Undo u;
            pos_make(&after, &list.moves[j], &u);
            giving += movegen_has_capture(&after, &v);
        }
        more[i] = (uint8_t)((moves > 0 && giving == moves) | (threats > 0) << 1);
    }
    size_t base = stored_bytes(values, n);
    printf("%s: %llu positions, %.1f%% don't-care; stored %llu bytes; index order %zu bytes, %.1f positions/byte\n",
           argv[2], (unsigned long long)n, 100.0 * (double)dont_care / (double)n, (unsigned long long)st.wdl.bytes,
           base, (double)n / (double)base);

    for (int bit = 0; bit < 2; bit++) {
        uint64_t extra = 0;
        for (uint64_t i = 0; i < n; i++)
            extra += more[i] >> bit & 1;
        uint8_t *x = malloc(n);
        for (uint64_t i = 0; x && i < n; i++)
            x[i] = more[i] >> bit & 1 ? DONT_CARE : values[i];
        size_t bytes = x ? stored_bytes(x, n) : 0;
        printf("don't-care too where %s: %.1f%% more; %zu bytes, %.1f positions/byte\n",
               bit ? "the opponent threatens a capture" : "every move leaves the opponent a capture",
               100.0 * (double)extra / (double)n, bytes, (double)n / (double)(bytes ? bytes : 1));
        free(x);
    }
    free(more);

    /* The predictor. */
    uint64_t count[CLASSES][3] = {{0}};
    for (uint64_t i = 0; i < n; i++)
        if (values[i] != DONT_CARE)
            count[cls[i]][values[i]]++;
    int guess[CLASSES];
    for (int c = 0; c < CLASSES; c++)
        guess[c] = count[c][0] >= count[c][1] && count[c][0] >= count[c][2] ? 0 : count[c][1] >= count[c][2] ? 1 : 2;
    uint64_t right = 0;
    uint8_t *residual = malloc(n);
    for (uint64_t i = 0; residual && i < n; i++) {
        residual[i] = values[i] == DONT_CARE ? DONT_CARE : (uint8_t)((values[i] - guess[cls[i]] + 3) % 3);
        right += residual[i] == 0;
    }
    if (residual) {
        size_t bytes = stored_bytes(residual, n);
        printf("predictor (threats x moves, %d classes): right for %.1f%% of the values that matter; %zu bytes, "
               "%.1f positions/byte\n",
               CLASSES, 100.0 * (double)right / (double)(n - dont_care), bytes, (double)n / (double)bytes);
        free(residual);
    }

    const char *only = argc == 4 ? argv[3] : NULL;
    for (int way = 0; way < 4; way++) {   /* bit 0: revolving door; bit 1: snake */
        for (int p = 0; p < 24; p++) {
            int order[GROUPS], used = 0, x = p;
            for (int q = 0; q < GROUPS; q++) {   /* the p-th permutation */
                int pick = x % (GROUPS - q);
                x /= GROUPS - q;
                for (int g = 0; g < GROUPS; g++)
                    if (!(used >> g & 1) && pick-- == 0) {
                        order[q] = g;
                        used |= 1 << g;
                        break;
                    }
            }
            char name[32];
            snprintf(name, sizeof name, "%s>%s>%s>%s", group_name[order[0]], group_name[order[1]],
                     group_name[order[2]], group_name[order[3]]);
            if (only && !strstr(only, name))
                continue;
            int k[GROUPS] = {m.um, m.tm, m.uk, m.tk};
#pragma omp parallel for schedule(static)
            for (uint64_t i = 0; i < n; i++) {
                uint64_t key = 0;
                int odd = 0;
                for (int q = 0; q < GROUPS; q++) {
                    int g = order[q];
                    uint64_t radix = binom[SQUARES][k[g]];
                    uint64_t r = way & 1 ? rank_revolving(items[i].group[g], k[g]) : rank_colex(items[i].group[g]);
                    if (way & 2 && odd)
                        r = radix - 1 - r;
                    odd ^= (int)(r & 1);
                    key = key * radix + r;
                }
                keyed[i] = (Keyed){key, (uint32_t)i};
            }
            qsort(keyed, n, sizeof *keyed, by_key);
            for (uint64_t i = 0; i < n; i++)
                values[i] = items[keyed[i].index].value;
            size_t bytes = stored_bytes(values, n);
            printf("%-15s %s: %zu bytes, %.1f positions/byte\n",
                   way == 0 ? "colex" : way == 1 ? "revolving" : way == 2 ? "colex+snake" : "revolving+snake", name, bytes,
                   (double)n / (double)bytes);
            fflush(stdout);
        }
    }
    H5Fclose(file);
    return 0;
}

/* Random memory access latency of this machine, the figure that bounds damas' propagation
 * and its probes of a warm cache (docs/PERFORMANCE.md): the benchmark scripts print it beside
 * their results, so that figures from two machines can be told apart.
 *
 * usage: build/rel/mem-latency [MIB ...]   (default: 16 512 2048)
 * For each size, an array of that many MiB (huge pages where the kernel grants them, as the
 * solver's arrays) is linked into one random cycle through all its cache lines, and the
 * cycle is followed: every load's address is the previous load's value, so the loads cannot
 * overlap and each costs a full miss (cache, and for large arrays the address translation).
 * Prints nanoseconds per load. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../core/memory.h"

enum { LINE_WORDS = 8, LOADS = 4000000 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Nanoseconds per dependent load over `mib` MiB, or a negative number without the memory. */
static double latency(size_t mib)
{
    size_t lines = (mib << 20) / (LINE_WORDS * sizeof(uint64_t));
    uint64_t *a = mem_huge(lines * LINE_WORDS * sizeof *a);
    uint32_t *order = malloc(lines * sizeof *order);
    if (!a || !order || lines < 2) {
        mem_release(a);
        free(order);
        return -1;
    }
    /* Sattolo's shuffle: a random permutation that is a single cycle through every line. */
    for (size_t i = 0; i < lines; i++)
        order[i] = (uint32_t)i;
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    for (size_t i = lines - 1; i > 0; i--) {
        size_t j = next_random(&seed) % i;
        uint32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (size_t i = 0; i < lines; i++)
        a[(size_t)i * LINE_WORDS] = (uint64_t)order[i] * LINE_WORDS;
    free(order);
    uint64_t p = 0;
    for (int i = 0; i < LOADS / 8; i++)   /* (warm-up: the page tables, the first misses) */
        p = a[p];
    double t0 = now();
    for (int i = 0; i < LOADS; i++)
        p = a[p];
    double t = now() - t0;
    /* p is used, so the chase is not optimised away; it is always a line's first word. */
    if (p % LINE_WORDS != 0)
        t = -1;
    mem_release(a);
    return t < 0 ? -1 : t / LOADS * 1e9;
}

int main(int argc, char **argv)
{
    enum { MAX_SIZES = 16 };
    size_t sizes[MAX_SIZES] = {16, 512, 2048};
    int n = argc > 1 ? argc - 1 : 3;
    if (n > MAX_SIZES) {
        fprintf(stderr, "error: at most %d sizes\n", MAX_SIZES);
        return 1;
    }
    for (int k = 0; argc > 1 && k < n; k++) {
        char *end;
        sizes[k] = strtoull(argv[k + 1], &end, 10);
        if (*end != '\0' || end == argv[k + 1] || sizes[k] == 0 || sizes[k] > (1u << 20)) {
            fprintf(stderr, "error: '%s' is not a size in MiB (1 to 1048576)\n", argv[k + 1]);
            return 1;
        }
    }
    printf("random load latency:");
    for (int k = 0; k < n; k++) {
        double ns = latency(sizes[k]);
        if (ns < 0) {
            printf("\n");
            fprintf(stderr, "error: cannot allocate %zu MiB\n", sizes[k]);
            return 1;
        }
        printf(" %.0f ns (%zu MiB)%s", ns, sizes[k], k + 1 < n ? "," : "\n");
        fflush(stdout);
    }
    return 0;
}

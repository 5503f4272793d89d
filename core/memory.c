/* MADV_HUGEPAGE and MAP_NORESERVE are Linux extensions: under _POSIX_C_SOURCE alone
 * <sys/mman.h> hides them. */
#define _DEFAULT_SOURCE
#include "memory.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__linux__) && !defined(MADV_HUGEPAGE)
#error "MADV_HUGEPAGE not declared: huge pages would silently be off"
#endif

/* Arrays made while a limit is set come from one arena: address space reserved once (twice
 * the machine's memory, none of it backed until written), cut into extents of whole grains.
 * A released array's extent joins its idle neighbours, and a request takes the smallest idle
 * extent that holds it, or else the free run that needs the fewest pages never written (or
 * given back): so the arena's resident size stays near the most memory in use at once. A ≤6
 * 8x8 build that kept whole arrays for requests of about their size wrote 4.8 GiB of fresh
 * pages for at most 2.5 GiB in use (docs/PERFORMANCE.md). The arena is one mapping advised as
 * huge pages, so an array gets them whatever grain it starts on. */
enum { HUGE_PAGE = 1 << 21, GRAIN = 1 << 16, MAX_EXTENTS = 8192 };
enum { EMPTY, IDLE, USED };   /* never written or given back; written and free; in use */

typedef struct {
    size_t start, size;   /* offset in the arena, multiples of GRAIN */
    int state;
} Extent;

static struct {
    pthread_mutex_t lock;
    uint8_t *base;        /* NULL: not reserved yet (or the reservation failed: `failed`) */
    bool failed;
    Extent e[MAX_EXTENTS]; /* by address, covering the arena; neighbours never both IDLE or both EMPTY */
    int n;
    size_t idle, limit;   /* bytes of IDLE extents; the most they may hold */
} arena = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Reserves the arena (under the lock); false if it cannot be. */
static bool reserve(void)
{
    if (arena.base || arena.failed)
        return arena.base != NULL;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    size_t size = pages > 0 && page > 0 ? 2 * (size_t)pages * (size_t)page : (size_t)1 << 36;
    size = (size + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void *p = mmap(NULL, size + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        arena.failed = true;
        return false;
    }
    uintptr_t at = ((uintptr_t)p + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    arena.base = (uint8_t *)at;
#ifdef MADV_HUGEPAGE
    madvise(arena.base, size, MADV_HUGEPAGE);
#endif
    arena.e[0] = (Extent){0, size, EMPTY};
    arena.n = 1;
    return true;
}

/* Splits extent k so that one starts at offset `at` (inside it); false if the table is full. */
static bool split_at(int k, size_t at)
{
    Extent *x = &arena.e[k];
    if (at == x->start)
        return true;
    if (arena.n == MAX_EXTENTS)
        return false;
    for (int j = arena.n; j > k + 1; j--)
        arena.e[j] = arena.e[j - 1];
    arena.n++;
    arena.e[k + 1] = (Extent){at, x->start + x->size - at, x->state};
    x->size = at - x->start;
    return true;
}

/* Joins the neighbours of equal state (IDLE with IDLE, EMPTY with EMPTY) around extent k. */
static void join_around(int k)
{
    int from = k > 0 ? k - 1 : 0, to = k + 1 < arena.n ? k + 1 : k;
    for (int j = to; j > from; j--) {
        Extent *a = &arena.e[j - 1], *b = &arena.e[j];
        if (a->state == b->state && a->state != USED) {
            a->size += b->size;
            for (int i = j; i + 1 < arena.n; i++)
                arena.e[i] = arena.e[i + 1];
            arena.n--;
        }
    }
}

/* The index of the extent holding offset `at`. */
static int extent_at(size_t at)
{
    int lo = 0, hi = arena.n - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (arena.e[mid].start <= at)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Bytes of EMPTY extents in [at, at + size), which lies in free extents. */
static size_t empty_in(size_t at, size_t size)
{
    size_t n = 0;
    for (int k = extent_at(at); k < arena.n && arena.e[k].start < at + size; k++) {
        const Extent *x = &arena.e[k];
        size_t lo = x->start > at ? x->start : at, hi = x->start + x->size < at + size ? x->start + x->size : at + size;
        n += x->state == EMPTY ? hi - lo : 0;
    }
    return n;
}

/* Where a request of `size` bytes (whole grains) goes: the smallest IDLE extent that holds it,
 * else the start or the end of a run of free extents, whichever writes the fewest fresh pages
 * (the smaller run on a tie). (size_t)-1 if no run holds it. */
static size_t place(size_t size)
{
    size_t best = (size_t)-1, best_size = (size_t)-1, best_fresh = (size_t)-1;
    for (int k = 0; k < arena.n; k++)
        if (arena.e[k].state == IDLE && arena.e[k].size >= size && arena.e[k].size < best_size) {
            best = arena.e[k].start;
            best_size = arena.e[k].size;
            best_fresh = 0;
        }
    if (best_fresh == 0)
        return best;
    for (int k = 0; k < arena.n;) {
        if (arena.e[k].state == USED) {
            k++;
            continue;
        }
        int end = k;
        size_t run = 0;
        for (; end < arena.n && arena.e[end].state != USED; end++)
            run += arena.e[end].size;
        if (run >= size) {
            size_t at[2] = {arena.e[k].start, arena.e[k].start + run - size};
            for (int i = 0; i < 2; i++) {
                size_t fresh = empty_in(at[i], size);
                if (fresh < best_fresh || (fresh == best_fresh && run < best_size)) {
                    best = at[i];
                    best_fresh = fresh;
                    best_size = run;
                }
            }
        }
        k = end;
    }
    return best;
}

/* Marks [at, at + size), in free extents, in use as one extent; false if the table is full. */
static bool take(size_t at, size_t size)
{
    int k = extent_at(at);
    if (!split_at(k, at))
        return false;
    k += arena.e[k].start != at;
    int last = extent_at(at + size - 1);
    if (arena.e[last].start + arena.e[last].size > at + size && !split_at(last, at + size))
        return false;
    for (int j = k; j <= last; j++)
        arena.idle -= arena.e[j].state == IDLE ? arena.e[j].size : 0;
    arena.e[k] = (Extent){at, size, USED};
    int gone = last - k;
    for (int j = k + 1; j + gone < arena.n; j++)
        arena.e[j] = arena.e[j + gone];
    arena.n -= gone;
    return true;
}

/* Bytes rounded up to whole grains. */
static size_t grains(size_t bytes)
{
    return (bytes + GRAIN - 1) / GRAIN * GRAIN;
}

/* Gives IDLE extents back to the kernel, the highest first, until they hold at most the limit:
 * the top of an extent if that is enough (the whole of it if it cannot be split). */
static void trim(void)
{
    for (int k = arena.n - 1; k >= 0 && arena.idle > arena.limit; k--) {
        if (arena.e[k].state != IDLE)
            continue;
        size_t drop = grains(arena.idle - arena.limit), end = arena.e[k].start + arena.e[k].size;
        if (drop < arena.e[k].size && split_at(k, end - drop))
            k++;
        Extent *x = &arena.e[k];
        madvise(arena.base + x->start, x->size, MADV_DONTNEED);
        arena.idle -= x->size;
        x->state = EMPTY;
        join_around(k);
    }
}

void *mem_huge(size_t bytes)
{
    bytes = bytes ? bytes : 1;
    pthread_mutex_lock(&arena.lock);
    if (arena.limit > 0 && reserve()) {
        size_t size = grains(bytes), at = place(size);
        if (at != (size_t)-1 && take(at, size)) {
            pthread_mutex_unlock(&arena.lock);
            return arena.base + at;
        }
    }
    pthread_mutex_unlock(&arena.lock);
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, bytes) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    if (bytes >= HUGE_PAGE)
        madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

void mem_release(void *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&arena.lock);
    uint8_t *b = p;
    if (arena.base && b >= arena.base && b < arena.base + arena.e[arena.n - 1].start + arena.e[arena.n - 1].size) {
        int k = extent_at((size_t)(b - arena.base));
        if (arena.e[k].start != (size_t)(b - arena.base) || arena.e[k].state != USED) {   /* not an array */
            pthread_mutex_unlock(&arena.lock);
            return;
        }
        arena.e[k].state = IDLE;
        arena.idle += arena.e[k].size;
        join_around(k);
        trim();
        pthread_mutex_unlock(&arena.lock);
        return;
    }
    pthread_mutex_unlock(&arena.lock);
    free(p);
}

void mem_keep_limit(size_t bytes)
{
    pthread_mutex_lock(&arena.lock);
    arena.limit = bytes;
    trim();
    pthread_mutex_unlock(&arena.lock);
}

size_t mem_kept_bytes(void)
{
    pthread_mutex_lock(&arena.lock);
    size_t bytes = arena.idle;
    pthread_mutex_unlock(&arena.lock);
    return bytes;
}

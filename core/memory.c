/* MADV_HUGEPAGE is a Linux extension: under _POSIX_C_SOURCE alone <sys/mman.h> hides it. */
#define _DEFAULT_SOURCE
#include "memory.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>

#if defined(__linux__) && !defined(MADV_HUGEPAGE)
#error "MADV_HUGEPAGE not declared: huge pages would silently be off"
#endif

enum { HUGE_PAGE = 1 << 21, MAX_ARRAYS = 4096 };

/* The arrays mem_huge made while a limit was set (the others are not kept): idle ones are
 * kept for reuse. `over` is what the limit bounds. */
typedef struct {
    void *p;
    size_t cap, asked;
    bool idle;
} Array;

static struct {
    pthread_mutex_t lock;
    Array a[MAX_ARRAYS];
    int n;
    size_t limit, over;
} keep = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Forgets array k, returning its memory (under the lock). */
static void forget(int k)
{
    free(keep.a[k].p);
    keep.a[k] = keep.a[--keep.n];
}

/* The smallest (largest if `largest`) idle array with cap at most `below`, or -1. */
static int idle_array(size_t below, bool largest)
{
    int best = -1;
    for (int k = 0; k < keep.n; k++)
        if (keep.a[k].idle && keep.a[k].cap <= below &&
            (best < 0 || (largest ? keep.a[k].cap > keep.a[best].cap : keep.a[k].cap < keep.a[best].cap)))
            best = k;
    return best;
}

void *mem_huge(size_t bytes)
{
    bytes = bytes ? bytes : 1;
    pthread_mutex_lock(&keep.lock);
    bool keeping = keep.limit > 0;
    /* The smallest idle array that holds `bytes`, if it is not more than twice as large. */
    int best = -1;
    for (int k = 0; keeping && k < keep.n; k++)
        if (keep.a[k].idle && keep.a[k].cap >= bytes && keep.a[k].cap / 2 <= bytes &&
            (best < 0 || keep.a[k].cap < keep.a[best].cap))
            best = k;
    if (best >= 0) {
        Array *a = &keep.a[best];
        a->idle = false;
        a->asked = bytes;
        keep.over -= bytes;
        pthread_mutex_unlock(&keep.lock);
        return a->p;
    }
    pthread_mutex_unlock(&keep.lock);
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, bytes) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    if (bytes >= HUGE_PAGE)
        madvise(p, bytes, MADV_HUGEPAGE);
#endif
    if (keeping) {
        pthread_mutex_lock(&keep.lock);
        if (keep.n < MAX_ARRAYS)
            keep.a[keep.n++] = (Array){p, bytes, bytes, false};
        pthread_mutex_unlock(&keep.lock);
    }
    return p;
}

void mem_release(void *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&keep.lock);
    int k = 0;
    while (k < keep.n && keep.a[k].p != p)
        k++;
    if (k == keep.n) {
        pthread_mutex_unlock(&keep.lock);
        free(p);
        return;
    }
    /* Taken out of the list while smaller idle arrays make room for it, if they can. */
    Array a = keep.a[k];
    keep.a[k] = keep.a[--keep.n];
    keep.over -= a.cap - a.asked;
    size_t smaller = 0;
    for (int j = 0; j < keep.n; j++)
        smaller += keep.a[j].idle && keep.a[j].cap <= a.cap ? keep.a[j].cap : 0;
    int small;
    while (keep.over + a.cap > keep.limit && keep.over - smaller + a.cap <= keep.limit &&
           (small = idle_array(a.cap, false)) >= 0) {
        keep.over -= keep.a[small].cap;
        forget(small);
    }
    bool kept = keep.over + a.cap <= keep.limit;
    if (kept) {
        keep.over += a.cap;
        keep.a[keep.n++] = (Array){a.p, a.cap, a.asked, true};
    }
    pthread_mutex_unlock(&keep.lock);
    if (!kept)
        free(a.p);
}

void mem_keep_limit(size_t bytes)
{
    pthread_mutex_lock(&keep.lock);
    keep.limit = bytes;
    int big;
    while (keep.over > keep.limit && (big = idle_array((size_t)-1, true)) >= 0) {
        keep.over -= keep.a[big].cap;
        forget(big);
    }
    pthread_mutex_unlock(&keep.lock);
}

size_t mem_kept_bytes(void)
{
    size_t bytes = 0;
    pthread_mutex_lock(&keep.lock);
    for (int k = 0; k < keep.n; k++)
        bytes += keep.a[k].idle ? keep.a[k].cap : 0;
    pthread_mutex_unlock(&keep.lock);
    return bytes;
}

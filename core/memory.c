/* MADV_HUGEPAGE is a Linux extension: under _POSIX_C_SOURCE alone <sys/mman.h> hides it. */
#define _DEFAULT_SOURCE
#include "memory.h"

#include <stdlib.h>
#include <sys/mman.h>

#if defined(__linux__) && !defined(MADV_HUGEPAGE)
#error "MADV_HUGEPAGE not declared: huge pages would silently be off"
#endif

enum { HUGE_PAGE = 1 << 21 };

void *mem_huge(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, bytes ? bytes : 1) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    if (bytes >= HUGE_PAGE)
        madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

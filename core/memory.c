#include "memory.h"

#include <stdlib.h>
#include <sys/mman.h>

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

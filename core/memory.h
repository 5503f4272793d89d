/* Large arrays that are read and written at random (transposition tables, endgame tables
 * being solved): 2 MiB aligned and advised as transparent huge pages, so that a random access
 * rarely misses the TLB (Debian enables huge pages only where advised). */
#ifndef DAMAS_MEMORY_H
#define DAMAS_MEMORY_H

#include <stddef.h>

/* `bytes` bytes (uninitialised), or NULL. Release with free(). */
void *mem_huge(size_t bytes);

#endif

/* Large arrays that are read and written at random (transposition tables, endgame tables
 * being solved): 2 MiB aligned and advised as transparent huge pages, so that a random access
 * rarely misses the TLB (Debian enables huge pages only where advised).
 *
 * Released arrays may be kept for reuse, up to a limit the program sets (none by default): a
 * generator that builds unit after unit then writes to memory the kernel has already mapped
 * and zeroed instead of fresh pages (the first write to a fresh page costs more than the
 * work done on it in a pass over a table). Thread-safe. */
#ifndef DAMAS_MEMORY_H
#define DAMAS_MEMORY_H

#include <stddef.h>

/* `bytes` bytes (uninitialised, perhaps a kept array's), or NULL. Release with mem_release,
 * never free(): a kept array freed behind its back would be handed out again. */
void *mem_huge(size_t bytes);

/* Releases p (from mem_huge, malloc or NULL): kept for reuse if it came from mem_huge and the
 * limit allows, else freed. */
void mem_release(void *p);

/* The most bytes kept arrays may hold beyond what is asked of mem_huge: the arrays kept idle,
 * plus what the arrays in use that were kept ones hold beyond their request. 0 (the default)
 * keeps none; lowering the limit frees kept arrays until it is met. */
void mem_keep_limit(size_t bytes);

/* Bytes of the arrays kept idle now. */
size_t mem_kept_bytes(void);

#endif

/* Large arrays that are read and written at random (transposition tables, endgame tables
 * being solved): advised as transparent huge pages, so that a random access rarely misses the
 * TLB (Debian enables huge pages only where advised).
 *
 * While the program sets a limit (none by default), arrays come from one arena that keeps the
 * pages of released arrays, up to the limit, and hands them out again, joined with their
 * free neighbours or in part: a generator that builds unit after unit then writes to memory
 * the kernel has already mapped instead of fresh pages (the first write to a fresh page costs
 * more than the work done on it in a pass over a table), and holds about the memory it uses
 * at once. Thread-safe. */
#ifndef DAMAS_MEMORY_H
#define DAMAS_MEMORY_H

#include <stddef.h>

/* `bytes` bytes (uninitialised, perhaps pages a released array held), aligned to at least 64
 * KiB, or NULL. Release with mem_release, never free(). */
void *mem_huge(size_t bytes);

/* Releases p (from mem_huge, malloc or NULL): an array from the arena keeps its pages for reuse
 * as far as the limit allows (the highest go back to the kernel first); others are freed. */
void mem_release(void *p);

/* The most bytes of released arrays' pages the arena may keep. 0 (the default) keeps none and
 * makes new arrays outside the arena; lowering the limit gives kept pages back until it is
 * met. */
void mem_keep_limit(size_t bytes);

/* Bytes of released arrays' pages kept now (whole 64 KiB grains). */
size_t mem_kept_bytes(void);

#endif

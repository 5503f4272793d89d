/* The HDF5 LZ4 filter, registered filter id 32004, in the chunk format the HDF Group plugin,
 * h5py/hdf5plugin and Debian's hdf5-filter-plugin use:
 *   u64 BE  original size | u32 BE  block size | per block: u32 BE  stored size, then the
 *   block, LZ4-compressed, or raw when the stored size equals the block's original size. */
#ifndef DAMAS_H5LZ4_H
#define DAMAS_H5LZ4_H

#include <stddef.h>

enum { H5LZ4_FILTER_ID = 32004 };

/* Registers the filter with the HDF5 library of this process (idempotent). Returns 0, or -1
 * if HDF5 refuses it. Thread-safe. */
int h5lz4_register(void);

/* Decodes one chunk `in` of in_len bytes into out (capacity out_cap). Returns the decoded
 * size, or 0 if the chunk is malformed or larger than out_cap; never reads outside in or
 * writes outside out. Thread-safe. */
size_t h5lz4_decode(const void *in, size_t in_len, void *out, size_t out_cap);

/* As h5lz4_decode, but decodes only what bytes [from, want) need: the blocks before the one
 * holding byte `from` are skipped (their bytes of out left as they were), and the block
 * holding byte want - 1 is decoded only up to it. *lo (unless NULL) receives the first byte
 * decoded: the start of the block holding `from` (0 if from >= want). Returns the end of the
 * bytes decoded (want, or the decoded size if smaller); 0 if malformed. */
size_t h5lz4_decode_range(const void *in, size_t in_len, void *out, size_t out_cap, size_t from, size_t want,
                          size_t *lo);

/* Encodes n bytes of `in` as one chunk (blocks of `block` bytes, 0 = one block) into a new
 * malloc'd buffer *out, with LZ4 (level 0) or LZ4HC at `level` (1..12: slower, smaller; the
 * same format for every decoder). Returns the chunk's size, or 0 if n is 0 or above 2 GiB or
 * memory runs out. Thread-safe. */
size_t h5lz4_encode(const void *in, size_t n, unsigned block, int level, unsigned char **out);

/* The decoded size a chunk announces in its header (0 if in_len < 12). */
size_t h5lz4_decoded_size(const void *in, size_t in_len);

#endif

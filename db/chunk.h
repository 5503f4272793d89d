/* Checked, compressed value arrays in HDF5: a 1-D dataset split into chunks of CHUNK_BYTES,
 * each encoded in the LZ4 filter's format (id 32004, so h5py + hdf5plugin and h5dump read the
 * dataset as usual) by LZ4HC and written directly, with a second dataset `<name>_check`
 * holding one 64-bit checksum per chunk of its stored (encoded) bytes. Reading bypasses the
 * HDF5 filter pipeline: raw chunks are read (H5Dread_chunk, or pread at the addresses HDF5's
 * chunk index gives, for probes), checked, then decoded with liblz4.
 * Library code inside db/; HDF5 calls are not made thread-safe here (callers serialise them). */
#ifndef DAMAS_DB_CHUNK_H
#define DAMAS_DB_CHUNK_H

#include <hdf5.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "table.h"

/* The distances' chunks are encoded in LZ4 blocks of CHUNK_DTW_BLOCK bytes, so that a probe
 * decodes only the block holding the distance it needs; the values' chunks in one block
 * (blocks cost compression, and the values are what must be small). The values are encoded
 * with LZ4HC level CHUNK_LZ4HC_LEVEL; the distances, four to eight times their bytes, with the
 * faster CHUNK_DTW_LZ4HC_LEVEL (2% larger, a fifth less time writing: docs/PERFORMANCE.md). */
enum { CHUNK_BYTES = 1 << 16, CHUNK_DTW_BLOCK = 1 << 14, CHUNK_LZ4HC_LEVEL = 6, CHUNK_DTW_LZ4HC_LEVEL = 4 };
_Static_assert(DB_SHARE_ALIGN % (4 * CHUNK_BYTES) == 0, "a share holds whole chunks of values and distances");

/* Elements per chunk of a dataset of `elements` values of `size` bytes: CHUNK_BYTES' worth,
 * or all of them when fewer (a chunk may not exceed a fixed-size dataset). */
uint64_t chunk_elements(uint64_t elements, int size);

/* Writes `elements` values of `size` bytes (1 or 2, stored little-endian) from data as
 * dataset `name` of group g, each chunk in LZ4 blocks of `block` bytes (0: one block) encoded
 * at LZ4HC level `level`, and its checksums, and a hash of those in *summary. Returns 0, or -1
 * on an HDF5 or memory error. */
int chunk_write(hid_t g, const char *name, int size, const void *data, uint64_t elements, unsigned block, int level,
                uint64_t *summary);

/* chunk_write for data held in shares (db_share of `positions`) by several processes: the
 * dataset's element e holds positions [e * per_element, (e + 1) * per_element) (4 for the
 * packed values, 1 for the distances); each process encodes the chunks that start in its
 * share (its data filled there), and rank 0, which alone has g open (pass -1 elsewhere),
 * writes them all, in order, and the summary. The shares' starts must be multiples of the
 * chunks (db_share_align a multiple of DB_SHARE_ALIGN). Collective; every process gets rank
 * 0's outcome. Without sh (NULL), chunk_write. */
int chunk_write_shared(hid_t g, const char *name, int size, const void *data, uint64_t elements,
                       uint64_t positions, unsigned per_element, unsigned block, int level, const DbShares *sh,
                       uint64_t *summary);

typedef struct {
    hid_t d;               /* the dataset, open */
    uint64_t elements;
    int size;              /* bytes per element */
    uint64_t chunk_elements;  /* per chunk */
    uint64_t nchunks;
    uint64_t *check;       /* per chunk */
    uint64_t bytes;        /* stored bytes of the dataset and its checksums */
    uint64_t summary;      /* hash of the checksums, as chunk_write gives it */
    uint64_t *addr;        /* after chunk_locate: each chunk's offset in the file */
    uint32_t *stored;      /* and its stored size */
} ChunkSet;

/* Opens dataset `name` of g and reads its checksums. Returns 0, or -1 if it is missing, of
 * another shape or type than `size`-byte (0: 1- or 2-byte) unsigned integers, or unreadable. */
int chunk_open(hid_t g, const char *name, int size, ChunkSet *c);
void chunk_close(ChunkSet *c);

/* Serialises HDF5 calls of threads that share files (the HDF5 library may not be built
 * thread-safe). */
extern pthread_mutex_t chunk_hdf5_lock;

/* Finds where each chunk of c lies in its file (from HDF5's chunk index), so that
 * chunk_read_located can read it without HDF5. Returns 0, or -1 if a chunk is missing,
 * filtered otherwise than as written, of an impossible size, or beyond `file_size` bytes (a
 * truncated file). HDF5 calls: serialise them (chunk_hdf5_lock). */
int chunk_locate(ChunkSet *c, uint64_t file_size);

/* Closes c's HDF5 dataset, keeping what chunk_open and chunk_locate read: enough for
 * chunk_read_located, so that a probe need not keep the file open in HDF5. HDF5 calls:
 * serialise them (chunk_hdf5_lock). */
void chunk_detach(ChunkSet *c);

/* Reads chunk k of a located c from `fd` (the file, open for reading) with pread, checks it
 * and decodes at least its bytes [from, want) into their places in out (little-endian values
 * of elements k * chunk_elements onward, at most CHUNK_BYTES): from the start of the LZ4 block
 * holding byte `from` (in *lo) to want (see h5lz4_decode_range). Returns the end of the bytes
 * decoded (want, or the chunk's size if smaller), or 0 if the chunk cannot be read, fails its
 * checksum or does not decode. No HDF5 call; thread-safe. */
size_t chunk_read_located(const ChunkSet *c, int fd, uint64_t k, uint8_t *out, size_t from, size_t want, size_t *lo);

/* Reads the whole dataset into out (elements * size bytes) through HDF5, checking every chunk;
 * 0, or the failing chunk + 1. HDF5 calls: serialise them. */
uint64_t chunk_read_all(const ChunkSet *c, void *out);

/* A slice's stored values (docs/FORMAT.md): `wdl` two bits a position, `dtw` halved, each
 * either a chunked dataset or, when there is a single value, the attribute <name>_constant. */
typedef struct {
    ChunkSet wdl, dtw;       /* .d < 0 when constant */
    int constant_wdl, constant_dtw;   /* -1 when stored */
} StoredSlice;

/* The slice attribute `values_check`: a hash of the constants (-1 when stored) and of the two
 * datasets' checksum summaries (0 when constant). */
uint64_t stored_values_check(int constant_wdl, int constant_dtw, uint64_t wdl_summary, uint64_t dtw_summary);

/* Opens the values of slice group g; 0, or -1 if they are missing, malformed or fail
 * values_check. */
int stored_open(hid_t g, uint64_t positions, StoredSlice *s);
void stored_close(StoredSlice *s);

/* The 2-bit value of position i from a decoded wdl chunk holding it, and its stored half
 * distance from a decoded dtw chunk. */
static inline int stored_wdl_at(const ChunkSet *c, const uint8_t *chunk, uint64_t i)
{
    uint64_t b = i % (c->chunk_elements * 4);
    return chunk[b / 4] >> (2 * (b % 4)) & 3;
}

static inline int stored_half_at(const ChunkSet *c, const uint8_t *chunk, uint64_t i)
{
    uint64_t b = i % c->chunk_elements;
    return c->size == 1 ? chunk[b] : chunk[2 * b] | chunk[2 * b + 1] << 8;
}

#endif

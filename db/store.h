/* Endgame tables on disk (in memory: table.h). A database directory holds a manifest
 * (damas-db.txt: variant and rules) and one HDF5 file per unit (a slice and its colour-flipped
 * twin), each slice a group with an LZ4-compressed `wdl` (uint8) and `dtw` (uint16) dataset and
 * its statistics as attributes (docs/FORMAT.md). Library code: returns DamasStatus codes with
 * a message in err. */
#ifndef DAMAS_DB_STORE_H
#define DAMAS_DB_STORE_H

#include <hdf5.h>

#include "chunk.h"
#include "table.h"

enum { STORE_PATH_MAX = 4096 };

/* Version of the storage format of docs/FORMAT.md (packing, don't-cares, checksums). */
enum { DB_FORMAT_VERSION = 2 };

/* The canonical name of the unit of m: the smaller name of m and its swap. */
void store_unit_name(Material m, char *buf);

/* Checks that dir's manifest is for variant v (and its rule options), or (create) writes one
 * if there is none. */
int store_manifest(const char *dir, const Variant *v, bool create, char *err, size_t errlen);

/* Makes directory dir, and the directories above it, where missing. */
int store_make_dir(const char *dir, char *err, size_t errlen);

/* Reads the variant recorded in dir's manifest. */
int store_manifest_variant(const char *dir, Variant *v, char *err, size_t errlen);

/* Takes the exclusive lock of database directory dir (an existing directory; the lock file
 * damas-db.lock in it) for this process, and removes the temporary files killed runs left.
 * Returns the lock's descriptor (store_unlock releases it), or -1 with a message when another
 * process holds it or it cannot be taken. */
int store_lock(const char *dir, char *err, size_t errlen);
void store_unlock(int fd);

/* Whether the unit file of m is complete on disk. */
bool store_unit_exists(const char *dir, Material m);

/* The path of the unit file of m in dir (path holds STORE_PATH_MAX). */
void store_unit_path(const char *dir, Material m, char *path);

/* Writes the n tables of one unit atomically (temporary file, fsync, rename), packed and
 * compressed (docs/FORMAT.md). The tables' statistics must be current (table_stats; unit_solve
 * leaves them so); their dont_care flags are computed if NULL. */
int store_write_unit(const char *dir, const Variant *v, DbTable *const *tables, int n, char *err, size_t errlen);

/* store_write_unit for tables held in shares by several processes (table.h): each packs and
 * encodes its share, rank 0 writes the file (the same bytes as one process writes). The
 * statistics must be current on every process (table_stats_shared) and the don't-care flags
 * set. Collective; every process gets rank 0's outcome. */
int store_write_unit_shared(const char *dir, const Variant *v, DbTable *const *tables, int n, const DbShares *sh,
                            char *err, size_t errlen);

/* Loads the unit containing m (its slices) into s, checking variant, index and format
 * versions, sizes and checksums; the positions stored as don't-cares get their values from
 * their captures, so the units those lead to must be in s already (load in gen_units order).
 * Without `data`, reads only the statistics (the codes stay NULL). */
int store_load_unit(const char *dir, Material m, bool data, DbSet *s, char *err, size_t errlen);

/* Opens the unit file of m in dir read-only (*file; its path in path, STORE_PATH_MAX),
 * checking it is an HDF5 file of this storage format. The caller closes it (H5Fclose). */
int store_open_unit(const char *dir, Material m, hid_t *file, char *path, char *err, size_t errlen);

/* Opens the stored values of `slice` in an open unit file, checking the slice's variant,
 * rules, index scheme and size. */
int store_open_slice(hid_t file, const char *path, const Variant *v, const Slice *slice, StoredSlice *st,
                     char *err, size_t errlen);

#endif

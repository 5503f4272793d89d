#include "dataset.h"

#include <errno.h>
#include <hdf5.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/board.h"
#include "../core/error.h"
#include "../core/position.h"
#include "../core/variant.h"
#include "../db/h5lz4.h"
#include "../db/h5util.h"

static const char dataset_format[] = "damas training positions";

/* Rows per chunk: 64 K rows of 40 bytes, about 2.5 MB before compression. */
enum { CHUNK_ROWS = 65536 };

struct Dataset {
    const Board *board;
    hid_t file, data, type;
    uint64_t rows, games;
    char path[1024];
};

static hid_t row_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(DatasetRow));
    H5Tinsert(t, "white", HOFFSET(DatasetRow, white), H5T_NATIVE_UINT64);
    H5Tinsert(t, "black", HOFFSET(DatasetRow, black), H5T_NATIVE_UINT64);
    H5Tinsert(t, "kings", HOFFSET(DatasetRow, kings), H5T_NATIVE_UINT64);
    H5Tinsert(t, "game", HOFFSET(DatasetRow, game), H5T_NATIVE_UINT32);
    H5Tinsert(t, "label", HOFFSET(DatasetRow, label), H5T_NATIVE_FLOAT);
    H5Tinsert(t, "score", HOFFSET(DatasetRow, score), H5T_NATIVE_INT16);
    H5Tinsert(t, "side", HOFFSET(DatasetRow, side), H5T_NATIVE_UINT8);
    H5Tinsert(t, "exact", HOFFSET(DatasetRow, exact), H5T_NATIVE_UINT8);
    return t;
}

static Dataset *create(const char *path, const Variant *v, char *err, size_t errlen)
{
    Dataset *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    d->board = variant_board(v);
    /* The 1.8 file format: its metadata carries checksums and, unlike the 1.10 superblock, it
     * does not mark the file open for writing, so the next run opens a file whose writer was
     * killed (HDF5's file lock still keeps out a second writer while one has it open). */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST);
    d->file = H5Fcreate(path, H5F_ACC_EXCL, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (d->file < 0) {
        free(d);
        snprintf(err, errlen, "cannot create %s (directory missing or read-only?)", path);
        return NULL;
    }
    char rules[VARIANT_RULES_MAX];
    variant_rules_text(v, rules);
    d->type = row_type();
    hsize_t dims[1] = {0}, max[1] = {H5S_UNLIMITED}, chunk[1] = {CHUNK_ROWS};
    hid_t space = H5Screate_simple(1, dims, max), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, chunk);
    H5Pset_filter(dcpl, H5LZ4_FILTER_ID, H5Z_FLAG_MANDATORY, 0, NULL);
    d->data = H5Dcreate2(d->file, "positions", d->type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    if (d->data < 0 || h5_attr_write_string(d->file, "format", dataset_format) ||
        h5_attr_write_string(d->file, "variant", v->name) || h5_attr_write_string(d->file, "rules", rules) ||
        h5_attr_write_u64(d->file, "games", 0) || H5Fflush(d->file, H5F_SCOPE_GLOBAL) < 0) {
        snprintf(err, errlen, "cannot write %s (disk full?)", path);
        dataset_close(d);
        remove(path);
        return NULL;
    }
    snprintf(d->path, sizeof d->path, "%s", path);
    return d;
}

Dataset *dataset_open(const char *path, const Variant *v, char *err, size_t errlen)
{
    if (h5_init() != 0) {
        snprintf(err, errlen, "cannot register the LZ4 filter with HDF5");
        return NULL;
    }
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno != ENOENT) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            return NULL;
        }
        return create(path, v, err, errlen);
    }
    if (H5Fis_hdf5(path) <= 0) {
        snprintf(err, errlen, "%s is not an HDF5 file (damaged, truncated, or not a data set)", path);
        return NULL;
    }
    Dataset *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(d->path, sizeof d->path, "%s", path);
    d->board = variant_board(v);
    d->data = d->type = -1;
    d->file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    char format[64], variant[32], rules[VARIANT_RULES_MAX], want[VARIANT_RULES_MAX];
    variant_rules_text(v, want);
    if (d->file < 0) {
        snprintf(err, errlen,
                 "%s cannot be opened for writing (damaged, read-only, open in another process, or marked "
                 "open by a killed run: `h5clear -s %s` clears that mark)",
                 path, path);
    } else if (h5_attr_string(d->file, "format", format, sizeof format) || strcmp(format, dataset_format) ||
               h5_attr_string(d->file, "variant", variant, sizeof variant) ||
               h5_attr_string(d->file, "rules", rules, sizeof rules) || h5_attr_u64(d->file, "games", &d->games)) {
        snprintf(err, errlen, "%s is not a damas training data set (its attributes are missing or malformed)", path);
    } else if (strcmp(variant, v->name) || strcmp(rules, want)) {
        snprintf(err, errlen, "%s holds positions of %s (%s), not of %s (%s)", path, variant, rules, v->name, want);
    } else {
        d->type = row_type();
        d->data = H5Lexists(d->file, "positions", H5P_DEFAULT) > 0 ? H5Dopen2(d->file, "positions", H5P_DEFAULT) : -1;
        hid_t space = d->data >= 0 ? H5Dget_space(d->data) : -1, type = d->data >= 0 ? H5Dget_type(d->data) : -1;
        hsize_t dims[1];
        bool ok = space >= 0 && type >= 0 && H5Sget_simple_extent_ndims(space) == 1 &&
                  H5Sget_simple_extent_dims(space, dims, NULL) == 1 && H5Tget_class(type) == H5T_COMPOUND &&
                  H5Tget_nmembers(type) == 8;
        if (space >= 0)
            H5Sclose(space);
        if (type >= 0)
            H5Tclose(type);
        if (ok) {
            d->rows = dims[0];
            return d;
        }
        snprintf(err, errlen, "%s: its dataset 'positions' is missing or of another shape", path);
    }
    dataset_close(d);
    return NULL;
}

uint64_t dataset_rows(const Dataset *d)
{
    return d->rows;
}

uint64_t dataset_games(const Dataset *d)
{
    return d->games;
}

int dataset_append(Dataset *d, const DatasetRow *rows, size_t n, uint64_t games, char *err, size_t errlen)
{
    hsize_t size[1] = {d->rows + n}, start[1] = {d->rows}, count[1] = {n};
    int bad = 0;
    if (n) {
        bad = H5Dset_extent(d->data, size) < 0;
        hid_t file_space = bad ? -1 : H5Dget_space(d->data), mem = H5Screate_simple(1, count, NULL);
        bad = bad || file_space < 0 ||
              H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
              H5Dwrite(d->data, d->type, mem, file_space, H5P_DEFAULT, rows) < 0;
        if (file_space >= 0)
            H5Sclose(file_space);
        H5Sclose(mem);
    }
    bad = bad || h5_attr_write_u64(d->file, "games", games) || H5Fflush(d->file, H5F_SCOPE_GLOBAL) < 0;
    if (bad)
        FAIL(DAMAS_ERR_IO, "cannot append to %s (disk full?)", d->path);
    d->rows += n;
    d->games = games;
    return DAMAS_OK;
}

int dataset_read(Dataset *d, uint64_t from, size_t n, DatasetRow *out, char *err, size_t errlen)
{
    if (from + n > d->rows)
        FAIL(DAMAS_ERR_RANGE, "%s holds %llu rows, not %llu", d->path, (unsigned long long)d->rows,
             (unsigned long long)(from + n));
    if (!n)
        return DAMAS_OK;
    hsize_t start[1] = {from}, count[1] = {n};
    hid_t file_space = H5Dget_space(d->data), mem = H5Screate_simple(1, count, NULL);
    int bad = file_space < 0 || H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
              H5Dread(d->data, d->type, mem, file_space, H5P_DEFAULT, out) < 0;
    if (file_space >= 0)
        H5Sclose(file_space);
    H5Sclose(mem);
    if (bad)
        FAIL(DAMAS_ERR_CORRUPT, "%s cannot be read (damaged?)", d->path);
    /* Every row must be a position of the board: the features index tables by square. */
    Bitboard all = d->board->all;
    for (size_t i = 0; i < n; i++) {
        const DatasetRow *r = &out[i];
        if ((r->white & ~all) || (r->black & ~all) || (r->white & r->black) || (r->kings & ~(r->white | r->black)) ||
            r->side > 1 || !(r->label >= 0 && r->label <= 1))
            FAIL(DAMAS_ERR_CORRUPT, "%s: row %llu is not a position of a %dx%d board with a label in [0, 1]", d->path,
                 (unsigned long long)(from + i), d->board->size, d->board->size);
    }
    return DAMAS_OK;
}

void dataset_position(const DatasetRow *row, Position *out)
{
    out->pieces[WHITE] = row->white;
    out->pieces[BLACK] = row->black;
    out->kings = row->kings;
    out->side = row->side;
    out->hash = pos_hash(out);
}

void dataset_close(Dataset *d)
{
    if (!d)
        return;
    if (d->data >= 0)
        H5Dclose(d->data);
    if (d->type >= 0)
        H5Tclose(d->type);
    if (d->file >= 0)
        H5Fclose(d->file);
    free(d);
}

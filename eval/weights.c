/* Weight files: HDF5, one float32 dataset of shape (2, length) per feature group (row 0 the
 * opening weights, row 1 the endgame weights), root attributes format, variant, board_size,
 * feature_set and provenance (docs/FORMAT.md). */
#include <errno.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/error.h"
#include "../core/variant.h"
#include "../db/h5util.h"
#include "eval.h"

static const char weights_format[] = "damas evaluation weights";
/* The feature set each group first appeared in (0: in every set still read); a file of an
 * older set lacks it, and its weights stay 0. */
static const uint64_t group_since[EVAL_GROUPS] = {[EVAL_RECTANGLES] = 3, [EVAL_KINGS] = 4};
/* Whether dataset d holds floating-point values in chunks no larger than itself (a damaged
 * chunk size would otherwise make HDF5 allocate gigabytes before any check). */
static bool stored_sanely(hid_t d)
{
    hid_t type = H5Dget_type(d), dcpl = H5Dget_create_plist(d);
    bool ok = type >= 0 && H5Tget_class(type) == H5T_FLOAT && dcpl >= 0;
    if (ok && H5Pget_layout(dcpl) == H5D_CHUNKED) {
        hsize_t chunk[2] = {0, 0}, dims[2] = {0, 0};
        hid_t space = H5Dget_space(d);
        ok = H5Pget_chunk(dcpl, 2, chunk) == 2 && space >= 0 && H5Sget_simple_extent_dims(space, dims, NULL) == 2 &&
             chunk[0] <= dims[0] && chunk[1] <= dims[1];
        if (space >= 0)
            H5Sclose(space);
    }
    if (type >= 0)
        H5Tclose(type);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    return ok;
}

int weights_load(const char *path, const Variant *v, Weights *out, char *err, size_t errlen)
{
    h5_init();
    if (access(path, R_OK) != 0)
        FAIL(DAMAS_ERR_UNKNOWN, "%s: %s", path, strerror(errno));
    if (H5Fis_hdf5(path) <= 0)
        FAIL(DAMAS_ERR_CORRUPT, "%s is not an HDF5 file (damaged, truncated, or not a weight file)", path);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        FAIL(DAMAS_ERR_CORRUPT, "%s cannot be opened (damaged or truncated)", path);
    Weights *w = calloc(1, sizeof *w);
    float *buf = malloc(2 * EVAL_MAX_WEIGHTS * sizeof *buf);
    if (!w || !buf) {
        free(w);
        free(buf);
        H5Fclose(f);
        FAIL(DAMAS_ERR_NOMEM, "out of memory for the weights of %s", path);
    }
    char format[64] = "";
    uint64_t set = 0, size = 0;
    const char *attr = "format";
    int rc = h5_attr_string(f, attr, format, sizeof format);
    if (rc == H5A_OK && strcmp(format, weights_format))
        rc = H5A_MALFORMED;
    if (rc == H5A_OK)
        rc = h5_attr_string(f, attr = "variant", w->variant, sizeof w->variant);
    if (rc == H5A_OK)
        rc = h5_attr_u64(f, attr = "feature_set", &set);
    if (rc == H5A_OK)
        rc = h5_attr_u64(f, attr = "board_size", &size);
    if (rc != H5A_OK) {
        snprintf(err, errlen, "%s is not a damas weight file (attribute '%s' is %s)", path, attr,
                 rc == H5A_MALFORMED && !strcmp(attr, "format") && format[0] ? "another format" : h5_attr_problem(rc));
        rc = DAMAS_ERR_CORRUPT;
    } else if (strcmp(w->variant, v->name)) {
        snprintf(err, errlen, "%s holds weights for %s, not %s", path, w->variant, v->name);
        rc = DAMAS_ERR_ILLEGAL;
    } else if (set < EVAL_FEATURE_SET_OLDEST || set > EVAL_FEATURE_SET) {
        snprintf(err, errlen,
                 "%s holds weights of feature set %llu; this damas evaluates with feature set %d (%s), so those "
                 "weights cannot be used: train new ones (damas train)",
                 path, (unsigned long long)set, EVAL_FEATURE_SET, EVAL_FEATURE_SET_NAME);
        rc = DAMAS_ERR_ILLEGAL;
    } else if (size != (uint64_t)v->rules.board_size) {
        snprintf(err, errlen, "%s holds weights for a %llux%llu board, not %dx%d", path, (unsigned long long)size,
                 (unsigned long long)size, v->rules.board_size, v->rules.board_size);
        rc = DAMAS_ERR_ILLEGAL;
    }
    if (rc == DAMAS_OK)
        h5_attr_string(f, "provenance", w->provenance, sizeof w->provenance);   /* "" if absent */
    eval_layout(v->rules.board_size, &w->layout);
    for (int g = 0; g < EVAL_GROUPS && rc == DAMAS_OK; g++) {
        const char *name = eval_group_names[g];
        int len = w->layout.length[g];
        if (set < group_since[g])
            continue;
        hid_t d = H5Lexists(f, name, H5P_DEFAULT) > 0 ? H5Dopen2(f, name, H5P_DEFAULT) : -1;
        hid_t space = d >= 0 ? H5Dget_space(d) : -1;
        hsize_t dims[2] = {0, 0};
        bool ok = space >= 0 && H5Sget_simple_extent_ndims(space) == 2 &&
                  H5Sget_simple_extent_dims(space, dims, NULL) == 2 && dims[0] == 2 && dims[1] == (hsize_t)len;
        ok = ok && stored_sanely(d);
        ok = ok && H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0;
        for (int i = 0; ok && i < 2 * len; i++)
            ok = buf[i] == buf[i] && buf[i] > -1e6f && buf[i] < 1e6f;   /* finite and sane */
        if (ok)
            for (int p = 0; p < 2; p++)
                memcpy(&w->w[p][w->layout.offset[g]], buf + p * len, (size_t)len * sizeof(float));
        else {
            snprintf(err, errlen, "%s: group '%s' is missing, not 2 x %d values, or holds non-finite values", path,
                     name, len);
            rc = DAMAS_ERR_CORRUPT;
        }
        if (space >= 0)
            H5Sclose(space);
        if (d >= 0)
            H5Dclose(d);
    }
    H5Fclose(f);
    if (rc == DAMAS_OK)
        *out = *w;
    free(w);
    free(buf);
    return rc;
}

int weights_save(const char *path, const Weights *w, char *err, size_t errlen)
{
    h5_init();
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    H5Pset_obj_track_times(fcpl, 0);
    /* The newer file format: its metadata carries checksums, so damage is found on reading. */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_LATEST);
    hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, fcpl, fapl);
    H5Pclose(fapl);
    H5Pclose(fcpl);
    if (f < 0)
        FAIL(DAMAS_ERR_IO, "cannot create %s (directory missing or read-only?)", tmp);
    int bad = h5_attr_write_string(f, "format", weights_format) | h5_attr_write_string(f, "variant", w->variant) |
              h5_attr_write_u64(f, "feature_set", EVAL_FEATURE_SET) |
              h5_attr_write_u64(f, "board_size", (uint64_t)w->layout.board_size) |
              h5_attr_write_string(f, "provenance", w->provenance);
    if (w->meta.set) {
        const WeightsMeta *m = &w->meta;
        bad |= h5_attr_write_u64(f, "generations", (uint64_t)m->generations) |
               h5_attr_write_u64(f, "games", m->games) |
               h5_attr_write_u64(f, "positions", m->positions) |
               h5_attr_write(f, "elo_vs_builtin", H5T_IEEE_F64LE, &m->elo) |
               h5_attr_write(f, "elo_vs_builtin_low", H5T_IEEE_F64LE, &m->elo_low) |
               h5_attr_write(f, "elo_vs_builtin_high", H5T_IEEE_F64LE, &m->elo_high) |
               h5_attr_write_u64(f, "seed", m->seed) | h5_attr_write_string(f, "date", m->date) |
               h5_attr_write_string(f, "damas_version", m->version);
    }
    float *buf = malloc(2 * EVAL_MAX_WEIGHTS * sizeof *buf);
    bad |= !buf;
    for (int g = 0; g < EVAL_GROUPS && !bad; g++) {
        int len = w->layout.length[g];
        for (int p = 0; p < 2; p++)
            memcpy(buf + p * len, &w->w[p][w->layout.offset[g]], (size_t)len * sizeof(float));
        hsize_t dims[2] = {2, (hsize_t)len};
        hid_t space = H5Screate_simple(2, dims, NULL);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_obj_track_times(dcpl, 0);
        /* One chunk, deflated and checksummed: most region weights are 0 or near it. */
        H5Pset_chunk(dcpl, 2, dims);
        H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, 6);
        H5Pset_fletcher32(dcpl);
        hid_t d = H5Dcreate2(f, eval_group_names[g], H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        bad |= d < 0 || H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0;
        if (d >= 0)
            H5Dclose(d);
        H5Pclose(dcpl);
        H5Sclose(space);
    }
    free(buf);
    bad |= H5Fclose(f) < 0;
    if (bad || rename(tmp, path) != 0) {
        unlink(tmp);
        FAIL(DAMAS_ERR_IO, "cannot write %s (disk full?)", path);
    }
    return DAMAS_OK;
}

/* Weight files: HDF5, one float32 dataset of shape (2, length) per feature group (row 0 the
 * opening weights, row 1 the endgame weights), root attributes format, variant, board_size,
 * feature_set and provenance (docs/FORMAT.md). */
#include <errno.h>
#include <hdf5.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/error.h"
#include "../core/variant.h"
#include "eval.h"

static const char weights_format[] = "damas evaluation weights";
static pthread_once_t hdf5_once = PTHREAD_ONCE_INIT;

static void hdf5_quiet(void)
{
    H5dont_atexit();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static int attr_string_read(hid_t obj, const char *name, char *buf, size_t len)
{
    if (H5Aexists(obj, name) <= 0)
        return -1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT), t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, len);
    int rc = a < 0 || H5Aread(a, t, buf) < 0 ? -1 : 0;
    buf[len - 1] = '\0';
    H5Tclose(t);
    if (a >= 0)
        H5Aclose(a);
    return rc;
}

static int attr_u64_read(hid_t obj, const char *name, uint64_t *v)
{
    if (H5Aexists(obj, name) <= 0)
        return -1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    int rc = a < 0 || H5Aread(a, H5T_NATIVE_UINT64, v) < 0 ? -1 : 0;
    if (a >= 0)
        H5Aclose(a);
    return rc;
}

static int attr_write(hid_t obj, const char *name, hid_t type, const void *value)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a < 0 || H5Awrite(a, type, value) < 0 ? -1 : 0;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    return rc;
}

static int attr_string_write(hid_t obj, const char *name, const char *value)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, strlen(value) + 1);
    int rc = attr_write(obj, name, t, value);
    H5Tclose(t);
    return rc;
}

int weights_load(const char *path, const Variant *v, Weights *out, char *err, size_t errlen)
{
    pthread_once(&hdf5_once, hdf5_quiet);
    if (access(path, R_OK) != 0)
        FAIL(DAMAS_ERR_UNKNOWN, "%s: %s", path, strerror(errno));
    if (H5Fis_hdf5(path) <= 0)
        FAIL(DAMAS_ERR_SYNTAX, "%s is not an HDF5 file (damaged, truncated, or not a weight file)", path);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        FAIL(DAMAS_ERR_SYNTAX, "%s cannot be opened (damaged or truncated)", path);
    Weights *w = calloc(1, sizeof *w);
    float *buf = malloc(2 * EVAL_MAX_WEIGHTS * sizeof *buf);
    if (!w || !buf) {
        free(w);
        free(buf);
        H5Fclose(f);
        FAIL(DAMAS_ERR_RANGE, "out of memory for the weights of %s", path);
    }
    char format[64] = "";
    uint64_t set = 0, size = 0;
    int rc = DAMAS_OK;
    if (attr_string_read(f, "format", format, sizeof format) < 0 || strcmp(format, weights_format) ||
        attr_string_read(f, "variant", w->variant, sizeof w->variant) < 0 || attr_u64_read(f, "feature_set", &set) < 0 ||
        attr_u64_read(f, "board_size", &size) < 0) {
        snprintf(err, errlen, "%s is not a damas weight file (its attributes are missing)", path);
        rc = DAMAS_ERR_SYNTAX;
    } else if (strcmp(w->variant, v->name)) {
        snprintf(err, errlen, "%s holds weights for %s, not %s", path, w->variant, v->name);
        rc = DAMAS_ERR_ILLEGAL;
    } else if (set != EVAL_FEATURE_SET) {
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
    if (rc == DAMAS_OK && attr_string_read(f, "provenance", w->provenance, sizeof w->provenance) < 0)
        w->provenance[0] = '\0';
    eval_layout(v->rules.board_size, &w->layout);
    for (int g = 0; g < EVAL_GROUPS && rc == DAMAS_OK; g++) {
        const char *name = eval_group_names[g];
        int len = w->layout.length[g];
        hid_t d = H5Lexists(f, name, H5P_DEFAULT) > 0 ? H5Dopen2(f, name, H5P_DEFAULT) : -1;
        hid_t space = d >= 0 ? H5Dget_space(d) : -1;
        hsize_t dims[2] = {0, 0};
        bool ok = space >= 0 && H5Sget_simple_extent_ndims(space) == 2 &&
                  H5Sget_simple_extent_dims(space, dims, NULL) == 2 && dims[0] == 2 && dims[1] == (hsize_t)len;
        ok = ok && H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0;
        for (int i = 0; ok && i < 2 * len; i++)
            ok = buf[i] == buf[i] && buf[i] > -1e6f && buf[i] < 1e6f;   /* finite and sane */
        if (ok)
            for (int p = 0; p < 2; p++)
                memcpy(&w->w[p][w->layout.offset[g]], buf + p * len, (size_t)len * sizeof(float));
        else {
            snprintf(err, errlen, "%s: group '%s' is missing, not 2 x %d values, or holds non-finite values", path,
                     name, len);
            rc = DAMAS_ERR_SYNTAX;
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
    pthread_once(&hdf5_once, hdf5_quiet);
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
        FAIL(DAMAS_ERR_RANGE, "cannot create %s (directory missing or read-only?)", tmp);
    uint64_t set = EVAL_FEATURE_SET, size = (uint64_t)w->layout.board_size;
    int bad = attr_string_write(f, "format", weights_format) | attr_string_write(f, "variant", w->variant) |
              attr_write(f, "feature_set", H5T_STD_U64LE, &set) | attr_write(f, "board_size", H5T_STD_U64LE, &size) |
              attr_string_write(f, "provenance", w->provenance);
    if (w->meta.set) {
        const WeightsMeta *m = &w->meta;
        uint64_t generations = (uint64_t)m->generations;
        bad |= attr_write(f, "generations", H5T_STD_U64LE, &generations) |
               attr_write(f, "games", H5T_STD_U64LE, &m->games) |
               attr_write(f, "positions", H5T_STD_U64LE, &m->positions) |
               attr_write(f, "elo_vs_builtin", H5T_IEEE_F64LE, &m->elo) |
               attr_write(f, "elo_vs_builtin_low", H5T_IEEE_F64LE, &m->elo_low) |
               attr_write(f, "elo_vs_builtin_high", H5T_IEEE_F64LE, &m->elo_high) |
               attr_write(f, "seed", H5T_STD_U64LE, &m->seed) | attr_string_write(f, "date", m->date) |
               attr_string_write(f, "damas_version", m->version);
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
        FAIL(DAMAS_ERR_RANGE, "cannot write %s (disk full?)", path);
    }
    return DAMAS_OK;
}

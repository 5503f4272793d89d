#include "h5util.h"

#include <pthread.h>
#include <string.h>

#include "h5lz4.h"

static pthread_once_t h5_once = PTHREAD_ONCE_INIT;
static int h5_ready = -1;

static void h5_setup(void)
{
    /* HDF5's exit handler would close files left open, and it crashes on one whose close
     * already failed (a full disk). */
    H5dont_atexit();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    h5_ready = h5lz4_register();
}

int h5_init(void)
{
    pthread_once(&h5_once, h5_setup);
    return h5_ready;
}

/* Opens attribute `name` if it holds one value (a scalar, or a simple space of one element)
 * of class `cls`; its type in *type. H5A_OK, H5A_ABSENT or H5A_MALFORMED. */
static int open_scalar(hid_t obj, const char *name, H5T_class_t cls, hid_t *attr, hid_t *type)
{
    *attr = *type = -1;
    if (H5Aexists(obj, name) <= 0)
        return H5A_ABSENT;
    *attr = H5Aopen(obj, name, H5P_DEFAULT);
    if (*attr < 0)
        return H5A_MALFORMED;
    hid_t space = H5Aget_space(*attr);
    H5S_class_t shape = space >= 0 ? H5Sget_simple_extent_type(space) : H5S_NO_CLASS;
    hssize_t points = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    if (space >= 0)
        H5Sclose(space);
    *type = H5Aget_type(*attr);
    bool one = shape == H5S_SCALAR || (shape == H5S_SIMPLE && points == 1);
    if (one && *type >= 0 && H5Tget_class(*type) == cls)
        return H5A_OK;
    if (*type >= 0)
        H5Tclose(*type);
    H5Aclose(*attr);
    *attr = *type = -1;
    return H5A_MALFORMED;
}

int h5_attr_u64(hid_t obj, const char *name, uint64_t *v)
{
    hid_t a, type;
    int rc = open_scalar(obj, name, H5T_INTEGER, &a, &type);
    if (rc != H5A_OK)
        return rc;
    if (H5Tget_size(type) > sizeof *v || H5Aread(a, H5T_NATIVE_UINT64, v) < 0)
        rc = H5A_MALFORMED;
    H5Tclose(type);
    H5Aclose(a);
    return rc;
}

int h5_attr_string(hid_t obj, const char *name, char *buf, size_t len)
{
    buf[0] = '\0';
    hid_t a, type;
    int rc = open_scalar(obj, name, H5T_STRING, &a, &type);
    if (rc != H5A_OK)
        return rc;
    hid_t mem = H5Tcopy(H5T_C_S1);
    H5Tset_size(mem, len);
    /* The stored size counts its terminating NUL, if it has one: at most len bytes fit. */
    if (H5Tis_variable_str(type) || H5Tget_size(type) > len || H5Aread(a, mem, buf) < 0)
        rc = H5A_MALFORMED;
    buf[rc == H5A_OK ? len - 1 : 0] = '\0';
    H5Tclose(mem);
    H5Tclose(type);
    H5Aclose(a);
    return rc;
}

int h5_attr_write(hid_t obj, const char *name, hid_t type, const void *value)
{
    if (H5Aexists(obj, name) > 0 && H5Adelete(obj, name) < 0)
        return -1;
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a < 0 || H5Awrite(a, type, value) < 0 ? -1 : 0;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    return rc;
}

int h5_attr_write_u64(hid_t obj, const char *name, uint64_t v)
{
    return h5_attr_write(obj, name, H5T_STD_U64LE, &v);
}

int h5_attr_write_string(hid_t obj, const char *name, const char *value)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, strlen(value) + 1);
    int rc = h5_attr_write(obj, name, t, value);
    H5Tclose(t);
    return rc;
}

const char *h5_attr_problem(int rc)
{
    return rc == H5A_ABSENT ? "missing" : "malformed";
}

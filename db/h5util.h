/* HDF5 plumbing every damas file shares (databases, weights, training data): the process-wide
 * set-up, and scalar attributes whose shape, class and size are checked before they are read,
 * so a damaged or foreign file gives an error, never an overflow. */
#ifndef DAMAS_H5UTIL_H
#define DAMAS_H5UTIL_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

/* What reading an attribute found. */
enum { H5A_OK = 0, H5A_ABSENT = -1, H5A_MALFORMED = -2 };

/* Once per process, before any other HDF5 call: HDF5's own exit handler and error printing off
 * (damas closes its files and reports its errors), the LZ4 filter registered. 0, or -1 if the
 * filter cannot be registered. Thread-safe. */
int h5_init(void);

/* A scalar integer attribute that fits 64 bits. H5A_OK, H5A_ABSENT, or H5A_MALFORMED (an
 * array, another class, a wider integer). */
int h5_attr_u64(hid_t obj, const char *name, uint64_t *v);

/* A scalar fixed-length string attribute of at most len - 1 bytes, NUL-terminated into buf
 * (len >= 1; buf is "" unless H5A_OK). H5A_OK, H5A_ABSENT, or H5A_MALFORMED (not a scalar
 * string, variable-length, or too long). */
int h5_attr_string(hid_t obj, const char *name, char *buf, size_t len);

/* Writes a scalar attribute of type `type` (replacing one of that name). 0, or -1. */
int h5_attr_write(hid_t obj, const char *name, hid_t type, const void *value);
int h5_attr_write_u64(hid_t obj, const char *name, uint64_t v);
int h5_attr_write_string(hid_t obj, const char *name, const char *value);

/* "missing" or "malformed", for messages naming the attribute of an H5A_ABSENT / H5A_MALFORMED. */
const char *h5_attr_problem(int rc);

#endif

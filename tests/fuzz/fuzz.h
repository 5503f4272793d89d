/* Shared by the fuzz targets (tests/fuzz/fuzz_*.c): each defines LLVMFuzzerTestOneInput (and
 * may define fuzz_init, run once before the first input). Built with clang's libFuzzer by
 * `make fuzz`, and with replay.c's main by `make test`, which runs the committed corpora and
 * crash reproducers through them. A broken property aborts (FUZZ_CHECK), which both count as a
 * crash. */
#ifndef DAMAS_FUZZ_H
#define DAMAS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/variant.h"

#define FUZZ_CHECK(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz property broken at %s:%d: ", __FILE__, __LINE__);                \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The variant a byte selects: the seven, and the optional-capture rule on the 8x8 ones. */
static inline Variant fuzz_variant(uint8_t byte)
{
    Variant v;
    int id = byte % VARIANT_COUNT;
    bool optional = (byte / VARIANT_COUNT) % 2 == 1 && variant_get(id)->rules.board_size == 8;
    variant_lookup(variant_get(id)->name, optional, &v, NULL, 0);
    return v;
}

/* data[0..size) as a NUL-terminated string (cut at a NUL byte), freed by the caller. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

#endif

/* Library error reporting: FAIL(code, fmt, ...) writes the message to `err` (of `errlen`
 * bytes, when err is not NULL) and returns code from the calling function. */
#ifndef DAMAS_ERROR_H
#define DAMAS_ERROR_H

#include <stdio.h>

#define FAIL(code, ...)                                                                            \
    do {                                                                                           \
        if (err)                                                                                   \
            snprintf(err, errlen, __VA_ARGS__);                                                    \
        return (code);                                                                             \
    } while (0)

#endif

/* What damas asks of the machine: one monotonic clock and one default thread count. */
#ifndef DAMAS_SYSTEM_H
#define DAMAS_SYSTEM_H

#include <time.h>
#include <unistd.h>

/* Seconds on a monotonic clock (for durations only). */
static inline double system_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The default number of threads: the cores online. */
static inline int system_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

#endif

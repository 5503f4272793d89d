/* What damas asks of the machine: one monotonic clock, one default thread count and the
 * process's peak memory. */
#ifndef DAMAS_SYSTEM_H
#define DAMAS_SYSTEM_H

#include <sys/resource.h>
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

/* The most memory this process has held so far, in MiB (its peak resident set). */
static inline double system_peak_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024;
}

#endif

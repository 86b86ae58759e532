/* Clocks shared by the benchmark programs. */
#ifndef CUZK_BENCH_UTIL_H
#define CUZK_BENCH_UTIL_H

#include <time.h>

/* Wall-clock seconds (monotonic). */
static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds of the calling thread: 1-thread figures that hold on a
 * shared, oversubscribed box. */
static inline double bench_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif

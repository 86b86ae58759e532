/*
 * cuzk_parallel_for: the library's one parallel loop.
 *
 * [0, n) is cut into chunks of `chunk` indices (0: about four per thread, so
 * a slow thread does not hold up the rest); up to nthreads threads, the
 * caller one of them, take chunks in order from a shared counter until none
 * is left, and fn(ctx, worker, lo, hi) runs once per chunk. The chunks are
 * disjoint, so a result that each index writes alone does not depend on the
 * thread count. worker is the thread's number, 0 (the caller) to
 * min(nthreads, number of chunks) - 1: per-thread state indexed by it needs
 * no lock. Threads are started per call and joined before it returns; one
 * that cannot be started leaves its share to the others. nthreads 0 or 1
 * runs everything on the caller.
 */
#ifndef CUZK_PARALLEL_H
#define CUZK_PARALLEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void cuzk_parallel_fn(void *ctx, unsigned worker, size_t lo, size_t hi);

void cuzk_parallel_for(size_t n, size_t chunk, unsigned nthreads, cuzk_parallel_fn *fn, void *ctx);

/* The number of threads cuzk_parallel_for would use: min(nthreads, chunks), at least 1. */
unsigned cuzk_parallel_threads(size_t n, size_t chunk, unsigned nthreads);

/* The online CPUs (at least 1): what "0 threads: all CPUs" means everywhere. */
unsigned cuzk_parallel_cpus(void);

#ifdef __cplusplus
}
#endif

#endif

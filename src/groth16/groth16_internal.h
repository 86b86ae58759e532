/* Shared by the Groth16 setup and prover. */
#ifndef CUZK_GROTH16_INTERNAL_H
#define CUZK_GROTH16_INTERNAL_H

#include <stddef.h>

/* fn(ctx, lo, hi) over [0, n) in chunks on up to nthreads pthreads (the
 * caller included); chunks are disjoint, so results do not depend on
 * nthreads. */
void cuzk_g16_par_for(size_t n, unsigned nthreads, void (*fn)(void *, size_t, size_t), void *ctx);

#endif

/* NTT internals shared with the tests. */
#ifndef CUZK_NTT_INTERNAL_H
#define CUZK_NTT_INTERNAL_H

#include <stdbool.h>

#include "cuzk/poly/ntt.h"

/* The radix-2 network the radix-4 one replaced, kept as a reference:
 * cuzk_ntt_forward (inverse false) or cuzk_ntt_inverse (true), same bits. */
void cuzk_ntt_radix2_ref(const cuzk_ntt_domain *d, cuzk_fr *x, bool inverse, unsigned nthreads);

#endif

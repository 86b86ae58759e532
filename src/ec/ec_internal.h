/* Internal to src/ec: helpers shared by g1.c and g2.c. */
#ifndef CUZK_SRC_EC_INTERNAL_H
#define CUZK_SRC_EC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "cuzk/ff/fp.h"

/* True when a > p - a as integers (zcash's "lexicographically largest";
 * false for 0). */
bool cuzk_ec_fp_lex_largest(const cuzk_fp *a);

/* |x| for the BLS parameter x = -0xd201000000010000. */
#define CUZK_BLS_X_ABS 0xd201000000010000ULL

/* The base-|x| digits of k < r < |x|^4: k = d[0] + d[1]·|x| + d[2]·|x|^2 + d[3]·|x|^3, each
 * d[i] < |x| < 2^64 (r = x^4 - x^2 + 1). The endomorphisms act as powers of x: psi on G2 as x,
 * phi on G1 as -x^2, so a scalar multiplication splits into 64- or 128-bit ones. */
void cuzk_ec_split_x(uint64_t d[4], const uint64_t k[4]);

#endif

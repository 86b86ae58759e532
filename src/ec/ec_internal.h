/* Internal to src/ec: helpers shared by g1.c and g2.c. */
#ifndef CUZK_SRC_EC_INTERNAL_H
#define CUZK_SRC_EC_INTERNAL_H

#include <stdbool.h>

#include "cuzk/ff/fp.h"

/* True when a > p - a as integers (zcash's "lexicographically largest";
 * false for 0). */
bool cuzk_ec_fp_lex_largest(const cuzk_fp *a);

/* |x| for the BLS parameter x = -0xd201000000010000. */
#define CUZK_BLS_X_ABS 0xd201000000010000ULL

#endif

/*
 * Which Montgomery multiplication the field arithmetic runs. The fast
 * x86-64 path (BMI2 + ADX: mulx/adcx/adox) is chosen at start-up when CPUID
 * reports both; the portable path (unsigned __int128) is always available. Both compute
 * identical results; tests run each of them.
 */
#ifndef CUZK_FF_H
#define CUZK_FF_H

#include "cuzk/ff/fp.h"
#include "cuzk/ff/fr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cuzk_ff_mont {
    CUZK_FF_PORTABLE = 0,
    CUZK_FF_ADX = 1
} cuzk_ff_mont;

/* Whether the CPU (and this build) supports the multiplication. */
bool cuzk_ff_mont_available(cuzk_ff_mont b);
/* Select a multiplication for the whole process; CUZK_ERR_UNSUPPORTED if unavailable. */
int cuzk_ff_mont_select(cuzk_ff_mont b);
cuzk_ff_mont cuzk_ff_mont_active(void);
const char *cuzk_ff_mont_name(cuzk_ff_mont b);

#ifdef __cplusplus
}
#endif
#endif

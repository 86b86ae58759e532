/*
 * Field arithmetic back ends. The fast x86-64 path (BMI2 + ADX:
 * mulx/adcx/adox) is chosen at start-up when CPUID reports both; the
 * portable path (unsigned __int128) is always available. Both compute
 * identical results; tests run each of them.
 */
#ifndef CUZK_FF_H
#define CUZK_FF_H

#include "cuzk/fp.h"
#include "cuzk/fr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cuzk_ff_backend {
    CUZK_FF_PORTABLE = 0,
    CUZK_FF_ADX = 1
} cuzk_ff_backend;

/* Whether the CPU (and this build) supports the backend. */
bool cuzk_ff_backend_available(cuzk_ff_backend b);
/* Select a backend for the whole process; CUZK_ERR_UNSUPPORTED if unavailable. */
int cuzk_ff_backend_select(cuzk_ff_backend b);
cuzk_ff_backend cuzk_ff_backend_active(void);
const char *cuzk_ff_backend_name(cuzk_ff_backend b);

#ifdef __cplusplus
}
#endif
#endif

/* Which Montgomery multiplication the field arithmetic runs: portable or BMI2/ADX (cuzk/ff/ff.h). */
#include "cuzk/ff/ff.h"
#include "cuzk/util/error.h"
#include "ff_internal.h"
#include "mont_adx.h"

#ifdef CUZK_FF_HAVE_ADX
#include <cpuid.h>
#endif

/* Plain global read on every mul: set once before main (constructor) and
 * afterwards only by cuzk_ff_mont_select, which callers use single-threaded. */
bool cuzk_ff_adx_on = false;
static bool ff_adx_cpu = false;

/* CPUID leaf 7, sub-leaf 0: EBX bit 8 = BMI2 (mulx), bit 19 = ADX (adcx/adox). */
static bool ff_detect_adx(void)
{
#ifdef CUZK_FF_HAVE_ADX
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
    return ((b >> 8) & 1) && ((b >> 19) & 1);
#else
    return false;
#endif
}

__attribute__((constructor)) static void ff_mont_init(void)
{
    ff_adx_cpu = ff_detect_adx();
    cuzk_ff_adx_on = ff_adx_cpu;
}

bool cuzk_ff_mont_available(cuzk_ff_mont b)
{
    return b == CUZK_FF_PORTABLE || (b == CUZK_FF_ADX && ff_adx_cpu);
}

int cuzk_ff_mont_select(cuzk_ff_mont b)
{
    if (!cuzk_ff_mont_available(b)) return CUZK_ERR_UNSUPPORTED;
    cuzk_ff_adx_on = (b == CUZK_FF_ADX);
    return CUZK_OK;
}

cuzk_ff_mont cuzk_ff_mont_active(void) { return cuzk_ff_adx_on ? CUZK_FF_ADX : CUZK_FF_PORTABLE; }

const char *cuzk_ff_mont_name(cuzk_ff_mont b)
{
    return b == CUZK_FF_ADX ? "x86-64 BMI2/ADX" : "portable";
}

/* Selection of the field arithmetic back end (cuzk/ff.h). */
#include "cuzk/ff.h"
#include "cuzk/error.h"
#include "ff_internal.h"

bool cuzk_ff_adx_on = false;

bool cuzk_ff_backend_available(cuzk_ff_backend b)
{
    /* The ADX back end is not built yet: only the portable one exists. */
    return b == CUZK_FF_PORTABLE;
}

int cuzk_ff_backend_select(cuzk_ff_backend b)
{
    if (!cuzk_ff_backend_available(b)) return CUZK_ERR_UNSUPPORTED;
    cuzk_ff_adx_on = (b == CUZK_FF_ADX);
    return CUZK_OK;
}

cuzk_ff_backend cuzk_ff_backend_active(void) { return cuzk_ff_adx_on ? CUZK_FF_ADX : CUZK_FF_PORTABLE; }

const char *cuzk_ff_backend_name(cuzk_ff_backend b)
{
    return b == CUZK_FF_ADX ? "x86-64 BMI2/ADX" : "portable";
}

/* G1 instantiation of the device MSM (msm.cuh). */
#include <stdlib.h>

#include "cuzk/g1.h"
#include "msm.cuh"

namespace cuzk_gpu {

static void g1_set_inf(cuzk_g1_xyzz *r) { cuzk_g1_xyzz_set_infinity(r); }

int msm_g1(const ctx &c, msm_scratch *s, cuzk_g1_jac *out, const void *bases, const fr_t *scalars,
           size_t n, bool mont, fr_t *work)
{
    const host_ops<cuzk_g1_xyzz, cuzk_g1_jac> ops = {cuzk_g1_xyzz_dbl, cuzk_g1_xyzz_add, g1_set_inf,
                                                   cuzk_g1_xyzz_to_jac};
    /* CUZK_GPU_FP_LAZY=1: the same MSM over fpl_t, whose points' y take
     * one reduction instead of two (ff.cuh); off until measured on a device */
    /* CUZK_GPU_FP_KARA=1: over fpk_t, whose products go through the 24-limb
     * forms (Karatsuba, squares by symmetry), y in one reduction as fpl_t */
    const char *kara = getenv("CUZK_GPU_FP_KARA");
    if (kara && atoi(kara) == 1) return msm_run<fpk_t>(c, s, out, (const affine_t<fpk_t> *)bases, scalars, n, mont, work, ops);
    const char *lazy = getenv("CUZK_GPU_FP_LAZY");
    if (lazy && atoi(lazy) == 1) return msm_run<fpl_t>(c, s, out, (const affine_t<fpl_t> *)bases, scalars, n, mont, work, ops);
    return msm_run<fp_t>(c, s, out, (const affine_t<fp_t> *)bases, scalars, n, mont, work, ops);
}

} // namespace cuzk_gpu

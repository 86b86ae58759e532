/* G1 instantiation of the device MSM (msm/run.cuh). */
#include "cuzk/g1.h"
#include "msm/run.cuh"

namespace cuzk_gpu {

static void g1_set_inf(cuzk_g1_xyzz *r) { cuzk_g1_xyzz_set_infinity(r); }

int msm_g1(const ctx &c, msm_scratch *s, cuzk_g1_jac *out, const void *bases, const fr_t *scalars,
           size_t n, bool mont, fr_t *work)
{
    const host_ops<cuzk_g1_xyzz, cuzk_g1_jac> ops = {cuzk_g1_xyzz_dbl, cuzk_g1_xyzz_add, g1_set_inf,
                                                   cuzk_g1_xyzz_to_jac};
    return msm_run<fp_t>(c, s, out, (const affine_t<fp_t> *)bases, scalars, n, mont, work, ops);
}

} // namespace cuzk_gpu

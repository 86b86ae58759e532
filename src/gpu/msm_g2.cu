/* G2 instantiation of the device MSM (msm/run.cuh). */
#include "cuzk/g2.h"
#include "msm/run.cuh"

namespace cuzk_gpu {

static void g2_set_inf(cuzk_g2_xyzz *r) { cuzk_g2_xyzz_set_infinity(r); }

int msm_g2(const ctx &c, msm_scratch *s, cuzk_g2_jac *out, const void *bases, const fr_t *scalars,
           size_t n, bool mont, fr_t *work)
{
    const host_ops<cuzk_g2_xyzz, cuzk_g2_jac> ops = {cuzk_g2_xyzz_dbl, cuzk_g2_xyzz_add, g2_set_inf,
                                                   cuzk_g2_xyzz_to_jac};
    return msm_run<fp2_t>(c, s, out, (const affine_t<fp2_t> *)bases, scalars, n, mont, work, ops);
}

} // namespace cuzk_gpu

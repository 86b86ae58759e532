/* G1 instantiation of the device MSM (msm.cuh). */
#include <stdlib.h>

#include "cuzk/g1.h"
#include "msm.cuh"

namespace cuzk_gpu {

/* read per call: benchmarks and tests switch them */
static bool env_is_1(const char *name)
{
    const char *v = getenv(name);
    return v && atoi(v) == 1;
}

static void g1_set_inf(cuzk_g1_xyzz *r) { cuzk_g1_xyzz_set_infinity(r); }

int msm_g1(const ctx &c, msm_scratch *s, cuzk_g1_jac *out, const void *bases, const fr_t *scalars,
           size_t n, bool mont, fr_t *work)
{
    const host_ops<cuzk_g1_xyzz, cuzk_g1_jac> ops = {cuzk_g1_xyzz_dbl, cuzk_g1_xyzz_add, g1_set_inf,
                                                   cuzk_g1_xyzz_to_jac};
    /* The same MSM over another form of Fp's arithmetic (ff.cuh), each off
     * until measured on a device: CUZK_GPU_FP_KARA=1 fpk_t (products through
     * their 24-limb forms: Karatsuba, squares by symmetry, y in one
     * reduction), CUZK_GPU_FP_SQR=1 fps_t (fpl_t with squares by symmetry),
     * CUZK_GPU_FP_LAZY=1 fpl_t (the points' y in one reduction) */
    if (env_is_1("CUZK_GPU_FP_KARA")) return msm_run<fpk_t>(c, s, out, (const affine_t<fpk_t> *)bases, scalars, n, mont, work, ops);
    if (env_is_1("CUZK_GPU_FP_SQR")) return msm_run<fps_t>(c, s, out, (const affine_t<fps_t> *)bases, scalars, n, mont, work, ops);
    if (env_is_1("CUZK_GPU_FP_LAZY")) return msm_run<fpl_t>(c, s, out, (const affine_t<fpl_t> *)bases, scalars, n, mont, work, ops);
    return msm_run<fp_t>(c, s, out, (const affine_t<fp_t> *)bases, scalars, n, mont, work, ops);
}

} // namespace cuzk_gpu

/* G2 instantiation of the device MSM (msm/run.cuh) and of the MSM taken
 * in chunks (msm/chunked.cuh). */
#include "cuzk/ec/g2.h"
#include "msm/chunked.cuh"

namespace cuzk_gpu {

static void g2_set_inf(cuzk_g2_xyzz *r) { cuzk_g2_xyzz_set_infinity(r); }
static const host_ops<cuzk_g2_xyzz, cuzk_g2_jac> g2_ops = {cuzk_g2_xyzz_dbl, cuzk_g2_xyzz_add, g2_set_inf, cuzk_g2_xyzz_to_jac};

int msm_g2(const ctx &c, msm_scratch *s, cuzk_g2_jac *out, const void *bases, const fr_t *scalars,
           size_t n, bool mont, fr_t *work)
{
    const uint64_t k = cuzk_gpu_hooks_now()->msm_chunk;
    if (k && n)
        return msm_run_chunks<fp2_t>(c, s, out, (const affine_t<fp2_t> *)bases, scalars, n, mont, work, g2_ops, (size_t)k);
    return msm_run<fp2_t>(c, s, out, (const affine_t<fp2_t> *)bases, scalars, n, mont, work, g2_ops);
}

int msm_g2_chunked_begin(const ctx &c, msm_scratch *s, msm_acc *a, const fr_t *scalars, size_t n, bool mont)
{
    return msm_chunked_begin<fp2_t>(c, s, a, scalars, n, mont);
}

int msm_g2_chunked_add(const ctx &c, msm_scratch *s, msm_acc *a, const void *bases, const fr_t *scalars, size_t n,
                       bool mont, fr_t *work)
{
    return msm_chunked_add<fp2_t>(c, s, a, (const affine_t<fp2_t> *)bases, scalars, n, mont, work);
}

int msm_g2_chunked_end(const ctx &c, msm_scratch *s, msm_acc *a, cuzk_g2_jac *out)
{
    return msm_chunked_end<fp2_t>(c, s, a, out, g2_ops);
}

} // namespace cuzk_gpu

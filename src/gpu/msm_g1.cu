/* G1 instantiation of the device MSM (msm/run.cuh) and of the MSM taken
 * in chunks (msm/chunked.cuh). */
#include "cuzk/ec/g1.h"
#include "msm/chunked.cuh"

namespace cuzk_gpu {

static void g1_set_inf(cuzk_g1_xyzz *r) { cuzk_g1_xyzz_set_infinity(r); }
static const host_ops<cuzk_g1_xyzz, cuzk_g1_jac> g1_ops = {cuzk_g1_xyzz_dbl, cuzk_g1_xyzz_add, g1_set_inf, cuzk_g1_xyzz_to_jac};

int msm_g1(const ctx &c, msm_scratch *s, cuzk_g1_jac *out, const void *bases, const fr_t *scalars,
           size_t n, bool mont, fr_t *work)
{
    const uint64_t k = cuzk_gpu_hooks_now()->msm_chunk;
    if (k && n)
        return msm_run_chunks<fp_t>(c, s, out, (const affine_t<fp_t> *)bases, scalars, n, mont, work, g1_ops, (size_t)k);
    return msm_run<fp_t>(c, s, out, (const affine_t<fp_t> *)bases, scalars, n, mont, work, g1_ops);
}

int msm_g1_chunked_begin(const ctx &c, msm_scratch *s, msm_acc *a, const fr_t *scalars, size_t n, bool mont)
{
    return msm_chunked_begin<fp_t>(c, s, a, scalars, n, mont);
}

int msm_g1_chunked_begin_counted(const ctx &c, msm_scratch *s, msm_acc *a, size_t m)
{
    return msm_acc_plan(c, s, a, m, sizeof(xyzz_t<fp_t>));
}

int msm_g1_chunked_add(const ctx &c, msm_scratch *s, msm_acc *a, const void *bases, const fr_t *scalars, size_t n,
                       bool mont, fr_t *work)
{
    return msm_chunked_add<fp_t>(c, s, a, (const affine_t<fp_t> *)bases, scalars, n, mont, work);
}

int msm_g1_chunked_end(const ctx &c, msm_scratch *s, msm_acc *a, cuzk_g1_jac *out)
{
    return msm_chunked_end<fp_t>(c, s, a, out, g1_ops);
}

} // namespace cuzk_gpu

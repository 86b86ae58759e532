/* Without CUDA (CUZK_HAVE_CUDA undefined) the GPU API exists and reports
 * that no device is available, so callers and tests need no #ifdefs. */
#ifndef CUZK_HAVE_CUDA
#include <stdio.h>

#include "cuzk/util/error.h"
#include "cuzk/gpu/gpu.h"

int cuzk_gpu_device_count(int *count)
{
    if (count) *count = 0;
    return CUZK_ERR_NO_DEVICE;
}
int cuzk_gpu_device_open(cuzk_gpu_device **out, int ordinal, char *msg, size_t msg_len)
{
    if (out) *out = NULL;
    if (msg) snprintf(msg, msg_len, "cuda device %d: cuzk was built without CUDA", ordinal);
    return CUZK_ERR_NO_DEVICE;
}
void cuzk_gpu_device_close(cuzk_gpu_device *dev) { (void)dev; }
const char *cuzk_gpu_device_describe(const cuzk_gpu_device *dev) { return (void)dev, ""; }
int cuzk_gpu_device_memory(cuzk_gpu_device *dev, uint64_t *total, uint64_t *free_bytes)
{
    if (total) *total = 0;
    if (free_bytes) *free_bytes = 0;
    return (void)dev, CUZK_ERR_NO_DEVICE;
}
int cuzk_gpu_device_set_memory_limit(cuzk_gpu_device *dev, uint64_t limit)
{
    return (void)dev, (void)limit, CUZK_ERR_NO_DEVICE;
}
int cuzk_gpu_device_budget(const cuzk_gpu_device *dev, uint64_t *budget, uint64_t *used)
{
    if (budget) *budget = 0;
    if (used) *used = 0;
    return (void)dev, CUZK_ERR_NO_DEVICE;
}
const char *cuzk_gpu_device_plan(cuzk_gpu_device *dev) { return (void)dev, ""; }
int cuzk_gpu_worker_create(cuzk_gpu_worker **out, cuzk_gpu_device *dev)
{
    if (out) *out = NULL;
    return (void)dev, CUZK_ERR_NO_DEVICE;
}
void cuzk_gpu_worker_destroy(cuzk_gpu_worker *w) { (void)w; }
const char *cuzk_gpu_worker_error(const cuzk_gpu_worker *w) { return (void)w, "built without CUDA"; }
int cuzk_gpu_worker_out_of_device_memory(const cuzk_gpu_worker *w) { return (void)w, 0; }
double cuzk_gpu_worker_region_s(const cuzk_gpu_worker *w) { return (void)w, 0.0; }
uint64_t cuzk_gpu_worker_held_bytes(const cuzk_gpu_worker *w) { return (void)w, 0; }
int cuzk_gpu_ntt(cuzk_gpu_worker *w, cuzk_fr *x, unsigned log_n, unsigned flags)
{
    return (void)w, (void)x, (void)log_n, (void)flags, CUZK_ERR_NO_DEVICE;
}
int cuzk_gpu_groth16_h(cuzk_gpu_worker *w, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c, unsigned log_n)
{
    return (void)w, (void)a, (void)b, (void)c, (void)log_n, CUZK_ERR_NO_DEVICE;
}
int cuzk_gpu_g1_msm(cuzk_gpu_worker *w, cuzk_g1_jac *out, const cuzk_g1_affine *bases,
                    const cuzk_fr *scalars, size_t n)
{
    return (void)w, (void)out, (void)bases, (void)scalars, (void)n, CUZK_ERR_NO_DEVICE;
}
int cuzk_gpu_g2_msm(cuzk_gpu_worker *w, cuzk_g2_jac *out, const cuzk_g2_affine *bases,
                    const cuzk_fr *scalars, size_t n)
{
    return (void)w, (void)out, (void)bases, (void)scalars, (void)n, CUZK_ERR_NO_DEVICE;
}
int cuzk_gpu_g1_bases_upload(cuzk_gpu_worker *w, cuzk_gpu_bases **out, const cuzk_g1_affine *bases, size_t n)
{
    if (out) *out = NULL;
    return (void)w, (void)bases, (void)n, CUZK_ERR_NO_DEVICE;
}
int cuzk_gpu_g2_bases_upload(cuzk_gpu_worker *w, cuzk_gpu_bases **out, const cuzk_g2_affine *bases, size_t n)
{
    if (out) *out = NULL;
    return (void)w, (void)bases, (void)n, CUZK_ERR_NO_DEVICE;
}
void cuzk_gpu_bases_free(cuzk_gpu_bases *b) { (void)b; }
int cuzk_gpu_g1_msm_bases(cuzk_gpu_worker *w, cuzk_g1_jac *out, const cuzk_gpu_bases *b, const cuzk_fr *scalars,
                          size_t n)
{
    return (void)w, (void)out, (void)b, (void)scalars, (void)n, CUZK_ERR_NO_DEVICE;
}
int cuzk_gpu_g2_msm_bases(cuzk_gpu_worker *w, cuzk_g2_jac *out, const cuzk_gpu_bases *b, const cuzk_fr *scalars,
                          size_t n)
{
    return (void)w, (void)out, (void)b, (void)scalars, (void)n, CUZK_ERR_NO_DEVICE;
}
int cuzk_gpu_prove(cuzk_gpu_worker *w, cuzk_groth16_proof *out, const cuzk_gpu_set *set,
                   const cuzk_groth16_assignment *as, const cuzk_fr *r, const cuzk_fr *s,
                   size_t count, cuzk_groth16_prove_timing *timing)
{
    return (void)w, (void)out, (void)set, (void)as, (void)r, (void)s, (void)count, (void)timing,
           CUZK_ERR_NO_DEVICE;
}
int cuzk_gpu_prove_job(cuzk_gpu_worker *w, cuzk_groth16_proof *out, const cuzk_groth16_job *job,
                       const cuzk_fr *r, const cuzk_fr *s, cuzk_groth16_prove_timing *timing)
{
    return (void)w, (void)out, (void)job, (void)r, (void)s, (void)timing, CUZK_ERR_NO_DEVICE;
}
int cuzk_gpu_device_params_host_released(cuzk_gpu_device *dev, uint64_t key)
{
    return (void)dev, (void)key, CUZK_ERR_NO_DEVICE;
}
int cuzk_gpu_device_preload(cuzk_gpu_device *dev, const cuzk_gpu_set *set, char *msg, size_t msg_len)
{
    (void)dev, (void)set;
    if (msg && msg_len) snprintf(msg, msg_len, "built without CUDA");
    return CUZK_ERR_NO_DEVICE;
}
void cuzk_gpu_device_release(cuzk_gpu_device *dev, uint64_t key) { (void)dev, (void)key; }
int cuzk_gpu_host_register(void *ptr, size_t len, char *msg, size_t msg_len)
{
    if (msg && msg_len) snprintf(msg, msg_len, "cuzk was built without CUDA");
    return (void)ptr, (void)len, CUZK_ERR_NO_DEVICE;
}
void cuzk_gpu_host_unregister(void *ptr) { (void)ptr; }
int cuzk_gpu_host_is_registered(const void *ptr) { return (void)ptr, 0; }
int cuzk_gpu_g1_fixed_base(cuzk_gpu_worker *w, cuzk_g1_affine *out, const cuzk_g1_affine *base,
                           const cuzk_fr *k, size_t n)
{
    return (void)w, (void)out, (void)base, (void)k, (void)n, CUZK_ERR_NO_DEVICE;
}
int cuzk_gpu_g2_fixed_base(cuzk_gpu_worker *w, cuzk_g2_affine *out, const cuzk_g2_affine *base,
                           const cuzk_fr *k, size_t n)
{
    return (void)w, (void)out, (void)base, (void)k, (void)n, CUZK_ERR_NO_DEVICE;
}
void cuzk_gpu_setup_fixed_base(cuzk_groth16_fixed_base *fb, cuzk_gpu_worker *w)
{
    fb->g1 = NULL, fb->g2 = NULL, fb->ctx = w;
}
int cuzk_gpu_miller_loop(cuzk_gpu_worker *w, cuzk_fp12 *out, const cuzk_g1_affine *P, const cuzk_g2_affine *Q,
                         size_t n)
{
    return (void)w, (void)out, (void)P, (void)Q, (void)n, CUZK_ERR_NO_DEVICE;
}
int cuzk_gpu_miller_loops(cuzk_gpu_worker *w, cuzk_fp12 *out, size_t nprod, const cuzk_g1_affine *P,
                          const cuzk_g2_affine *Q, const size_t *off)
{
    return (void)w, (void)out, (void)nprod, (void)P, (void)Q, (void)off, CUZK_ERR_NO_DEVICE;
}
#else
typedef int cuzk_gpu_stub_unused; /* CUDA build: the .cu files of src/gpu implement the API */
#endif

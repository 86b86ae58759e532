/*
 * The GPU layer's standalone entry points, each one call on a worker: an
 * NTT (cuzk_gpu_ntt), Groth16's H (cuzk_gpu_groth16_h), a G1 or G2 MSM over
 * bases from the host or resident on the device (cuzk_gpu_bases), and the
 * fixed-base multiplications a Groth16 setup makes its parameters with
 * (cuzk_gpu_setup_fixed_base). The NTT, H and MSM upload their inputs
 * through the worker's staging before the kernel region, as a prove does;
 * each runs one kernel driver (ntt.cu, msm.cu, fixed_base.cu) inside the
 * region and copies its result back. The tests and benchmarks measure the
 * drivers through them.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cuzk/gpu/gpu.h"
#include "cuzk/poly/ntt.h"
#include "device.cuh"
#include "gpu_internal.cuh"

using namespace cuzk_gpu;

/* b made to hold bytes and src copied in through h2d: the lone entry
 * points' inputs take the prove's path from pageable memory */
static int upload(cuzk_gpu_worker *w, const ctx &c, dbuf *b, const void *src, size_t bytes, const char *what)
{
    int rc = buf_reserve(c, b, bytes, what);
    return rc ? rc : h2d(w, c, b->p, src, bytes);
}

extern "C" int cuzk_gpu_ntt(cuzk_gpu_worker *w, cuzk_fr *x, unsigned log_n, unsigned flags)
{
    if (!w || !x || log_n > CUZK_NTT_MAX_LOG || flags > 15) return CUZK_ERR_INVALID_ARG;
    ctx c;
    int rc = begin(w, &c);
    if (rc) return rc;
    const size_t bytes = sizeof(cuzk_fr) << log_n;
    if ((rc = upload(w, c, &w->abc, x, bytes, "ntt input")) ||
        (rc = buf_reserve(c, &w->tmp, bytes, "ntt reorder buffer")))
        return rc;
    /* from pinned memory the upload is still in flight: the region is the
     * transform alone (sppark_side's row counted 79 ms of copy at 2^27) */
    GPU_TRY(c, cudaStreamSynchronize(c.st));
    region_lock(w);
    rc = ntt_run(c, &w->dev->ntt, bp<fr_t>(w->abc), bp<fr_t>(w->tmp), log_n, flags);
    rc = region_unlock(w, c, rc);
    if (rc) return rc;
    GPU_TRY(c, cudaMemcpyAsync(x, w->abc.p, bytes, cudaMemcpyDeviceToHost, c.st));
    GPU_TRY(c, cudaStreamSynchronize(c.st));
    return CUZK_OK;
}

extern "C" int cuzk_gpu_groth16_h(cuzk_gpu_worker *w, cuzk_fr *a, cuzk_fr *b, cuzk_fr *cc, unsigned log_n)
{
    if (!w || !a || !b || !cc || log_n > CUZK_NTT_MAX_LOG) return CUZK_ERR_INVALID_ARG;
    ctx c;
    int rc = begin(w, &c);
    if (rc) return rc;
    const size_t n = (size_t)1 << log_n, bytes = n * sizeof(cuzk_fr);
    if ((rc = buf_reserve(c, &w->abc, 3 * bytes, "H a, b, c"))) return rc;
    fr_t *d = bp<fr_t>(w->abc);
    if ((rc = h2d(w, c, d, a, bytes)) || (rc = h2d(w, c, d + n, b, bytes)) || (rc = h2d(w, c, d + 2 * n, cc, bytes)))
        return rc;
    GPU_TRY(c, cudaStreamSynchronize(c.st)); /* the region is H alone, also from pinned memory */
    fr_t *h = NULL;
    region_lock(w);
    rc = ntt_groth16_h(c, &w->dev->ntt, d, d + n, d + 2 * n, log_n, &h);
    rc = region_unlock(w, c, rc);
    if (rc) return rc;
    GPU_TRY(c, cudaMemcpyAsync(a, h, bytes, cudaMemcpyDeviceToHost, c.st));
    GPU_TRY(c, cudaStreamSynchronize(c.st));
    return CUZK_OK;
}

/* The scalars up (outside the device lock), then the MSM over device bases
 * in a kernel region: the tail of both lone-MSM entry points. */
template <class HJ>
static int msm_with_bases(cuzk_gpu_worker *w, const ctx &c, HJ *out, const void *dbases, const cuzk_fr *scalars,
                          size_t n, int (*run)(const ctx &, msm_scratch *, HJ *, const void *, const fr_t *, size_t, bool, fr_t *))
{
    int rc = upload(w, c, &w->sa, scalars, n * sizeof *scalars, "msm scalars");
    if (rc) return rc;
    GPU_TRY(c, cudaStreamSynchronize(c.st));
    region_lock(w);
    rc = run(c, &w->dev->msm, out, dbases, bp<fr_t>(w->sa), n, true, bp<fr_t>(w->sa)); /* uploaded for this call */
    return region_unlock(w, c, rc);
}

template <class HA, class HJ>
static int gpu_msm(cuzk_gpu_worker *w, HJ *out, const HA *bases, const cuzk_fr *scalars, size_t n,
                   int (*run)(const ctx &, msm_scratch *, HJ *, const void *, const fr_t *, size_t, bool, fr_t *))
{
    if (!w || !out || (n && (!bases || !scalars)) || n >= 0x80000000ull) return CUZK_ERR_INVALID_ARG;
    ctx c;
    int rc = begin(w, &c);
    if (rc) return rc;
    if ((rc = upload(w, c, &w->tmp, bases, n * sizeof *bases, "msm bases"))) return rc;
    return msm_with_bases(w, c, out, w->tmp.p, scalars, n, run);
}

extern "C" int cuzk_gpu_g1_msm(cuzk_gpu_worker *w, cuzk_g1_jac *out, const cuzk_g1_affine *bases,
                               const cuzk_fr *scalars, size_t n)
{
    return gpu_msm(w, out, bases, scalars, n, msm_g1);
}

extern "C" int cuzk_gpu_g2_msm(cuzk_gpu_worker *w, cuzk_g2_jac *out, const cuzk_g2_affine *bases,
                               const cuzk_fr *scalars, size_t n)
{
    return gpu_msm(w, out, bases, scalars, n, msm_g2);
}

/* Bases resident on one device: what a prover's parameters are, here for a
 * lone MSM (and for timing cuzk the way sppark's msm_t is timed: points
 * uploaded once, the scalars from the host on every call). */
struct cuzk_gpu_bases {
    cuzk_gpu_device *dev;
    void *p;
    size_t n, point_bytes;
};

static int bases_upload(cuzk_gpu_worker *w, cuzk_gpu_bases **out, const void *bases, size_t n, size_t point_bytes)
{
    if (!out) return CUZK_ERR_INVALID_ARG;
    *out = NULL;
    if (!w || (n && !bases) || n >= 0x80000000ull) return CUZK_ERR_INVALID_ARG;
    ctx c;
    int rc = begin(w, &c);
    if (rc) return rc;
    cuzk_gpu_bases *b = (cuzk_gpu_bases *)calloc(1, sizeof *b);
    if (!b) return fail_msg(c, CUZK_ERR_NO_MEMORY, "resident bases");
    dbuf d = {};
    if ((rc = upload(w, c, &d, bases, n * point_bytes, "resident msm bases"))) {
        free(b);
        return rc;
    }
    cudaError_t e = cudaStreamSynchronize(c.st);
    if (e != cudaSuccess) {
        buf_free(&d);
        free(b);
        return fail(c, e, "cudaStreamSynchronize(resident msm bases)");
    }
    b->dev = w->dev, b->p = d.p, b->n = n, b->point_bytes = point_bytes;
    *out = b;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_g1_bases_upload(cuzk_gpu_worker *w, cuzk_gpu_bases **out, const cuzk_g1_affine *bases,
                                        size_t n)
{
    return bases_upload(w, out, bases, n, sizeof *bases);
}

extern "C" int cuzk_gpu_g2_bases_upload(cuzk_gpu_worker *w, cuzk_gpu_bases **out, const cuzk_g2_affine *bases,
                                        size_t n)
{
    return bases_upload(w, out, bases, n, sizeof *bases);
}

extern "C" void cuzk_gpu_bases_free(cuzk_gpu_bases *b)
{
    if (!b) return;
    cudaSetDevice(b->dev->ordinal);
    if (b->p) cudaFree(b->p);
    free(b);
}

template <class HJ>
static int gpu_msm_bases(cuzk_gpu_worker *w, HJ *out, const cuzk_gpu_bases *b, size_t point_bytes,
                         const cuzk_fr *scalars, size_t n,
                         int (*run)(const ctx &, msm_scratch *, HJ *, const void *, const fr_t *, size_t, bool, fr_t *))
{
    if (!w || !out || !b || (n && !scalars)) return CUZK_ERR_INVALID_ARG;
    ctx c;
    int rc = begin(w, &c);
    if (rc) return rc;
    if (b->dev != w->dev) return fail_msg(c, CUZK_ERR_INVALID_ARG, "msm: the bases are resident on another device");
    if (b->point_bytes != point_bytes) return fail_msg(c, CUZK_ERR_INVALID_ARG, "msm: the bases are of the other group");
    if (n > b->n) return fail_msg(c, CUZK_ERR_INVALID_ARG, "msm: more scalars than resident bases");
    return msm_with_bases(w, c, out, b->p, scalars, n, run);
}

extern "C" int cuzk_gpu_g1_msm_bases(cuzk_gpu_worker *w, cuzk_g1_jac *out, const cuzk_gpu_bases *b,
                                     const cuzk_fr *scalars, size_t n)
{
    return gpu_msm_bases(w, out, b, sizeof(cuzk_g1_affine), scalars, n, msm_g1);
}

extern "C" int cuzk_gpu_g2_msm_bases(cuzk_gpu_worker *w, cuzk_g2_jac *out, const cuzk_gpu_bases *b,
                                     const cuzk_fr *scalars, size_t n)
{
    return gpu_msm_bases(w, out, b, sizeof(cuzk_g2_affine), scalars, n, msm_g2);
}

/* ---- fixed-base multiplications (test setup) ---------------------------- */

/* tab[w·255 + d - 1] = d·2^(8w)·base: per window a chain of additions of
 * P_w = 2^(8w)·base, then one batch conversion to affine. */
#define FB_TABLE(G, AFF, JAC)                                                                      \
    static AFF *fb_table_##G(const AFF *base)                                                      \
    {                                                                                              \
        const size_t nt = (size_t)CUZK_GPU_FB_NWIN * CUZK_GPU_FB_DIG;                              \
        JAC *j = (JAC *)malloc(nt * sizeof *j);                                                    \
        AFF *t = (AFF *)malloc(nt * sizeof *t);                                                    \
        if (!j || !t) return free(j), free(t), (AFF *)NULL;                                        \
        JAC pw;                                                                                    \
        cuzk_##G##_jac_from_affine(&pw, base);                                                     \
        for (size_t w = 0; w < CUZK_GPU_FB_NWIN; w++) {                                            \
            JAC *row = j + w * CUZK_GPU_FB_DIG;                                                    \
            row[0] = pw;                                                                           \
            for (size_t d = 1; d < CUZK_GPU_FB_DIG; d++) cuzk_##G##_jac_add(&row[d], &row[d - 1], &pw); \
            for (int b = 0; b < 8; b++) cuzk_##G##_jac_dbl(&pw, &pw);                              \
        }                                                                                          \
        cuzk_##G##_jac_batch_to_affine(t, j, nt);                                                  \
        free(j);                                                                                   \
        return t;                                                                                  \
    }
FB_TABLE(g1, cuzk_g1_affine, cuzk_g1_jac)
FB_TABLE(g2, cuzk_g2_affine, cuzk_g2_jac)
#undef FB_TABLE

template <class AFF>
static int gpu_fixed_base(cuzk_gpu_worker *w, AFF *out, const AFF *base, const cuzk_fr *k, size_t n,
                          AFF *(*table)(const AFF *),
                          int (*run)(const ctx &, fixed_base_bufs *, AFF *, const AFF *, const cuzk_fr *, size_t))
{
    if (!w || !base || (n && (!out || !k))) return CUZK_ERR_INVALID_ARG;
    if (n == 0) return CUZK_OK;
    ctx c;
    int rc = begin(w, &c);
    if (rc) return rc;
    AFF *tab = table(base);
    if (!tab) return fail_msg(c, CUZK_ERR_NO_MEMORY, "fixed-base: host comb table");
    region_lock(w);
    rc = run(c, &w->fb, out, tab, k, n);
    rc = region_unlock(w, c, rc);
    free(tab);
    return rc;
}

extern "C" int cuzk_gpu_g1_fixed_base(cuzk_gpu_worker *w, cuzk_g1_affine *out, const cuzk_g1_affine *base,
                                      const cuzk_fr *k, size_t n)
{
    return gpu_fixed_base(w, out, base, k, n, fb_table_g1, fixed_base_g1);
}
extern "C" int cuzk_gpu_g2_fixed_base(cuzk_gpu_worker *w, cuzk_g2_affine *out, const cuzk_g2_affine *base,
                                      const cuzk_fr *k, size_t n)
{
    return gpu_fixed_base(w, out, base, k, n, fb_table_g2, fixed_base_g2);
}

static int setup_fb_g1(void *ctx, cuzk_g1_affine *out, const cuzk_g1_affine *base, const cuzk_fr *k, size_t n)
{
    return cuzk_gpu_g1_fixed_base((cuzk_gpu_worker *)ctx, out, base, k, n);
}
static int setup_fb_g2(void *ctx, cuzk_g2_affine *out, const cuzk_g2_affine *base, const cuzk_fr *k, size_t n)
{
    return cuzk_gpu_g2_fixed_base((cuzk_gpu_worker *)ctx, out, base, k, n);
}
extern "C" void cuzk_gpu_setup_fixed_base(cuzk_groth16_fixed_base *fb, cuzk_gpu_worker *w)
{
    fb->g1 = setup_fb_g1, fb->g2 = setup_fb_g2, fb->ctx = w;
}

/*
 * Products of Miller loops on the device (cuzk_gpu_miller_loop): one thread
 * a pair runs the pair's loop (pairing.cuh), then the pairs' values are
 * multiplied together by halving passes, each thread multiplying two. A
 * SnarkPack aggregation of n proofs pairs about 21·n points in such
 * products: thousands of independent loops, which is what the device is for
 * (one loop is ~10^4 Fp products and the CPU runs one a core at a time).
 */
#include "cuzk/ec/pairing.h"
#include "cuzk/gpu/gpu.h"
#include "device.cuh"
#include "ec.cuh"
#include "gpu_internal.cuh"
#include "pairing.cuh"

using namespace cuzk_gpu;

static_assert(sizeof(fp12_t) == sizeof(cuzk_fp12), "Fp12 layouts differ");

__global__ void miller_pairs(fp12_t *f, const g1_affine *P, const g2_affine *Q, size_t n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) miller_pair(f[i], P[i].x, P[i].y, Q[i].x, Q[i].y);
}

/* f[i] <- f[i]·f[i + h] for i < m - h: m values become h = ceil(m/2) */
__global__ void fp12_fold(fp12_t *f, size_t m, size_t h)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i + h < m) f[i] = fp12_mul(f[i], f[i + h]);
}

#define MILLER_THREADS 64 /* a thread's state (T, f, the lines) is ~1.5 KB */

/* The loops of n pairs at P, Q (device) into f (device, n values), then
 * their product into f[0] */
static int miller_run(const ctx &c, fp12_t *f, const g1_affine *P, const g2_affine *Q, size_t n)
{
    miller_pairs<<<(unsigned)((n + MILLER_THREADS - 1) / MILLER_THREADS), MILLER_THREADS, 0, c.st>>>(f, P, Q, n);
    GPU_LAUNCHED(c, "miller_pairs");
    for (size_t m = n; m > 1; m = (m + 1) / 2) {
        const size_t h = (m + 1) / 2, t = m - h;
        fp12_fold<<<(unsigned)((t + MILLER_THREADS - 1) / MILLER_THREADS), MILLER_THREADS, 0, c.st>>>(f, m, h);
        GPU_LAUNCHED(c, "fp12_fold");
    }
    return CUZK_OK;
}

extern "C" int cuzk_gpu_miller_loop(cuzk_gpu_worker *w, cuzk_fp12 *out, const cuzk_g1_affine *P,
                                    const cuzk_g2_affine *Q, size_t n)
{
    if (!w || !out || (n && (!P || !Q))) return CUZK_ERR_INVALID_ARG;
    if (n == 0) return *out = cuzk_fp12_one, CUZK_OK;
    ctx c;
    int rc = begin(w, &c);
    if (rc) return rc;
    const size_t pb = n * sizeof *P, qb = n * sizeof *Q;
    if ((rc = buf_reserve(c, &w->abc, pb + qb, "Miller loop pairs")) ||
        (rc = buf_reserve(c, &w->tmp, n * sizeof(fp12_t), "Miller loop values")) ||
        (rc = h2d(w, c, w->abc.p, P, pb)) || (rc = h2d(w, c, (char *)w->abc.p + pb, Q, qb)))
        return rc;
    region_lock(w);
    rc = miller_run(c, bp<fp12_t>(w->tmp), bp<g1_affine>(w->abc), (const g2_affine *)((char *)w->abc.p + pb), n);
    rc = region_unlock(w, c, rc);
    if (rc) return rc;
    cuzk_fp12 f;
    GPU_TRY(c, cudaMemcpyAsync(&f, w->tmp.p, sizeof f, cudaMemcpyDeviceToHost, c.st));
    GPU_TRY(c, cudaStreamSynchronize(c.st));
    cuzk_fp12_conjugate(out, &f); /* x < 0, as cuzk_pairing_miller_loop */
    return CUZK_OK;
}

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

/* The products' values, each a segment of f: product k's m[k] values at base[k]. A
 * halving pass multiplies f[base + j] by f[base + j + h] for j < m - h, h = ceil(m/2), in
 * every segment at once; thread i takes the segment whose [first[k], first[k + 1]) holds i. */
typedef struct {
    unsigned n;
    size_t base[CUZK_PAIRING_PRODS_MAX], m[CUZK_PAIRING_PRODS_MAX], first[CUZK_PAIRING_PRODS_MAX + 1];
} fold_segs;

__global__ void fp12_fold(fp12_t *f, fold_segs s)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= s.first[s.n]) return;
    unsigned k = 0;
    while (i >= s.first[k + 1]) k++;
    const size_t j = s.base[k] + (i - s.first[k]), h = (s.m[k] + 1) / 2;
    f[j] = fp12_mul(f[j], f[j + h]);
}

#define MILLER_THREADS 64 /* a thread's state (T, f, the lines) is ~1.5 KB */

/* One halving pass's segments from the values left (m), false when every product is down to
 * one value. */
static bool fold_pass(fold_segs *s, const size_t *off, size_t nprod)
{
    size_t t = 0;
    s->n = (unsigned)nprod;
    for (size_t k = 0; k < nprod; k++) {
        s->base[k] = off[k], s->first[k] = t;
        t += s->m[k] - (s->m[k] + 1) / 2;
    }
    s->first[nprod] = t;
    return t > 0;
}

/* The loops of the pairs at P, Q (device) into f (device, one value a pair), then each
 * product's values (pairs [off[k], off[k + 1])) into f[off[k]] */
static int miller_run(const ctx &c, fp12_t *f, const g1_affine *P, const g2_affine *Q, const size_t *off, size_t nprod)
{
    const size_t n = off[nprod];
    miller_pairs<<<(unsigned)((n + MILLER_THREADS - 1) / MILLER_THREADS), MILLER_THREADS, 0, c.st>>>(f, P, Q, n);
    GPU_LAUNCHED(c, "miller_pairs");
    fold_segs s;
    for (size_t k = 0; k < nprod; k++) s.m[k] = off[k + 1] - off[k];
    while (fold_pass(&s, off, nprod)) {
        const size_t t = s.first[nprod];
        fp12_fold<<<(unsigned)((t + MILLER_THREADS - 1) / MILLER_THREADS), MILLER_THREADS, 0, c.st>>>(f, s);
        GPU_LAUNCHED(c, "fp12_fold");
        for (size_t k = 0; k < nprod; k++) s.m[k] = (s.m[k] + 1) / 2;
    }
    return CUZK_OK;
}

/* The first value of each non-empty product back to the host, conjugated (x < 0, as
 * cuzk_pairing_miller_loop); an empty product is one. */
static int miller_results(cuzk_gpu_worker *w, const ctx &c, cuzk_fp12 *out, const size_t *off, size_t nprod)
{
    for (size_t k = 0; k < nprod; k++)
        if (off[k + 1] > off[k])
            GPU_TRY(c, cudaMemcpyAsync(&out[k], bp<fp12_t>(w->tmp) + off[k], sizeof *out, cudaMemcpyDeviceToHost,
                                       c.st));
    GPU_TRY(c, cudaStreamSynchronize(c.st));
    for (size_t k = 0; k < nprod; k++)
        if (off[k + 1] > off[k]) cuzk_fp12_conjugate(&out[k], &out[k]);
        else out[k] = cuzk_fp12_one;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_miller_loops(cuzk_gpu_worker *w, cuzk_fp12 *out, size_t nprod, const cuzk_g1_affine *P,
                                     const cuzk_g2_affine *Q, const size_t *off)
{
    if (!w || !out || !off || !nprod || nprod > CUZK_PAIRING_PRODS_MAX || off[0]) return CUZK_ERR_INVALID_ARG;
    for (size_t k = 0; k < nprod; k++)
        if (off[k + 1] < off[k]) return CUZK_ERR_INVALID_ARG;
    const size_t n = off[nprod];
    if (n && (!P || !Q)) return CUZK_ERR_INVALID_ARG;
    if (n == 0) {
        for (size_t k = 0; k < nprod; k++) out[k] = cuzk_fp12_one;
        return CUZK_OK;
    }
    ctx c;
    int rc = begin(w, &c);
    if (rc) return rc;
    const size_t pb = n * sizeof *P, qb = n * sizeof *Q;
    if ((rc = buf_reserve(c, &w->abc, pb + qb, "Miller loop pairs")) ||
        (rc = buf_reserve(c, &w->tmp, n * sizeof(fp12_t), "Miller loop values")) ||
        (rc = h2d(w, c, w->abc.p, P, pb)) || (rc = h2d(w, c, (char *)w->abc.p + pb, Q, qb)))
        return rc;
    region_lock(w);
    rc = miller_run(c, bp<fp12_t>(w->tmp), bp<g1_affine>(w->abc), (const g2_affine *)((char *)w->abc.p + pb), off,
                    nprod);
    rc = region_unlock(w, c, rc);
    return rc ? rc : miller_results(w, c, out, off, nprod);
}

extern "C" int cuzk_gpu_miller_loop(cuzk_gpu_worker *w, cuzk_fp12 *out, const cuzk_g1_affine *P,
                                    const cuzk_g2_affine *Q, size_t n)
{
    if (n && (!P || !Q)) return CUZK_ERR_INVALID_ARG;
    const size_t off[2] = {0, n};
    return cuzk_gpu_miller_loops(w, out, 1, P, Q, off);
}

/*
 * Fixed-base scalar multiplications on the device: out[i] = k[i]·G, affine,
 * the bulk of a Groth16 test setup (every query point is a multiple of one
 * generator). A comb of 32 windows of 8 bits, tab[w][d-1] = d·2^(8w)·G
 * (built on the host, 32·255 affine points: 0.8 MiB in G1, 1.6 MiB in G2,
 * read from L2), makes each product at most 32 mixed XYZZ additions, one
 * thread per scalar. The results go affine by chunks of FB_CHUNK points per
 * thread sharing one field inversion (Montgomery's trick on ZZ·ZZZ), so the
 * output is the canonical affine point the CPU comb gives: bit-identical
 * parameters whichever side computed them. Scalars are processed in
 * batches so device memory stays bounded for any n.
 */
#include <stdlib.h>

#include "ec.cuh"
#include "gpu_internal.cuh"

namespace cuzk_gpu {

#define FB_CHUNK 64
#define FB_BATCH ((size_t)1 << 22)

template <class F>
__global__ void fb_mul(const affine_t<F> *__restrict__ tab, const fr_t *__restrict__ k, size_t n,
                       xyzz_t<F> *__restrict__ out)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fr_t s;
    f_from_mont(s, k[i]);
    xyzz_t<F> acc;
    xyzz_set_inf(acc);
#pragma unroll 1
    for (unsigned w = 0; w < CUZK_GPU_FB_NWIN; w++) {
        const uint32_t d = (s.l[w >> 2] >> (8 * (w & 3))) & 0xffu;
        if (!d) continue;
        affine_t<F> p;
        load16(p, tab + (size_t)w * CUZK_GPU_FB_DIG + (d - 1));
        hot_add_aff(acc, p);
    }
    out[i] = acc;
}

/* out[j] = affine(in[j]); one thread per FB_CHUNK points; out[j].x holds the
 * running product before j until the backward pass overwrites it. */
template <class F>
__global__ void fb_to_affine(const xyzz_t<F> *__restrict__ in, size_t n, affine_t<F> *__restrict__ out)
{
    const size_t lo = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * FB_CHUNK;
    if (lo >= n) return;
    const size_t hi = lo + FB_CHUNK < n ? lo + FB_CHUNK : n;
    F acc, d;
    f_one(acc);
    for (size_t j = lo; j < hi; j++) {
        out[j].x = acc;
        const xyzz_t<F> p = in[j];
        if (xyzz_is_inf(p)) continue;
        f_mul(d, p.zz, p.zzz);
        f_mul(acc, acc, d);
    }
    F inv;
    f_inv(inv, acc); /* acc is a product of non-zero values */
    for (size_t j = hi; j-- > lo;) {
        const xyzz_t<F> p = in[j];
        affine_t<F> r;
        if (xyzz_is_inf(p)) {
            f_zero(r.x), f_zero(r.y);
        } else {
            F ij, izz, izzz;
            f_mul(ij, inv, out[j].x); /* 1 / (ZZ·ZZZ) */
            f_mul(d, p.zz, p.zzz);
            f_mul(inv, inv, d);
            f_mul(izz, ij, p.zzz);
            f_mul(izzz, ij, p.zz);
            f_mul(r.x, p.x, izz);
            f_mul(r.y, p.y, izzz);
        }
        out[j] = r;
    }
}

template <class F>
static int fixed_base_run(const ctx &c, fixed_base_bufs *b, void *out, const void *host_tab, const cuzk_fr *k,
                          size_t n)
{
    typedef affine_t<F> A;
    typedef xyzz_t<F> X;
    int rc;
    size_t batch = FB_BATCH;
    const uint64_t force = cuzk_gpu_hooks_now()->fb_batch; /* tests: several batches at small n */
    if (force >= 64) batch = (size_t)force;
    if (batch > n) batch = n;
    if ((rc = buf_reserve(c, &b->tab, CUZK_GPU_FB_NWIN * CUZK_GPU_FB_DIG * sizeof(A), "fixed-base table")) ||
        (rc = buf_reserve(c, &b->k, batch * sizeof(fr_t), "fixed-base scalars")) ||
        (rc = buf_reserve(c, &b->x, batch * sizeof(X), "fixed-base XYZZ")) ||
        (rc = buf_reserve(c, &b->a, batch * sizeof(A), "fixed-base affine")))
        return rc;
    GPU_TRY(c, cudaMemcpyAsync(b->tab.p, host_tab, CUZK_GPU_FB_NWIN * CUZK_GPU_FB_DIG * sizeof(A), cudaMemcpyHostToDevice, c.st));
    for (size_t off = 0; off < n; off += batch) {
        const size_t m = n - off < batch ? n - off : batch;
        GPU_TRY(c, cudaMemcpyAsync(b->k.p, k + off, m * sizeof(fr_t), cudaMemcpyHostToDevice, c.st));
        fb_mul<F><<<(unsigned)((m + 127) / 128), 128, 0, c.st>>>(bp<A>(b->tab), bp<fr_t>(b->k), m, bp<X>(b->x));
        GPU_LAUNCHED(c, "fb_mul");
        const size_t nt = (m + FB_CHUNK - 1) / FB_CHUNK;
        fb_to_affine<F><<<(unsigned)((nt + 63) / 64), 64, 0, c.st>>>(bp<X>(b->x), m, bp<A>(b->a));
        GPU_LAUNCHED(c, "fb_to_affine");
        GPU_TRY(c, cudaMemcpyAsync((A *)out + off, b->a.p, m * sizeof(A), cudaMemcpyDeviceToHost, c.st));
    }
    GPU_TRY(c, cudaStreamSynchronize(c.st));
    return CUZK_OK;
}

int fixed_base_g1(const ctx &c, fixed_base_bufs *b, cuzk_g1_affine *out, const cuzk_g1_affine *tab,
                  const cuzk_fr *k, size_t n)
{
    static_assert(sizeof(g1_affine) == sizeof(cuzk_g1_affine), "G1 affine layouts differ");
    return fixed_base_run<fp_t>(c, b, out, tab, k, n);
}
int fixed_base_g2(const ctx &c, fixed_base_bufs *b, cuzk_g2_affine *out, const cuzk_g2_affine *tab,
                  const cuzk_fr *k, size_t n)
{
    static_assert(sizeof(g2_affine) == sizeof(cuzk_g2_affine), "G2 affine layouts differ");
    return fixed_base_run<fp2_t>(c, b, out, tab, k, n);
}

void fixed_base_bufs_free(fixed_base_bufs *b)
{
    buf_free(&b->tab), buf_free(&b->k), buf_free(&b->x), buf_free(&b->a);
}

} // namespace cuzk_gpu

/*
 * a = A·w, b = B·w, c = C·w on the device: the PCE's CSR matrices resident
 * (uploaded once per PCE, as the parameters are), only the witness uploaded
 * per proof, the products written straight into the prover's NTT buffers.
 *
 * One thread per row for the short rows (most hold 1-4 entries), a warp
 * per row for the few long ones (bit packing: hundreds of entries), each
 * row's sum in registers. Per entry: 8 bytes of matrix (column, coefficient
 * code) and one 32-byte witness gather. Coefficient classes as the CPU
 * (src/pce/eval.c): ±1 add or subtract; ±k (k < 2^29) goes into a lazy
 * wide sum folded once per row; a general coefficient adds itself on a bit
 * and multiplies otherwise. The row's value is reduced canonically, so it
 * is bit for bit what cuzk_pce_eval computes.
 */
#include "cuzk/pce/pce.h"
#include "gpu_internal.cuh"
#include "witness.cuh"

namespace cuzk_gpu {

/* R^2 mod r (R = 2^256), 32-bit limbs. */
static __device__ __forceinline__ void fr_r2(fr_t &r)
{
    constexpr uint32_t v[8] = {0xf3f29c6d, 0xc999e990, 0x87925c23, 0x2b6cedcb,
                               0x7254398f, 0x05d31496, 0x9f59ff11, 0x0748d9d9};
#pragma unroll
    for (int i = 0; i < 8; i++) r.l[i] = v[i];
}

/* A row's running sum: s (reduced) takes the ±1 and general terms; w, an
 * unreduced 320-bit sum of Montgomery representatives, takes k·y for the
 * ±small terms (y = x, or r - x for a negative k), as the CPU's lazy
 * accumulator does: 8 multiply-adds per term instead of two Montgomery
 * multiplications. Since k·(xR) = (kx)R, w mod r is the Montgomery form of
 * their sum; it is folded into s once per row (spmv_final). w stays below
 * 2^(285 + log2 row length): far from 2^320. */
struct spmv_acc {
    fr_t s;
    uint32_t w[10];
    bool lazy;
};

static __device__ __forceinline__ void spmv_init(spmv_acc &a)
{
    f_zero(a.s);
#pragma unroll
    for (int i = 0; i < 10; i++) a.w[i] = 0;
    a.lazy = false;
}

static __device__ __forceinline__ void spmv_add(spmv_acc &a, uint32_t cd, const fr_t &x, const fr_t *__restrict__ coeffs)
{
    switch (cd >> CUZK_PCE_CLASS_SHIFT) {
    case CUZK_PCE_ONE: f_add(a.s, a.s, x); break;
    case CUZK_PCE_NEG_ONE: f_sub(a.s, a.s, x); break;
    case CUZK_PCE_SMALL: {
        const uint32_t k = cd & CUZK_PCE_SMALL_MAX;
        fr_t y;
        if (cd & CUZK_PCE_SMALL_NEG) f_neg(y, x);
        else y = x;
        uint32_t *w = a.w; /* w += y·k: the low halves of the products, then the high halves */
        w[0] = mad_lo_cc(y.l[0], k, w[0]);
#pragma unroll
        for (int i = 1; i < 8; i++) w[i] = madc_lo_cc(y.l[i], k, w[i]);
        w[8] = addc_cc(w[8], 0);
        w[9] = addc(w[9], 0);
        w[1] = mad_hi_cc(y.l[0], k, w[1]);
#pragma unroll
        for (int i = 1; i < 8; i++) w[i + 1] = madc_hi_cc(y.l[i], k, w[i + 1]);
        w[9] = addc(w[9], 0);
        a.lazy = true;
        break;
    }
    default: {
        /* general coefficients mostly weigh bits (packing): 0 adds nothing,
         * Montgomery one adds the coefficient, anything else multiplies */
        fr_t one;
        f_one(one);
        if (f_is_zero(x)) break;
        const fr_t &cf = coeffs[cd & CUZK_PCE_PAYLOAD_MASK];
        if (f_eq(x, one)) {
            f_add(a.s, a.s, cf);
        } else {
            fr_t t;
            f_mul(t, x, cf);
            f_add(a.s, a.s, t);
        }
    }
    }
}

/* The row's value: s + (w mod r), w = lo + hi·2^256 with lo < 2^256 < 3r
 * (two conditional subtractions) and hi·2^256 = hi·R, which is
 * mont(hi, R^2). */
static __device__ __forceinline__ void spmv_final(fr_t &out, spmv_acc &a)
{
    out = a.s;
    if (!a.lazy) return;
    fr_t lo, hi, r2;
    f_reduce_once(lo, a.w, 0u);
    f_reduce_once(lo, lo.l, 0u);
    f_zero(hi);
    hi.l[0] = a.w[8], hi.l[1] = a.w[9];
    fr_r2(r2);
    f_mul(hi, hi, r2);
    f_add(out, out, lo);
    f_add(out, out, hi);
}

/* One thread per row; rows longer than PCE_SPMV_LONG are left to
 * pce_spmv_long (a warp each): with one thread per row a warp would wait on
 * its longest row (PoRep's A has rows of hundreds of entries among rows of
 * one to four, and a third of its entries lie in them). */
template <class RP, bool PK>
static __global__ void pce_spmv_rows(fr_t *__restrict__ out, const RP *__restrict__ rp,
                                     const uint32_t *__restrict__ col, const uint32_t *__restrict__ code,
                                     const fr_t *__restrict__ coeffs, const wit_dev w, size_t rows, uint64_t eb)
{
    const size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const uint64_t e0 = rp[row] - eb, e1 = rp[row + 1] - eb;
    if (e1 - e0 > PCE_SPMV_LONG) return;
    spmv_acc a;
    spmv_init(a);
    for (uint64_t e = e0; e < e1; e++) spmv_add(a, __ldg(&code[e]), wit_get<PK>(w, __ldg(&col[e])), coeffs);
    spmv_final(out[row], a);
}

/* One warp per long row: the lanes take every 32nd entry, then a tree of
 * shuffles adds the 32 partial sums. */
template <class RP, bool PK>
static __global__ void pce_spmv_long(fr_t *__restrict__ out, const RP *__restrict__ rp,
                                     const uint32_t *__restrict__ col, const uint32_t *__restrict__ code,
                                     const fr_t *__restrict__ coeffs, const wit_dev w,
                                     const uint32_t *__restrict__ long_rows, size_t n_long, uint64_t eb,
                                     uint32_t rb)
{
    const size_t q = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const unsigned lane = threadIdx.x & 31;
    if (q >= n_long) return; /* whole warps: q is uniform in a warp */
    const uint32_t row = long_rows[q] - rb;
    spmv_acc a;
    spmv_init(a);
    for (uint64_t e = rp[row] - eb + lane, e1 = rp[row + 1] - eb; e < e1; e += 32)
        spmv_add(a, __ldg(&code[e]), wit_get<PK>(w, __ldg(&col[e])), coeffs);
    fr_t s;
    spmv_final(s, a);
    for (unsigned h = 16; h > 0; h >>= 1) {
        fr_t o;
#pragma unroll
        for (int i = 0; i < 8; i++) o.l[i] = __shfl_down_sync(0xffffffffu, s.l[i], h);
        f_add(s, s, o);
    }
    if (lane == 0) out[row] = s;
}

/* The two kernels for one row pointer width and witness form. */
template <class RP, bool PK>
static void pce_spmv_launch(const ctx &c, fr_t *out, const RP *rp, const uint32_t *col, const uint32_t *code,
                            const fr_t *coeffs, const wit_dev &w, size_t rows, const uint32_t *long_rows,
                            size_t n_long, uint64_t e0, uint32_t r0)
{
    const unsigned threads = 128, blocks = (unsigned)((rows + threads - 1) / threads);
    const unsigned lblocks = (unsigned)((n_long * 32 + threads - 1) / threads);
    pce_spmv_rows<RP, PK><<<blocks, threads, 0, c.st>>>(out, rp, col, code, coeffs, w, rows, e0);
    if (n_long)
        pce_spmv_long<RP, PK><<<lblocks, threads, 0, c.st>>>(out, rp, col, code, coeffs, w, long_rows, n_long, e0, r0);
}

int pce_spmv(const ctx &c, fr_t *out, const void *row_ptr, bool wide, const uint32_t *col, const uint32_t *code,
             const fr_t *coeffs, const wit_dev &w, size_t rows, const uint32_t *long_rows, size_t n_long,
             uint64_t e0, uint32_t r0)
{
    if (rows == 0) return CUZK_OK;
    const bool pk = w.plain == nullptr;
    if (wide && pk)
        pce_spmv_launch<uint64_t, true>(c, out, (const uint64_t *)row_ptr, col, code, coeffs, w, rows, long_rows, n_long, e0, r0);
    else if (wide)
        pce_spmv_launch<uint64_t, false>(c, out, (const uint64_t *)row_ptr, col, code, coeffs, w, rows, long_rows, n_long, e0, r0);
    else if (pk)
        pce_spmv_launch<uint32_t, true>(c, out, (const uint32_t *)row_ptr, col, code, coeffs, w, rows, long_rows, n_long, e0, r0);
    else
        pce_spmv_launch<uint32_t, false>(c, out, (const uint32_t *)row_ptr, col, code, coeffs, w, rows, long_rows, n_long, e0, r0);
    GPU_LAUNCHED(c, "pce_spmv");
    return CUZK_OK;
}

} // namespace cuzk_gpu

/*
 * a = A·w, b = B·w, c = C·w on the device: the PCE's CSR matrices resident
 * (uploaded once per PCE, as the parameters are), only the witness uploaded
 * per proof, the products written straight into the prover's NTT buffers.
 *
 * One thread per row: R1CS rows are short (most hold 1-3 entries, the
 * longest a few hundred: bit packing), so a warp's rows finish together
 * closely enough, and each row's sum stays in registers. Per entry the
 * thread reads 8 bytes of matrix (column, coefficient code) and gathers one
 * 32-byte witness value; the matrix bytes stream, the gathers are the cost.
 * Coefficient classes as the CPU (src/pce/eval.c): ±1 add or subtract; ±k
 * (k < 2^29) is k·x = mont(mont(x, k), R^2) (two multiplications: the
 * first gives the plain value x·k, the second puts it back into Montgomery
 * form); a general coefficient is one Montgomery multiplication. Every
 * operation keeps values fully reduced, so each row's sum is the canonical
 * Montgomery value: bit for bit what cuzk_pce_eval computes.
 */
#include "cuzk/pce.h"
#include "gpu_internal.cuh"

namespace cuzk_gpu {

/* R^2 mod r (R = 2^256), 32-bit limbs. */
static __device__ __forceinline__ void fr_r2(fr_t &r)
{
    constexpr uint32_t v[8] = {0xf3f29c6d, 0xc999e990, 0x87925c23, 0x2b6cedcb,
                               0x7254398f, 0x05d31496, 0x9f59ff11, 0x0748d9d9};
#pragma unroll
    for (int i = 0; i < 8; i++) r.l[i] = v[i];
}

template <class RP>
static __global__ void pce_spmv_rows(fr_t *__restrict__ out, const RP *__restrict__ rp,
                                     const uint32_t *__restrict__ col, const uint32_t *__restrict__ code,
                                     const fr_t *__restrict__ coeffs, const fr_t *__restrict__ w, size_t rows)
{
    const size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    fr_t acc;
    f_zero(acc);
    for (uint64_t e = rp[row], e1 = rp[row + 1]; e < e1; e++) {
        const uint32_t cd = __ldg(&code[e]);
        const fr_t x = w[__ldg(&col[e])];
        switch (cd >> CUZK_PCE_CLASS_SHIFT) {
        case CUZK_PCE_ONE: f_add(acc, acc, x); break;
        case CUZK_PCE_NEG_ONE: f_sub(acc, acc, x); break;
        case CUZK_PCE_SMALL: {
            const uint32_t k = cd & CUZK_PCE_SMALL_MAX;
            if (k == 0) break; /* a zero coefficient: an entry that adds nothing */
            fr_t kk, t, r2;
            f_zero(kk);
            kk.l[0] = k;
            fr_r2(r2);
            f_mul(t, x, kk); /* x·k·R^-1: the plain value of k·x */
            f_mul(t, t, r2); /* back to Montgomery form */
            if (cd & CUZK_PCE_SMALL_NEG) f_sub(acc, acc, t);
            else f_add(acc, acc, t);
            break;
        }
        default: {
            fr_t t;
            f_mul(t, x, coeffs[cd & CUZK_PCE_PAYLOAD_MASK]);
            f_add(acc, acc, t);
        }
        }
    }
    out[row] = acc;
}

int pce_spmv(const ctx &c, fr_t *out, const void *row_ptr, bool wide, const uint32_t *col, const uint32_t *code,
             const fr_t *coeffs, const fr_t *w, size_t rows)
{
    if (rows == 0) return CUZK_OK;
    const unsigned threads = 128, blocks = (unsigned)((rows + threads - 1) / threads);
    if (wide)
        pce_spmv_rows<<<blocks, threads, 0, c.st>>>(out, (const uint64_t *)row_ptr, col, code, coeffs, w, rows);
    else
        pce_spmv_rows<<<blocks, threads, 0, c.st>>>(out, (const uint32_t *)row_ptr, col, code, coeffs, w, rows);
    GPU_LAUNCHED(c, "pce_spmv_rows");
    return CUZK_OK;
}

} // namespace cuzk_gpu

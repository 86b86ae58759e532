/*
 * NTT over Fr on the device.
 *
 * A transform of size 2^L is ceil(L/9) passes over device memory. A pass
 * does k <= 9 consecutive radix-2 levels on tiles of 2^k elements spaced by
 * the pass's stride (G = 4 such columns side by side, so each row of a tile
 * is 4 consecutive elements, 128 bytes), the tile staying in shared memory
 * between levels. Decimation in frequency (Gentleman-Sande) takes natural
 * order to bit-reversed, decimation in time (Cooley-Tukey) bit-reversed to
 * natural, so chained transforms (Groth16's H) never reorder until the end.
 *
 * Twiddles: one table of omega^j (and one of omega^-j), j < 2^(Lmax-1), for
 * the largest domain built so far; a domain of size 2^L reads every
 * 2^(Lmax-L)-th entry. Tables are filled on the device from two short host
 * tables (omega^j and omega^(j·2^S)): one multiplication per entry.
 * Scalings by g^i, 1/n and their products use the same two-table trick.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/gpu/gpu.h"
#include "cuzk/poly/ntt.h"
#include "gpu_internal.cuh"

namespace cuzk_gpu {

#define NTT_KMAX 9
#define NTT_LOGG 2
#define NTT_THREADS 256

/* A scaling folded into a pass's loads (lo = NULL: none): element p is
 * multiplied by hi[i >> S]·lo[i & (2^S - 1)], i = bitrev(p) over log_n bits. */
struct ntt_pre {
    const fr_t *lo, *hi;
    unsigned S, log_n;
};

/* Twiddle of butterfly index tb (its position inside the half-span) at tile
 * level lt: omega_(2^(lh+1))^j with j the butterfly's index in the whole
 * transform's level lh = lt + lvl_lo. */
/* The twiddle table as a pass reads it: omega^i at t[i] (S = 0), or, compact,
 * lo[i & (2^S - 1)]·hi[i >> S] with lo = t and hi = t + 2^S (two tables of
 * about sqrt(n) elements instead of one of n/2: 2 GiB less each way at 2^27,
 * for one more multiplication per twiddle read). */
struct ntt_tw {
    const fr_t *t;
    unsigned log, S;
};

template <bool CT>
static __device__ __forceinline__ fr_t twiddle(const ntt_tw &tw, unsigned lvl_lo, size_t smask, size_t gid,
                                               unsigned tb, unsigned lt)
{
    const size_t j = ((size_t)tb << lvl_lo) + (gid & smask);
    const size_t i = j << (tw.log - 1 - (lt + lvl_lo));
    if (!CT) return tw.t[i];
    fr_t r;
    f_mul(r, tw.t[((size_t)1 << tw.S) + (i >> tw.S)], tw.t[i & (((size_t)1 << tw.S) - 1)]);
    return r;
}

static __device__ __forceinline__ size_t bitrev(size_t i, unsigned log_n)
{
    return log_n ? (size_t)(__brevll((unsigned long long)i) >> (64 - log_n)) : 0;
}

/* One pass: k tile levels in shared memory. R4: two levels per step, the four
 * elements of a radix-4 group kept in registers between them (half the
 * shared-memory round trips and barriers; the same multiplications, so the
 * same limbs as radix-2), a radix-2 step for an odd level left over. */
/* MINB: blocks per SM the registers must allow (1: as ptxas likes; the DIT
 * radix-4 pass then takes 98 registers, two blocks of 256 threads per SM
 * where shared memory allows three; 3: 80 registers, a few spilled). 3 is
 * the default: 7.6-12 % faster from 2^24 to 2^27 in both directions on the
 * H100; the test hook ntt_minb picks the other to compare.
 * long: one body of about 110 lines: the tile's load, its levels and its
 * store are one loop nest over the same tile indices and radix-4 registers,
 * the code whose register count MINB bounds. */
template <bool DIF, bool R4, int MINB, bool CT>
__global__ void __launch_bounds__(NTT_THREADS, MINB)
    ntt_pass(fr_t *__restrict__ x, unsigned lvl_lo, unsigned k, unsigned log_g, const ntt_tw tw, const ntt_pre pre)
{
    extern __shared__ fr_t sm[];
    const unsigned G = 1u << log_g, T = 1u << k;
    const size_t smask = ((size_t)1 << lvl_lo) - 1;
    const size_t gid0 = (size_t)blockIdx.x << log_g;
    for (unsigned e = threadIdx.x; e < T * G; e += blockDim.x) {
        const unsigned g = e & (G - 1), t = e >> log_g;
        const size_t gid = gid0 + g;
        const size_t idx = ((gid >> lvl_lo) << (lvl_lo + k)) + ((size_t)t << lvl_lo) + (gid & smask);
        if (pre.lo) { /* x[idx]·tab(bitrev(idx)) as it is read: ntt_scale (rev) folded in */
            const size_t i = bitrev(idx, pre.log_n);
            fr_t f, v = x[idx];
            f_mul(f, pre.hi[i >> pre.S], pre.lo[i & (((size_t)1 << pre.S) - 1)]);
            f_mul(sm[e], v, f);
        } else {
            sm[e] = x[idx];
        }
    }
    __syncthreads();
    for (unsigned step = 0; step < k;) {
        if (R4 && step + 1 < k) {
            /* DIF: levels lt then lt - 1; DIT: lt then lt + 1. h is the smaller
             * half-span; the group is t0 + {0, h, 2h, 3h}. */
            const unsigned lt = DIF ? k - 2 - step : step; /* the lower of the two levels */
            const unsigned h = 1u << lt;
            for (unsigned q = threadIdx.x; q < (T / 4) * G; q += blockDim.x) {
                const unsigned g = q & (G - 1), qi = q >> log_g;
                const unsigned low = qi & (h - 1), t0 = ((qi >> lt) << (lt + 2)) | low;
                const size_t gid = gid0 + g;
                fr_t u0 = sm[t0 * G + g], u1 = sm[(t0 + h) * G + g], u2 = sm[(t0 + 2 * h) * G + g],
                     u3 = sm[(t0 + 3 * h) * G + g], s;
                /* the transform's levels 0 and 1 (the same for every thread of
                 * the pass): every twiddle is omega^0 = 1 except the one of the
                 * pair (u1, u3) at level 1, so 1 multiplication instead of 4
                 * (3n/4 of a transform's n/2·log n: 5.6 % at 2^27; a DIF pass
                 * of odd k does level 0 alone, below: n/2, 3.7 %) */
                const bool unit = lvl_lo == 0 && lt == 0;
                if (DIF) {
                    /* level lt + 1 (half-span 2h): (u0, u2) and (u1, u3) */
                    const fr_t wb = twiddle<CT>(tw, lvl_lo, smask, gid, low + h, lt + 1);
                    f_add(s, u0, u2), f_sub(u2, u0, u2), u0 = s;
                    f_add(s, u1, u3), f_sub(u3, u1, u3), f_mul(u3, u3, wb), u1 = s;
                    if (!unit) {
                        const fr_t wa = twiddle<CT>(tw, lvl_lo, smask, gid, low, lt + 1);
                        f_mul(u2, u2, wa);
                    }
                    /* level lt (half-span h): (u0, u1) and (u2, u3) */
                    f_add(s, u0, u1), f_sub(u1, u0, u1), u0 = s;
                    f_add(s, u2, u3), f_sub(u3, u2, u3), u2 = s;
                    if (!unit) {
                        const fr_t wc = twiddle<CT>(tw, lvl_lo, smask, gid, low, lt);
                        f_mul(u1, u1, wc), f_mul(u3, u3, wc);
                    }
                } else {
                    /* wc is read where it is used: read first, it stayed live
                     * through the other three products and the 80-register
                     * pass spilled 36 bytes (2.7 % slower at 2^27) */
                    if (!unit) {
                        const fr_t wa = twiddle<CT>(tw, lvl_lo, smask, gid, low, lt);
                        f_mul(u1, u1, wa), f_mul(u3, u3, wa);
                    }
                    /* level lt: (u0, u1) and (u2, u3) */
                    f_add(s, u0, u1), f_sub(u1, u0, u1), u0 = s;
                    f_add(s, u2, u3), f_sub(u3, u2, u3), u2 = s;
                    /* level lt + 1: (u0, u2) and (u1, u3) */
                    if (!unit) {
                        const fr_t wb = twiddle<CT>(tw, lvl_lo, smask, gid, low, lt + 1);
                        f_mul(u2, u2, wb);
                    }
                    const fr_t wc = twiddle<CT>(tw, lvl_lo, smask, gid, low + h, lt + 1);
                    f_mul(u3, u3, wc);
                    f_add(s, u0, u2), f_sub(u2, u0, u2), u0 = s;
                    f_add(s, u1, u3), f_sub(u3, u1, u3), u1 = s;
                }
                sm[t0 * G + g] = u0, sm[(t0 + h) * G + g] = u1;
                sm[(t0 + 2 * h) * G + g] = u2, sm[(t0 + 3 * h) * G + g] = u3;
            }
            step += 2;
        } else {
            const unsigned lt = DIF ? k - 1 - step : step;
            const unsigned ht = 1u << lt;
            for (unsigned b = threadIdx.x; b < (T / 2) * G; b += blockDim.x) {
                const unsigned g = b & (G - 1), bi = b >> log_g;
                const unsigned t1 = ((bi >> lt) << (lt + 1)) | (bi & (ht - 1)), t2 = t1 + ht;
                /* the transform's level 0 (a DIF pass of odd k ends on it): omega^0 = 1 */
                const bool unit = lvl_lo == 0 && lt == 0;
                fr_t u = sm[t1 * G + g], v = sm[t2 * G + g], s, w;
                if (!unit) w = twiddle<CT>(tw, lvl_lo, smask, gid0 + g, t1 & (ht - 1), lt);
                if (DIF) {
                    f_add(s, u, v);
                    f_sub(v, u, v);
                    if (!unit) f_mul(v, v, w);
                    sm[t1 * G + g] = s;
                    sm[t2 * G + g] = v;
                } else {
                    if (!unit) f_mul(v, v, w);
                    f_add(s, u, v);
                    f_sub(u, u, v);
                    sm[t1 * G + g] = s;
                    sm[t2 * G + g] = u;
                }
            }
            step += 1;
        }
        __syncthreads();
    }
    for (unsigned e = threadIdx.x; e < T * G; e += blockDim.x) {
        const unsigned g = e & (G - 1), t = e >> log_g;
        const size_t gid = gid0 + g;
        const size_t idx = ((gid >> lvl_lo) << (lvl_lo + k)) + ((size_t)t << lvl_lo) + (gid & smask);
        x[idx] = sm[e];
    }
}

/* out[i] = hi[i >> S]·lo[i & (2^S - 1)] (a power table). */
__global__ void ntt_pow_table(fr_t *__restrict__ out, size_t n, unsigned S, const fr_t *__restrict__ lo,
                              const fr_t *__restrict__ hi)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    f_mul(out[i], hi[i >> S], lo[i & (((size_t)1 << S) - 1)]);
}

/* x[p] *= tab(i) with i = p (natural) or bitrev(p); tab(i) = hi[i >> S]·lo[i & mask]. */
__global__ void ntt_scale(fr_t *__restrict__ x, unsigned log_n, bool rev, unsigned S,
                          const fr_t *__restrict__ lo, const fr_t *__restrict__ hi)
{
    size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >> log_n) return;
    const size_t i = rev ? bitrev(p, log_n) : p;
    fr_t f, v = x[p];
    f_mul(f, hi[i >> S], lo[i & (((size_t)1 << S) - 1)]);
    f_mul(x[p], v, f);
}

/* out[bitrev(p)] = in[p]·tab(bitrev(p)): ntt_scale (rev) and ntt_bitrev_copy in one pass */
__global__ void ntt_scale_bitrev(fr_t *__restrict__ out, const fr_t *__restrict__ in, unsigned log_n, unsigned S,
                                 const fr_t *__restrict__ lo, const fr_t *__restrict__ hi)
{
    size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >> log_n) return;
    const size_t i = bitrev(p, log_n);
    fr_t f, v = in[p];
    f_mul(f, hi[i >> S], lo[i & (((size_t)1 << S) - 1)]);
    f_mul(out[i], v, f);
}

/* ntt_scale_bitrev by tiles, for log_n >= 2·NTT_BR_B. Index p splits into
 * high, middle and low bits (h, m, l) of 5, log_n - 10 and 5; its reverse is
 * (rev l, rev m, rev h). A block takes the 32 × 32 elements of one m: it reads
 * them by rows of l and writes them by rows of rev h, so every warp reads and
 * writes 1 KB in a row. The one-element kernel above writes each warp's 32
 * elements 2^(log_n - 5) apart: 23.1 ms at 2^27 in the daemon's trace,
 * where 4.3 GB in and out take ≈ 3 ms. */
#define NTT_BR_B 5
#define NTT_BR_ROWS 8 /* threadIdx.y: a block of 32 × 8 threads, four elements each */
__global__ void __launch_bounds__(32 * NTT_BR_ROWS)
    ntt_scale_bitrev_tiled(fr_t *__restrict__ out, const fr_t *__restrict__ in, unsigned log_n, unsigned S,
                           const fr_t *__restrict__ lo, const fr_t *__restrict__ hi)
{
    __shared__ fr_t tile[1 << NTT_BR_B][(1 << NTT_BR_B) + 1]; /* [h][l], a column of padding */
    const unsigned sh = log_n - NTT_BR_B, tx = threadIdx.x;
    const size_t m = blockIdx.x, mid = m << NTT_BR_B;
    for (unsigned h = threadIdx.y; h < (1u << NTT_BR_B); h += NTT_BR_ROWS)
        tile[h][tx] = in[((size_t)h << sh) | mid | tx];
    __syncthreads();
    const size_t mr = bitrev(m, log_n - 2 * NTT_BR_B) << NTT_BR_B;
    const unsigned h = __brev(tx) >> (32 - NTT_BR_B); /* the output's low bits are rev h = tx */
    const size_t mask = ((size_t)1 << S) - 1;
    for (unsigned v = threadIdx.y; v < (1u << NTT_BR_B); v += NTT_BR_ROWS) {
        const size_t q = ((size_t)v << sh) | mr | tx; /* its high bits are rev l = v */
        fr_t f, x = tile[h][__brev(v) >> (32 - NTT_BR_B)];
        f_mul(f, hi[q >> S], lo[q & mask]);
        f_mul(out[q], x, f);
    }
}

__global__ void ntt_bitrev_copy(fr_t *__restrict__ out, const fr_t *__restrict__ in, unsigned log_n)
{
    size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >> log_n) return;
    out[bitrev(p, log_n)] = in[p];
}

/* a = (a·b - c)·zinv */
__global__ void ntt_abc(fr_t *__restrict__ a, const fr_t *__restrict__ b, const fr_t *__restrict__ c,
                        size_t n, fr_t zinv)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fr_t t, u = b[i];
    f_mul(t, a[i], u);
    f_sub(t, t, c[i]);
    f_mul(a[i], t, zinv);
}

/* a = a·b, then a = (a - c)·zinv: ntt_abc in two steps for H over two
 * vectors (c evaluated into b's room after the product); the same
 * operations in the same order, so the same limbs */
__global__ void ntt_mul(fr_t *__restrict__ a, const fr_t *__restrict__ b, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fr_t t, u = b[i];
    f_mul(t, a[i], u);
    a[i] = t;
}
__global__ void ntt_sub_scale(fr_t *__restrict__ a, const fr_t *__restrict__ c, size_t n, fr_t zinv)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fr_t t = a[i];
    f_sub(t, t, c[i]);
    f_mul(a[i], t, zinv);
}

static inline unsigned nblocks(size_t n, unsigned t) { return (unsigned)((n + t - 1) / t); }

static void cpu_pow(cuzk_fr *r, const cuzk_fr *b, uint64_t e)
{
    cuzk_fr_pow(r, b, &e, 1);
}

/* Host tables lo[u] = b^u (u < 2^S), hi[v] = c·b^(v·2^S) (v < 2^(L-S)), uploaded
 * into one device buffer: lo first. */
static int upload_pow_tables(const ctx &cx, dbuf *buf, unsigned L, unsigned S, const cuzk_fr *b,
                             const cuzk_fr *c0)
{
    const size_t nlo = (size_t)1 << S, nhi = (size_t)1 << (L - S);
    cuzk_fr *h = (cuzk_fr *)malloc((nlo + nhi) * sizeof *h);
    if (!h) return fail_msg(cx, CUZK_ERR_NO_MEMORY, "ntt: host table");
    cuzk_fr_set_u64(&h[0], 1);
    for (size_t u = 1; u < nlo; u++) cuzk_fr_mul(&h[u], &h[u - 1], b);
    cuzk_fr step;
    cuzk_fr_mul(&step, &h[nlo - 1], b); /* b^(2^S) */
    h[nlo] = *c0;
    for (size_t v = 1; v < nhi; v++) cuzk_fr_mul(&h[nlo + v], &h[nlo + v - 1], &step);
    int rc = buf_reserve(cx, buf, (nlo + nhi) * sizeof *h, "ntt tables");
    if (!rc) {
        cudaError_t e = cudaMemcpyAsync(buf->p, h, (nlo + nhi) * sizeof *h, cudaMemcpyHostToDevice, cx.st);
        if (e == cudaSuccess) e = cudaStreamSynchronize(cx.st); /* h is freed next */
        if (e != cudaSuccess) rc = fail(cx, e, "cudaMemcpyAsync(ntt tables)");
    }
    free(h);
    return rc;
}

static unsigned split(unsigned L) { return (L + 1) / 2; }

static const cuzk_fr_generator gen_of[NTT_GENS] = {CUZK_FR_GEN_FILECOIN, CUZK_FR_GEN_SNARKJS};

void ntt_tables_free(ntt_tables *tt)
{
    for (int gi = 0; gi < NTT_GENS; gi++) {
        ntt_gen_tables *t = &tt->g[gi];
        buf_free(&t->tw), buf_free(&t->tw_inv);
        for (int k = 0; k < NTT_SCALE_KINDS; k++)
            for (unsigned l = 0; l <= CUZK_FR_TWO_ADICITY; l++) buf_free(&t->scale[k][l]);
        t->log_max = 0;
    }
}

/* The twiddle tables of generator gi for transforms up to 2^log_n, in the
 * form tt->compact asks (a table built in the other form is rebuilt: the
 * plan asks for compact tables when the full ones do not fit its budget). */
static int ensure_twiddles(const ctx &cx, ntt_tables *tt, int gi, unsigned log_n)
{
    ntt_gen_tables *t = &tt->g[gi];
    if (log_n == 0) return CUZK_OK;
    if (t->log_max > log_n) log_n = t->log_max; /* a form change keeps the largest domain */
    const unsigned L = log_n - 1; /* table length 2^L */
    const bool compact = tt->compact && L >= 1; /* lo and hi of one element each: no gain below */
    if (t->tw.p && t->log_max >= log_n && (t->tw_S != 0) == compact) return CUZK_OK;
    cuzk_fr w, wi, one;
    cuzk_fr_root_of_unity(&w, log_n, gen_of[gi]);
    cuzk_fr_inv(&wi, &w);
    cuzk_fr_set_u64(&one, 1);
    const size_t n2 = (size_t)1 << L;
    /* no valid tables until both are built: a growth that fails half way
     * (the forward table new and unwritten, the inverse one gone) must not
     * serve the next, smaller transform */
    t->log_max = 0;
    buf_free(&t->tw), buf_free(&t->tw_inv); /* before the new ones: never both forms at once */
    int rc = CUZK_OK;
    if (compact) {
        /* lo and hi as upload_pow_tables leaves them: the pass multiplies them */
        t->tw_S = split(L);
        for (int inv = 0; inv < 2 && !rc; inv++)
            rc = upload_pow_tables(cx, inv ? &t->tw_inv : &t->tw, L, t->tw_S, inv ? &wi : &w, &one);
    } else {
        t->tw_S = 0;
        if ((rc = buf_reserve(cx, &t->tw, n2 * sizeof(fr_t), "ntt twiddles")) ||
            (rc = buf_reserve(cx, &t->tw_inv, n2 * sizeof(fr_t), "ntt inverse twiddles"))) {
            buf_free(&t->tw), buf_free(&t->tw_inv);
            return rc;
        }
        dbuf tmp = {};
        const unsigned S = split(L);
        for (int inv = 0; inv < 2; inv++) {
            if ((rc = upload_pow_tables(cx, &tmp, L, S, inv ? &wi : &w, &one))) break;
            ntt_pow_table<<<nblocks(n2, 256), 256, 0, cx.st>>>(inv ? bp<fr_t>(t->tw_inv) : bp<fr_t>(t->tw), n2,
                                                               S, bp<fr_t>(tmp), bp<fr_t>(tmp) + ((size_t)1 << S));
            cudaError_t e = cudaPeekAtLastError();
            if (e == cudaSuccess) e = cudaStreamSynchronize(cx.st);
            if (e != cudaSuccess) {
                rc = fail(cx, e, "ntt_pow_table");
                break;
            }
        }
        buf_free(&tmp);
    }
    if (rc) {
        buf_free(&t->tw), buf_free(&t->tw_inv);
        t->log_max = 0;
        return rc;
    }
    t->log_max = log_n;
    return CUZK_OK;
}

static int ensure_scale(const ctx &cx, ntt_tables *tt, int gen, unsigned log_n, int kind,
                        const fr_t **lo, const fr_t **hi, unsigned *S)
{
    *S = split(log_n);
    dbuf *b = &tt->g[gen].scale[kind][log_n];
    if (!b->p) {
        cuzk_fr g, gi, ninv, base, c0;
        cuzk_fr_generator_get(&g, gen_of[gen]);
        cuzk_fr_inv(&gi, &g);
        cuzk_fr_set_u64(&ninv, 1);
        cuzk_fr two;
        cuzk_fr_set_u64(&two, 2);
        cpu_pow(&ninv, &two, log_n);
        cuzk_fr_inv(&ninv, &ninv);
        if (kind == NTT_SCALE_COSET) base = g, cuzk_fr_set_u64(&c0, 1);
        else if (kind == NTT_SCALE_INV_COSET) base = gi, c0 = ninv;
        else if (kind == NTT_SCALE_INV_THEN_COSET) base = g, c0 = ninv;
        else if (kind == NTT_SCALE_INV_THEN_ODD) cuzk_fr_root_of_unity(&base, log_n + 1, gen_of[gen]), c0 = ninv;
        else cuzk_fr_set_u64(&base, 1), c0 = ninv;
        int rc = upload_pow_tables(cx, b, log_n, *S, &base, &c0);
        if (rc) {
            buf_free(b);
            return rc;
        }
    }
    *lo = bp<fr_t>(*b);
    *hi = bp<fr_t>(*b) + ((size_t)1 << *S);
    return CUZK_OK;
}

/* The passes of one transform; DIF: natural -> bit-reversed. */
static int transform(const ctx &cx, const ntt_gen_tables *t, fr_t *x, unsigned log_n, bool dif, bool inv,
                     ntt_pre pre = ntt_pre{nullptr, nullptr, 0, 0})
{
    if (log_n == 0) { /* no pass to fold a scaling into */
        if (pre.lo) {
            ntt_scale<<<1, 1, 0, cx.st>>>(x, 0, true, pre.S, pre.lo, pre.hi);
            GPU_LAUNCHED(cx, "ntt_scale");
        }
        return CUZK_OK;
    }
    const unsigned npass = (log_n + NTT_KMAX - 1) / NTT_KMAX;
    const ntt_tw tw = {inv ? bp<fr_t>(t->tw_inv) : bp<fr_t>(t->tw), t->log_max, t->tw_S};
    unsigned ks[8], done = 0;
    for (unsigned p = 0; p < npass; p++) {
        ks[p] = (log_n - done) / (npass - p);
        done += ks[p];
    }
    /* radix-4 steps unless a test hook asks for the radix-2 reference or the
     * passes without their register bound (read per call: benchmarks switch it) */
    const cuzk_gpu_test_hooks *hk = cuzk_gpu_hooks_now();
    const bool r2 = hk->ntt_r2 != 0, occ3 = hk->ntt_minb == 0;
    void (*pass)(fr_t *, unsigned, unsigned, unsigned, const ntt_tw, const ntt_pre) =
        tw.S   ? (dif ? ntt_pass<true, true, 3, true> : ntt_pass<false, true, 3, true>)
        : r2   ? (dif ? ntt_pass<true, false, 1, false> : ntt_pass<false, false, 1, false>)
        : occ3 ? (dif ? ntt_pass<true, true, 3, false> : ntt_pass<false, true, 3, false>)
               : (dif ? ntt_pass<true, true, 1, false> : ntt_pass<false, true, 1, false>);
    /* per device, so set on every call (a host-side attribute write) */
    const size_t smax = ((size_t)1 << (NTT_KMAX + NTT_LOGG)) * sizeof(fr_t);
    GPU_TRY(cx, cudaFuncSetAttribute(pass, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smax));
    unsigned lvl = dif ? log_n : 0;
    for (unsigned p = 0; p < npass; p++) {
        const unsigned k = ks[p];
        unsigned lo;
        if (dif) {
            lvl -= k;
            lo = lvl;
        } else {
            lo = lvl;
            lvl += k;
        }
        unsigned log_g = log_n - k < NTT_LOGG ? log_n - k : NTT_LOGG;
        const size_t blocks = (size_t)1 << (log_n - k - log_g);
        const size_t smem = ((size_t)1 << (k + log_g)) * sizeof(fr_t);
        /* a scaling goes into the first pass's loads, before any butterfly */
        pass<<<(unsigned)blocks, NTT_THREADS, smem, cx.st>>>(x, lo, k, log_g, tw,
                                                             p == 0 ? pre : ntt_pre{nullptr, nullptr, 0, 0});
        /* named by pass (the trace sums by name): the first, strided pass
         * reads the widest spread of twiddles */
        static const char *const pass_name[8] = {"ntt_pass 1", "ntt_pass 2", "ntt_pass 3", "ntt_pass 4",
                                                 "ntt_pass 5", "ntt_pass 6", "ntt_pass 7", "ntt_pass 8"};
        GPU_LAUNCHED(cx, pass_name[p]);
    }
    return CUZK_OK;
}

static int scale(const ctx &cx, ntt_tables *t, int gen, fr_t *x, unsigned log_n, int kind, bool rev)
{
    const fr_t *lo, *hi;
    unsigned S;
    int rc = ensure_scale(cx, t, gen, log_n, kind, &lo, &hi, &S);
    if (rc) return rc;
    ntt_scale<<<nblocks((size_t)1 << log_n, 256), 256, 0, cx.st>>>(x, log_n, rev, S, lo, hi);
    GPU_LAUNCHED(cx, "ntt_scale");
    return CUZK_OK;
}

int ntt_run(const ctx &cx, ntt_tables *t, fr_t *x, fr_t *tmp, unsigned log_n, unsigned flags)
{
    const int G = NTT_GEN_FILECOIN;
    int rc = ensure_twiddles(cx, t, G, log_n);
    if (rc) return rc;
    const bool inv = flags & CUZK_GPU_NTT_INVERSE, coset = flags & CUZK_GPU_NTT_COSET;
    const bool in_rev = flags & CUZK_GPU_NTT_IN_BITREV, out_rev = flags & CUZK_GPU_NTT_OUT_BITREV;
    const size_t n = (size_t)1 << log_n;
    if (!inv && coset && (rc = scale(cx, t, G, x, log_n, NTT_SCALE_COSET, in_rev))) return rc;
    /* natural input: DIF (-> bit-reversed); bit-reversed input: DIT (-> natural) */
    if ((rc = transform(cx, &t->g[G], x, log_n, !in_rev, inv))) return rc;
    const bool now_rev = !in_rev;
    if (inv && (rc = scale(cx, t, G, x, log_n, coset ? NTT_SCALE_INV_COSET : NTT_SCALE_INV, now_rev)))
        return rc;
    if (now_rev != out_rev) {
        ntt_bitrev_copy<<<nblocks(n, 256), 256, 0, cx.st>>>(tmp, x, log_n);
        GPU_LAUNCHED(cx, "ntt_bitrev_copy");
        GPU_TRY(cx, cudaMemcpyAsync(x, tmp, n * sizeof(fr_t), cudaMemcpyDeviceToDevice, cx.st));
    }
    return CUZK_OK;
}

/* vectors (evaluations on the domain, natural) -> evaluations at the points
 * scale_kind's factor shifts to, natural order: iNTT (DIF, bit-reversed
 * coefficients), the 1/n and shift in one scaling, forward NTT (DIT). */
static int to_shifted(const ctx &cx, ntt_tables *t, int gen, fr_t *const *v, int nv, unsigned log_n, int scale_kind)
{
    int rc;
    ntt_pre pre = {nullptr, nullptr, 0, log_n};
    if ((rc = ensure_scale(cx, t, gen, log_n, scale_kind, &pre.lo, &pre.hi, &pre.S))) return rc;
    for (int i = 0; i < nv; i++) {
        /* the scaling (bit-reversed positions) read by the forward transform's first pass */
        if ((rc = transform(cx, &t->g[gen], v[i], log_n, true, true))) return rc;
        if ((rc = transform(cx, &t->g[gen], v[i], log_n, false, false, pre))) return rc;
    }
    return CUZK_OK;
}

int ntt_groth16_h_tables(const ctx &cx, ntt_tables *t, unsigned log_n)
{
    const int G = NTT_GEN_FILECOIN;
    const fr_t *lo, *hi;
    unsigned S;
    int rc = ensure_twiddles(cx, t, G, log_n);
    if (!rc) rc = ensure_scale(cx, t, G, log_n, NTT_SCALE_INV_THEN_COSET, &lo, &hi, &S);
    if (!rc) rc = ensure_scale(cx, t, G, log_n, NTT_SCALE_INV_COSET, &lo, &hi, &S);
    return rc;
}

/* 1/Z on the coset: Z(g·w^i) = g^n - 1 for every i */
static fr_t h_zinv(unsigned log_n)
{
    cuzk_fr g, gn, one, zi;
    cuzk_fr_generator_get(&g, CUZK_FR_GEN_FILECOIN);
    cpu_pow(&gn, &g, (uint64_t)1 << log_n);
    cuzk_fr_set_u64(&one, 1);
    cuzk_fr_sub(&gn, &gn, &one);
    cuzk_fr_inv(&zi, &gn);
    fr_t zinv;
    memcpy(&zinv, &zi, sizeof zinv);
    return zinv;
}

/* a (the quotient on the coset) back to coefficients, into out (natural
 * order): the inverse transform, then the coset's 1/n·g^-i and the reorder
 * in one pass */
static int h_back(const ctx &cx, ntt_tables *t, fr_t *a, fr_t *out, unsigned log_n)
{
    const int G = NTT_GEN_FILECOIN;
    const size_t n = (size_t)1 << log_n;
    int rc;
    if ((rc = transform(cx, &t->g[G], a, log_n, true, true))) return rc;
    const fr_t *lo, *hi;
    unsigned S;
    if ((rc = ensure_scale(cx, t, G, log_n, NTT_SCALE_INV_COSET, &lo, &hi, &S))) return rc;
    if (log_n >= 2 * NTT_BR_B)
        ntt_scale_bitrev_tiled<<<(unsigned)(n >> 2 * NTT_BR_B), dim3(32, NTT_BR_ROWS), 0, cx.st>>>(out, a, log_n, S,
                                                                                                  lo, hi);
    else
        ntt_scale_bitrev<<<nblocks(n, 256), 256, 0, cx.st>>>(out, a, log_n, S, lo, hi);
    GPU_LAUNCHED(cx, "ntt_scale_bitrev");
    return CUZK_OK;
}

int ntt_groth16_h(const ctx &cx, ntt_tables *t, fr_t *a, fr_t *b, fr_t *c, unsigned log_n, fr_t **out)
{
    const int G = NTT_GEN_FILECOIN;
    int rc = ensure_twiddles(cx, t, G, log_n);
    if (rc) return rc;
    const size_t n = (size_t)1 << log_n;
    fr_t *const v[3] = {a, b, c};
    /* the coset shift of the forward transform folded into the inverse's 1/n */
    if ((rc = to_shifted(cx, t, G, v, 3, log_n, NTT_SCALE_INV_THEN_COSET))) return rc;
    ntt_abc<<<nblocks(n, 256), 256, 0, cx.st>>>(a, b, c, n, h_zinv(log_n));
    GPU_LAUNCHED(cx, "ntt_abc");
    if ((rc = h_back(cx, t, a, b, log_n))) return rc;
    *out = b;
    return CUZK_OK;
}

int ntt_groth16_h_ab(const ctx &cx, ntt_tables *t, fr_t *a, fr_t *b, unsigned log_n)
{
    const int G = NTT_GEN_FILECOIN;
    int rc = ensure_twiddles(cx, t, G, log_n);
    if (rc) return rc;
    fr_t *const v[2] = {a, b};
    if ((rc = to_shifted(cx, t, G, v, 2, log_n, NTT_SCALE_INV_THEN_COSET))) return rc;
    ntt_mul<<<nblocks((size_t)1 << log_n, 256), 256, 0, cx.st>>>(a, b, (size_t)1 << log_n);
    GPU_LAUNCHED(cx, "ntt_mul");
    return CUZK_OK;
}

int ntt_groth16_h_c(const ctx &cx, ntt_tables *t, fr_t *ab, fr_t *c, unsigned log_n)
{
    const int G = NTT_GEN_FILECOIN;
    fr_t *const v[1] = {c};
    int rc = to_shifted(cx, t, G, v, 1, log_n, NTT_SCALE_INV_THEN_COSET);
    if (rc) return rc;
    ntt_sub_scale<<<nblocks((size_t)1 << log_n, 256), 256, 0, cx.st>>>(ab, c, (size_t)1 << log_n, h_zinv(log_n));
    GPU_LAUNCHED(cx, "ntt_sub_scale");
    return h_back(cx, t, ab, c, log_n);
}

int ntt_groth16_h_odd(const ctx &cx, ntt_tables *t, fr_t *a, fr_t *b, fr_t *c, unsigned log_n)
{
    const int G = NTT_GEN_SNARKJS;
    if (log_n >= CUZK_FR_TWO_ADICITY) return fail_msg(cx, CUZK_ERR_INVALID_ARG, "ntt: no 2n-th root of unity");
    int rc = ensure_twiddles(cx, t, G, log_n);
    if (rc) return rc;
    const size_t n = (size_t)1 << log_n;
    fr_t *const v[3] = {a, b, c};
    if ((rc = to_shifted(cx, t, G, v, 3, log_n, NTT_SCALE_INV_THEN_ODD))) return rc;
    /* Z is the constant -2 on the odd points: the zkey's H absorbs it */
    cuzk_fr one;
    cuzk_fr_set_u64(&one, 1);
    fr_t f1;
    memcpy(&f1, &one, sizeof f1);
    ntt_abc<<<nblocks(n, 256), 256, 0, cx.st>>>(a, b, c, n, f1);
    GPU_LAUNCHED(cx, "ntt_abc");
    return CUZK_OK;
}

} // namespace cuzk_gpu

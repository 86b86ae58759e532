/* CPU multi-scalar multiplication for G1 and G2 (method: include/cuzk/msm.h). */
#include "cuzk/msm.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/error.h"
#include "msm_internal.h"

#define MSM_C_MIN 2
#define MSM_C_MAX 20
/* Scalar-1 bases are summed in chunks of this many, one task each; fixed
 * (not from nthreads) so the output does not depend on nthreads. */
#define MSM_ONE_CHUNK 16384
#define CUZK_MSM_X_ABS 0xd201000000010000ULL

typedef struct msm_scalar_ { uint64_t l[4]; } msm_scalar_;

unsigned cuzk_msm_window_bits(size_t m, unsigned bits, uint64_t *cost)
{
    if (m == 0) {
        if (cost) *cost = 0;
        return 0;
    }
    unsigned best = MSM_C_MIN;
    uint64_t best_cost = UINT64_MAX;
    for (unsigned c = MSM_C_MIN; c <= MSM_C_MAX; c++) {
        uint64_t nwin = (bits + 1 + c - 1) / c;
        uint64_t cst = nwin * ((uint64_t)m + ((uint64_t)1 << c));
        if (cst < best_cost) {
            best_cost = cst;
            best = c;
        }
    }
    if (cost) *cost = best_cost;
    return best;
}

unsigned cuzk_msm_window_bits_affine(size_t m, unsigned bits)
{
    if (m == 0) return 0;
    unsigned best = MSM_C_MIN;
    uint64_t best_cost = UINT64_MAX;
    for (unsigned c = MSM_C_MIN; c <= MSM_C_MAX; c++) {
        uint64_t nwin = (bits + 1 + c - 1) / c;
        uint64_t cst = nwin * ((uint64_t)m + ((uint64_t)2 << c));
        if (cst < best_cost) {
            best_cost = cst;
            best = c;
        }
    }
    return best;
}

/* x^2 = 0xac45a4010001a4020000000100000000 (x = -0xd201000000010000). */
const uint64_t cuzk_msm_x2[2] = {0x0000000100000000ULL, 0xac45a4010001a402ULL};

/* q = a / d, returns a mod d, for a of 4 limbs and a 64-bit d. */
static uint64_t msm_divrem_u64_(uint64_t q[4], const uint64_t a[4], uint64_t d)
{
    unsigned __int128 rem = 0;
    for (int i = 3; i >= 0; i--) {
        unsigned __int128 cur = (rem << 64) | a[i];
        q[i] = (uint64_t)(cur / d);
        rem = cur % d;
    }
    return (uint64_t)rem;
}

void cuzk_msm_glv_split(uint64_t k1[2], uint64_t k2[2], const uint64_t k[4])
{
    /* k = (q·|x| + r1)·|x| + r0 = q·x^2 + (r1·|x| + r0); r1, r0 < |x| so the
     * low part is < x^2, and q <= k / x^2 < r / x^2 < x^2 < 2^128. */
    uint64_t q1[4], q2[4];
    uint64_t r0 = msm_divrem_u64_(q1, k, CUZK_MSM_X_ABS);
    uint64_t r1 = msm_divrem_u64_(q2, q1, CUZK_MSM_X_ABS);
    unsigned __int128 lo = (unsigned __int128)r1 * CUZK_MSM_X_ABS + r0;
    k1[0] = (uint64_t)lo;
    k1[1] = (uint64_t)(lo >> 64);
    k2[0] = q2[0];
    k2[1] = q2[1];
}

/* k mod r for a 256-bit k (at most 4 subtractions: 2^256 < 5r). */
static void msm_reduce_r_(uint64_t k[4])
{
    for (;;) {
        int ge = 1;
        for (int i = 3; i >= 0; i--) {
            if (k[i] != cuzk_fr_modulus[i]) {
                ge = k[i] > cuzk_fr_modulus[i];
                break;
            }
        }
        if (!ge) return;
        uint64_t bw = 0;
        for (int i = 0; i < 4; i++) {
            uint64_t o = k[i], m = cuzk_fr_modulus[i];
            k[i] = o - m - bw;
            bw = (o < m) | ((o == m) & bw);
        }
    }
}

/* Bits [pos, pos + len) of k (len <= 32), zero outside [0, 256). */
static inline uint32_t msm_bits_(const uint64_t k[4], int pos, unsigned len)
{
    uint64_t v;
    if (pos < 0) {
        v = k[0] << -pos;
    } else {
        unsigned li = (unsigned)pos >> 6, sh = (unsigned)pos & 63;
        if (li >= 4) return 0;
        v = k[li] >> sh;
        if (sh && li + 1 < 4) v |= k[li + 1] << (64 - sh);
    }
    return (uint32_t)(v & ((1ULL << len) - 1));
}

/* Booth digit of window w (width c): its c bits plus the top bit of the
 * window below, minus 2^c times its own top bit; in [-2^(c-1), 2^(c-1)]. */
static inline int msm_booth_digit_(const uint64_t k[4], unsigned w, unsigned c)
{
    uint32_t v = msm_bits_(k, (int)(w * c) - 1, c + 1);
    return (int)(v >> 1) + (int)(v & 1) - (int)((v >> c) << c);
}

/* Scalars split by class: zeros dropped, ones listed, the rest copied as
 * canonical limbs with their base index. */
typedef struct msm_split_ {
    uint32_t *gen_idx;
    msm_scalar_ *gen_k;
    size_t m;
    uint32_t *one_idx;
    size_t m1;
} msm_split_;

static void msm_split_free_(msm_split_ *s)
{
    free(s->gen_idx);
    free(s->gen_k);
    free(s->one_idx);
}

static int msm_split_alloc_(msm_split_ *s, size_t n)
{
    s->m = s->m1 = 0;
    s->gen_idx = malloc(sizeof(uint32_t) * (n ? n : 1));
    s->gen_k = malloc(sizeof(msm_scalar_) * (n ? n : 1));
    s->one_idx = malloc(sizeof(uint32_t) * (n ? n : 1));
    if (!s->gen_idx || !s->gen_k || !s->one_idx) {
        msm_split_free_(s);
        return CUZK_ERR_NO_MEMORY;
    }
    return CUZK_OK;
}

static inline void msm_split_add_(msm_split_ *s, const uint64_t k[4], size_t i)
{
    uint64_t hi = k[1] | k[2] | k[3];
    if (!hi && k[0] == 0) return;
    if (!hi && k[0] == 1) {
        s->one_idx[s->m1++] = (uint32_t)i;
        return;
    }
    s->gen_idx[s->m] = (uint32_t)i;
    for (int j = 0; j < 4; j++) s->gen_k[s->m].l[j] = k[j];
    s->m++;
}

static int msm_split_fr_(msm_split_ *s, const cuzk_fr *k, size_t n)
{
    int err = msm_split_alloc_(s, n);
    if (err) return err;
    for (size_t i = 0; i < n; i++) {
        uint64_t l[4];
        cuzk_fr_to_limbs(l, &k[i]);
        msm_split_add_(s, l, i);
    }
    return CUZK_OK;
}

/* reduce: take the scalars mod r (equal results for subgroup bases). */
static int msm_split_plain_(msm_split_ *s, const uint64_t (*k)[4], size_t n, bool reduce)
{
    int err = msm_split_alloc_(s, n);
    if (err) return err;
    for (size_t i = 0; i < n; i++) {
        if (!reduce) {
            msm_split_add_(s, k[i], i);
            continue;
        }
        uint64_t t[4] = {k[i][0], k[i][1], k[i][2], k[i][3]};
        msm_reduce_r_(t);
        msm_split_add_(s, t, i);
    }
    return CUZK_OK;
}

#define MSM_FN(x) cuzk_g1_##x
#define PT(x) cuzk_g1_##x
#define AFF cuzk_g1_affine
#define JAC cuzk_g1_jac
#define XYZZ cuzk_g1_xyzz
#define FE cuzk_fp
#define MSM_AFF_MIN_NB CUZK_MSM_G1_AFF_MIN_NB
#define FE_ADD cuzk_fp_add
#define FE_SUB cuzk_fp_sub
#define FE_NEG cuzk_fp_neg
#define FE_MUL cuzk_fp_mul
#define FE_SQR cuzk_fp_sqr
#define FE_INV cuzk_fp_inv
#define FE_IS_ZERO cuzk_fp_is_zero
#include "msm_impl.h"
#undef MSM_FN
#undef PT
#undef AFF
#undef JAC
#undef XYZZ
#undef FE
#undef FE_ADD
#undef FE_SUB
#undef FE_NEG
#undef FE_MUL
#undef FE_SQR
#undef FE_INV
#undef FE_IS_ZERO
#undef MSM_AFF_MIN_NB

#define MSM_FN(x) cuzk_g2_##x
#define PT(x) cuzk_g2_##x
#define AFF cuzk_g2_affine
#define JAC cuzk_g2_jac
#define XYZZ cuzk_g2_xyzz
#define FE cuzk_fp2
#define MSM_AFF_MIN_NB CUZK_MSM_G2_AFF_MIN_NB
#define FE_ADD cuzk_fp2_add
#define FE_SUB cuzk_fp2_sub
#define FE_NEG cuzk_fp2_neg
#define FE_MUL cuzk_fp2_mul
#define FE_SQR cuzk_fp2_sqr
#define FE_INV cuzk_fp2_inv
#define FE_IS_ZERO cuzk_fp2_is_zero
#include "msm_impl.h"

/* CPU multi-scalar multiplication for G1 and G2 (method: include/cuzk/msm.h). */
#include "cuzk/msm.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "cuzk/error.h"

#define MSM_C_MIN 2
#define MSM_C_MAX 20
/* Scalar-1 bases are summed in chunks of this many, one task each; fixed
 * (not from nthreads) so the output does not depend on nthreads. */
#define MSM_ONE_CHUNK 16384

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

static int msm_split_plain_(msm_split_ *s, const uint64_t (*k)[4], size_t n)
{
    int err = msm_split_alloc_(s, n);
    if (err) return err;
    for (size_t i = 0; i < n; i++) msm_split_add_(s, k[i], i);
    return CUZK_OK;
}

#define MSM_FN(x) cuzk_g1_##x
#define PT(x) cuzk_g1_##x
#define AFF cuzk_g1_affine
#define JAC cuzk_g1_jac
#define XYZZ cuzk_g1_xyzz
#include "msm_impl.h"
#undef MSM_FN
#undef PT
#undef AFF
#undef JAC
#undef XYZZ

#define MSM_FN(x) cuzk_g2_##x
#define PT(x) cuzk_g2_##x
#define AFF cuzk_g2_affine
#define JAC cuzk_g2_jac
#define XYZZ cuzk_g2_xyzz
#include "msm_impl.h"

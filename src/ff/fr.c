/* Fr, the BLS12-381 scalar field. Generic parts come from field_impl.h. */
#include "cuzk/ff/fr.h"
#include "cuzk/util/error.h"
#include "ff_internal.h"
#include "mont.h"
#include "mont_adx.h"

const uint64_t cuzk_fr_modulus[4] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL,
                                     0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};
const cuzk_fr cuzk_fr_zero = {{0}};
const cuzk_fr cuzk_fr_one = {{0x00000001fffffffeULL, 0x5884b7fa00034802ULL, 0x998c4fefecbc4ff5ULL,
                              0x1824b159acc5056fULL}};
static const cuzk_fr fr_r2 = {{0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL, 0x05d314967254398fULL,
                               0x0748d9d99f59ff11ULL}};

#define FF_T cuzk_fr
#define FF_FN(x) cuzk_fr_##x
#define FF_N 4
#define FF_MOD cuzk_fr_modulus
#define FF_N0 0xfffffffeffffffffULL
#define FF_R2 fr_r2
#define FF_ONE cuzk_fr_one
#define FF_BITS 255
#define FF_MUL_PORTABLE fr_mul_portable
#define FF_SQR_PORTABLE fr_sqr_portable
#ifdef CUZK_FF_HAVE_ADX
#define FF_MUL_FAST(r, a, b) mont_mul_adx_fr((r)->l, (a)->l, (b)->l)
#define FF_SQR_FAST(r, a) mont_sqr_adx_fr((r)->l, (a)->l)
#else
#define FF_MUL_FAST(r, a, b) fr_mul_portable(r, a, b)
#define FF_SQR_FAST(r, a) fr_sqr_portable(r, a)
#endif
#include "field_impl.h"

/* t = (r-1) / 2^32, odd. */
static void fr_trace(uint64_t t[4])
{
    uint64_t one[4] = {1}, m1[4];
    mont_sub_n(m1, cuzk_fr_modulus, one, 4);
    for (int i = 0; i < 4; i++) t[i] = (m1[i] >> 32) | (i < 3 ? m1[i + 1] << 32 : 0);
}

void cuzk_fr_generator_get(cuzk_fr *out, cuzk_fr_generator g) { cuzk_fr_set_u64(out, (uint64_t)g); }

int cuzk_fr_root_of_unity(cuzk_fr *out, unsigned log_n, cuzk_fr_generator g)
{
    if (log_n > CUZK_FR_TWO_ADICITY || (g != CUZK_FR_GEN_FILECOIN && g != CUZK_FR_GEN_SNARKJS))
        return CUZK_ERR_INVALID_ARG;
    uint64_t t[4];
    fr_trace(t);
    cuzk_fr w;
    cuzk_fr_generator_get(&w, g);
    cuzk_fr_pow(&w, &w, t, 4); /* primitive 2^32-th root */
    for (unsigned i = log_n; i < CUZK_FR_TWO_ADICITY; i++) cuzk_fr_sqr(&w, &w);
    *out = w;
    return CUZK_OK;
}

bool cuzk_fr_sqrt(cuzk_fr *r, const cuzk_fr *a)
{
    /* Tonelli-Shanks with 2-adicity 32 and the non-residue 7. */
    if (cuzk_fr_is_zero(a)) {
        *r = *a;
        return true;
    }
    if (cuzk_fr_legendre(a) != 1) return false;
    uint64_t t[4], t1[4] = {0}, one[4] = {1};
    fr_trace(t);
    mont_add_n(t1, t, one, 4);
    for (int i = 0; i < 4; i++) t1[i] = (t1[i] >> 1) | (i < 3 ? t1[i + 1] << 63 : 0); /* (t+1)/2 */
    cuzk_fr z, c, x, b;
    cuzk_fr_root_of_unity(&c, 32, CUZK_FR_GEN_FILECOIN);
    cuzk_fr_pow(&x, a, t1, 4);
    cuzk_fr_pow(&b, a, t, 4);
    unsigned m = 32;
    while (!cuzk_fr_is_one(&b)) {
        unsigned i = 0;
        cuzk_fr b2 = b;
        while (!cuzk_fr_is_one(&b2)) {
            cuzk_fr_sqr(&b2, &b2);
            i++;
        }
        z = c;
        for (unsigned j = 0; j + i + 1 < m; j++) cuzk_fr_sqr(&z, &z);
        cuzk_fr_sqr(&c, &z);
        cuzk_fr_mul(&x, &x, &z);
        cuzk_fr_mul(&b, &b, &c);
        m = i;
    }
    *r = x;
    return true;
}

int cuzk_fr_from_be32(cuzk_fr *r, const uint8_t in[32])
{
    uint64_t v[4];
    cuzk_fr_limbs_from_be(v, in);
    return cuzk_fr_from_limbs(r, v);
}

void cuzk_fr_to_be32(uint8_t out[32], const cuzk_fr *a)
{
    uint64_t v[4];
    cuzk_fr_to_limbs(v, a);
    cuzk_fr_limbs_to_be(out, v);
}

int cuzk_fr_from_le32(cuzk_fr *r, const uint8_t in[32])
{
    uint64_t v[4];
    for (int i = 0; i < 4; i++) {
        v[i] = 0;
        for (int j = 7; j >= 0; j--) v[i] = (v[i] << 8) | in[8 * i + j];
    }
    return cuzk_fr_from_limbs(r, v);
}

void cuzk_fr_to_le32(uint8_t out[32], const cuzk_fr *a)
{
    uint64_t v[4];
    cuzk_fr_to_limbs(v, a);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) out[8 * i + j] = (uint8_t)(v[i] >> (8 * j));
}

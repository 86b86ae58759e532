/* Fp, the BLS12-381 base field. Generic parts come from field_impl.h. */
#include "cuzk/ff/fp.h"
#include "cuzk/util/error.h"
#include "ff_internal.h"
#include "mont.h"
#include "mont_adx.h"

const uint64_t cuzk_fp_modulus[6] = {0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL,
                                     0x6730d2a0f6b0f624ULL, 0x64774b84f38512bfULL,
                                     0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL};
const cuzk_fp cuzk_fp_zero = {{0}};
const cuzk_fp cuzk_fp_one = {{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
                              0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}};
static const cuzk_fp fp_r2 = {{0xf4df1f341c341746ULL, 0x0a76e6a609d104f1ULL, 0x8de5476c4c95b6d5ULL,
                               0x67eb88a9939d83c0ULL, 0x9a793e85b519952dULL, 0x11988fe592cae3aaULL}};

#define FF_T cuzk_fp
#define FF_FN(x) cuzk_fp_##x
#define FF_N 6
#define FF_MOD cuzk_fp_modulus
#define FF_N0 0x89f3fffcfffcfffdULL
#define FF_R2 fp_r2
#define FF_ONE cuzk_fp_one
#define FF_BITS 381
#define FF_MUL_PORTABLE fp_mul_portable
#define FF_SQR_PORTABLE fp_sqr_portable
#ifdef CUZK_FF_HAVE_ADX
#define FF_MUL_FAST(r, a, b) mont_mul_adx_fp((r)->l, (a)->l, (b)->l)
#define FF_SQR_FAST(r, a) mont_sqr_adx_fp((r)->l, (a)->l)
#else
#define FF_MUL_FAST(r, a, b) fp_mul_portable(r, a, b)
#define FF_SQR_FAST(r, a) fp_sqr_portable(r, a)
#endif
#include "field_impl.h"

bool cuzk_fp_sqrt(cuzk_fp *r, const cuzk_fp *a)
{
    /* p = 3 mod 4: the candidate root is a^((p+1)/4). */
    uint64_t e[6];
    uint64_t one[6] = {1};
    mont_add_n(e, cuzk_fp_modulus, one, 6);
    for (int i = 0; i < 6; i++) e[i] = (e[i] >> 2) | (i < 5 ? e[i + 1] << 62 : 0);
    cuzk_fp s, s2;
    cuzk_fp_pow(&s, a, e, 6);
    cuzk_fp_sqr(&s2, &s);
    if (!cuzk_fp_eq(&s2, a)) return false;
    *r = s;
    return true;
}

int cuzk_fp_from_be48(cuzk_fp *r, const uint8_t in[48])
{
    uint64_t v[6];
    cuzk_fp_limbs_from_be(v, in);
    return cuzk_fp_from_limbs(r, v);
}

void cuzk_fp_to_be48(uint8_t out[48], const cuzk_fp *a)
{
    uint64_t v[6];
    cuzk_fp_to_limbs(v, a);
    cuzk_fp_limbs_to_be(out, v);
}

/* G1 of BLS12-381: y^2 = x^3 + 4 over Fp. Arithmetic from ec_impl.h. */
#include "cuzk/ec/g1.h"

#include <string.h>

#include "cuzk/util/error.h"
#include "ec_internal.h"

/* Montgomery-form constants (a·2^384 mod p), computed offline from the
 * published values. */
const cuzk_g1_affine cuzk_g1_generator = {
    /* x = 0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb */
    {{0x5cb38790fd530c16ULL, 0x7817fc679976fff5ULL, 0x154f95c7143ba1c1ULL, 0xf0ae6acdf3d0e747ULL,
      0xedce6ecc21dbf440ULL, 0x120177419e0bfb75ULL}},
    /* y = 0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1 */
    {{0xbaac93d50ce72271ULL, 0x8c22631a7918fd8eULL, 0xdd595f13570725ceULL, 0x51ac582950405194ULL,
      0x0e1c8c3fad0059c0ULL, 0x0bbc3efc5008a26aULL}}};

static const cuzk_fp g1_b = {{0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL,
                              0xb1d37ebee6ba24d7ULL, 0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL}}; /* 4 */

/* beta = 0x5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe,
 * a primitive cube root of unity; with this choice phi(x, y) = (beta·x, y)
 * acts on G1 as multiplication by -x^2 (x the BLS parameter). */
static const cuzk_fp g1_beta = {{0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL,
                                 0xc26a2ff874fd029bULL, 0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL}};

#define EC_FN(x) cuzk_g1_##x
#define EC_AFF cuzk_g1_affine
#define EC_JAC cuzk_g1_jac
#define EC_XYZZ cuzk_g1_xyzz
#define FE cuzk_fp
#define FE_ADD cuzk_fp_add
#define FE_SUB cuzk_fp_sub
#define FE_DBL cuzk_fp_dbl
#define FE_NEG cuzk_fp_neg
#define FE_MUL cuzk_fp_mul
#define FE_SQR cuzk_fp_sqr
#define FE_INV cuzk_fp_inv
#define FE_IS_ZERO cuzk_fp_is_zero
#define FE_EQ cuzk_fp_eq
#define FE_ZERO cuzk_fp_zero
#define FE_ONE cuzk_fp_one
#define EC_B (&g1_b)
#include "ec_impl.h"

void cuzk_ec_split_x(uint64_t d[4], const uint64_t k[4])
{
    uint64_t q[4] = {k[0], k[1], k[2], k[3]};
    for (int i = 0; i < 4; i++) {
        unsigned __int128 rem = 0;
        for (int l = 3; l >= 0; l--) {
            unsigned __int128 cur = (rem << 64) | q[l];
            q[l] = (uint64_t)(cur / CUZK_BLS_X_ABS);
            rem = cur % CUZK_BLS_X_ABS;
        }
        d[i] = (uint64_t)rem;
    }
}

void cuzk_g1_endo_scalar_init(cuzk_g1_endo_scalar *s, const cuzk_fr *k)
{
    uint64_t e[4], d[4];
    cuzk_fr_to_limbs(e, k);
    cuzk_ec_split_x(d, e);
    /* k = (d0 + d1|x|) + (d2 + d3|x|)·x^2 */
    for (int j = 0; j < 2; j++) {
        unsigned __int128 h = (unsigned __int128)d[2 * j + 1] * CUZK_BLS_X_ABS + d[2 * j];
        uint64_t w[4] = {(uint64_t)h, (uint64_t)(h >> 64), 0, 0};
        s->len[j] = cuzk_g1_wnaf_(s->naf[j], w);
    }
}

void cuzk_g1_affine_mul_endo(cuzk_g1_jac *r, const cuzk_g1_affine *p, const cuzk_g1_endo_scalar *s)
{
    cuzk_g1_affine tab[2][EC_WNAF_TABLE];
    cuzk_g1_odd_multiples_(tab[0], p);
    for (int i = 0; i < EC_WNAF_TABLE; i++) cuzk_g1_affine_endo_x2(&tab[1][i], &tab[0][i]);
    cuzk_g1_straus_(r, (const cuzk_g1_affine(*)[EC_WNAF_TABLE])tab, (const int8_t(*)[258])s->naf, s->len, 2);
}

bool cuzk_ec_fp_lex_largest(const cuzk_fp *a)
{
    cuzk_fp n;
    uint64_t x[6], y[6];
    cuzk_fp_neg(&n, a);
    cuzk_fp_to_limbs(x, a);
    cuzk_fp_to_limbs(y, &n);
    for (int i = 5; i >= 0; i--)
        if (x[i] != y[i]) return x[i] > y[i];
    return false;
}

bool cuzk_g1_affine_in_subgroup(const cuzk_g1_affine *p)
{
    /* Scott, "A note on group membership tests" (2021): for BLS12,
     * P in G1 iff phi(P) == -x^2·P. */
    if (cuzk_g1_affine_is_infinity(p)) return true;
    cuzk_g1_jac t, phi;
    cuzk_g1_affine_mul_u64_(&t, p, CUZK_BLS_X_ABS); /* -x·P */
    cuzk_g1_jac_neg(&t, &t);                       /* x·P */
    cuzk_g1_jac_mul_u64_(&t, &t, CUZK_BLS_X_ABS);  /* -x^2·P */
    cuzk_fp_mul(&phi.x, &p->x, &g1_beta);
    phi.y = p->y;
    phi.z = cuzk_fp_one;
    return cuzk_g1_jac_eq(&t, &phi);
}

void cuzk_g1_affine_endo_x2(cuzk_g1_affine *r, const cuzk_g1_affine *p)
{
    cuzk_fp_mul(&r->x, &p->x, &g1_beta);
    cuzk_fp_neg(&r->y, &p->y);
}

/* ---- encodings --------------------------------------------------------- */

void cuzk_g1_compress(uint8_t out[48], const cuzk_g1_affine *p)
{
    if (cuzk_g1_affine_is_infinity(p)) {
        memset(out, 0, 48);
        out[0] = 0xc0;
        return;
    }
    cuzk_fp_to_be48(out, &p->x);
    out[0] |= 0x80;
    if (cuzk_ec_fp_lex_largest(&p->y)) out[0] |= 0x20;
}

void cuzk_g1_serialize(uint8_t out[96], const cuzk_g1_affine *p)
{
    if (cuzk_g1_affine_is_infinity(p)) {
        memset(out, 0, 96);
        out[0] = 0x40;
        return;
    }
    cuzk_fp_to_be48(out, &p->x);
    cuzk_fp_to_be48(out + 48, &p->y);
}

static bool all_zero(const uint8_t *b, size_t n, uint8_t first_mask)
{
    uint8_t acc = b[0] & first_mask;
    for (size_t i = 1; i < n; i++) acc |= b[i];
    return acc == 0;
}

static int g1_uncompress(cuzk_g1_affine *r, const uint8_t in[48], bool check)
{
    uint8_t f = in[0] & 0xe0;
    if (!(f & 0x80)) return CUZK_ERR_BAD_FLAGS;
    if (f & 0x40) {
        if ((f & 0x20) || !all_zero(in, 48, 0x1f)) return CUZK_ERR_BAD_FLAGS;
        r->x = cuzk_fp_zero;
        r->y = cuzk_fp_zero;
        return CUZK_OK;
    }
    uint8_t buf[48];
    memcpy(buf, in, 48);
    buf[0] &= 0x1f;
    cuzk_g1_affine p;
    if (cuzk_fp_from_be48(&p.x, buf) != CUZK_OK) return CUZK_ERR_NONCANONICAL;
    cuzk_fp rhs;
    cuzk_fp_sqr(&rhs, &p.x);
    cuzk_fp_mul(&rhs, &rhs, &p.x);
    cuzk_fp_add(&rhs, &rhs, &g1_b);
    if (!cuzk_fp_sqrt(&p.y, &rhs)) return CUZK_ERR_NOT_A_SQUARE;
    if (cuzk_ec_fp_lex_largest(&p.y) != ((f & 0x20) != 0)) cuzk_fp_neg(&p.y, &p.y);
    if (check && !cuzk_g1_affine_in_subgroup(&p)) return CUZK_ERR_NOT_IN_SUBGROUP;
    *r = p;
    return CUZK_OK;
}

static int g1_deserialize(cuzk_g1_affine *r, const uint8_t in[96], bool check)
{
    uint8_t f = in[0] & 0xe0;
    if (f & 0xa0) return CUZK_ERR_BAD_FLAGS; /* compressed or sort bit */
    if (f & 0x40) {
        if (!all_zero(in, 96, 0x1f)) return CUZK_ERR_BAD_FLAGS;
        r->x = cuzk_fp_zero;
        r->y = cuzk_fp_zero;
        return CUZK_OK;
    }
    cuzk_g1_affine p;
    if (cuzk_fp_from_be48(&p.x, in) != CUZK_OK || cuzk_fp_from_be48(&p.y, in + 48) != CUZK_OK)
        return CUZK_ERR_NONCANONICAL;
    /* (0, 0) is our infinity but not a curve point: reject it explicitly. */
    if (cuzk_g1_affine_is_infinity(&p) || !cuzk_g1_affine_is_on_curve(&p))
        return CUZK_ERR_NOT_ON_CURVE;
    if (check && !cuzk_g1_affine_in_subgroup(&p)) return CUZK_ERR_NOT_IN_SUBGROUP;
    *r = p;
    return CUZK_OK;
}

int cuzk_g1_uncompress(cuzk_g1_affine *r, const uint8_t in[48]) { return g1_uncompress(r, in, true); }
int cuzk_g1_uncompress_unchecked(cuzk_g1_affine *r, const uint8_t in[48])
{
    return g1_uncompress(r, in, false);
}
int cuzk_g1_deserialize(cuzk_g1_affine *r, const uint8_t in[96]) { return g1_deserialize(r, in, true); }
int cuzk_g1_deserialize_unchecked(cuzk_g1_affine *r, const uint8_t in[96])
{
    return g1_deserialize(r, in, false);
}

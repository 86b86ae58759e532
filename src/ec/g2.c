/* G2 of BLS12-381: y^2 = x^3 + 4(u + 1) over Fp2. Arithmetic from ec_impl.h. */
#include "cuzk/ec/g2.h"

#include <string.h>

#include "cuzk/util/error.h"
#include "ec_internal.h"

/* Montgomery-form constants (a·2^384 mod p), computed offline from the
 * published values. */
const cuzk_g2_affine cuzk_g2_generator = {
    {/* x.c0 = 0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8 */
     {{0xf5f28fa202940a10ULL, 0xb3f5fb2687b4961aULL, 0xa1a893b53e2ae580ULL, 0x9894999d1a3caee9ULL,
       0x6f67b7631863366bULL, 0x058191924350bcd7ULL}},
     /* x.c1 = 0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e */
     {{0xa5a9c0759e23f606ULL, 0xaaa0c59dbccd60c3ULL, 0x3bb17e18e2867806ULL, 0x1b1ab6cc8541b367ULL,
       0xc2b6ed0ef2158547ULL, 0x11922a097360edf3ULL}}},
    {/* y.c0 = 0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801 */
     {{0x4c730af860494c4aULL, 0x597cfa1f5e369c5aULL, 0xe7e6856caa0a635aULL, 0xbbefb5e96e0d495fULL,
       0x07d3a975f0ef25a2ULL, 0x0083fd8e7e80dae5ULL}},
     /* y.c1 = 0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be */
     {{0xadc0fc92df64b05dULL, 0x18aa270a2b1461dcULL, 0x86adac6a3be4eba0ULL, 0x79495c4ec93da33aULL,
       0xe7175850a43ccaedULL, 0x0b2bc2a163de1bf2ULL}}}};

#define FP_FOUR                                                                                    \
    {{0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL, 0xb1d37ebee6ba24d7ULL,   \
      0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL}}
static const cuzk_fp2 g2_b = {FP_FOUR, FP_FOUR}; /* 4(u + 1) */

/* psi coefficients, derived as cx = 1/(u+1)^((p-1)/3), cy = 1/(u+1)^((p-1)/2):
 * cx = 0x1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8bfd00000000aaad·u
 * cy = 0x135203e60180a68ee2e9c448d77a2cd91c3dedd930b1cf60ef396489f61eb45e304466cf3e67fa0af1ee7b04121bdea2
 *    + 0x06af0e0437ff400b6831e36d6bd17ffe48395dabc2d3435e77f76e17009241c5ee67992f72ec05f4c81084fbede3cc09·u */
static const cuzk_fp2 g2_psi_cx = {
    {{0}},
    {{0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL, 0xa20d1b8c7e881024ULL,
      0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL}}};
static const cuzk_fp2 g2_psi_cy = {
    {{0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL, 0x92ad2afd19103e18ULL,
      0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL}},
    {{0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL, 0xd1ca2087da74d4a7ULL,
      0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL}}};

#define EC_FN(x) cuzk_g2_##x
#define EC_AFF cuzk_g2_affine
#define EC_JAC cuzk_g2_jac
#define EC_XYZZ cuzk_g2_xyzz
#define FE cuzk_fp2
#define FE_ADD cuzk_fp2_add
#define FE_SUB cuzk_fp2_sub
#define FE_DBL cuzk_fp2_dbl
#define FE_NEG cuzk_fp2_neg
#define FE_MUL cuzk_fp2_mul
#define FE_SQR cuzk_fp2_sqr
#define FE_INV cuzk_fp2_inv
#define FE_IS_ZERO cuzk_fp2_is_zero
#define FE_EQ cuzk_fp2_eq
#define FE_ZERO cuzk_fp2_zero
#define FE_ONE cuzk_fp2_one
#define EC_B (&g2_b)
#include "ec_impl.h"

void cuzk_g2_affine_psi(cuzk_g2_affine *r, const cuzk_g2_affine *p)
{
    cuzk_fp2 x, y;
    cuzk_fp2_conj(&x, &p->x);
    cuzk_fp2_conj(&y, &p->y);
    cuzk_fp2_mul(&r->x, &x, &g2_psi_cx);
    cuzk_fp2_mul(&r->y, &y, &g2_psi_cy);
}

void cuzk_g2_affine_endo_x2(cuzk_g2_affine *r, const cuzk_g2_affine *p)
{
    cuzk_g2_affine t;
    cuzk_g2_affine_psi(&t, p);
    cuzk_g2_affine_psi(r, &t);
}

void cuzk_g2_jac_psi(cuzk_g2_jac *r, const cuzk_g2_jac *p)
{
    /* conj is a field automorphism, so it commutes with x = X/Z^2, y = Y/Z^3. */
    cuzk_fp2 x, y;
    cuzk_fp2_conj(&x, &p->x);
    cuzk_fp2_conj(&y, &p->y);
    cuzk_fp2_conj(&r->z, &p->z);
    cuzk_fp2_mul(&r->x, &x, &g2_psi_cx);
    cuzk_fp2_mul(&r->y, &y, &g2_psi_cy);
}

void cuzk_g2_endo_scalar_init(cuzk_g2_endo_scalar *s, const cuzk_fr *k)
{
    uint64_t e[4], d[4];
    cuzk_fr_to_limbs(e, k);
    cuzk_ec_split_x(d, e);
    for (int j = 0; j < 4; j++) {
        uint64_t w[4] = {d[j], 0, 0, 0};
        s->len[j] = cuzk_g2_wnaf_(s->naf[j], w);
    }
}

void cuzk_g2_affine_mul_endo(cuzk_g2_jac *r, const cuzk_g2_affine *p, const cuzk_g2_endo_scalar *s)
{
    /* |x|^j·P = (-psi)^j(P): psi acts as x = -|x| */
    cuzk_g2_affine tab[4][EC_WNAF_TABLE];
    cuzk_g2_odd_multiples_(tab[0], p);
    for (int j = 1; j < 4; j++)
        for (int i = 0; i < EC_WNAF_TABLE; i++) {
            cuzk_g2_affine_psi(&tab[j][i], &tab[j - 1][i]);
            cuzk_g2_affine_neg(&tab[j][i], &tab[j][i]);
        }
    cuzk_g2_straus_(r, (const cuzk_g2_affine(*)[EC_WNAF_TABLE])tab, (const int8_t(*)[258])s->naf, s->len, 4);
}

bool cuzk_g2_affine_in_subgroup(const cuzk_g2_affine *p)
{
    /* Scott, "A note on group membership tests" (2021): for BLS12,
     * P in G2 iff psi(P) == x·P. */
    if (cuzk_g2_affine_is_infinity(p)) return true;
    cuzk_g2_jac jp, t, ps;
    cuzk_g2_jac_from_affine(&jp, p);
    cuzk_g2_affine_mul_u64_(&t, p, CUZK_BLS_X_ABS);
    cuzk_g2_jac_neg(&t, &t); /* x·P */
    cuzk_g2_jac_psi(&ps, &jp);
    return cuzk_g2_jac_eq(&t, &ps);
}

/* ---- encodings --------------------------------------------------------- */

static bool fp2_lex_largest(const cuzk_fp2 *a)
{
    return cuzk_fp_is_zero(&a->c1) ? cuzk_ec_fp_lex_largest(&a->c0) : cuzk_ec_fp_lex_largest(&a->c1);
}

void cuzk_g2_compress(uint8_t out[96], const cuzk_g2_affine *p)
{
    if (cuzk_g2_affine_is_infinity(p)) {
        memset(out, 0, 96);
        out[0] = 0xc0;
        return;
    }
    cuzk_fp_to_be48(out, &p->x.c1);
    cuzk_fp_to_be48(out + 48, &p->x.c0);
    out[0] |= 0x80;
    if (fp2_lex_largest(&p->y)) out[0] |= 0x20;
}

void cuzk_g2_serialize(uint8_t out[192], const cuzk_g2_affine *p)
{
    if (cuzk_g2_affine_is_infinity(p)) {
        memset(out, 0, 192);
        out[0] = 0x40;
        return;
    }
    cuzk_fp_to_be48(out, &p->x.c1);
    cuzk_fp_to_be48(out + 48, &p->x.c0);
    cuzk_fp_to_be48(out + 96, &p->y.c1);
    cuzk_fp_to_be48(out + 144, &p->y.c0);
}

static bool all_zero(const uint8_t *b, size_t n, uint8_t first_mask)
{
    uint8_t acc = b[0] & first_mask;
    for (size_t i = 1; i < n; i++) acc |= b[i];
    return acc == 0;
}

static int g2_uncompress(cuzk_g2_affine *r, const uint8_t in[96], bool check)
{
    uint8_t f = in[0] & 0xe0;
    if (!(f & 0x80)) return CUZK_ERR_BAD_FLAGS;
    if (f & 0x40) {
        if ((f & 0x20) || !all_zero(in, 96, 0x1f)) return CUZK_ERR_BAD_FLAGS;
        r->x = cuzk_fp2_zero;
        r->y = cuzk_fp2_zero;
        return CUZK_OK;
    }
    uint8_t buf[48];
    memcpy(buf, in, 48);
    buf[0] &= 0x1f;
    cuzk_g2_affine p;
    if (cuzk_fp_from_be48(&p.x.c1, buf) != CUZK_OK || cuzk_fp_from_be48(&p.x.c0, in + 48) != CUZK_OK)
        return CUZK_ERR_NONCANONICAL;
    cuzk_fp2 rhs;
    cuzk_fp2_sqr(&rhs, &p.x);
    cuzk_fp2_mul(&rhs, &rhs, &p.x);
    cuzk_fp2_add(&rhs, &rhs, &g2_b);
    if (!cuzk_fp2_sqrt(&p.y, &rhs)) return CUZK_ERR_NOT_A_SQUARE;
    if (fp2_lex_largest(&p.y) != ((f & 0x20) != 0)) cuzk_fp2_neg(&p.y, &p.y);
    if (check && !cuzk_g2_affine_in_subgroup(&p)) return CUZK_ERR_NOT_IN_SUBGROUP;
    *r = p;
    return CUZK_OK;
}

static int g2_deserialize(cuzk_g2_affine *r, const uint8_t in[192], bool check)
{
    uint8_t f = in[0] & 0xe0;
    if (f & 0xa0) return CUZK_ERR_BAD_FLAGS; /* compressed or sort bit */
    if (f & 0x40) {
        if (!all_zero(in, 192, 0x1f)) return CUZK_ERR_BAD_FLAGS;
        r->x = cuzk_fp2_zero;
        r->y = cuzk_fp2_zero;
        return CUZK_OK;
    }
    cuzk_g2_affine p;
    if (cuzk_fp_from_be48(&p.x.c1, in) != CUZK_OK || cuzk_fp_from_be48(&p.x.c0, in + 48) != CUZK_OK ||
        cuzk_fp_from_be48(&p.y.c1, in + 96) != CUZK_OK || cuzk_fp_from_be48(&p.y.c0, in + 144) != CUZK_OK)
        return CUZK_ERR_NONCANONICAL;
    /* (0, 0) is our infinity but not a curve point: reject it explicitly. */
    if (cuzk_g2_affine_is_infinity(&p) || !cuzk_g2_affine_is_on_curve(&p))
        return CUZK_ERR_NOT_ON_CURVE;
    if (check && !cuzk_g2_affine_in_subgroup(&p)) return CUZK_ERR_NOT_IN_SUBGROUP;
    *r = p;
    return CUZK_OK;
}

int cuzk_g2_uncompress(cuzk_g2_affine *r, const uint8_t in[96]) { return g2_uncompress(r, in, true); }
int cuzk_g2_uncompress_unchecked(cuzk_g2_affine *r, const uint8_t in[96])
{
    return g2_uncompress(r, in, false);
}
int cuzk_g2_deserialize(cuzk_g2_affine *r, const uint8_t in[192]) { return g2_deserialize(r, in, true); }
int cuzk_g2_deserialize_unchecked(cuzk_g2_affine *r, const uint8_t in[192])
{
    return g2_deserialize(r, in, false);
}

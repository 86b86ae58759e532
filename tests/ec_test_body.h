/*
 * Group-law, encoding and subgroup tests shared by test_g1.c and test_g2.c,
 * instantiated with macros: G(x) public name (cuzk_g1_##x), AFF/JAC/XYZZ the
 * types, FE/FE_* the coordinate field, FE_B the curve constant, CB/UB the
 * compressed/uncompressed sizes, GNAME a label. Oracles here are internal
 * (different formulas and coordinate systems must agree, slow r·P checks);
 * tests/ec_noble.test.sh compares against @noble/curves.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/ff/fr.h"
#include "testutil.h"

static cuzk_rng rng;

static void rand_scalar(uint64_t k[4])
{
    cuzk_fr f;
    cuzk_fr_random(&f, &rng);
    cuzk_fr_to_limbs(k, &f);
}

static void gen_jac(JAC *r)
{
    G(jac_from_affine)(r, &G(generator));
}

/* random subgroup point k·G */
static void rand_point(JAC *r)
{
    uint64_t k[4];
    JAC g;
    rand_scalar(k);
    gen_jac(&g);
    G(jac_mul)(r, &g, k);
}

/* random curve point (random x with a root): almost surely not in the subgroup */
static void rand_curve_point(AFF *r)
{
    for (;;) {
        FE x, rhs, y;
        FE_RANDOM(&x, &rng);
        FE_SQR(&rhs, &x);
        FE_MUL(&rhs, &rhs, &x);
        FE_ADD(&rhs, &rhs, FE_B);
        if (!FE_SQRT(&y, &rhs)) continue;
        r->x = x;
        r->y = y;
        return;
    }
}

/* a point whose x has no root (for NOT_A_SQUARE) */
static void rand_non_x(FE *x)
{
    for (;;) {
        FE rhs, y;
        FE_RANDOM(x, &rng);
        FE_SQR(&rhs, x);
        FE_MUL(&rhs, &rhs, x);
        FE_ADD(&rhs, &rhs, FE_B);
        if (!FE_SQRT(&y, &rhs)) return;
    }
}

static bool slow_in_subgroup(const AFF *p)
{
    JAC j, t;
    G(jac_from_affine)(&j, p);
    G(jac_mul)(&t, &j, cuzk_fr_modulus);
    return G(jac_is_infinity)(&t);
}

static bool xyzz_eq_jac(const XYZZ *a, const JAC *b)
{
    JAC t;
    G(xyzz_to_jac)(&t, a);
    return G(jac_eq)(&t, b) && G(jac_is_on_curve)(&t);
}

static void to_aff(AFF *r, const JAC *p) { G(jac_to_affine)(r, p); }

static void test_generator(void)
{
    JAC g, t;
    gen_jac(&g);
    CHECK(G(affine_is_on_curve)(&G(generator)));
    CHECK(G(affine_in_subgroup)(&G(generator)));
    CHECK(slow_in_subgroup(&G(generator)));
    uint8_t c[CB];
    char hex[2 * CB + 1];
    G(compress)(c, &G(generator));
    tu_hex(hex, c, CB);
    CHECK_MSG(strcmp(hex, GEN_COMPRESSED_HEX) == 0, "%s", hex);
    /* (r - 1)·G = -G */
    uint64_t rm1[4];
    memcpy(rm1, cuzk_fr_modulus, sizeof rm1);
    rm1[0] -= 1;
    G(jac_mul)(&t, &g, rm1);
    G(jac_neg)(&t, &t);
    CHECK(G(jac_eq)(&t, &g));
}

static void test_small_scalars(void)
{
    /* wNAF vs repeated addition for k < 70, and all-ones/high-bit scalars */
    JAC g, acc, m;
    gen_jac(&g);
    G(jac_set_infinity)(&acc);
    for (uint64_t k = 0; k < 70; k++) {
        uint64_t kk[4] = {k, 0, 0, 0};
        G(jac_mul)(&m, &g, kk);
        CHECK_MSG(G(jac_eq)(&m, &acc), "k=%llu", (unsigned long long)k);
        G(jac_add)(&acc, &acc, &g);
    }
    /* k = 2^256 - 1 = (2^256 - 1 - r) + r: compare with the reduced scalar */
    uint64_t ones[4] = {~0ULL, ~0ULL, ~0ULL, ~0ULL}, red[4];
    unsigned __int128 bw = 0;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 d = (unsigned __int128)ones[i] - cuzk_fr_modulus[i] - bw;
        red[i] = (uint64_t)d;
        bw = (d >> 64) & 1;
    }
    JAC a, b;
    G(jac_mul)(&a, &g, ones);
    G(jac_mul)(&b, &g, red);
    CHECK(G(jac_eq)(&a, &b));
}

/* The endomorphism split (affine_mul_endo) against the plain wNAF (jac_mul_fr): random scalars
 * and points, and the scalars at the split's digit boundaries: 0, 1, r - 1, |x|^j and
 * |x|^j ± 1 (j = 1..3), 2^128 ± 1; the generator and infinity too. */
static void test_mul_endo(int iters)
{
    const uint64_t X = 0xd201000000010000ULL;
    uint64_t ks[20][4] = {{0}, {1}}, rm1[4] = {cuzk_fr_modulus[0] - 1, cuzk_fr_modulus[1], cuzk_fr_modulus[2],
                                                cuzk_fr_modulus[3]};
    int nk = 2;
    memcpy(ks[nk++], rm1, sizeof rm1);
    uint64_t pw[4] = {1, 0, 0, 0};
    for (int j = 1; j <= 3; j++) {
        unsigned __int128 c = 0; /* pw *= |x| */
        for (int l = 0; l < 4; l++) c += (unsigned __int128)pw[l] * X, pw[l] = (uint64_t)c, c >>= 64;
        for (int d = -1; d <= 1; d++) {
            uint64_t *k = ks[nk++];
            memcpy(k, pw, sizeof pw);
            k[0] += (uint64_t)d; /* pw's low limb is 0: no carry */
        }
    }
    uint64_t t128[3][4] = {{~0ULL, ~0ULL, 0, 0}, {0, 0, 1, 0}, {1, 0, 1, 0}};
    memcpy(ks[nk], t128, sizeof t128), nk += 3;
    AFF inf = {0};
    for (int it = 0; it < iters + nk; it++) {
        uint64_t k[4];
        if (it < nk) memcpy(k, ks[it], sizeof k);
        else rand_scalar(k);
        cuzk_fr f;
        CHECK(cuzk_fr_from_limbs(&f, k) == CUZK_OK);
        G(endo_scalar) e;
        G(endo_scalar_init)(&e, &f);
        JAC p, want, got;
        AFF pa;
        if (it % 3 == 0) gen_jac(&p);
        else rand_point(&p);
        to_aff(&pa, &p);
        G(jac_mul_fr)(&want, &p, &f);
        G(affine_mul_endo)(&got, &pa, &e);
        CHECK_MSG(G(jac_eq)(&got, &want), "k #%d", it);
        G(affine_mul_endo)(&got, &inf, &e);
        CHECK(G(jac_is_infinity)(&got));
    }
}

static void test_group_laws(int iters)
{
    for (int it = 0; it < iters; it++) {
        JAC p, q, s, t1, t2, inf, np;
        rand_point(&p);
        rand_point(&q);
        rand_point(&s);
        G(jac_set_infinity)(&inf);
        CHECK(G(jac_is_on_curve)(&p));
        /* associativity, commutativity */
        G(jac_add)(&t1, &p, &q);
        G(jac_add)(&t1, &t1, &s);
        G(jac_add)(&t2, &q, &s);
        G(jac_add)(&t2, &p, &t2);
        CHECK(G(jac_eq)(&t1, &t2) && G(jac_is_on_curve)(&t1));
        G(jac_add)(&t1, &p, &q);
        G(jac_add)(&t2, &q, &p);
        CHECK(G(jac_eq)(&t1, &t2));
        /* identity, inverse */
        G(jac_add)(&t1, &p, &inf);
        CHECK(G(jac_eq)(&t1, &p));
        G(jac_add)(&t1, &inf, &p);
        CHECK(G(jac_eq)(&t1, &p));
        G(jac_neg)(&np, &p);
        G(jac_add)(&t1, &p, &np);
        CHECK(G(jac_is_infinity)(&t1));
        G(jac_add)(&t1, &inf, &inf);
        CHECK(G(jac_is_infinity)(&t1));
        /* dbl == add(P, P), also with a differently scaled copy of P */
        G(jac_dbl)(&t1, &p);
        G(jac_add)(&t2, &p, &p);
        CHECK(G(jac_eq)(&t1, &t2) && G(jac_is_on_curve)(&t1));
        AFF pa, qa, na, infa;
        to_aff(&pa, &p);
        to_aff(&qa, &q);
        G(affine_neg)(&na, &pa);
        G(jac_to_affine)(&infa, &inf);
        CHECK(G(affine_is_infinity)(&infa));
        JAC pj;
        G(jac_from_affine)(&pj, &pa);
        G(jac_add)(&t2, &p, &pj);
        CHECK(G(jac_eq)(&t1, &t2));
        G(jac_dbl)(&t2, &inf);
        CHECK(G(jac_is_infinity)(&t2));
        /* mixed addition agrees, including P + P, P + (-P), infinity operands */
        G(jac_add)(&t1, &p, &q);
        G(jac_add_affine)(&t2, &p, &qa);
        CHECK(G(jac_eq)(&t1, &t2));
        G(jac_dbl)(&t1, &p);
        G(jac_add_affine)(&t2, &p, &pa);
        CHECK(G(jac_eq)(&t1, &t2));
        G(jac_add_affine)(&t2, &p, &na);
        CHECK(G(jac_is_infinity)(&t2));
        G(jac_add_affine)(&t2, &inf, &pa);
        CHECK(G(jac_eq)(&t2, &p));
        G(jac_add_affine)(&t2, &p, &infa);
        CHECK(G(jac_eq)(&t2, &p));
        /* affine round trip, eq */
        AFF back;
        G(jac_from_affine)(&t1, &pa);
        to_aff(&back, &t1);
        CHECK(G(affine_eq)(&back, &pa) && G(affine_is_on_curve)(&pa));
        CHECK(!G(affine_eq)(&pa, &qa) && !G(jac_eq)(&p, &q) && !G(jac_eq)(&p, &inf));
        /* XYZZ: add, mixed add, dbl, special cases */
        XYZZ xp, xq, xr, xinf, xn;
        G(xyzz_from_affine)(&xp, &pa);
        G(xyzz_from_affine)(&xq, &qa);
        G(xyzz_set_infinity)(&xinf);
        G(xyzz_dbl)(&xr, &xq); /* non-trivial ZZ */
        G(jac_dbl)(&t1, &q);
        CHECK(xyzz_eq_jac(&xr, &t1));
        G(xyzz_add)(&xr, &xr, &xp); /* 2Q + P */
        G(jac_add)(&t1, &t1, &p);
        CHECK(xyzz_eq_jac(&xr, &t1));
        G(xyzz_add_affine)(&xr, &xr, &qa); /* 3Q + P */
        G(jac_add)(&t1, &t1, &q);
        CHECK(xyzz_eq_jac(&xr, &t1));
        XYZZ xr2 = xr;
        G(xyzz_add)(&xr2, &xr2, &xr); /* equal operands */
        G(jac_dbl)(&t2, &t1);
        CHECK(xyzz_eq_jac(&xr2, &t2));
        G(xyzz_add_affine)(&xr2, &xp, &pa);
        G(jac_dbl)(&t2, &p);
        CHECK(xyzz_eq_jac(&xr2, &t2));
        G(xyzz_dbl)(&xr2, &xp);
        CHECK(xyzz_eq_jac(&xr2, &t2));
        G(xyzz_from_affine)(&xn, &na);
        G(xyzz_add)(&xr2, &xp, &xn);
        CHECK(G(xyzz_is_infinity)(&xr2));
        G(xyzz_add_affine)(&xr2, &xp, &na);
        CHECK(G(xyzz_is_infinity)(&xr2));
        G(xyzz_add)(&xr2, &xinf, &xp);
        CHECK(xyzz_eq_jac(&xr2, &p));
        G(xyzz_add)(&xr2, &xp, &xinf);
        CHECK(xyzz_eq_jac(&xr2, &p));
        G(xyzz_add_affine)(&xr2, &xinf, &pa);
        CHECK(xyzz_eq_jac(&xr2, &p));
        G(xyzz_add_affine)(&xr2, &xp, &infa);
        CHECK(xyzz_eq_jac(&xr2, &p));
        G(xyzz_dbl)(&xr2, &xinf);
        CHECK(G(xyzz_is_infinity)(&xr2));
        G(xyzz_from_affine)(&xr2, &infa);
        CHECK(G(xyzz_is_infinity)(&xr2));
        G(xyzz_to_jac)(&t2, &xinf);
        CHECK(G(jac_is_infinity)(&t2));
        /* scalar multiplication: linearity, r·P = O, aliasing */
        cuzk_fr k1, k2, k3;
        cuzk_fr_random(&k1, &rng);
        cuzk_fr_random(&k2, &rng);
        cuzk_fr_add(&k3, &k1, &k2);
        G(jac_mul_fr)(&t1, &p, &k1);
        G(jac_mul_fr)(&t2, &p, &k2);
        G(jac_add)(&t1, &t1, &t2);
        G(jac_mul_fr)(&t2, &p, &k3);
        CHECK(G(jac_eq)(&t1, &t2));
        cuzk_fr_mul(&k3, &k1, &k2);
        G(jac_mul_fr)(&t1, &p, &k1);
        G(jac_mul_fr)(&t1, &t1, &k2); /* aliasing */
        G(jac_mul_fr)(&t2, &p, &k3);
        CHECK(G(jac_eq)(&t1, &t2));
        G(jac_mul)(&t1, &p, cuzk_fr_modulus);
        CHECK(G(jac_is_infinity)(&t1));
        G(jac_mul_fr)(&t1, &inf, &k1);
        CHECK(G(jac_is_infinity)(&t1));
        G(jac_mul_fr)(&t1, &p, &cuzk_fr_zero);
        CHECK(G(jac_is_infinity)(&t1));
        G(jac_mul_fr)(&t1, &p, &cuzk_fr_one);
        CHECK(G(jac_eq)(&t1, &p));
    }
}

static void test_batch(void)
{
    enum { N = 19 };
    JAC in[N];
    AFF out[N], one;
    for (int i = 0; i < N; i++) {
        if (i % 5 == 2 || i == N - 1)
            G(jac_set_infinity)(&in[i]);
        else
            rand_point(&in[i]);
    }
    G(jac_batch_to_affine)(out, in, N);
    for (int i = 0; i < N; i++) {
        to_aff(&one, &in[i]);
        CHECK_MSG(G(affine_eq)(&one, &out[i]), "i=%d", i);
    }
    G(jac_batch_to_affine)(out, in, 0);
    G(jac_batch_to_affine)(out, in + 2, 1); /* lone infinity */
    CHECK(G(affine_is_infinity)(&out[0]));
}

static void test_encodings(int iters)
{
    uint8_t c[CB], u[UB], bad[UB];
    AFF p, q, back;
    for (int it = 0; it < iters + 1; it++) {
        if (it == iters) {
            memset(&p, 0, sizeof p); /* infinity */
        } else {
            JAC j;
            rand_point(&j);
            to_aff(&p, &j);
        }
        for (int neg = 0; neg < 2; neg++) {
            if (neg) G(affine_neg)(&p, &p);
            G(compress)(c, &p);
            G(serialize)(u, &p);
            CHECK(G(uncompress)(&back, c) == CUZK_OK && G(affine_eq)(&back, &p));
            CHECK(G(uncompress_unchecked)(&back, c) == CUZK_OK && G(affine_eq)(&back, &p));
            CHECK(G(deserialize)(&back, u) == CUZK_OK && G(affine_eq)(&back, &p));
            CHECK(G(deserialize_unchecked)(&back, u) == CUZK_OK && G(affine_eq)(&back, &p));
            CHECK((c[0] & 0x80) && !(u[0] & 0x80));
            /* flag errors */
            memcpy(bad, c, CB);
            bad[0] &= 0x7f;
            CHECK(G(uncompress)(&back, bad) == CUZK_ERR_BAD_FLAGS);
            memcpy(bad, u, UB);
            bad[0] |= 0x80;
            CHECK(G(deserialize)(&back, bad) == CUZK_ERR_BAD_FLAGS);
            memcpy(bad, u, UB);
            bad[0] |= 0x20;
            CHECK(G(deserialize)(&back, bad) == CUZK_ERR_BAD_FLAGS);
            if (it < iters) {
                memcpy(bad, c, CB); /* infinity bit on a real point */
                bad[0] |= 0x40;
                CHECK(G(uncompress)(&back, bad) == CUZK_ERR_BAD_FLAGS);
                memcpy(bad, u, UB);
                bad[0] |= 0x40;
                CHECK(G(deserialize)(&back, bad) == CUZK_ERR_BAD_FLAGS);
                /* perturbed y: off the curve */
                memcpy(bad, u, UB);
                bad[UB - 1] ^= 1;
                int e = G(deserialize)(&back, bad);
                CHECK(e == CUZK_ERR_NOT_ON_CURVE || e == CUZK_ERR_NONCANONICAL);
                CHECK(G(deserialize_unchecked)(&back, bad) == e);
                /* flipping the sort bit gives -P */
                memcpy(bad, c, CB);
                bad[0] ^= 0x20;
                AFF np;
                G(affine_neg)(&np, &p);
                CHECK(G(uncompress)(&back, bad) == CUZK_OK && G(affine_eq)(&back, &np));
            }
        }
    }
    /* infinity: with sort bit, with nonzero coordinates; (0,0) without the flag */
    memset(c, 0, CB);
    c[0] = 0xe0;
    CHECK(G(uncompress)(&back, c) == CUZK_ERR_BAD_FLAGS);
    c[0] = 0xc0;
    c[CB - 1] = 1;
    CHECK(G(uncompress)(&back, c) == CUZK_ERR_BAD_FLAGS);
    c[CB - 1] = 0;
    c[0] = 0xc1;
    CHECK(G(uncompress)(&back, c) == CUZK_ERR_BAD_FLAGS);
    memset(u, 0, UB);
    u[0] = 0x40;
    u[UB / 2] = 1;
    CHECK(G(deserialize)(&back, u) == CUZK_ERR_BAD_FLAGS);
    u[0] = 0x60;
    u[UB / 2] = 0;
    CHECK(G(deserialize)(&back, u) == CUZK_ERR_BAD_FLAGS);
    u[0] = 0;
    CHECK(G(deserialize)(&back, u) == CUZK_ERR_NOT_ON_CURVE);
    CHECK(G(deserialize_unchecked)(&back, u) == CUZK_ERR_NOT_ON_CURVE);
    /* non-canonical coordinates: p itself and p + small in every coordinate slot */
    uint8_t pbe[48];
    {
        uint64_t m[6];
        memcpy(m, cuzk_fp_modulus, sizeof m);
        m[0] += cuzk_rng_u64(&rng) % 1000; /* no carry: low limb of p is far from 2^64 */
        for (int i = 0; i < 6; i++)
            for (int b = 0; b < 8; b++) pbe[47 - 8 * i - b] = (uint8_t)(m[i] >> (8 * b));
    }
    JAC j;
    rand_point(&j);
    to_aff(&p, &j);
    G(compress)(c, &p);
    G(serialize)(u, &p);
    for (int slot = 0; slot < CB / 48; slot++) {
        memcpy(bad, c, CB);
        memcpy(bad + 48 * slot, pbe, 48);
        bad[0] |= c[0] & 0xe0;
        CHECK(G(uncompress)(&back, bad) == CUZK_ERR_NONCANONICAL);
        CHECK(G(uncompress_unchecked)(&back, bad) == CUZK_ERR_NONCANONICAL);
    }
    for (int slot = 0; slot < UB / 48; slot++) {
        memcpy(bad, u, UB);
        memcpy(bad + 48 * slot, pbe, 48);
        CHECK(G(deserialize)(&back, bad) == CUZK_ERR_NONCANONICAL);
    }
    /* compressed x without a root */
    AFF nx;
    rand_non_x(&nx.x);
    nx.y = nx.x; /* any nonzero y: only x is encoded */
    G(compress)(c, &nx);
    CHECK(G(uncompress)(&back, c) == CUZK_ERR_NOT_A_SQUARE);
    CHECK(G(uncompress_unchecked)(&back, c) == CUZK_ERR_NOT_A_SQUARE);
    /* on the curve, outside the subgroup */
    for (int i = 0; i < 4; i++) {
        rand_curve_point(&q);
        G(compress)(c, &q);
        G(serialize)(u, &q);
        CHECK(G(uncompress)(&back, c) == CUZK_ERR_NOT_IN_SUBGROUP);
        CHECK(G(deserialize)(&back, u) == CUZK_ERR_NOT_IN_SUBGROUP);
        CHECK(G(uncompress_unchecked)(&back, c) == CUZK_OK && G(affine_eq)(&back, &q));
        CHECK(G(deserialize_unchecked)(&back, u) == CUZK_OK && G(affine_eq)(&back, &q));
    }
}

static void test_subgroup(int iters)
{
    for (int it = 0; it < iters; it++) {
        JAC j, t;
        AFF p, q, s;
        rand_point(&j);
        to_aff(&p, &j);
        CHECK(G(affine_in_subgroup)(&p) && slow_in_subgroup(&p));
        rand_curve_point(&q);
        CHECK(G(affine_is_on_curve)(&q));
        bool fast = G(affine_in_subgroup)(&q), slow = slow_in_subgroup(&q);
        CHECK(fast == slow);
        CHECK(!slow); /* a random curve point is in G with probability 1/cofactor */
        /* subgroup point + torsion point: outside */
        G(jac_add_affine)(&t, &j, &q);
        to_aff(&s, &t);
        CHECK(!G(affine_in_subgroup)(&s) && !slow_in_subgroup(&s));
        /* r·Q kills Q's component in G and leaves a nonzero cofactor-torsion point */
        G(jac_from_affine)(&t, &q);
        G(jac_mul)(&t, &t, cuzk_fr_modulus);
        to_aff(&s, &t);
        CHECK(!G(affine_is_infinity)(&s) && G(affine_is_on_curve)(&s) && !G(affine_in_subgroup)(&s));
    }
}

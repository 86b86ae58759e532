/*
 * Fp2 = Fp[u]/(u^2+1) against a GMP model of pairs (a0, a1) mod p, for every
 * available multiplication: add, sub, dbl, neg, conj, mul, sqr, mul_fp,
 * mul_by_nonresidue, norm, inv, pow, sqrt and Legendre.
 */
#include <gmp.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/ff/ff.h"
#include "cuzk/ff/fp2.h"
#include "testutil.h"

static mpz_t P;

typedef struct { mpz_t c0, c1; } zp2;

static void zp2_init(zp2 *z) { mpz_inits(z->c0, z->c1, NULL); }
static void zp2_clear(zp2 *z) { mpz_clears(z->c0, z->c1, NULL); }

static void fp_to_mpz(mpz_t z, const cuzk_fp *a)
{
    uint64_t v[6];
    cuzk_fp_to_limbs(v, a);
    mpz_import(z, 6, -1, 8, 0, 0, v);
}

static void to_zp2(zp2 *z, const cuzk_fp2 *a)
{
    fp_to_mpz(z->c0, &a->c0);
    fp_to_mpz(z->c1, &a->c1);
}

static bool eq_zp2(const cuzk_fp2 *a, const zp2 *z)
{
    zp2 t;
    zp2_init(&t);
    to_zp2(&t, a);
    bool ok = mpz_cmp(t.c0, z->c0) == 0 && mpz_cmp(t.c1, z->c1) == 0;
    zp2_clear(&t);
    return ok;
}

static void zp2_mod(zp2 *z)
{
    mpz_mod(z->c0, z->c0, P);
    mpz_mod(z->c1, z->c1, P);
}

/* r = x·y with u^2 = -1 (r must not alias). */
static void zp2_mul(zp2 *r, const zp2 *x, const zp2 *y)
{
    mpz_t t;
    mpz_init(t);
    mpz_mul(r->c0, x->c0, y->c0);
    mpz_mul(t, x->c1, y->c1);
    mpz_sub(r->c0, r->c0, t);
    mpz_mul(r->c1, x->c0, y->c1);
    mpz_mul(t, x->c1, y->c0);
    mpz_add(r->c1, r->c1, t);
    zp2_mod(r);
    mpz_clear(t);
}

static void zp2_norm(mpz_t n, const zp2 *x)
{
    mpz_t t;
    mpz_init(t);
    mpz_mul(n, x->c0, x->c0);
    mpz_mul(t, x->c1, x->c1);
    mpz_add(n, n, t);
    mpz_mod(n, n, P);
    mpz_clear(t);
}

/* A random element; sometimes with a zero or edge coordinate. */
static void draw(cuzk_rng *rng, cuzk_fp2 *a)
{
    cuzk_fp2_random(a, rng);
    uint64_t r = cuzk_rng_u64(rng);
    if ((r & 7) == 0) a->c1 = cuzk_fp_zero;
    if ((r & 7) == 1) a->c0 = cuzk_fp_zero;
    if ((r & 7) == 2) cuzk_fp_neg(&a->c0, &cuzk_fp_one);
    if ((r & 7) == 3) cuzk_fp_neg(&a->c1, &cuzk_fp_one);
    if ((r & 63) == 4) *a = cuzk_fp2_zero;
}

static unsigned long n_ops;

static void run(cuzk_rng *rng, int iters)
{
    zp2 x, y, e, t;
    zp2_init(&x); zp2_init(&y); zp2_init(&e); zp2_init(&t);
    mpz_t n, m;
    mpz_inits(n, m, NULL);
    for (int it = 0; it < iters; it++) {
        cuzk_fp2 a, b, r, s;
        draw(rng, &a);
        draw(rng, &b);
        to_zp2(&x, &a);
        to_zp2(&y, &b);

        cuzk_fp2_add(&r, &a, &b);
        mpz_add(e.c0, x.c0, y.c0); mpz_add(e.c1, x.c1, y.c1); zp2_mod(&e);
        CHECK(eq_zp2(&r, &e));
        cuzk_fp2_sub(&r, &a, &b);
        mpz_sub(e.c0, x.c0, y.c0); mpz_sub(e.c1, x.c1, y.c1); zp2_mod(&e);
        CHECK(eq_zp2(&r, &e));
        cuzk_fp2_dbl(&r, &a);
        mpz_add(e.c0, x.c0, x.c0); mpz_add(e.c1, x.c1, x.c1); zp2_mod(&e);
        CHECK(eq_zp2(&r, &e));
        cuzk_fp2_neg(&r, &a);
        mpz_neg(e.c0, x.c0); mpz_neg(e.c1, x.c1); zp2_mod(&e);
        CHECK(eq_zp2(&r, &e));
        cuzk_fp2_conj(&r, &a);
        mpz_set(e.c0, x.c0); mpz_neg(e.c1, x.c1); zp2_mod(&e);
        CHECK(eq_zp2(&r, &e));

        cuzk_fp2_mul(&r, &a, &b);
        zp2_mul(&e, &x, &y);
        CHECK(eq_zp2(&r, &e));
        s = a; /* aliasing */
        cuzk_fp2_mul(&s, &s, &b);
        CHECK(eq_zp2(&s, &e));
        cuzk_fp2_sqr(&r, &a);
        zp2_mul(&e, &x, &x);
        CHECK(eq_zp2(&r, &e));
        cuzk_fp2_mul_fp(&r, &a, &b.c0);
        mpz_mul(e.c0, x.c0, y.c0); mpz_mul(e.c1, x.c1, y.c0); zp2_mod(&e);
        CHECK(eq_zp2(&r, &e));
        cuzk_fp2_mul_by_nonresidue(&r, &a);
        mpz_set_ui(t.c0, 1); mpz_set_ui(t.c1, 1);
        zp2_mul(&e, &x, &t);
        CHECK(eq_zp2(&r, &e));

        cuzk_fp nn;
        cuzk_fp2_norm(&nn, &a);
        zp2_norm(n, &x);
        fp_to_mpz(m, &nn);
        CHECK(mpz_cmp(m, n) == 0);

        cuzk_fp2_inv(&r, &a);
        if (mpz_sgn(n) == 0) {
            CHECK(cuzk_fp2_is_zero(&r) && cuzk_fp2_is_zero(&a));
        } else { /* (x0 - x1 u) / norm */
            mpz_invert(m, n, P);
            mpz_mul(e.c0, x.c0, m);
            mpz_neg(e.c1, x.c1);
            mpz_mul(e.c1, e.c1, m);
            zp2_mod(&e);
            CHECK(eq_zp2(&r, &e));
            cuzk_fp2_mul(&s, &r, &a);
            CHECK(cuzk_fp2_is_one(&s));
        }

        CHECK(cuzk_fp2_eq(&a, &b) == (mpz_cmp(x.c0, y.c0) == 0 && mpz_cmp(x.c1, y.c1) == 0));
        CHECK(cuzk_fp2_is_zero(&a) == (mpz_sgn(x.c0) == 0 && mpz_sgn(x.c1) == 0));
        n_ops += 12;

        if (it % 8 == 0) {
            /* pow against repeated multiplication in the model (square and multiply) */
            size_t nl = cuzk_rng_u64(rng) % 4;
            uint64_t ex[3] = {cuzk_rng_u64(rng), cuzk_rng_u64(rng), cuzk_rng_u64(rng)};
            cuzk_fp2_pow(&r, &a, ex, nl);
            mpz_set_ui(e.c0, 1); mpz_set_ui(e.c1, 0);
            for (size_t i = nl; i-- > 0;)
                for (int bit = 63; bit >= 0; bit--) {
                    zp2_mul(&t, &e, &e);
                    mpz_swap(t.c0, e.c0); mpz_swap(t.c1, e.c1);
                    if ((ex[i] >> bit) & 1) {
                        zp2_mul(&t, &e, &x);
                        mpz_swap(t.c0, e.c0); mpz_swap(t.c1, e.c1);
                    }
                }
            CHECK(eq_zp2(&r, &e));

            /* Legendre: via the norm (GMP), sqrt exists iff it is not -1 */
            int lg = cuzk_fp2_legendre(&a);
            CHECK(lg == mpz_legendre(n, P));
            bool ok = cuzk_fp2_sqrt(&r, &a);
            CHECK(ok == (lg >= 0));
            if (ok) {
                cuzk_fp2_sqr(&s, &r);
                CHECK(cuzk_fp2_eq(&s, &a));
            } else {
                s = a; /* r untouched on failure */
                CHECK(!cuzk_fp2_sqrt(&s, &a) && cuzk_fp2_eq(&s, &a));
            }
            /* a^2 is a square; the root is ±a */
            cuzk_fp2 sq, neg;
            cuzk_fp2_sqr(&sq, &a);
            CHECK(cuzk_fp2_legendre(&sq) == (cuzk_fp2_is_zero(&a) ? 0 : 1));
            ok = cuzk_fp2_sqrt(&r, &sq);
            CHECK(ok);
            cuzk_fp2_neg(&neg, &a);
            CHECK(ok && (cuzk_fp2_eq(&r, &a) || cuzk_fp2_eq(&r, &neg)));
            n_ops += 4;
        }
    }
    /* Fp non-residue -1 embeds as a square: sqrt(-1) = ±u; u·(1+u) squares */
    cuzk_fp2 m1 = cuzk_fp2_zero, r;
    cuzk_fp_neg(&m1.c0, &cuzk_fp_one);
    CHECK(cuzk_fp2_sqrt(&r, &m1));
    CHECK(cuzk_fp_is_zero(&r.c0));
    cuzk_fp2 chk;
    cuzk_fp2_sqr(&chk, &r);
    CHECK(cuzk_fp2_eq(&chk, &m1));
    /* 1 + u is a non-residue in Fp2 (it builds Fp6) */
    cuzk_fp2 xi = {cuzk_fp_one, cuzk_fp_one};
    CHECK(cuzk_fp2_legendre(&xi) == -1);
    CHECK(!cuzk_fp2_sqrt(&r, &xi));
    CHECK(cuzk_fp2_legendre(&cuzk_fp2_zero) == 0);
    CHECK(cuzk_fp2_sqrt(&r, &cuzk_fp2_zero) && cuzk_fp2_is_zero(&r));
    zp2_clear(&x); zp2_clear(&y); zp2_clear(&e); zp2_clear(&t);
    mpz_clears(n, m, NULL);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_fp2");
    mpz_init(P);
    mpz_import(P, 6, -1, 8, 0, 0, cuzk_fp_modulus);
    cuzk_ff_mont initial = cuzk_ff_mont_active();
    for (int be = 0; be < 2; be++) {
        cuzk_ff_mont b = be ? CUZK_FF_ADX : CUZK_FF_PORTABLE;
        if (cuzk_ff_mont_select(b) != CUZK_OK) {
            printf("multiplication %s not available, skipped\n", cuzk_ff_mont_name(b));
            continue;
        }
        unsigned long before = n_ops;
        run(&rng, 4000);
        printf("%s: %lu random operations checked\n", cuzk_ff_mont_name(b), n_ops - before);
    }
    cuzk_ff_mont_select(initial);
    mpz_clear(P);
    return tu_finish("test_fp2");
}

/*
 * Fp and Fr against GMP, for every available multiplication: random and edge-value
 * arithmetic, inversion (single and batched), pow, sqrt, Legendre, encodings,
 * rejection of non-canonical input, Fr roots of unity, back-end parity.
 */
#include <gmp.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/ff/ff.h"
#include "cuzk/ff/fp.h"
#include "cuzk/ff/fr.h"
#include "testutil.h"

/* A generic element (6 limbs covers both fields) and per-field operations. */
typedef struct el { uint64_t l[6]; } el;

typedef struct field {
    const char *name;
    size_t n; /* limbs */
    const uint64_t *mod;
    void (*add)(el *, const el *, const el *);
    void (*sub)(el *, const el *, const el *);
    void (*mul)(el *, const el *, const el *);
    void (*dbl)(el *, const el *);
    void (*neg)(el *, const el *);
    void (*sqr)(el *, const el *);
    void (*inv)(el *, const el *);
    void (*batch_inv)(el *, const el *, size_t);
    void (*pow)(el *, const el *, const uint64_t *, size_t);
    bool (*sqrt)(el *, const el *);
    int (*legendre)(const el *);
    bool (*is_zero)(const el *);
    bool (*is_one)(const el *);
    bool (*eq)(const el *, const el *);
    void (*set_u64)(el *, uint64_t);
    int (*from_limbs)(el *, const uint64_t *);
    void (*to_limbs)(uint64_t *, const el *);
    void (*random)(el *, cuzk_rng *);
} field;

/* Wrappers: the field types are structs of limbs, layout-compatible with el. */
#define WRAP(F, T)                                                                                 \
    static void F##_add_w(el *r, const el *a, const el *b) { F##_add((T *)r, (const T *)a, (const T *)b); } \
    static void F##_sub_w(el *r, const el *a, const el *b) { F##_sub((T *)r, (const T *)a, (const T *)b); } \
    static void F##_mul_w(el *r, const el *a, const el *b) { F##_mul((T *)r, (const T *)a, (const T *)b); } \
    static void F##_dbl_w(el *r, const el *a) { F##_dbl((T *)r, (const T *)a); }                   \
    static void F##_neg_w(el *r, const el *a) { F##_neg((T *)r, (const T *)a); }                   \
    static void F##_sqr_w(el *r, const el *a) { F##_sqr((T *)r, (const T *)a); }                   \
    static void F##_inv_w(el *r, const el *a) { F##_inv((T *)r, (const T *)a); }                   \
    static void F##_batch_inv_w(el *r, const el *a, size_t n)                                      \
    {                                                                                              \
        T in[64] = {{{0}}}, out[64];                                                               \
        for (size_t i = 0; i < n; i++) memcpy(&in[i], &a[i], sizeof(T));                           \
        F##_batch_inv(out, in, n);                                                                 \
        for (size_t i = 0; i < n; i++) memcpy(&r[i], &out[i], sizeof(T));                          \
    }                                                                                              \
    static void F##_pow_w(el *r, const el *a, const uint64_t *e, size_t n) { F##_pow((T *)r, (const T *)a, e, n); } \
    static bool F##_sqrt_w(el *r, const el *a) { return F##_sqrt((T *)r, (const T *)a); }         \
    static int F##_legendre_w(const el *a) { return F##_legendre((const T *)a); }                  \
    static bool F##_is_zero_w(const el *a) { return F##_is_zero((const T *)a); }                   \
    static bool F##_is_one_w(const el *a) { return F##_is_one((const T *)a); }                     \
    static bool F##_eq_w(const el *a, const el *b) { return F##_eq((const T *)a, (const T *)b); }  \
    static void F##_set_u64_w(el *r, uint64_t v) { F##_set_u64((T *)r, v); }                       \
    static int F##_from_limbs_w(el *r, const uint64_t *a) { return F##_from_limbs((T *)r, a); }    \
    static void F##_to_limbs_w(uint64_t *o, const el *a) { F##_to_limbs(o, (const T *)a); }        \
    static void F##_random_w(el *r, cuzk_rng *g) { F##_random((T *)r, g); }

WRAP(cuzk_fp, cuzk_fp)
WRAP(cuzk_fr, cuzk_fr)

#define FIELD(F, NAME, N, MOD)                                                                     \
    {NAME, N, MOD, F##_add_w, F##_sub_w, F##_mul_w, F##_dbl_w, F##_neg_w, F##_sqr_w, F##_inv_w,     \
     F##_batch_inv_w, F##_pow_w, F##_sqrt_w, F##_legendre_w, F##_is_zero_w, F##_is_one_w,          \
     F##_eq_w, F##_set_u64_w, F##_from_limbs_w, F##_to_limbs_w, F##_random_w}

static const field fields[2] = {FIELD(cuzk_fp, "Fp", 6, cuzk_fp_modulus),
                                FIELD(cuzk_fr, "Fr", 4, cuzk_fr_modulus)};

static mpz_t P; /* modulus of the field under test */

static void to_mpz(const field *f, mpz_t z, const el *a)
{
    uint64_t v[6];
    f->to_limbs(v, a);
    mpz_import(z, f->n, -1, 8, 0, 0, v);
}

static void mpz_limbs(const field *f, uint64_t *v, const mpz_t z)
{
    size_t cnt = 0;
    memset(v, 0, 8 * f->n);
    if (mpz_sizeinbase(z, 2) <= 64 * f->n) mpz_export(v, &cnt, -1, 8, 0, 0, z);
}

static void from_mpz(const field *f, el *a, const mpz_t z)
{
    uint64_t v[6];
    mpz_t t;
    mpz_init(t);
    mpz_mod(t, z, P);
    mpz_limbs(f, v, t);
    memset(a, 0, sizeof *a);
    CHECK(f->from_limbs(a, v) == CUZK_OK);
    mpz_clear(t);
}

static bool eq_mpz(const field *f, const el *a, const mpz_t z)
{
    mpz_t t;
    mpz_init(t);
    to_mpz(f, t, a);
    bool ok = mpz_cmp(t, z) == 0;
    mpz_clear(t);
    return ok;
}

/* Edge values 0, 1, 2, p-1, p-2, (p-1)/2, (p+1)/2 as integers. */
#define N_EDGE 7
static void edge_value(mpz_t z, int k)
{
    switch (k) {
    case 0: mpz_set_ui(z, 0); break;
    case 1: mpz_set_ui(z, 1); break;
    case 2: mpz_set_ui(z, 2); break;
    case 3: mpz_sub_ui(z, P, 1); break;
    case 4: mpz_sub_ui(z, P, 2); break;
    case 5: mpz_sub_ui(z, P, 1); mpz_fdiv_q_2exp(z, z, 1); break;
    default: mpz_add_ui(z, P, 1); mpz_fdiv_q_2exp(z, z, 1); break;
    }
}

/* A random element, or with probability 1/4 an edge value. */
static void draw(const field *f, cuzk_rng *rng, el *a, mpz_t z)
{
    uint64_t r = cuzk_rng_u64(rng);
    if ((r & 3) == 0) {
        edge_value(z, (int)((r >> 2) % N_EDGE));
        from_mpz(f, a, z);
    } else {
        memset(a, 0, sizeof *a);
        f->random(a, rng);
        to_mpz(f, z, a);
    }
}

static unsigned long n_ops;

static void test_arith(const field *f, cuzk_rng *rng, int iters)
{
    mpz_t x, y, e, t;
    mpz_inits(x, y, e, t, NULL);
    for (int it = 0; it < iters; it++) {
        el a, b, r;
        draw(f, rng, &a, x);
        draw(f, rng, &b, y);
        memset(&r, 0, sizeof r);

        f->add(&r, &a, &b); mpz_add(e, x, y); mpz_mod(e, e, P); CHECK(eq_mpz(f, &r, e));
        f->sub(&r, &a, &b); mpz_sub(e, x, y); mpz_mod(e, e, P); CHECK(eq_mpz(f, &r, e));
        f->mul(&r, &a, &b); mpz_mul(e, x, y); mpz_mod(e, e, P); CHECK(eq_mpz(f, &r, e));
        f->dbl(&r, &a); mpz_add(e, x, x); mpz_mod(e, e, P); CHECK(eq_mpz(f, &r, e));
        f->neg(&r, &a); mpz_neg(e, x); mpz_mod(e, e, P); CHECK(eq_mpz(f, &r, e));
        f->sqr(&r, &a); mpz_mul(e, x, x); mpz_mod(e, e, P); CHECK(eq_mpz(f, &r, e));
        /* aliasing: r = a op a in place */
        el c = a;
        f->mul(&c, &c, &c); mpz_mul(e, x, x); mpz_mod(e, e, P); CHECK(eq_mpz(f, &c, e));
        CHECK(f->eq(&a, &b) == (mpz_cmp(x, y) == 0));
        CHECK(f->eq(&a, &a));
        CHECK(f->is_zero(&a) == (mpz_sgn(x) == 0));
        CHECK(f->is_one(&a) == (mpz_cmp_ui(x, 1) == 0));
        uint64_t u = cuzk_rng_u64(rng) >> (cuzk_rng_u64(rng) & 63);
        f->set_u64(&r, u);
        mpz_set_ui(e, 0);
        mpz_import(e, 1, -1, 8, 0, 0, &u);
        mpz_mod(e, e, P);
        CHECK(eq_mpz(f, &r, e));
        n_ops += 9;
    }
    mpz_clears(x, y, e, t, NULL);
}

static void test_inv(const field *f, cuzk_rng *rng, int iters)
{
    mpz_t x, e, pm2;
    mpz_inits(x, e, pm2, NULL);
    mpz_sub_ui(pm2, P, 2);
    uint64_t pm2l[6];
    mpz_limbs(f, pm2l, pm2);
    for (int it = 0; it < iters; it++) {
        el a, r, r2, prod;
        draw(f, rng, &a, x);
        f->inv(&r, &a);
        if (mpz_sgn(x) == 0) {
            CHECK(f->is_zero(&r));
        } else {
            CHECK(mpz_invert(e, x, P) != 0);
            CHECK(eq_mpz(f, &r, e));
            f->mul(&prod, &r, &a);
            CHECK(f->is_one(&prod));
        }
        if (it % 16 == 0) { /* against Fermat a^(p-2) */
            f->pow(&r2, &a, pm2l, f->n);
            CHECK(f->eq(&r, &r2));
        }
        el c = a; /* in place */
        f->inv(&c, &c);
        CHECK(f->eq(&c, &r));
        n_ops++;
    }
    /* raw Montgomery limbs 2^k and p - 2^k: long runs of zero / one bits for the GCD */
    for (size_t k = 0; k + 1 < mpz_sizeinbase(P, 2); k++) {
        for (int side = 0; side < 2; side++) {
            el a, r;
            memset(&a, 0, sizeof a);
            mpz_set_ui(x, 1);
            mpz_mul_2exp(x, x, k);
            if (side) mpz_sub(x, P, x);
            mpz_limbs(f, a.l, x); /* any value < p is a valid Montgomery representation */
            to_mpz(f, x, &a);
            f->inv(&r, &a);
            mpz_invert(e, x, P);
            CHECK(eq_mpz(f, &r, e));
            n_ops++;
        }
    }
    /* batch inversion with zeros mixed in */
    for (int it = 0; it < iters / 16 + 1; it++) {
        el in[64], out[64];
        size_t n = cuzk_rng_u64(rng) % 65;
        for (size_t i = 0; i < n; i++) {
            if (cuzk_rng_u64(rng) % 5 == 0)
                memset(&in[i], 0, sizeof in[i]);
            else
                draw(f, rng, &in[i], x);
        }
        f->batch_inv(out, in, n);
        for (size_t i = 0; i < n; i++) {
            to_mpz(f, x, &in[i]);
            if (mpz_sgn(x) == 0) {
                CHECK(f->is_zero(&out[i]));
            } else {
                mpz_invert(e, x, P);
                CHECK(eq_mpz(f, &out[i], e));
            }
        }
        n_ops += n;
    }
    mpz_clears(x, e, pm2, NULL);
}

static void test_pow_sqrt_legendre(const field *f, cuzk_rng *rng, int iters)
{
    mpz_t x, e, ez, t;
    mpz_inits(x, e, ez, t, NULL);
    for (int it = 0; it < iters; it++) {
        el a, r, s, s2;
        draw(f, rng, &a, x);
        /* pow with a random exponent of 0..n+1 limbs (top limb sometimes small) */
        size_t el_n = cuzk_rng_u64(rng) % (f->n + 2);
        uint64_t ex[8] = {0};
        for (size_t i = 0; i < el_n; i++) ex[i] = cuzk_rng_u64(rng);
        if (el_n && (it & 1)) ex[el_n - 1] >>= cuzk_rng_u64(rng) & 63;
        mpz_set_ui(ez, 0);
        if (el_n) mpz_import(ez, el_n, -1, 8, 0, 0, ex);
        f->pow(&r, &a, ex, el_n);
        mpz_powm(e, x, ez, P);
        CHECK(eq_mpz(f, &r, e));

        if (it < 64) { /* every small exponent (window widths switch at small lengths) */
            uint64_t k = (uint64_t)it * (it < 32 ? 1 : 977);
            f->pow(&r, &a, &k, 1);
            mpz_powm_ui(e, x, k, P);
            CHECK(eq_mpz(f, &r, e));
        }

        /* Legendre vs GMP */
        int lg = f->legendre(&a);
        CHECK(lg == mpz_legendre(x, P));

        /* sqrt: on a (square or not) and on a^2 */
        bool ok = f->sqrt(&s, &a);
        CHECK(ok == (lg >= 0));
        if (ok) {
            f->sqr(&s2, &s);
            CHECK(f->eq(&s2, &a));
        }
        f->sqr(&s2, &a);
        ok = f->sqrt(&s, &s2);
        CHECK(ok);
        if (ok) {
            el s3;
            f->sqr(&s3, &s);
            CHECK(f->eq(&s3, &s2));
            mpz_sub(t, P, x);
            to_mpz(f, e, &s);
            CHECK(mpz_cmp(e, x) == 0 || mpz_cmp(e, t) == 0 || (mpz_sgn(x) == 0 && mpz_sgn(e) == 0));
        }
        n_ops += 4;
    }
    mpz_clears(x, e, ez, t, NULL);
}

/* Encodings: limbs and bytes, byte-exact against GMP export; non-canonical rejection. */
static void test_encodings(const field *f, cuzk_rng *rng, int iters)
{
    mpz_t x, t;
    mpz_inits(x, t, NULL);
    const size_t nb = 8 * f->n;
    for (int it = 0; it < iters; it++) {
        el a, b;
        draw(f, rng, &a, x);
        uint64_t v[6], w[6];
        f->to_limbs(v, &a);
        mpz_limbs(f, w, x);
        CHECK(memcmp(v, w, 8 * f->n) == 0);
        CHECK(f->from_limbs(&b, v) == CUZK_OK && f->eq(&a, &b));

        uint8_t gbe[48] = {0}, gle[48] = {0}, out[48];
        size_t cnt;
        size_t len = (mpz_sizeinbase(x, 256) + 0);
        if (mpz_sgn(x)) {
            mpz_export(gbe + nb - len, &cnt, 1, 1, 1, 0, x);
            mpz_export(gle, &cnt, -1, 1, -1, 0, x);
        }
        if (f->n == 6) {
            cuzk_fp_to_be48(out, (const cuzk_fp *)&a);
            CHECK(memcmp(out, gbe, 48) == 0);
            CHECK(cuzk_fp_from_be48((cuzk_fp *)&b, gbe) == CUZK_OK && f->eq(&a, &b));
        } else {
            cuzk_fr_to_be32(out, (const cuzk_fr *)&a);
            CHECK(memcmp(out, gbe, 32) == 0);
            CHECK(cuzk_fr_from_be32((cuzk_fr *)&b, gbe) == CUZK_OK && f->eq(&a, &b));
            cuzk_fr_to_le32(out, (const cuzk_fr *)&a);
            CHECK(memcmp(out, gle, 32) == 0);
            CHECK(cuzk_fr_from_le32((cuzk_fr *)&b, gle) == CUZK_OK && f->eq(&a, &b));
        }
        n_ops += 3;
    }

    /* Non-canonical integers: p, p+1, p+random, 2^(bits), 2^(64n)-1, random high values. */
    for (int k = 0; k < 40; k++) {
        switch (k) {
        case 0: mpz_set(x, P); break;
        case 1: mpz_add_ui(x, P, 1); break;
        case 2: mpz_set_ui(x, 1); mpz_mul_2exp(x, x, mpz_sizeinbase(P, 2)); break;
        case 3: mpz_set_ui(x, 1); mpz_mul_2exp(x, x, 64 * f->n); mpz_sub_ui(x, x, 1); break;
        case 4: mpz_set_ui(x, 1); mpz_mul_2exp(x, x, mpz_sizeinbase(P, 2)); mpz_sub_ui(x, x, 1); break;
        default: {
            uint64_t r[6];
            cuzk_rng_bytes(rng, r, sizeof r);
            mpz_import(t, f->n, -1, 8, 0, 0, r);
            if (k & 1) mpz_fdiv_r_2exp(t, t, 64); /* p + small */
            mpz_add(x, P, t);
            mpz_set_ui(t, 1);
            mpz_mul_2exp(t, t, 64 * f->n);
            if (mpz_cmp(x, t) >= 0) mpz_sub_ui(x, t, 1 + (uint64_t)k);
        }
        }
        uint64_t v[6];
        mpz_limbs(f, v, x);
        el b;
        CHECK(f->from_limbs(&b, v) == CUZK_ERR_NONCANONICAL);
        uint8_t be[48] = {0}, le[48] = {0};
        size_t cnt, len = mpz_sizeinbase(x, 256);
        mpz_export(be + nb - len, &cnt, 1, 1, 1, 0, x);
        mpz_export(le, &cnt, -1, 1, -1, 0, x);
        if (f->n == 6) {
            CHECK(cuzk_fp_from_be48((cuzk_fp *)&b, be) == CUZK_ERR_NONCANONICAL);
        } else {
            CHECK(cuzk_fr_from_be32((cuzk_fr *)&b, be) == CUZK_ERR_NONCANONICAL);
            CHECK(cuzk_fr_from_le32((cuzk_fr *)&b, le) == CUZK_ERR_NONCANONICAL);
        }
    }
    /* p-1 is the largest accepted value */
    mpz_sub_ui(x, P, 1);
    uint64_t v[6];
    mpz_limbs(f, v, x);
    el b;
    CHECK(f->from_limbs(&b, v) == CUZK_OK && eq_mpz(f, &b, x));
    mpz_clears(x, t, NULL);
}

static void test_fr_roots(void)
{
    const field *f = &fields[1];
    static const char *rou_hex = "16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b";
    uint8_t want[32], got[32];
    CHECK(tu_unhex(want, 32, rou_hex) == 0);
    cuzk_fr w, w5, t, mone;
    CHECK(cuzk_fr_root_of_unity(&w, 32, CUZK_FR_GEN_FILECOIN) == CUZK_OK);
    cuzk_fr_to_be32(got, &w);
    CHECK(memcmp(got, want, 32) == 0);
    cuzk_fr_neg(&mone, &cuzk_fr_one);
    for (cuzk_fr_generator g = CUZK_FR_GEN_SNARKJS; g <= CUZK_FR_GEN_FILECOIN; g += 2) {
        for (unsigned k = 0; k <= 32; k++) {
            cuzk_fr r;
            CHECK(cuzk_fr_root_of_unity(&r, k, g) == CUZK_OK);
            t = r;
            for (unsigned i = 0; i < k; i++) {
                if (i + 1 == k) CHECK(cuzk_fr_eq(&t, &mone)); /* w^(2^(k-1)) = -1 */
                cuzk_fr_sqr(&t, &t);
            }
            CHECK(cuzk_fr_is_one(&t)); /* w^(2^k) = 1 */
        }
    }
    CHECK(cuzk_fr_root_of_unity(&w5, 32, CUZK_FR_GEN_SNARKJS) == CUZK_OK);
    CHECK(!cuzk_fr_eq(&w5, &w));
    CHECK(cuzk_fr_root_of_unity(&t, 33, CUZK_FR_GEN_FILECOIN) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_fr_root_of_unity(&t, 5, (cuzk_fr_generator)3) == CUZK_ERR_INVALID_ARG);
    /* 5 and 7 are quadratic non-residues (so their 2-adic parts are primitive) */
    mpz_t z;
    mpz_init(z);
    for (unsigned g = 5; g <= 7; g += 2) {
        cuzk_fr x;
        cuzk_fr_set_u64(&x, g);
        CHECK(cuzk_fr_legendre(&x) == -1);
        mpz_set_ui(z, g);
        CHECK(mpz_legendre(z, P) == -1);
        cuzk_fr gg;
        cuzk_fr_generator_get(&gg, (cuzk_fr_generator)g);
        CHECK(cuzk_fr_eq(&gg, &x));
    }
    mpz_clear(z);
    (void)f;
}

/* Same inputs through both multiplications give identical limbs. */
static void test_parity(const field *f, cuzk_rng *rng, int iters)
{
    mpz_t x, y;
    mpz_inits(x, y, NULL);
    for (int it = 0; it < iters; it++) {
        el a, b, r[2][4];
        draw(f, rng, &a, x);
        draw(f, rng, &b, y);
        if (it < N_EDGE * N_EDGE) { /* every pair of edge values */
            edge_value(x, it % N_EDGE);
            edge_value(y, it / N_EDGE);
            from_mpz(f, &a, x);
            from_mpz(f, &b, y);
        }
        for (int be = 0; be < 2; be++) {
            CHECK(cuzk_ff_mont_select(be ? CUZK_FF_ADX : CUZK_FF_PORTABLE) == CUZK_OK);
            memset(r[be], 0, sizeof r[be]);
            f->mul(&r[be][0], &a, &b);
            f->sqr(&r[be][1], &a);
            f->inv(&r[be][2], &a);
            f->mul(&r[be][3], &b, &b);
        }
        CHECK(memcmp(r[0], r[1], sizeof r[0]) == 0);
        n_ops += 4;
    }
    mpz_clears(x, y, NULL);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_ff");
    mpz_init(P);
    cuzk_ff_mont initial = cuzk_ff_mont_active();
    printf("default multiplication: %s\n", cuzk_ff_mont_name(initial));
    CHECK(cuzk_ff_mont_available(CUZK_FF_PORTABLE));
    CHECK(initial == CUZK_FF_ADX || !cuzk_ff_mont_available(CUZK_FF_ADX));
    CHECK(cuzk_ff_mont_select((cuzk_ff_mont)7) != CUZK_OK);
    for (int be = 0; be < 2; be++) {
        cuzk_ff_mont b = be ? CUZK_FF_ADX : CUZK_FF_PORTABLE;
        if (!cuzk_ff_mont_available(b)) {
            CHECK(cuzk_ff_mont_select(b) == CUZK_ERR_UNSUPPORTED);
            printf("multiplication %s not available, skipped\n", cuzk_ff_mont_name(b));
            continue;
        }
        for (int fi = 0; fi < 2; fi++) {
            const field *f = &fields[fi];
            CHECK(cuzk_ff_mont_select(b) == CUZK_OK);
            CHECK(cuzk_ff_mont_active() == b);
            mpz_import(P, f->n, -1, 8, 0, 0, f->mod);
            unsigned long before = n_ops;
            test_arith(f, &rng, 40000);
            test_inv(f, &rng, 10000);
            test_pow_sqrt_legendre(f, &rng, 1500);
            test_encodings(f, &rng, 5000);
            if (fi == 1) test_fr_roots();
            printf("%s / %s: %lu random operations checked\n", cuzk_ff_mont_name(b), f->name,
                   n_ops - before);
        }
    }
    if (cuzk_ff_mont_available(CUZK_FF_ADX)) {
        for (int fi = 0; fi < 2; fi++) {
            mpz_import(P, fields[fi].n, -1, 8, 0, 0, fields[fi].mod);
            test_parity(&fields[fi], &rng, 20000);
        }
    }
    cuzk_ff_mont_select(initial);
    printf("total random operations: %lu\n", n_ops);
    mpz_clear(P);
    return tu_finish("test_ff");
}

/* cuzk_msm_batch: every output bit-for-bit equal (Jacobian coordinates) to
 * the single cuzk_{g1,g2}_msm{,_plain} on the same job, for random mixes of
 * G1 and G2 jobs (n = 0, 1, small, XYZZ- and affine-bucket sizes, two
 * scalar-1 chunks), scalar classes (all zero, all one, witness-like 0/1
 * mixes, random Fr, unreduced plain), shared bases and scalars, 1..4
 * threads; small jobs also against a naive sum of scalar multiplications.
 * Invalid jobs are rejected with no output written. Fresh random inputs,
 * seed printed. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/msm/msm.h"
#include "testutil.h"

static cuzk_rng rng;

enum { NB1 = 20000, NB2 = 2000, MAXJ = 8 };
static cuzk_g1_affine *b1;
static cuzk_g2_affine *b2;

/* Bases P_i = P_{i-1} + R from random P_0, R (cheap, distinct), with
 * infinity, a repeat and a negation planted. */
#define GEN_BASES(G, AFF, JAC, MULGEN)                                                             \
    static void gen_bases_##G(AFF *out, size_t n)                                                  \
    {                                                                                              \
        cuzk_fr k;                                                                                 \
        AFF a;                                                                                     \
        JAC p, r;                                                                                  \
        cuzk_fr_random(&k, &rng);                                                                  \
        MULGEN(&a, &k);                                                                            \
        cuzk_##G##_jac_from_affine(&p, &a);                                                        \
        cuzk_fr_random(&k, &rng);                                                                  \
        MULGEN(&a, &k);                                                                            \
        cuzk_##G##_jac_from_affine(&r, &a);                                                        \
        JAC *tmp = malloc(n * sizeof *tmp);                                                        \
        for (size_t i = 0; i < n; i++) {                                                           \
            tmp[i] = p;                                                                            \
            cuzk_##G##_jac_add(&p, &p, &r);                                                        \
        }                                                                                          \
        cuzk_##G##_jac_batch_to_affine(out, tmp, n);                                               \
        free(tmp);                                                                                 \
        memset(&out[3], 0, sizeof out[3]); /* infinity */                                          \
        out[5] = out[4];                                                                           \
        cuzk_##G##_affine_neg(&out[7], &out[6]);                                                   \
    }                                                                                              \
    /* sum k_i·P_i by scalar multiplications (fr or plain) */                                      \
    static void naive_##G(JAC *out, const AFF *b, const cuzk_fr *fr, const uint64_t (*pl)[4],     \
                          size_t n)                                                                \
    {                                                                                              \
        cuzk_##G##_jac_set_infinity(out);                                                          \
        for (size_t i = 0; i < n; i++) {                                                           \
            JAC p, t;                                                                              \
            cuzk_##G##_jac_from_affine(&p, &b[i]);                                                 \
            if (fr)                                                                                \
                cuzk_##G##_jac_mul_fr(&t, &p, &fr[i]);                                             \
            else                                                                                   \
                cuzk_##G##_jac_mul(&t, &p, pl[i]);                                                 \
            cuzk_##G##_jac_add(out, out, &t);                                                      \
        }                                                                                          \
    }
GEN_BASES(g1, cuzk_g1_affine, cuzk_g1_jac, tu_g1_mul_gen)
GEN_BASES(g2, cuzk_g2_affine, cuzk_g2_jac, tu_g2_mul_gen)

/* Scalars of class cls: 0 all zero, 1 all one, 2 bits with a few random
 * (a witness), 3 random Fr; plain ones may also be unreduced (>= r). */
static void fill_scalars(cuzk_fr *fr, uint64_t (*pl)[4], size_t n, unsigned cls)
{
    for (size_t i = 0; i < n; i++) {
        unsigned c = cls;
        if (c == 2) c = cuzk_rng_u64(&rng) % 10 == 0 ? 3 : (unsigned)(cuzk_rng_u64(&rng) & 1);
        cuzk_fr f;
        if (c == 3)
            cuzk_fr_random(&f, &rng);
        else
            cuzk_fr_set_u64(&f, c);
        fr[i] = f;
        cuzk_fr_to_limbs(pl[i], &f);
        if (c == 3 && cuzk_rng_u64(&rng) % 8 == 0) /* unreduced 256-bit */
            for (int j = 0; j < 4; j++) pl[i][j] = cuzk_rng_u64(&rng);
    }
}

static const size_t sizes1[] = {0, 1, 7, 100, 3000, NB1};
static const size_t sizes2[] = {0, 1, 50, NB2};

int main(void)
{
    tu_init(&rng, "test_msm_batch");
    b1 = malloc(NB1 * sizeof *b1);
    b2 = malloc(NB2 * sizeof *b2);
    gen_bases_g1(b1, NB1);
    gen_bases_g2(b2, NB2);
    cuzk_fr *fr[MAXJ];
    uint64_t(*pl[MAXJ])[4];
    for (int j = 0; j < MAXJ; j++) {
        fr[j] = malloc(NB1 * sizeof *fr[j]);
        pl[j] = malloc(NB1 * sizeof *pl[j]);
    }

    for (int round = 0; round < 8; round++) {
        cuzk_msm_job jobs[MAXJ];
        cuzk_g1_jac o1[MAXJ], r1[MAXJ];
        cuzk_g2_jac o2[MAXJ], r2[MAXJ];
        size_t si[MAXJ]; /* whose scalars job j uses */
        size_t nj = 2 + cuzk_rng_u64(&rng) % (MAXJ - 1);
        for (size_t j = 0; j < nj; j++) {
            memset(&jobs[j], 0, sizeof jobs[j]);
            bool g2 = cuzk_rng_u64(&rng) % 3 == 0;
            size_t n = g2 ? sizes2[cuzk_rng_u64(&rng) % 4] : sizes1[cuzk_rng_u64(&rng) % 6];
            unsigned cls = (unsigned)(cuzk_rng_u64(&rng) % 4);
            bool plain = cuzk_rng_u64(&rng) & 1;
            if (j > 0 && cuzk_rng_u64(&rng) % 4 == 0) { /* the previous job's scalars */
                si[j] = si[j - 1];
                if (jobs[j - 1].n < n) n = jobs[j - 1].n;
            } else {
                si[j] = j;
                fill_scalars(fr[j], pl[j], n, cls);
            }
            jobs[j].n = n;
            if (plain)
                jobs[j].plain = (const uint64_t(*)[4])pl[si[j]];
            else
                jobs[j].fr = fr[si[j]];
            if (g2) {
                jobs[j].g2_out = &o2[j];
                jobs[j].g2_bases = b2;
                int rc = plain ? cuzk_g2_msm_plain(&r2[j], b2, jobs[j].plain, n, 1)
                               : cuzk_g2_msm(&r2[j], b2, jobs[j].fr, n, 1);
                CHECK(rc == CUZK_OK);
            } else {
                jobs[j].g1_out = &o1[j];
                jobs[j].g1_bases = b1;
                int rc = plain ? cuzk_g1_msm_plain(&r1[j], b1, jobs[j].plain, n, 1)
                               : cuzk_g1_msm(&r1[j], b1, jobs[j].fr, n, 1);
                CHECK(rc == CUZK_OK);
            }
            if (n <= 100) { /* independent oracle */
                if (g2) {
                    cuzk_g2_jac e;
                    naive_g2(&e, b2, jobs[j].fr, jobs[j].plain, n);
                    CHECK_MSG(cuzk_g2_jac_eq(&e, &r2[j]), "G2 n=%zu cls=%u != naive", n, cls);
                } else {
                    cuzk_g1_jac e;
                    naive_g1(&e, b1, jobs[j].fr, jobs[j].plain, n);
                    CHECK_MSG(cuzk_g1_jac_eq(&e, &r1[j]), "G1 n=%zu cls=%u != naive", n, cls);
                }
            }
        }
        for (unsigned th = 1; th <= 4; th++) {
            memset(o1, 0xa5, sizeof o1);
            memset(o2, 0xa5, sizeof o2);
            CHECK(cuzk_msm_batch(jobs, nj, th) == CUZK_OK);
            for (size_t j = 0; j < nj; j++) {
                bool same = jobs[j].g2_out ? memcmp(&o2[j], &r2[j], sizeof o2[j]) == 0
                                           : memcmp(&o1[j], &r1[j], sizeof o1[j]) == 0;
                CHECK_MSG(same, "round %d job %zu/%zu (%s n=%zu) with %u threads differs from the single MSM",
                          round, j, nj, jobs[j].g2_out ? "G2" : "G1", jobs[j].n, th);
            }
        }
    }

    /* invalid jobs: rejected, no output written */
    cuzk_g1_jac o, pat;
    cuzk_g2_jac o2;
    memset(&pat, 0x5a, sizeof pat);
    cuzk_msm_job good = {.g1_out = &o, .g1_bases = b1, .fr = fr[0], .n = 10};
    cuzk_msm_job bad[6] = {
        {.g1_out = &o, .g1_bases = b1, .g2_out = &o2, .fr = fr[0], .n = 10}, /* both groups */
        {.g1_bases = b1, .fr = fr[0], .n = 10},                              /* no output */
        {.g1_out = &o, .g1_bases = b1, .fr = fr[0], .plain = (const uint64_t(*)[4])pl[0], .n = 10},
        {.g1_out = &o, .fr = fr[0], .n = 10},                  /* no bases */
        {.g1_out = &o, .g1_bases = b1, .n = 10},               /* no scalars */
        {.g1_out = &o, .g2_bases = b2, .fr = fr[0], .n = 10}, /* bases of the other group */
    };
    for (int i = 0; i < 6; i++) {
        cuzk_msm_job two[2] = {good, bad[i]};
        memcpy(&o, &pat, sizeof o);
        CHECK_MSG(cuzk_msm_batch(two, 2, 2) == CUZK_ERR_INVALID_ARG, "bad job %d accepted", i);
        CHECK_MSG(memcmp(&o, &pat, sizeof o) == 0, "bad job %d: output written", i);
    }
    CHECK(cuzk_msm_batch(NULL, 1, 1) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_msm_batch(NULL, 0, 1) == CUZK_OK);
    cuzk_msm_job empty = {.g1_out = &o};
    CHECK(cuzk_msm_batch(&empty, 1, 0) == CUZK_OK && cuzk_g1_jac_is_infinity(&o));

    for (int j = 0; j < MAXJ; j++) {
        free(fr[j]);
        free(pl[j]);
    }
    free(b1);
    free(b2);
    return tu_finish("test_msm_batch");
}

/*
 * Groth16 proofs from a snarkjs zkey and a circom witness, computed as
 * snarkjs's groth16 prove does (include/cuzk/circom.h). The five MSMs and
 * the final combination are the Groth16 layer's; only H differs from
 * bellperson (odd points of the doubled domain instead of a coset divided
 * by Z, and C taken as A·B row by row).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "circom/circom_internal.h"
#include "cuzk/error.h"
#include "cuzk/groth16.h"
#include "cuzk/msm.h"
#include "cuzk/ntt.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void wipe(void *p, size_t len)
{
    if (!p) return;
    volatile unsigned char *v = p;
    while (len--) *v++ = 0;
}

/* Scalars of a query (plain integers) gathered by its wire indices. */
static void gather(uint64_t (*dst)[4], const uint32_t *idx, size_t n, const cuzk_circom_wtns *w)
{
    for (size_t k = 0; k < n; k++) memcpy(dst[k], w->values[idx[k]], sizeof dst[k]);
}

void cuzk_circom_rows(const cuzk_circom_zkey *z, const cuzk_circom_wtns *w, cuzk_fr *wm, cuzk_fr *a,
                      cuzk_fr *b, cuzk_fr *c)
{
    const size_t n = z->domain_size;
    memset(a, 0, n * sizeof *a), memset(b, 0, n * sizeof *b);
    for (size_t i = 0; i < z->n_vars; i++) cuzk_fr_from_limbs(&wm[i], w->values[i]);
    for (size_t k = 0; k < z->n_coefs; k++) {
        const cuzk_circom_coef *cf = &z->coefs[k];
        cuzk_fr x;
        cuzk_fr_mul(&x, &cf->value, &wm[cf->signal]);
        cuzk_fr *dst = (cf->matrix ? b : a) + cf->constraint;
        cuzk_fr_add(dst, dst, &x);
    }
    for (size_t i = 0; i < n; i++) cuzk_fr_mul(&c[i], &a[i], &b[i]);
}

void cuzk_circom_finish(cuzk_groth16_proof *out, const cuzk_circom_zkey *z,
                        const cuzk_groth16_msm_sums *sums, const cuzk_fr *r, const cuzk_fr *s)
{
    /* snarkjs: pi_a = ΣA + alpha1 + r·delta1, pi_b = ΣB2 + beta2 + s·delta2,
     * b1 = ΣB1 + beta1 + s·delta1, pi_c = ΣC + ΣH + s·pi_a + r·b1 - r·s·delta1:
     * the Groth16 layer's combination with L = ΣC. */
    cuzk_groth16_params vk_only;
    memset(&vk_only, 0, sizeof vk_only);
    vk_only.vk.alpha_g1 = z->alpha_g1, vk_only.vk.beta_g1 = z->beta_g1;
    vk_only.vk.beta_g2 = z->beta_g2, vk_only.vk.delta_g1 = z->delta_g1;
    vk_only.vk.delta_g2 = z->delta_g2;
    cuzk_groth16_finish(out, &vk_only, sums, r, s);
}

int cuzk_circom_prove_check(const cuzk_circom_zkey *z, const cuzk_circom_wtns *w)
{
    if (!z || !w || !z->h || !z->c || !w->values) return CUZK_ERR_INVALID_ARG;
    if (w->n != z->n_vars) return CUZK_ERR_INVALID_ARG;
    const uint64_t one[4] = {1, 0, 0, 0};
    if (memcmp(w->values[0], one, sizeof one)) return CUZK_ERR_INVALID_ARG; /* the ONE wire */
    return CUZK_OK;
}

static int prove_cpu(cuzk_groth16_proof *out, const cuzk_circom_zkey *z, const cuzk_circom_wtns *w,
                     const cuzk_fr *r, const cuzk_fr *s, unsigned nthreads,
                     cuzk_circom_prove_timing *tm)
{
    const size_t n = z->domain_size, nv = z->n_vars, np1 = (size_t)z->n_public + 1;
    const size_t nq = z->a.n + z->b_g1.n + z->b_g2.n; /* A, B1, B2 scalars */
    size_t nsc = 0;                                     /* of which gathered */
    int rc = CUZK_OK;
    cuzk_ntt_domain dom;
    memset(&dom, 0, sizeof dom);
    cuzk_fr *abc = calloc(3 * n, sizeof *abc);
    cuzk_fr *wm = malloc(nv * sizeof *wm);
    uint64_t(*sc)[4] = malloc((nq ? nq : 1) * sizeof *sc);
    if (!abc || !wm || !sc) {
        rc = CUZK_ERR_NO_MEMORY;
        goto done;
    }
    double t = now_s();
    cuzk_fr *a = abc, *b = abc + n, *c = abc + 2 * n;
    cuzk_circom_rows(z, w, wm, a, b, c);
    tm->abc_s = now_s() - t;

    t = now_s();
    if ((rc = cuzk_ntt_domain_init(&dom, z->log_n, CUZK_FR_GEN_SNARKJS, nthreads))) goto done;
    cuzk_ntt_groth16_h_odd(&dom, a, b, c, nthreads);
    tm->ntt_s = now_s() - t;

    /* the five MSMs as one task list: no thread idles between them */
    uint64_t(*sa)[4] = sc, (*sb1)[4] = sa + z->a.n, (*sb2)[4] = sb1 + z->b_g1.n;
    gather(sa, z->a.idx, z->a.n, w);
    gather(sb1, z->b_g1.idx, z->b_g1.n, w);
    nsc = z->a.n + z->b_g1.n;
    /* B1 and B2 drop the same wires (b_j(tau) = 0) in any zkey snarkjs makes */
    if (z->b_g1.n && z->b_g2.n == z->b_g1.n && !memcmp(z->b_g2.idx, z->b_g1.idx, z->b_g1.n * sizeof *z->b_g1.idx)) {
        sb2 = sb1;
    } else {
        gather(sb2, z->b_g2.idx, z->b_g2.n, w);
        nsc += z->b_g2.n;
    }
    cuzk_groth16_msm_sums sums;
    const cuzk_msm_job jobs[5] = {
        {.g1_out = &sums.h, .g1_bases = z->h, .fr = a, .n = n},
        {.g1_out = &sums.l, .g1_bases = z->c, .plain = (const uint64_t(*)[4])(w->values + np1), .n = nv - np1},
        {.g1_out = &sums.a, .g1_bases = z->a.p, .plain = (const uint64_t(*)[4])sa, .n = z->a.n},
        {.g1_out = &sums.b_g1, .g1_bases = z->b_g1.p, .plain = (const uint64_t(*)[4])sb1, .n = z->b_g1.n},
        {.g2_out = &sums.b_g2, .g2_bases = z->b_g2.p, .plain = (const uint64_t(*)[4])sb2, .n = z->b_g2.n},
    };
    t = now_s();
    if ((rc = cuzk_msm_batch(jobs, 5, nthreads))) goto done;
    tm->msm_s = now_s() - t;

    cuzk_circom_finish(out, z, &sums, r, s);

done:
    /* the witness is secret */
    if (abc) wipe(abc, 3 * n * sizeof *abc);
    if (wm) wipe(wm, nv * sizeof *wm);
    if (sc) wipe(sc, nsc * sizeof *sc); /* the rest was never written (nor faulted in) */
    free(abc), free(wm), free(sc);
    cuzk_ntt_domain_free(&dom);
    return rc;
}

int cuzk_circom_prove_rs(cuzk_groth16_proof *out, const cuzk_circom_zkey *z,
                         const cuzk_circom_wtns *w, const cuzk_fr *r, const cuzk_fr *s,
                         cuzk_circom_device device, unsigned nthreads,
                         cuzk_circom_prove_timing *timing)
{
    cuzk_circom_prove_timing tdummy;
    cuzk_circom_prove_timing *tm = timing ? timing : &tdummy;
    memset(tm, 0, sizeof *tm);
    if (!out || !r || !s) return CUZK_ERR_INVALID_ARG;
    int rc = cuzk_circom_prove_check(z, w);
    if (rc) return rc;
    if (nthreads == 0) nthreads = 1;
    /* the GPU prover is cuzk_gpu_circom_prove: the gpu layer sits above this one */
    if (device == CUZK_CIRCOM_GPU) return CUZK_ERR_NO_DEVICE;
    if (device != CUZK_CIRCOM_CPU) return CUZK_ERR_INVALID_ARG;
    double t0 = now_s();
    rc = prove_cpu(out, z, w, r, s, nthreads, tm);
    tm->total_s = now_s() - t0;
    return rc;
}

int cuzk_circom_random_rs(cuzk_fr *r, cuzk_fr *s)
{
    cuzk_rng rng;
    if (cuzk_rng_seed_os(&rng)) return CUZK_ERR_IO;
    cuzk_fr_random(r, &rng);
    cuzk_fr_random(s, &rng);
    wipe(&rng, sizeof rng);
    return CUZK_OK;
}

int cuzk_circom_prove(cuzk_groth16_proof *out, const cuzk_circom_zkey *z, const cuzk_circom_wtns *w,
                      cuzk_circom_device device, unsigned nthreads, cuzk_circom_prove_timing *timing)
{
    cuzk_fr rs[2];
    int rc = cuzk_circom_random_rs(&rs[0], &rs[1]);
    if (!rc) rc = cuzk_circom_prove_rs(out, z, w, &rs[0], &rs[1], device, nthreads, timing);
    wipe(rs, sizeof rs);
    return rc;
}

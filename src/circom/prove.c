/*
 * Groth16 proofs from a snarkjs zkey and a circom witness, computed as
 * snarkjs's groth16 prove does (include/cuzk/circom/circom.h): the zkey and the
 * witness become a Groth16 job (cuzk/groth16/groth16.h) that the CPU or the GPU back
 * end proves. Only the rows (C taken as A·B row by row) and H (odd points of
 * the doubled domain instead of a coset divided by Z) differ from bellperson.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "circom/circom_internal.h"
#include "cuzk/util/clock.h"
#include "cuzk/util/error.h"
#include "cuzk/gpu/gpu.h"
#include "cuzk/groth16/groth16.h"
#include "cuzk/util/mem.h"

/* a, b (domain_size each, overwritten) <- the row evaluations a_i, b_i of
 * section 4 and c <- c_i = a_i·b_i, with wm (n_vars) the witness in
 * Montgomery form as scratch. */
static void rows(const cuzk_circom_zkey *z, const cuzk_circom_wtns *w, cuzk_fr *wm, cuzk_fr *a, cuzk_fr *b,
                 cuzk_fr *c)
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

/*
 * The Groth16 job of (z, w) for either back end: the rows computed here into
 * rows_buf (3·domain_size + n_vars elements, the last n_vars scratch; the
 * caller wipes and frees it), H the snarkjs way, the plain witness as the
 * scalars (wire i of w is input i for i <= n_public, else aux), the queries
 * by the zkey's wire indices, L = the C points over the private wires, and
 * params a view of the zkey's points (key: the zkey).
 */
static int circom_job(cuzk_groth16_job *j, cuzk_groth16_params *params, cuzk_fr **rows_buf,
                      const cuzk_circom_zkey *z, const cuzk_circom_wtns *w)
{
    const size_t n = z->domain_size, nv = z->n_vars, np1 = (size_t)z->n_public + 1;
    cuzk_fr *abc = *rows_buf = malloc((3 * n + nv) * sizeof *abc);
    if (!abc) return CUZK_ERR_NO_MEMORY;
    rows(z, w, abc + 3 * n, abc, abc + n, abc + 2 * n);
    memset(params, 0, sizeof *params);
    params->vk.alpha_g1 = z->alpha_g1, params->vk.beta_g1 = z->beta_g1, params->vk.beta_g2 = z->beta_g2;
    params->vk.delta_g1 = z->delta_g1, params->vk.delta_g2 = z->delta_g2;
    params->n_h = n, params->h = z->h, params->n_l = nv - np1, params->l = z->c;
    params->n_a = z->a.n, params->a = z->a.p, params->n_b_g1 = z->b_g1.n, params->b_g1 = z->b_g1.p;
    params->n_b_g2 = z->b_g2.n, params->b_g2 = z->b_g2.p;
    const cuzk_groth16_query qb1 = {z->b_g1.n, z->b_g1.idx, NULL, NULL};
    *j = (cuzk_groth16_job){
        .log_n = z->log_n, .form = CUZK_GROTH16_H_ODD,
        .num_constraints = n, .num_inputs = np1, .num_aux = nv - np1,
        .input = (const cuzk_fr *)w->values, .aux = (const cuzk_fr *)(w->values + np1), .plain = true,
        .a = abc, .b = abc + n, .c = abc + 2 * n, .abc = abc, .abc_consumable = true,
        .q_a = {z->a.n, z->a.idx, NULL, NULL}, .q_b_g1 = qb1, .q_b_g2 = {z->b_g2.n, z->b_g2.idx, NULL, NULL},
        .params = params, .key = z->key,
    };
    /* B1 and B2 drop the same wires (b_j(tau) = 0) in any zkey snarkjs makes:
     * one set of scalars for both */
    if (z->b_g1.n && z->b_g2.n == z->b_g1.n && !memcmp(z->b_g2.idx, z->b_g1.idx, z->b_g1.n * sizeof *z->b_g1.idx))
        j->q_b_g2 = qb1;
    return CUZK_OK;
}

/* CUZK_OK when w fits z (n_vars values, w[0] = 1), else CUZK_ERR_INVALID_ARG. */
static int prove_check(const cuzk_circom_zkey *z, const cuzk_circom_wtns *w)
{
    if (!z || !w || !z->h || !z->c || !w->values) return CUZK_ERR_INVALID_ARG;
    if (w->n != z->n_vars || z->n_vars < (size_t)z->n_public + 1 || z->domain_size != (size_t)1 << z->log_n)
        return CUZK_ERR_INVALID_ARG;
    const uint64_t one[4] = {1, 0, 0, 0};
    if (memcmp(w->values[0], one, sizeof one)) return CUZK_ERR_INVALID_ARG; /* the ONE wire */
    return CUZK_OK;
}

/* One proof on the GPU worker gw, or on the CPU (gw NULL). */
static int prove(cuzk_groth16_proof *out, const cuzk_circom_zkey *z, const cuzk_circom_wtns *w, const cuzk_fr *r,
                 const cuzk_fr *s, cuzk_gpu_worker *gw, unsigned nthreads, cuzk_circom_prove_timing *tm)
{
    const double t0 = cuzk_now();
    cuzk_groth16_job j;
    cuzk_groth16_params params;
    cuzk_groth16_prove_timing gt;
    memset(&gt, 0, sizeof gt);
    cuzk_fr *buf = NULL;
    int rc = circom_job(&j, &params, &buf, z, w);
    tm->abc_s = cuzk_now() - t0;
    if (!rc) rc = gw ? cuzk_gpu_prove_job(gw, out, &j, r, s, &gt) : cuzk_groth16_prove_job(out, &j, r, s, nthreads, &gt);
    if (buf) cuzk_mem_wipe(buf, (3 * (size_t)z->domain_size + z->n_vars) * sizeof *buf); /* the witness is secret */
    free(buf);
    tm->ntt_s = gt.ntt_h_s, tm->msm_s = gt.msm_s, tm->msm_h_s = gt.msm_h_s, tm->msm_c_s = gt.msm_l_s;
    tm->msm_a_s = gt.msm_a_s, tm->msm_b_g1_s = gt.msm_b_g1_s, tm->msm_b_g2_s = gt.msm_b_g2_s;
    tm->total_s = cuzk_now() - t0;
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
    int rc = prove_check(z, w);
    if (rc) return rc;
    if (device == CUZK_CIRCOM_GPU) return CUZK_ERR_NO_DEVICE;
    if (device != CUZK_CIRCOM_CPU) return CUZK_ERR_INVALID_ARG;
    return prove(out, z, w, r, s, NULL, nthreads ? nthreads : 1, tm);
}

int cuzk_circom_prove_gpu(cuzk_gpu_worker *gw, cuzk_groth16_proof *out, const cuzk_circom_zkey *z,
                          const cuzk_circom_wtns *w, const cuzk_fr *r, const cuzk_fr *s,
                          cuzk_circom_prove_timing *timing)
{
    cuzk_circom_prove_timing tdummy;
    cuzk_circom_prove_timing *tm = timing ? timing : &tdummy;
    memset(tm, 0, sizeof *tm);
    if (!gw || !out || !r || !s) return CUZK_ERR_INVALID_ARG;
    int rc = prove_check(z, w);
    return rc ? rc : prove(out, z, w, r, s, gw, 0, tm);
}

int cuzk_circom_random_rs(cuzk_fr *r, cuzk_fr *s)
{
    cuzk_rng rng;
    if (cuzk_rng_seed_os(&rng)) return CUZK_ERR_IO;
    cuzk_fr_random(r, &rng);
    cuzk_fr_random(s, &rng);
    cuzk_mem_wipe(&rng, sizeof rng);
    return CUZK_OK;
}

int cuzk_circom_prove(cuzk_groth16_proof *out, const cuzk_circom_zkey *z, const cuzk_circom_wtns *w,
                      cuzk_circom_device device, unsigned nthreads, cuzk_circom_prove_timing *timing)
{
    cuzk_fr rs[2];
    int rc = cuzk_circom_random_rs(&rs[0], &rs[1]);
    if (!rc) rc = cuzk_circom_prove_rs(out, z, w, &rs[0], &rs[1], device, nthreads, timing);
    cuzk_mem_wipe(rs, sizeof rs);
    return rc;
}

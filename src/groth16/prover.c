/*
 * Groth16 prover on the CPU (bellperson's formulas and query layout, see
 * include/cuzk/groth16.h). Five MSMs: H and L (G1), A (G1), B (G1 and G2).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/error.h"
#include "cuzk/groth16.h"
#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include "cuzk/pce.h"

static void wipe(void *p, size_t len)
{
    if (!p) return;
    volatile unsigned char *v = p;
    while (len--) *v++ = 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cuzk_groth16_assignment_from_cs(cuzk_groth16_assignment *out, const cuzk_proving_cs *cs)
{
    if (!out || !cs) return CUZK_ERR_INVALID_ARG;
    if (!cs->base.finalized || cs->base.err || cs->base.vt->kind != CUZK_CS_PROVING)
        return CUZK_ERR_INVALID_ARG;
    const size_t m = cs->base.num_constraints, ni = cs->base.num_inputs, na = cs->base.num_aux;
    if (cs->a.len != m || cs->b.len != m || cs->c.len != m || cs->input.len != ni ||
        cs->aux.len != na || cs->a_aux.len != na || cs->b_input.len != ni || cs->b_aux.len != na)
        return CUZK_ERR_INVALID_ARG;
    *out = (cuzk_groth16_assignment){
        .num_constraints = m, .num_inputs = ni, .num_aux = na,
        .a = cs->a.v, .b = cs->b.v, .c = cs->c.v,
        .input = cs->input.v, .aux = cs->aux.v,
        .a_aux = &cs->a_aux, .b_input = &cs->b_input, .b_aux = &cs->b_aux,
    };
    return CUZK_OK;
}

int cuzk_groth16_check_sizes(const cuzk_groth16_params *params, const cuzk_groth16_assignment *as,
                             unsigned *log_n_out)
{
    if (!params || !as) return CUZK_ERR_INVALID_ARG;
    const size_t m = as->num_constraints, ni = as->num_inputs, na = as->num_aux;
    if (as->pce) { /* a, b, c left to the prover: the PCE must be this circuit's */
        const cuzk_pce *p = as->pce;
        if (as->a || as->b || as->c || as->abc || p->num_constraints != m || p->num_inputs != ni ||
            p->num_aux != na || as->a_aux != &p->a_aux || as->b_input != &p->b_input || as->b_aux != &p->b_aux)
            return CUZK_ERR_INVALID_ARG;
    } else if (m && (!as->a || !as->b || !as->c)) {
        return CUZK_ERR_INVALID_ARG;
    }
    if ((ni && !as->input) || (na && !as->aux) || !as->a_aux || !as->b_input || !as->b_aux)
        return CUZK_ERR_INVALID_ARG;
    if (as->a_aux->len != na || as->b_input->len != ni || as->b_aux->len != na)
        return CUZK_ERR_INVALID_ARG;
    unsigned log_n = 0;
    while (((size_t)1 << log_n) < m)
        if (++log_n > CUZK_NTT_MAX_LOG) return CUZK_ERR_INVALID_ARG;
    const size_t n = (size_t)1 << log_n;
    if (as->abc && (as->a != as->abc || as->b != as->abc + n || as->c != as->abc + 2 * n))
        return CUZK_ERR_INVALID_ARG;
    const size_t n_a = ni + as->a_aux->total, n_b = as->b_input->total + as->b_aux->total;
    if (params->n_h != n - 1 || params->n_l != na || params->vk.n_ic != ni || params->n_a != n_a ||
        params->n_b_g1 != n_b || params->n_b_g2 != n_b)
        return CUZK_ERR_INVALID_ARG;
    if (cuzk_g1_affine_is_infinity(&params->vk.delta_g1) ||
        cuzk_g2_affine_is_infinity(&params->vk.delta_g2)) /* bellperson: UnexpectedIdentity */
        return CUZK_ERR_INVALID_ARG;
    if (log_n_out) *log_n_out = log_n;
    return CUZK_OK;
}

void cuzk_groth16_gather_ab(cuzk_fr *sa, cuzk_fr *sb, const cuzk_groth16_assignment *as)
{
    const size_t ni = as->num_inputs, na = as->num_aux;
    /* A query: every input (dense through the input constraints), then the
     * aux in A's density. */
    size_t k = 0;
    for (size_t i = 0; i < ni; i++) sa[k++] = as->input[i];
    for (size_t j = 0; j < na; j++)
        if (cuzk_density_get(as->a_aux, j)) sa[k++] = as->aux[j];
    /* B query: inputs in B's input density, then aux in B's aux density. */
    k = 0;
    for (size_t i = 0; i < ni; i++)
        if (cuzk_density_get(as->b_input, i)) sb[k++] = as->input[i];
    for (size_t j = 0; j < na; j++)
        if (cuzk_density_get(as->b_aux, j)) sb[k++] = as->aux[j];
}

void cuzk_groth16_finish(cuzk_groth16_proof *out, const cuzk_groth16_params *params,
                         const cuzk_groth16_msm_sums *sums, const cuzk_fr *r, const cuzk_fr *s)
{
    cuzk_g1_jac ga = sums->a, gb1 = sums->b_g1, gc, t1;
    cuzk_g2_jac gb2 = sums->b_g2, t2;
    /* A = alpha + ΣA + r·delta */
    cuzk_g1_jac_add_affine(&ga, &ga, &params->vk.alpha_g1);
    cuzk_g1_jac_from_affine(&t1, &params->vk.delta_g1);
    cuzk_g1_jac_mul_fr(&t1, &t1, r);
    cuzk_g1_jac_add(&ga, &ga, &t1);
    /* B1 = beta_g1 + ΣB1 + s·delta_g1, B = beta_g2 + ΣB2 + s·delta_g2 */
    cuzk_g1_jac_add_affine(&gb1, &gb1, &params->vk.beta_g1);
    cuzk_g1_jac_from_affine(&t1, &params->vk.delta_g1);
    cuzk_g1_jac_mul_fr(&t1, &t1, s);
    cuzk_g1_jac_add(&gb1, &gb1, &t1);
    cuzk_g2_jac_add_affine(&gb2, &gb2, &params->vk.beta_g2);
    cuzk_g2_jac_from_affine(&t2, &params->vk.delta_g2);
    cuzk_g2_jac_mul_fr(&t2, &t2, s);
    cuzk_g2_jac_add(&gb2, &gb2, &t2);
    /* C = s·A + r·B1 - r·s·delta + H + L */
    cuzk_fr rs;
    cuzk_fr_mul(&rs, r, s);
    cuzk_g1_jac_from_affine(&gc, &params->vk.delta_g1);
    cuzk_g1_jac_mul_fr(&gc, &gc, &rs);
    cuzk_g1_jac_neg(&gc, &gc);
    cuzk_g1_jac_mul_fr(&t1, &ga, s);
    cuzk_g1_jac_add(&gc, &gc, &t1);
    cuzk_g1_jac_mul_fr(&t1, &gb1, r);
    cuzk_g1_jac_add(&gc, &gc, &t1);
    cuzk_g1_jac_add(&gc, &gc, &sums->h);
    cuzk_g1_jac_add(&gc, &gc, &sums->l);
    wipe(&rs, sizeof rs);

    cuzk_g1_jac_to_affine(&out->a, &ga);
    cuzk_g2_jac_to_affine(&out->b, &gb2);
    cuzk_g1_jac_to_affine(&out->c, &gc);
}

int cuzk_groth16_prove_assignment(cuzk_groth16_proof *out, const cuzk_groth16_params *params,
                                  const cuzk_groth16_assignment *as, const cuzk_fr *r,
                                  const cuzk_fr *s, unsigned nthreads,
                                  cuzk_groth16_prove_timing *tm)
{
    cuzk_groth16_prove_timing tdummy;
    if (!tm) tm = &tdummy;
    memset(tm, 0, sizeof *tm);
    double t0 = now_s(), t;
    if (!out || !r || !s) return CUZK_ERR_INVALID_ARG;
    unsigned log_n;
    int rc = cuzk_groth16_check_sizes(params, as, &log_n);
    if (rc) return rc;
    if (nthreads == 0) nthreads = 1;
    const size_t m = as->num_constraints, na = as->num_aux;
    const size_t n = (size_t)1 << log_n;
    const size_t n_a = params->n_a, n_b = params->n_b_g1;

    cuzk_ntt_domain dom;
    memset(&dom, 0, sizeof dom);
    /* a, b, c already in the NTT layout and ours to overwrite: no buffer, no copy */
    const bool in_place = as->abc && as->abc_consumable;
    const bool eval = as->pce != NULL; /* evaluated here, into the buffer */
    cuzk_fr *abc = in_place ? as->abc : malloc(3 * n * sizeof *abc);
    cuzk_fr *sa = malloc((n_a ? n_a : 1) * sizeof *sa);
    cuzk_fr *sb = malloc((n_b ? n_b : 1) * sizeof *sb);
    if (!abc || !sa || !sb) {
        rc = CUZK_ERR_NO_MEMORY;
        goto done;
    }
    if ((rc = cuzk_ntt_domain_init(&dom, log_n, CUZK_FR_GEN_FILECOIN, nthreads))) goto done;

    /* H = (A·B - C)/Z, n - 1 coefficients */
    cuzk_fr *a = abc, *b = abc + n, *c = abc + 2 * n;
    cuzk_fr zero;
    cuzk_fr_set_u64(&zero, 0);
    if (in_place) {
        /* nothing to move */
    } else if (eval) {
        t = now_s();
        cuzk_pce_eval_buf buf;
        if ((rc = cuzk_pce_eval_buf_wrap(&buf, as->pce, abc, 3 * n)) ||
            (rc = cuzk_pce_eval_raw(as->pce, as->input, as->aux, &buf, nthreads)))
            goto done;
        tm->eval_s = now_s() - t;
    } else if (as->abc) {
        memcpy(abc, as->abc, 3 * n * sizeof *abc);
    } else {
        memcpy(a, as->a, m * sizeof *a);
        memcpy(b, as->b, m * sizeof *b);
        memcpy(c, as->c, m * sizeof *c);
        for (size_t i = m; i < n; i++) a[i] = b[i] = c[i] = zero;
    }
    t = now_s();
    size_t nh = cuzk_ntt_groth16_h(&dom, a, b, c, nthreads);
    tm->ntt_h_s = now_s() - t;
    if (nh != params->n_h) {
        rc = CUZK_ERR_INTERNAL;
        goto done;
    }

    /* the five MSMs as one task list: no thread idles between them */
    cuzk_groth16_gather_ab(sa, sb, as);
    cuzk_groth16_msm_sums sums;
    const cuzk_msm_job jobs[5] = {
        {.g1_out = &sums.h, .g1_bases = params->h, .fr = a, .n = nh},
        {.g1_out = &sums.l, .g1_bases = params->l, .fr = as->aux, .n = na},
        {.g1_out = &sums.a, .g1_bases = params->a, .fr = sa, .n = n_a},
        {.g1_out = &sums.b_g1, .g1_bases = params->b_g1, .fr = sb, .n = n_b},
        {.g2_out = &sums.b_g2, .g2_bases = params->b_g2, .fr = sb, .n = n_b},
    };
    t = now_s();
    if ((rc = cuzk_msm_batch(jobs, 5, nthreads))) goto done;
    tm->msm_s = now_s() - t;

    cuzk_groth16_finish(out, params, &sums, r, s);

done:
    /* The witness is secret too. */
    if (abc && !in_place) { /* in place: the owner of the block wipes it */
        wipe(abc, 3 * n * sizeof *abc);
        free(abc);
    }
    if (sa) wipe(sa, n_a * sizeof *sa);
    if (sb) wipe(sb, n_b * sizeof *sb);
    free(sa), free(sb);
    cuzk_ntt_domain_free(&dom);
    tm->total_s = now_s() - t0;
    return rc;
}

int cuzk_groth16_prove_timed(cuzk_groth16_proof *out, const cuzk_groth16_params *params,
                             const cuzk_proving_cs *cs, const cuzk_fr *r, const cuzk_fr *s,
                             unsigned nthreads, cuzk_groth16_prove_timing *tm)
{
    if (tm) memset(tm, 0, sizeof *tm);
    if (!params) return CUZK_ERR_INVALID_ARG;
    cuzk_groth16_assignment as;
    int rc = cuzk_groth16_assignment_from_cs(&as, cs);
    if (rc) return rc;
    return cuzk_groth16_prove_assignment(out, params, &as, r, s, nthreads, tm);
}

int cuzk_groth16_prove_rs(cuzk_groth16_proof *out, const cuzk_groth16_params *params,
                          const cuzk_proving_cs *cs, const cuzk_fr *r, const cuzk_fr *s,
                          unsigned nthreads)
{
    return cuzk_groth16_prove_timed(out, params, cs, r, s, nthreads, NULL);
}

int cuzk_groth16_prove(cuzk_groth16_proof *out, const cuzk_groth16_params *params,
                       const cuzk_proving_cs *cs, cuzk_rng *rng, unsigned nthreads)
{
    if (!rng) return CUZK_ERR_INVALID_ARG;
    cuzk_fr rs[2];
    cuzk_fr_random(&rs[0], rng);
    cuzk_fr_random(&rs[1], rng);
    int rc = cuzk_groth16_prove_rs(out, params, cs, &rs[0], &rs[1], nthreads);
    wipe(rs, sizeof rs);
    return rc;
}

int cuzk_groth16_prove_many_timed(cuzk_groth16_proof *out, const cuzk_groth16_params *params,
                                  const cuzk_proving_cs *const *cs, size_t n, cuzk_rng *rng,
                                  unsigned nthreads, cuzk_groth16_prove_timing *timing)
{
    if (!out || !params || (!cs && n) || !rng) return CUZK_ERR_INVALID_ARG;
    for (size_t i = 0; i < n; i++) {
        cuzk_fr rs[2];
        cuzk_fr_random(&rs[0], rng);
        cuzk_fr_random(&rs[1], rng);
        int rc = cuzk_groth16_prove_timed(&out[i], params, cs[i], &rs[0], &rs[1], nthreads,
                                          timing ? &timing[i] : NULL);
        wipe(rs, sizeof rs);
        if (rc) return rc;
    }
    return CUZK_OK;
}

int cuzk_groth16_prove_many(cuzk_groth16_proof *out, const cuzk_groth16_params *params,
                            const cuzk_proving_cs *const *cs, size_t n, cuzk_rng *rng,
                            unsigned nthreads)
{
    return cuzk_groth16_prove_many_timed(out, params, cs, n, rng, nthreads, NULL);
}

/*
 * Groth16 prover on the CPU (bellperson's formulas and query layout, see
 * include/cuzk/groth16/groth16.h). Five MSMs: H and L (G1), A (G1), B (G1 and G2).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/util/clock.h"
#include "cuzk/util/error.h"
#include "cuzk/groth16/groth16.h"
#include "cuzk/util/mem.h"
#include "cuzk/msm/msm.h"
#include "cuzk/poly/ntt.h"
#include "cuzk/pce/pce.h"

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

int cuzk_groth16_job_init(cuzk_groth16_job *job, const cuzk_groth16_params *params,
                          const cuzk_groth16_assignment *as)
{
    if (!job || !params || !as || !as->a_aux || !as->b_input || !as->b_aux) return CUZK_ERR_INVALID_ARG;
    unsigned log_n = 0;
    while (((size_t)1 << log_n) < as->num_constraints)
        if (++log_n > CUZK_NTT_MAX_LOG) return CUZK_ERR_INVALID_ARG;
    /* bellperson's queries: A takes every input (dense through the input
     * constraints), then the aux in A's density; both B MSMs the inputs and
     * aux in B's densities. */
    const cuzk_groth16_query qb = {as->b_input->total + as->b_aux->total, NULL, as->b_input, as->b_aux};
    *job = (cuzk_groth16_job){
        .log_n = log_n, .form = CUZK_GROTH16_H_COSET,
        .num_constraints = as->num_constraints, .num_inputs = as->num_inputs, .num_aux = as->num_aux,
        .input = as->input, .aux = as->aux,
        .a = as->a, .b = as->b, .c = as->c, .abc = as->abc, .abc_consumable = as->abc_consumable, .pce = as->pce,
        .aux_packed = as->aux_packed,
        .q_a = {as->num_inputs + as->a_aux->total, NULL, NULL, as->a_aux}, .q_b_g1 = qb, .q_b_g2 = qb,
        .params = params, /* no keys: the caller's, for a back end that keeps copies */
    };
    if (params->vk.n_ic != as->num_inputs || cuzk_g1_affine_is_infinity(&params->vk.delta_g1) ||
        cuzk_g2_affine_is_infinity(&params->vk.delta_g2)) /* bellperson: UnexpectedIdentity */
        return CUZK_ERR_INVALID_ARG;
    return cuzk_groth16_job_check(job);
}

int cuzk_groth16_check_sizes(const cuzk_groth16_params *params, const cuzk_groth16_assignment *as,
                             unsigned *log_n)
{
    cuzk_groth16_job job;
    int rc = cuzk_groth16_job_init(&job, params, as);
    if (!rc && log_n) *log_n = job.log_n;
    return rc;
}

static bool query_ok(const cuzk_groth16_query *q, const cuzk_groth16_job *j)
{
    if (q->idx) return !q->input && !q->aux;
    if (!q->aux || q->aux->len != j->num_aux || (q->input && q->input->len != j->num_inputs)) return false;
    return (q->input ? q->input->total : j->num_inputs) + q->aux->total == q->n;
}

int cuzk_groth16_job_check(const cuzk_groth16_job *j)
{
    if (!j || !j->params || j->log_n > CUZK_NTT_MAX_LOG || (unsigned)j->form > CUZK_GROTH16_H_ODD)
        return CUZK_ERR_INVALID_ARG;
    const size_t n = (size_t)1 << j->log_n, m = j->num_constraints, ni = j->num_inputs, na = j->num_aux;
    const cuzk_groth16_params *p = j->params;
    const cuzk_pce *pce = j->pce;
    if (m > n || (ni && !j->input) || (na && !j->aux == !j->aux_packed) ||
        (j->aux_packed && (j->aux_packed->n != na || j->aux_packed->plain != j->plain)))
        return CUZK_ERR_INVALID_ARG;
    if (pce) { /* evaluated by the back end, with the PCE's index lists on a GPU */
        if (j->a || j->b || j->c || j->abc || j->plain || pce->num_constraints != m || pce->num_inputs != ni ||
            pce->num_aux != na || j->q_a.idx || j->q_a.input || j->q_a.aux != &pce->a_aux || j->q_b_g1.idx ||
            j->q_b_g1.input != &pce->b_input || j->q_b_g1.aux != &pce->b_aux || !cuzk_groth16_job_b_shared(j))
            return CUZK_ERR_INVALID_ARG;
    } else if (j->abc ? (j->a != j->abc || j->b != j->abc + n || j->c != j->abc + 2 * n)
                      : (m && (!j->a || !j->b || !j->c))) {
        return CUZK_ERR_INVALID_ARG;
    }
    if (!query_ok(&j->q_a, j) || !query_ok(&j->q_b_g1, j) || !query_ok(&j->q_b_g2, j) ||
        !j->q_a.idx != !j->q_b_g1.idx || !j->q_a.idx != !j->q_b_g2.idx)
        return CUZK_ERR_INVALID_ARG;
    if (p->n_h != (j->form == CUZK_GROTH16_H_COSET ? n - 1 : n) || p->n_l != na || p->n_a != j->q_a.n ||
        p->n_b_g1 != j->q_b_g1.n || p->n_b_g2 != j->q_b_g2.n)
        return CUZK_ERR_INVALID_ARG;
    return CUZK_OK;
}

int cuzk_groth16_job_unpacked(cuzk_groth16_job *u, cuzk_fr **aux, const cuzk_groth16_job *j)
{
    *u = *j, *aux = NULL;
    if (!j->aux_packed) return CUZK_OK;
    const size_t na = j->aux_packed->n;
    if (!(*aux = malloc((na ? na : 1) * sizeof **aux))) return CUZK_ERR_NO_MEMORY;
    cuzk_fr_unpack(*aux, j->aux_packed);
    u->aux = *aux, u->aux_packed = NULL;
    return CUZK_OK;
}

void cuzk_groth16_job_unpacked_free(cuzk_fr *aux, size_t num_aux)
{
    if (!aux) return;
    cuzk_mem_wipe(aux, num_aux * sizeof *aux); /* the witness is secret too */
    free(aux);
}

void cuzk_groth16_gather(cuzk_fr *dst, const cuzk_groth16_job *j, const cuzk_groth16_query *q)
{
    const size_t ni = j->num_inputs;
    if (q->idx) {
        for (size_t k = 0; k < q->n; k++) dst[k] = q->idx[k] < ni ? j->input[q->idx[k]] : j->aux[q->idx[k] - ni];
        return;
    }
    size_t k = 0;
    for (size_t i = 0; i < ni; i++)
        if (!q->input || cuzk_density_get(q->input, i)) dst[k++] = j->input[i];
    for (size_t i = 0; i < j->num_aux; i++)
        if (cuzk_density_get(q->aux, i)) dst[k++] = j->aux[i];
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
    cuzk_mem_wipe(&rs, sizeof rs);

    cuzk_g1_jac_to_affine(&out->a, &ga);
    cuzk_g2_jac_to_affine(&out->b, &gb2);
    cuzk_g1_jac_to_affine(&out->c, &gc);
}

int cuzk_groth16_prove_job(cuzk_groth16_proof *out, const cuzk_groth16_job *job, const cuzk_fr *r,
                           const cuzk_fr *s, unsigned nthreads, cuzk_groth16_prove_timing *tm)
{
    cuzk_groth16_prove_timing tdummy;
    if (!tm) tm = &tdummy;
    memset(tm, 0, sizeof *tm);
    double t0 = cuzk_now(), t;
    if (!out || !r || !s) return CUZK_ERR_INVALID_ARG;
    int rc = cuzk_groth16_job_check(job);
    if (rc) return rc;
    if (job->aux_packed) { /* unpacked first: the CPU reads the aux more than once */
        cuzk_groth16_job u;
        cuzk_fr *aux;
        if ((rc = cuzk_groth16_job_unpacked(&u, &aux, job))) return rc;
        rc = cuzk_groth16_prove_job(out, &u, r, s, nthreads, tm);
        cuzk_groth16_job_unpacked_free(aux, job->num_aux);
        tm->total_s = cuzk_now() - t0;
        return rc;
    }
    if (nthreads == 0) nthreads = 1;
    const cuzk_groth16_params *params = job->params;
    const size_t m = job->num_constraints, na = job->num_aux, n = (size_t)1 << job->log_n;
    const bool share_b = cuzk_groth16_job_b_shared(job);
    const size_t n_a = job->q_a.n, n_b1 = job->q_b_g1.n, n_b2 = job->q_b_g2.n;
    const size_t nsc = n_a + n_b1 + (share_b ? 0 : n_b2); /* scalars gathered */

    cuzk_ntt_domain dom;
    memset(&dom, 0, sizeof dom);
    /* a, b, c already in the NTT layout and ours to overwrite: no buffer, no copy */
    const bool in_place = job->abc && job->abc_consumable;
    cuzk_fr *abc = in_place ? job->abc : malloc(3 * n * sizeof *abc);
    cuzk_fr *sc = malloc((nsc ? nsc : 1) * sizeof *sc);
    bool gathered = false;
    if (!abc || !sc) {
        rc = CUZK_ERR_NO_MEMORY;
        goto done;
    }
    const bool odd = job->form == CUZK_GROTH16_H_ODD;
    if ((rc = cuzk_ntt_domain_init(&dom, job->log_n, odd ? CUZK_FR_GEN_SNARKJS : CUZK_FR_GEN_FILECOIN, nthreads)))
        goto done;

    /* the rows, then H: (A·B - C)/Z, n - 1 coefficients (COSET), or A·B - C
     * at the n odd points (ODD) */
    cuzk_fr *a = abc, *b = abc + n, *c = abc + 2 * n;
    if (in_place) {
        /* nothing to move */
    } else if (job->pce) { /* evaluated here, into the buffer */
        t = cuzk_now();
        cuzk_pce_eval_buf buf;
        if ((rc = cuzk_pce_eval_buf_wrap(&buf, job->pce, abc, 3 * n)) ||
            (rc = cuzk_pce_eval_raw(job->pce, job->input, job->aux, &buf, nthreads)))
            goto done;
        tm->eval_s = cuzk_now() - t;
    } else if (job->abc) {
        memcpy(abc, job->abc, 3 * n * sizeof *abc);
    } else {
        memcpy(a, job->a, m * sizeof *a);
        memcpy(b, job->b, m * sizeof *b);
        memcpy(c, job->c, m * sizeof *c);
        memset(a + m, 0, (n - m) * sizeof *a), memset(b + m, 0, (n - m) * sizeof *b);
        memset(c + m, 0, (n - m) * sizeof *c);
    }
    t = cuzk_now();
    size_t nh = n;
    if (odd) cuzk_ntt_groth16_h_odd(&dom, a, b, c, nthreads);
    else nh = cuzk_ntt_groth16_h(&dom, a, b, c, nthreads);
    tm->ntt_h_s = cuzk_now() - t;
    if (nh != params->n_h) {
        rc = CUZK_ERR_INTERNAL;
        goto done;
    }

    /* the five MSMs as one task list: no thread idles between them */
    cuzk_fr *sa = sc, *sb1 = sa + n_a, *sb2 = share_b ? sb1 : sb1 + n_b1;
    cuzk_groth16_gather(sa, job, &job->q_a);
    cuzk_groth16_gather(sb1, job, &job->q_b_g1);
    if (!share_b) cuzk_groth16_gather(sb2, job, &job->q_b_g2);
    gathered = true;
    cuzk_groth16_msm_sums sums;
    cuzk_msm_job jobs[5] = {
        {.g1_out = &sums.h, .g1_bases = params->h, .fr = a, .n = nh},
        {.g1_out = &sums.l, .g1_bases = params->l, .n = na},
        {.g1_out = &sums.a, .g1_bases = params->a, .n = n_a},
        {.g1_out = &sums.b_g1, .g1_bases = params->b_g1, .n = n_b1},
        {.g2_out = &sums.b_g2, .g2_bases = params->b_g2, .n = n_b2},
    };
    const cuzk_fr *scalars[5] = {a, job->aux, sa, sb1, sb2};
    for (int i = 1; i < 5; i++) {
        if (job->plain) jobs[i].plain = (const uint64_t(*)[4])scalars[i];
        else jobs[i].fr = scalars[i];
    }
    t = cuzk_now();
    if ((rc = cuzk_msm_batch(jobs, 5, nthreads))) goto done;
    tm->msm_s = cuzk_now() - t;

    cuzk_groth16_finish(out, params, &sums, r, s);

done:
    /* The witness is secret too. */
    if (abc && !in_place) { /* in place: the owner of the block wipes it */
        cuzk_mem_wipe(abc, 3 * n * sizeof *abc);
        free(abc);
    }
    if (gathered) cuzk_mem_wipe(sc, nsc * sizeof *sc); /* else never written (nor faulted in) */
    free(sc);
    cuzk_ntt_domain_free(&dom);
    tm->total_s = cuzk_now() - t0;
    return rc;
}

int cuzk_groth16_prove_assignment(cuzk_groth16_proof *out, const cuzk_groth16_params *params,
                                  const cuzk_groth16_assignment *as, const cuzk_fr *r,
                                  const cuzk_fr *s, unsigned nthreads,
                                  cuzk_groth16_prove_timing *tm)
{
    if (tm) memset(tm, 0, sizeof *tm);
    if (!out || !r || !s) return CUZK_ERR_INVALID_ARG;
    cuzk_groth16_job job;
    int rc = cuzk_groth16_job_init(&job, params, as);
    return rc ? rc : cuzk_groth16_prove_job(out, &job, r, s, nthreads, tm);
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
    cuzk_mem_wipe(rs, sizeof rs);
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
        cuzk_mem_wipe(rs, sizeof rs);
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

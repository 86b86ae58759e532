/* SnarkPack aggregation (bellperson aggregate_proofs): commitments to A, B, C under the SRS's
 * v/w keys, the random linear combination r, the joint TIPP/MIPP GIPA rounds and the KZG
 * openings of the final keys. The caller's ctl is asked before each of those stages whether to
 * go on, so that a cancelled aggregation of thousands of proofs gives its cores and memory back
 * within one stage. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/msm/msm.h"
#include "snarkpack_internal.h"

/* The prover's vectors, folded in place round by round. */
typedef struct {
    size_t n;
    unsigned nt;
    cuzk_g1_affine *a, *c, *wa, *wb;
    cuzk_g2_affine *b, *va, *vb;
    cuzk_pairing_group *grp; /* 3n: the pairs of the commitments, by G2 point */
    cuzk_fr *r, ch[CUZK_SNARKPACK_MAX_LOG], ch_inv[CUZK_SNARKPACK_MAX_LOG];
    const cuzk_snarkpack_ctl *ctl;
    const cuzk_snarkpack_accel *acc; /* ctl's, or NULL */
    cuzk_snarkpack_stage stop_stage; /* the stage ctl stopped it before */
    unsigned stop_round;
} prover;

/* CUZK_ERR_CANCELLED when the caller's ctl stops the aggregation before this stage. */
static int prover_stop(prover *p, cuzk_snarkpack_stage stage, unsigned round)
{
    if (!p->ctl || !p->ctl->stop || !p->ctl->stop(p->ctl->ctx, stage, round)) return CUZK_OK;
    p->stop_stage = stage, p->stop_round = round;
    return CUZK_ERR_CANCELLED;
}

static void prover_free(prover *p)
{
    free(p->a), free(p->c), free(p->wa), free(p->wb), free(p->grp);
    free(p->b), free(p->va), free(p->vb), free(p->r);
}

static int prover_alloc(prover *p, size_t n, unsigned nt)
{
    memset(p, 0, sizeof *p);
    p->n = n, p->nt = nt;
    size_t g1 = n * sizeof(cuzk_g1_affine), g2 = n * sizeof(cuzk_g2_affine);
    p->a = malloc(g1), p->c = malloc(g1), p->wa = malloc(g1), p->wb = malloc(g1);
    p->b = malloc(g2), p->va = malloc(g2), p->vb = malloc(g2), p->grp = malloc(3 * n * sizeof *p->grp);
    p->r = malloc(n * sizeof *p->r);
    if (p->a && p->c && p->wa && p->wb && p->b && p->va && p->vb && p->grp && p->r) return CUZK_OK;
    prover_free(p);
    return CUZK_ERR_NO_MEMORY;
}

/* The products a side of the commitments makes: T = e(A, va)·e(wa, B), U = e(A, vb)·e(wb, B)
 * for A, B; e(A, B) (the GIPA rounds' Z); T = e(C, va), U = e(C, vb) for C. */
enum { COM_AB_T, COM_AB_U, COM_Z, COM_C_T, COM_C_U, COM_PRODS };

static cuzk_pairing_group group3(const cuzk_g2_affine *q, const cuzk_g1_affine *p0, unsigned k0,
                                 const cuzk_g1_affine *p1, unsigned k1, const cuzk_g1_affine *p2, unsigned k2,
                                 unsigned n)
{
    return (cuzk_pairing_group){q, {p0, p1, p2}, {(unsigned char)k0, (unsigned char)k1, (unsigned char)k2},
                                (unsigned char)n};
}

/* 3m groups at grp sending the commitments of A[i], C[i] (G1 entries at g1, G2 entries at g2)
 * to products base + COM_*: each key point va, vb serves A and C, each B serves wa, wb and A.
 * z: whether e(A, B) is one of them (the rounds) or not (the first commitments). */
static void commit_groups(cuzk_pairing_group *grp, const prover *p, size_t g1, size_t g2, size_t m,
                          unsigned base, int z)
{
    for (size_t i = 0; i < m; i++) {
        const cuzk_g1_affine *A = &p->a[g1 + i], *C = &p->c[g1 + i];
        grp[3 * i] = group3(&p->va[g2 + i], A, base + COM_AB_T, C, base + COM_C_T, NULL, 0, 2);
        grp[3 * i + 1] = group3(&p->vb[g2 + i], A, base + COM_AB_U, C, base + COM_C_U, NULL, 0, 2);
        grp[3 * i + 2] = group3(&p->b[g2 + i], &p->wa[g1 + i], base + COM_AB_T, &p->wb[g1 + i], base + COM_AB_U,
                                A, base + COM_Z, z ? 3 : 2);
    }
}

static void com_from(cuzk_snarkpack_com *ab, cuzk_gt *z, cuzk_snarkpack_com *c, const cuzk_gt *g)
{
    ab->t = g[COM_AB_T], ab->u = g[COM_AB_U], c->t = g[COM_C_T], c->u = g[COM_C_U];
    if (z) *z = g[COM_Z];
}

/* Two G1 MSMs (zc_l, zc_r) as one batch, to affine. */
static int msm2_g1(cuzk_g1_affine *o0, cuzk_g1_affine *o1, const cuzk_g1_affine *P0, const cuzk_g1_affine *P1,
                   const cuzk_fr *k0, const cuzk_fr *k1, size_t m, const prover *p)
{
    cuzk_g1_jac j[2];
    cuzk_msm_job jobs[2] = {{.g1_out = &j[0], .g1_bases = P0, .fr = k0, .n = m},
                            {.g1_out = &j[1], .g1_bases = P1, .fr = k1, .n = m}};
    int rc = sp_msm_batch(jobs, 2, p->nt, p->acc);
    if (!rc) cuzk_g1_jac_to_affine(o0, &j[0]), cuzk_g1_jac_to_affine(o1, &j[1]);
    return rc;
}

/* One round's messages over the current length m (cuzk/groth16/snarkpack.h; bellperson gipa_tipp_mipp):
 * the left side pairs the upper G1 halves with the lower G2 halves, the right side the reverse;
 * all ten products in one pass. */
static int round_messages(prover *p, cuzk_snarkpack_round *rd, size_t m)
{
    size_t h = m / 2;
    cuzk_gt g[2 * COM_PRODS];
    commit_groups(p->grp, p, h, 0, h, 0, 1);
    commit_groups(p->grp + 3 * h, p, 0, h, h, COM_PRODS, 1);
    int rc = sp_pairing_groups(g, 2 * COM_PRODS, p->grp, 6 * h, p->nt, p->acc);
    if (rc) return rc;
    com_from(&rd->ab_l, &rd->zab_l, &rd->c_l, g);
    com_from(&rd->ab_r, &rd->zab_r, &rd->c_r, g + COM_PRODS);
    return msm2_g1(&rd->zc_l, &rd->zc_r, p->c + h, p->c, p->r, p->r + h, h, p);
}

/* Halves every vector: A, C, w with c; B, r, v with c^-1. */
static int fold(prover *p, size_t h, const cuzk_fr *c, const cuzk_fr *c_inv)
{
    sp_fold_job jobs[7] = {{.g2 = p->b, .s = c_inv}, {.g2 = p->va, .s = c_inv}, {.g2 = p->vb, .s = c_inv},
                           {.g1 = p->a, .s = c},     {.g1 = p->c, .s = c},      {.g1 = p->wa, .s = c},
                           {.g1 = p->wb, .s = c}};
    int rc = sp_fold(jobs, 7, h, p->nt);
    for (size_t i = 0; !rc && i < h; i++) {
        cuzk_fr t;
        cuzk_fr_mul(&t, &p->r[i + h], c_inv);
        cuzk_fr_add(&p->r[i], &p->r[i], &t);
    }
    return rc;
}

static int gipa(prover *p, cuzk_snarkpack_proof *out, const cuzk_fr *c_inv0, cuzk_snarkpack_version v)
{
    cuzk_fr c_inv = *c_inv0;
    unsigned i = 0;
    for (size_t m = p->n; m > 1; m /= 2, i++) {
        cuzk_snarkpack_round *rd = &out->round[i];
        int rc = prover_stop(p, CUZK_SNARKPACK_STAGE_ROUND, i);
        if (!rc) rc = round_messages(p, rd, m);
        if (!rc) rc = sp_challenge_round(&c_inv, i, rd, v);
        if (rc) return rc;
        p->ch_inv[i] = c_inv;
        cuzk_fr_inv(&p->ch[i], &c_inv);
        rc = fold(p, m / 2, &p->ch[i], &c_inv);
        if (rc) return rc;
    }
    out->rounds = i;
    out->final_a = p->a[0], out->final_b = p->b[0], out->final_c = p->c[0];
    out->final_vkey[0] = p->va[0], out->final_vkey[1] = p->vb[0];
    out->final_wkey[0] = p->wa[0], out->final_wkey[1] = p->wb[0];
    return CUZK_OK;
}

/* q = (f - f(z)) / (X - z) for f of len coefficients: len - 1 of them, by synthetic division. */
static void kzg_quotient(cuzk_fr *q, const cuzk_fr *f, size_t len, const cuzk_fr *z)
{
    q[len - 2] = f[len - 1];
    for (size_t i = len - 2; i > 0; i--) {
        cuzk_fr t;
        cuzk_fr_mul(&t, z, &q[i]);
        cuzk_fr_add(&q[i - 1], &f[i], &t);
    }
}

/* The openings' quotients: f_v(X) = prod (1 + c_inv X^(2^j)) (n coefficients) over h^alpha^i,
 * h^beta^i; f_w(X) = X^n·prod (1 + c (r^-1 X)^(2^j)) (2n coefficients) over g^alpha^i, g^beta^i;
 * the four MSMs as one batch. */
static int kzg_open(cuzk_snarkpack_proof *out, const cuzk_snarkpack_srs *srs, const cuzk_fr *t_v,
                    const cuzk_fr *t_w, size_t n, const cuzk_fr *r_inv, const cuzk_fr *z, const prover *p)
{
    cuzk_fr *f = calloc(3 * n, sizeof *f), *q = malloc(3 * n * sizeof *q);
    int rc = f && q ? CUZK_OK : CUZK_ERR_NO_MEMORY;
    if (!rc) {
        cuzk_fr *qv = q, *qw = q + n, *fw = f + n;
        sp_poly_coeffs(f, t_v, out->rounds, &cuzk_fr_one);
        kzg_quotient(qv, f, n, z);
        sp_poly_coeffs(fw + n, t_w, out->rounds, r_inv);
        kzg_quotient(qw, fw, 2 * n, z);
        cuzk_g2_jac v[2];
        cuzk_g1_jac w[2];
        cuzk_msm_job jobs[4] = {{.g2_out = &v[0], .g2_bases = srs->h_alpha, .fr = qv, .n = n - 1},
                                {.g2_out = &v[1], .g2_bases = srs->h_beta, .fr = qv, .n = n - 1},
                                {.g1_out = &w[0], .g1_bases = srs->g_alpha, .fr = qw, .n = 2 * n - 1},
                                {.g1_out = &w[1], .g1_bases = srs->g_beta, .fr = qw, .n = 2 * n - 1}};
        rc = sp_msm_batch(jobs, 4, p->nt, p->acc);
        for (int k = 0; !rc && k < 2; k++) {
            cuzk_g2_jac_to_affine(&out->vkey_opening[k], &v[k]);
            cuzk_g1_jac_to_affine(&out->wkey_opening[k], &w[k]);
        }
    }
    free(f), free(q);
    return rc;
}

/* The challenges reversed (the KZG polynomials take x_{l-j}), z, and both openings. */
static int kzg_openings(prover *p, cuzk_snarkpack_proof *out, const cuzk_snarkpack_srs *srs, const cuzk_fr *r,
                        cuzk_snarkpack_version v)
{
    unsigned l = out->rounds;
    cuzk_fr rev[CUZK_SNARKPACK_MAX_LOG], rev_inv[CUZK_SNARKPACK_MAX_LOG], extra, z, r_inv;
    for (unsigned j = 0; j < l; j++) rev[j] = p->ch[l - 1 - j], rev_inv[j] = p->ch_inv[l - 1 - j];
    int rc = sp_challenge_extra(&extra, &p->ch[l - 1], out);
    if (!rc) rc = sp_challenge_z(&z, v == CUZK_SNARKPACK_V1 ? &rev[0] : &extra, out, v);
    cuzk_fr_inv(&r_inv, r);
    if (!rc) rc = kzg_open(out, srs, rev_inv, rev, p->n, &r_inv, &z, p);
    return rc;
}

/* Vectors from the proofs and the SRS, the commitments, r, B^r, w^(r^-1), ip_ab and agg_c. */
static int commit_all(prover *p, cuzk_snarkpack_proof *out, const cuzk_snarkpack_srs *srs,
                      const cuzk_groth16_proof *proofs, const uint8_t *include, size_t include_len, cuzk_fr *r,
                      cuzk_fr *hcom)
{
    size_t n = p->n;
    for (size_t i = 0; i < n; i++) p->a[i] = proofs[i].a, p->b[i] = proofs[i].b, p->c[i] = proofs[i].c;
    memcpy(p->va, srs->h_alpha, n * sizeof *p->va), memcpy(p->vb, srs->h_beta, n * sizeof *p->vb);
    memcpy(p->wa, srs->g_alpha + n, n * sizeof *p->wa), memcpy(p->wb, srs->g_beta + n, n * sizeof *p->wb);
    cuzk_gt g[COM_PRODS];
    commit_groups(p->grp, p, 0, 0, n, 0, 0);
    int rc = sp_pairing_groups(g, COM_PRODS, p->grp, 3 * n, p->nt, p->acc);
    if (!rc) com_from(&out->com_ab, NULL, &out->com_c, g);
    if (!rc) rc = sp_challenge_hcom(hcom, &out->com_ab, &out->com_c);
    if (!rc) rc = sp_challenge_r(r, hcom, include, include_len);
    if (rc) return rc;
    cuzk_fr r_inv, *ri = malloc(n * sizeof *ri);
    if (!ri) return CUZK_ERR_NO_MEMORY;
    cuzk_fr_inv(&r_inv, r);
    p->r[0] = cuzk_fr_one, ri[0] = cuzk_fr_one;
    for (size_t i = 1; i < n; i++) cuzk_fr_mul(&p->r[i], &p->r[i - 1], r), cuzk_fr_mul(&ri[i], &ri[i - 1], &r_inv);
    sp_fold_job jobs[3] = {{.g2 = p->b, .k = p->r}, {.g1 = p->wa, .k = ri}, {.g1 = p->wb, .k = ri}};
    rc = sp_fold(jobs, 3, n, p->nt);
    free(ri);
    if (rc) return rc;
    for (size_t i = 0; i < n; i++) p->grp[i] = group3(&p->b[i], &p->a[i], 0, NULL, 0, NULL, 0, 1);
    rc = sp_pairing_groups(&out->ip_ab, 1, p->grp, n, p->nt, p->acc);
    if (!rc) rc = sp_g1_msm(&out->agg_c, p->c, p->r, n, p->nt, p->acc);
    return rc;
}

unsigned cuzk_snarkpack_stages(size_t n)
{
    unsigned l = 0;
    while (l < 63 && ((size_t)1 << l) < n) l++;
    return l + 2;
}

/* err for an aggregation ctl stopped: the stage it did not run. */
static int prover_stopped(const prover *p, char *err, size_t err_len)
{
    unsigned total = cuzk_snarkpack_stages(p->n);
    if (p->stop_stage == CUZK_SNARKPACK_STAGE_ROUND)
        return cuzk_errf(err, err_len, CUZK_ERR_CANCELLED, "aggregate: stopped before GIPA round %u of %u "
                         "(stage %u of %u)", p->stop_round + 1, total - 2, p->stop_round + 2, total);
    return cuzk_errf(err, err_len, CUZK_ERR_CANCELLED, "aggregate: stopped before the %s (stage %u of %u)",
                     p->stop_stage == CUZK_SNARKPACK_STAGE_COMMIT ? "commitments" : "KZG openings",
                     p->stop_stage == CUZK_SNARKPACK_STAGE_COMMIT ? 1 : total, total);
}

/* One run of the stages on p (allocated); CUZK_ERR_CANCELLED when ctl stopped it. */
static int aggregate_run(prover *p, cuzk_snarkpack_proof *out, const cuzk_snarkpack_srs *srs,
                         const cuzk_groth16_proof *proofs, const uint8_t *include, size_t include_len,
                         cuzk_snarkpack_version v)
{
    memset(out, 0, sizeof *out);
    out->nproofs = (uint32_t)p->n;
    cuzk_fr r, hcom, c_inv0;
    int rc = prover_stop(p, CUZK_SNARKPACK_STAGE_COMMIT, 0);
    if (!rc) rc = commit_all(p, out, srs, proofs, include, include_len, &r, &hcom);
    if (!rc) rc = sp_challenge_gipa0(&c_inv0, &hcom, &out->ip_ab, &out->agg_c, &r);
    if (!rc) rc = gipa(p, out, &c_inv0, v);
    if (!rc) rc = prover_stop(p, CUZK_SNARKPACK_STAGE_KZG, 0);
    if (!rc) rc = kzg_openings(p, out, srs, &r, v);
    return rc;
}

/* What an accelerator's hooks fail with (its driver, its memory, an internal check), as opposed
 * to a stop; the CPU does not meet those. */
static int accel_error(int rc)
{
    return rc == CUZK_ERR_DEVICE || rc == CUZK_ERR_NO_MEMORY || rc == CUZK_ERR_NO_DEVICE || rc == CUZK_ERR_INTERNAL;
}

int cuzk_snarkpack_aggregate(cuzk_snarkpack_proof *out, const cuzk_snarkpack_srs *srs,
                             const cuzk_groth16_proof *proofs, size_t n, const uint8_t *include,
                             size_t include_len, cuzk_snarkpack_version v, const cuzk_snarkpack_ctl *ctl,
                             unsigned nthreads, char *err, size_t err_len)
{
    if (!out || !srs || !proofs || (v != CUZK_SNARKPACK_V1 && v != CUZK_SNARKPACK_V2))
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "aggregate: missing argument or unknown version");
    memset(out, 0, sizeof *out);
    if (n < 2 || (n & (n - 1)) || n > cuzk_snarkpack_srs_max_proofs(srs))
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "aggregate: %zu proofs: a power of two >= 2 the SRS "
                         "serves is needed (up to %u; pad by repeating the last proof)", n,
                         cuzk_snarkpack_srs_max_proofs(srs));
    prover p;
    if (prover_alloc(&p, n, nthreads ? nthreads : 1)) return cuzk_errf(err, err_len, CUZK_ERR_NO_MEMORY, "aggregate: out of memory");
    p.ctl = ctl;
    p.acc = ctl ? ctl->accel : NULL;
    int rc = aggregate_run(&p, out, srs, proofs, include, include_len, v);
    if (rc && p.acc && accel_error(rc)) {
        /* the same bytes on the CPU: an accelerator's failure costs time, not the aggregate */
        if (ctl->accel_failed) ctl->accel_failed(ctl->ctx, rc);
        p.acc = NULL;
        rc = aggregate_run(&p, out, srs, proofs, include, include_len, v);
    }
    prover_free(&p);
    if (rc == CUZK_ERR_CANCELLED) return memset(out, 0, sizeof *out), prover_stopped(&p, err, err_len);
    if (rc) return cuzk_errf(err, err_len, rc, "aggregate: %s", cuzk_strerror(rc));
    return CUZK_OK;
}

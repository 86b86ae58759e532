/* SnarkPack aggregation (bellperson aggregate_proofs): commitments to A, B, C under the SRS's
 * v/w keys, the random linear combination r, the joint TIPP/MIPP GIPA rounds and the KZG
 * openings of the final keys. The caller's ctl is asked before each of those stages whether to
 * go on, so that a cancelled aggregation of thousands of proofs gives its cores and memory back
 * within one stage. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "snarkpack_internal.h"

/* The prover's vectors, folded in place round by round. */
typedef struct {
    size_t n;
    unsigned nt;
    cuzk_g1_affine *a, *c, *wa, *wb, *P; /* P, Q: 2n scratch for pairing products */
    cuzk_g2_affine *b, *va, *vb, *Q;
    cuzk_fr *r, ch[CUZK_SNARKPACK_MAX_LOG], ch_inv[CUZK_SNARKPACK_MAX_LOG];
    const cuzk_snarkpack_ctl *ctl;
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
    free(p->a), free(p->c), free(p->wa), free(p->wb), free(p->P);
    free(p->b), free(p->va), free(p->vb), free(p->Q), free(p->r);
}

static int prover_alloc(prover *p, size_t n, unsigned nt)
{
    memset(p, 0, sizeof *p);
    p->n = n, p->nt = nt;
    size_t g1 = n * sizeof(cuzk_g1_affine), g2 = n * sizeof(cuzk_g2_affine);
    p->a = malloc(g1), p->c = malloc(g1), p->wa = malloc(g1), p->wb = malloc(g1), p->P = malloc(2 * g1);
    p->b = malloc(g2), p->va = malloc(g2), p->vb = malloc(g2), p->Q = malloc(2 * g2);
    p->r = malloc(n * sizeof *p->r);
    if (p->a && p->c && p->wa && p->wb && p->P && p->b && p->va && p->vb && p->Q && p->r) return CUZK_OK;
    prover_free(p);
    return CUZK_ERR_NO_MEMORY;
}

/* T = e(A, va)·e(wa, B), U = e(A, vb)·e(wb, B) over m entries; B NULL: C's commitment (no w). */
static int commit(prover *p, cuzk_snarkpack_com *out, const cuzk_g2_affine *va, const cuzk_g2_affine *vb,
                  const cuzk_g1_affine *wa, const cuzk_g1_affine *wb, const cuzk_g1_affine *A,
                  const cuzk_g2_affine *B, size_t m)
{
    int rc = CUZK_OK;
    for (int k = 0; k < 2 && !rc; k++) {
        memcpy(p->P, A, m * sizeof *A);
        memcpy(p->Q, k ? vb : va, m * sizeof *va);
        if (B) {
            memcpy(p->P + m, k ? wb : wa, m * sizeof *A);
            memcpy(p->Q + m, B, m * sizeof *B);
        }
        rc = sp_pairing_product(k ? &out->u : &out->t, p->P, p->Q, B ? 2 * m : m, p->nt);
    }
    return rc;
}

/* One round's messages over the current length m (cuzk/groth16/snarkpack.h; bellperson gipa_tipp_mipp). */
static int round_messages(prover *p, cuzk_snarkpack_round *rd, size_t m)
{
    size_t h = m / 2;
    int rc = commit(p, &rd->ab_l, p->va, p->vb, p->wa + h, p->wb + h, p->a + h, p->b, h);
    if (!rc) rc = commit(p, &rd->ab_r, p->va + h, p->vb + h, p->wa, p->wb, p->a, p->b + h, h);
    if (!rc) rc = sp_pairing_product(&rd->zab_l, p->a + h, p->b, h, p->nt);
    if (!rc) rc = sp_pairing_product(&rd->zab_r, p->a, p->b + h, h, p->nt);
    if (!rc) rc = sp_g1_msm(&rd->zc_l, p->c + h, p->r, h, p->nt);
    if (!rc) rc = sp_g1_msm(&rd->zc_r, p->c, p->r + h, h, p->nt);
    if (!rc) rc = commit(p, &rd->c_l, p->va, p->vb, NULL, NULL, p->c + h, NULL, h);
    if (!rc) rc = commit(p, &rd->c_r, p->va + h, p->vb + h, NULL, NULL, p->c, NULL, h);
    return rc;
}

/* Halves every vector: A, C, w with c; B, r, v with c^-1. */
static void fold(prover *p, size_t h, const cuzk_fr *c, const cuzk_fr *c_inv)
{
    sp_g1_fold(p->a, h, c, NULL, p->nt);
    sp_g1_fold(p->c, h, c, NULL, p->nt);
    sp_g1_fold(p->wa, h, c, NULL, p->nt);
    sp_g1_fold(p->wb, h, c, NULL, p->nt);
    sp_g2_fold(p->b, h, c_inv, NULL, p->nt);
    sp_g2_fold(p->va, h, c_inv, NULL, p->nt);
    sp_g2_fold(p->vb, h, c_inv, NULL, p->nt);
    for (size_t i = 0; i < h; i++) {
        cuzk_fr t;
        cuzk_fr_mul(&t, &p->r[i + h], c_inv);
        cuzk_fr_add(&p->r[i], &p->r[i], &t);
    }
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
        fold(p, m / 2, &p->ch[i], &c_inv);
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

/* The v opening: f_v(X) = prod (1 + c_inv X^(2^j)) (n coefficients) opened at z over h^alpha^i, h^beta^i. */
static int open_v(cuzk_snarkpack_proof *out, const cuzk_snarkpack_srs *srs, const cuzk_fr *t, size_t n,
                  const cuzk_fr *z, unsigned nt)
{
    cuzk_fr *f = malloc(n * sizeof *f), *q = malloc(n * sizeof *q);
    int rc = f && q ? CUZK_OK : CUZK_ERR_NO_MEMORY;
    if (!rc) {
        sp_poly_coeffs(f, t, out->rounds, &cuzk_fr_one);
        kzg_quotient(q, f, n, z);
        rc = sp_g2_msm(&out->vkey_opening[0], srs->h_alpha, q, n - 1, nt);
        if (!rc) rc = sp_g2_msm(&out->vkey_opening[1], srs->h_beta, q, n - 1, nt);
    }
    free(f), free(q);
    return rc;
}

/* The w opening: f_w(X) = X^n·prod (1 + c (r^-1 X)^(2^j)) (2n coefficients) over g^alpha^i, g^beta^i. */
static int open_w(cuzk_snarkpack_proof *out, const cuzk_snarkpack_srs *srs, const cuzk_fr *t, size_t n,
                  const cuzk_fr *r_inv, const cuzk_fr *z, unsigned nt)
{
    cuzk_fr *f = calloc(2 * n, sizeof *f), *q = malloc(2 * n * sizeof *q);
    int rc = f && q ? CUZK_OK : CUZK_ERR_NO_MEMORY;
    if (!rc) {
        sp_poly_coeffs(f + n, t, out->rounds, r_inv);
        kzg_quotient(q, f, 2 * n, z);
        rc = sp_g1_msm(&out->wkey_opening[0], srs->g_alpha, q, 2 * n - 1, nt);
        if (!rc) rc = sp_g1_msm(&out->wkey_opening[1], srs->g_beta, q, 2 * n - 1, nt);
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
    if (!rc) rc = open_v(out, srs, rev_inv, p->n, &z, p->nt);
    if (!rc) rc = open_w(out, srs, rev, p->n, &r_inv, &z, p->nt);
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
    int rc = commit(p, &out->com_ab, p->va, p->vb, p->wa, p->wb, p->a, p->b, n);
    if (!rc) rc = commit(p, &out->com_c, p->va, p->vb, NULL, NULL, p->c, NULL, n);
    if (!rc) rc = sp_challenge_hcom(hcom, &out->com_ab, &out->com_c);
    if (!rc) rc = sp_challenge_r(r, hcom, include, include_len);
    if (rc) return rc;
    cuzk_fr r_inv, *ri = malloc(n * sizeof *ri);
    if (!ri) return CUZK_ERR_NO_MEMORY;
    cuzk_fr_inv(&r_inv, r);
    p->r[0] = cuzk_fr_one, ri[0] = cuzk_fr_one;
    for (size_t i = 1; i < n; i++) cuzk_fr_mul(&p->r[i], &p->r[i - 1], r), cuzk_fr_mul(&ri[i], &ri[i - 1], &r_inv);
    sp_g2_fold(p->b, n, NULL, p->r, p->nt);
    sp_g1_fold(p->wa, n, NULL, ri, p->nt);
    sp_g1_fold(p->wb, n, NULL, ri, p->nt);
    free(ri);
    rc = sp_pairing_product(&out->ip_ab, p->a, p->b, n, p->nt);
    if (!rc) rc = sp_g1_msm(&out->agg_c, p->c, p->r, n, p->nt);
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
    out->nproofs = (uint32_t)n;
    p.ctl = ctl;
    cuzk_fr r, hcom, c_inv0;
    int rc = prover_stop(&p, CUZK_SNARKPACK_STAGE_COMMIT, 0);
    if (!rc) rc = commit_all(&p, out, srs, proofs, include, include_len, &r, &hcom);
    if (!rc) rc = sp_challenge_gipa0(&c_inv0, &hcom, &out->ip_ab, &out->agg_c, &r);
    if (!rc) rc = gipa(&p, out, &c_inv0, v);
    if (!rc) rc = prover_stop(&p, CUZK_SNARKPACK_STAGE_KZG, 0);
    if (!rc) rc = kzg_openings(&p, out, srs, &r, v);
    prover_free(&p);
    if (rc == CUZK_ERR_CANCELLED) return memset(out, 0, sizeof *out), prover_stopped(&p, err, err_len);
    if (rc) return cuzk_errf(err, err_len, rc, "aggregate: %s", cuzk_strerror(rc));
    return CUZK_OK;
}

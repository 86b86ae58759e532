/* SnarkPack verification (bellperson verify_aggregate_proof): the GIPA challenges replayed,
 * the TIPP/MIPP final relations, the KZG openings of the final keys and the aggregated Groth16
 * equation, batched into one final exponentiation with random coefficients; a failing batch is
 * rechecked one relation at a time to say which failed. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/util/parallel.h"
#include "snarkpack_internal.h"

#define MAX_PAIRS 3
#define NCHECKS 10

typedef struct {
    const char *name;
    size_t n;
    cuzk_g1_affine P[MAX_PAIRS];
    cuzk_g2_affine Q[MAX_PAIRS];
    cuzk_gt target; /* what the product of pairings must equal (1 for the KZG checks) */
} check;

/* The relations' folded values: T, U, Z of A·B and of C, with every round's challenges. */
typedef struct {
    cuzk_gt tab, uab, zab, tc, uc;
    cuzk_g1_affine zc;
    cuzk_fr ch[CUZK_SNARKPACK_MAX_LOG], ch_inv[CUZK_SNARKPACK_MAX_LOG];
} folded;

static void gt_pow_fr(cuzk_gt *out, const cuzk_gt *a, const cuzk_fr *k)
{
    uint64_t l[4];
    cuzk_fr_to_limbs(l, k);
    cuzk_gt_pow(out, a, l);
}

/* A round's values folded with its challenges: ten GT values (T, U of A·B, Z of A·B, T, U of C,
 * each left then right) and Z_C's two points; the left ones raised to c, the right ones to c^-1. */
#define REPLAY_TERMS 12

typedef struct {
    const cuzk_snarkpack_proof *p;
    const folded *f;
    cuzk_gt *gt;      /* rounds x 10 powers */
    cuzk_g1_jac *zc;  /* rounds x 2 multiples */
} replay_ctx;

static const cuzk_gt *round_gt(const cuzk_snarkpack_round *rd, unsigned j)
{
    const cuzk_gt *v[10] = {&rd->ab_l.t, &rd->ab_r.t, &rd->ab_l.u, &rd->ab_r.u, &rd->zab_l,
                            &rd->zab_r,  &rd->c_l.t,  &rd->c_r.t,  &rd->c_l.u,  &rd->c_r.u};
    return v[j];
}

static void replay_term(void *vctx, unsigned worker, size_t lo, size_t hi)
{
    (void)worker;
    const replay_ctx *c = vctx;
    for (size_t t = lo; t < hi; t++) {
        const size_t i = t / REPLAY_TERMS;
        const unsigned j = (unsigned)(t % REPLAY_TERMS);
        const cuzk_snarkpack_round *rd = &c->p->round[i];
        const cuzk_fr *k = j % 2 ? &c->f->ch_inv[i] : &c->f->ch[i];
        if (j < 10) {
            gt_pow_fr(&c->gt[i * 10 + j], round_gt(rd, j), k);
        } else {
            cuzk_g1_jac *z = &c->zc[i * 2 + (j - 10)];
            cuzk_g1_jac_from_affine(z, j == 10 ? &rd->zc_l : &rd->zc_r);
            cuzk_g1_jac_mul_fr(z, z, k);
        }
    }
}

/* The folded values from the terms: each the proof's starting value times its rounds' powers. */
static void replay_fold(folded *f, const cuzk_snarkpack_proof *p, const cuzk_gt *gt, const cuzk_g1_jac *zc)
{
    cuzk_gt *acc[5] = {&f->tab, &f->uab, &f->zab, &f->tc, &f->uc};
    cuzk_g1_jac z;
    cuzk_g1_jac_from_affine(&z, &p->agg_c);
    for (unsigned i = 0; i < p->rounds; i++) {
        for (unsigned j = 0; j < 10; j++) cuzk_gt_mul(acc[j / 2], acc[j / 2], &gt[i * 10 + j]);
        cuzk_g1_jac_add(&z, &z, &zc[2 * i]), cuzk_g1_jac_add(&z, &z, &zc[2 * i + 1]);
    }
    cuzk_g1_jac_to_affine(&f->zc, &z);
}

/* The rounds' challenges first (each from the previous one and its round's messages alone), then
 * every round's powers at once over nt threads: 10·log n GT exponentiations, the bulk of a
 * verification, independent of each other. */
static int replay(folded *f, const cuzk_snarkpack_proof *p, const cuzk_fr *hcom, const cuzk_fr *r,
                  cuzk_snarkpack_version v, unsigned nt)
{
    cuzk_fr c_inv;
    int rc = sp_challenge_gipa0(&c_inv, hcom, &p->ip_ab, &p->agg_c, r);
    for (unsigned i = 0; !rc && i < p->rounds; i++) {
        if ((rc = sp_challenge_round(&c_inv, i, &p->round[i], v))) break;
        f->ch_inv[i] = c_inv;
        cuzk_fr_inv(&f->ch[i], &c_inv);
    }
    if (rc) return rc;
    f->tab = p->com_ab.t, f->uab = p->com_ab.u, f->zab = p->ip_ab, f->tc = p->com_c.t, f->uc = p->com_c.u;
    replay_ctx c = {p, f, malloc(p->rounds * 10 * sizeof *c.gt), malloc(p->rounds * 2 * sizeof *c.zc)};
    if (!c.gt || !c.zc) return free(c.gt), free(c.zc), CUZK_ERR_NO_MEMORY;
    cuzk_parallel_for((size_t)p->rounds * REPLAY_TERMS, 1, nt, replay_term, &c);
    replay_fold(f, p, c.gt, c.zc);
    free(c.gt), free(c.zc);
    return CUZK_OK;
}

/* a - k·b in G1 / G2 (affine) */
static void g1_sub_mul(cuzk_g1_affine *out, const cuzk_g1_affine *a, const cuzk_g1_affine *b, const cuzk_fr *k)
{
    cuzk_g1_jac t, u;
    cuzk_g1_jac_from_affine(&t, b);
    cuzk_g1_jac_mul_fr(&t, &t, k);
    cuzk_g1_jac_neg(&t, &t);
    cuzk_g1_jac_from_affine(&u, a);
    cuzk_g1_jac_add(&t, &t, &u);
    cuzk_g1_jac_to_affine(out, &t);
}

static void g2_sub_mul(cuzk_g2_affine *out, const cuzk_g2_affine *a, const cuzk_g2_affine *b, const cuzk_fr *k)
{
    cuzk_g2_jac t, u;
    cuzk_g2_jac_from_affine(&t, b);
    cuzk_g2_jac_mul_fr(&t, &t, k);
    cuzk_g2_jac_neg(&t, &t);
    cuzk_g2_jac_from_affine(&u, a);
    cuzk_g2_jac_add(&t, &t, &u);
    cuzk_g2_jac_to_affine(out, &t);
}

static void set2(check *k, const char *name, const cuzk_g1_affine *p0, const cuzk_g2_affine *q0,
                 const cuzk_g1_affine *p1, const cuzk_g2_affine *q1, const cuzk_gt *target)
{
    k->name = name, k->n = p1 ? 2 : 1;
    k->P[0] = *p0, k->Q[0] = *q0;
    if (p1) k->P[1] = *p1, k->Q[1] = *q1;
    k->target = target ? *target : cuzk_fp12_one;
}

/* TIPP and MIPP's pairing relations on the final values (checks 0..4). */
static void tipp_mipp_checks(check *k, const cuzk_snarkpack_proof *p, const folded *f)
{
    set2(&k[0], "TIPP: e(final A, final B) != Z_AB", &p->final_a, &p->final_b, NULL, NULL, &f->zab);
    set2(&k[1], "TIPP: commitment T_AB to the final A, B", &p->final_a, &p->final_vkey[0], &p->final_wkey[0],
         &p->final_b, &f->tab);
    set2(&k[2], "TIPP: commitment U_AB to the final A, B", &p->final_a, &p->final_vkey[1], &p->final_wkey[1],
         &p->final_b, &f->uab);
    set2(&k[3], "MIPP: commitment T_C to the final C", &p->final_c, &p->final_vkey[0], NULL, NULL, &f->tc);
    set2(&k[4], "MIPP: commitment U_C to the final C", &p->final_c, &p->final_vkey[1], NULL, NULL, &f->uc);
}

/* The KZG openings of the final keys at z (checks 5..8): e(-g, v - y·h)·e(g^a - z·g, pi) = 1 and
 * e(w - y·g, -h)·e(pi, h^a - z·h) = 1, with y_v = f_v(z), y_w = z^n·f_w(z). */
static void kzg_checks(check *k, const cuzk_snarkpack_proof *p, const cuzk_snarkpack_vk *svk, const folded *f,
                       const cuzk_fr *z, const cuzk_fr *r)
{
    unsigned l = p->rounds;
    cuzk_fr rev[CUZK_SNARKPACK_MAX_LOG], rev_inv[CUZK_SNARKPACK_MAX_LOG], yv, yw, zn, r_inv;
    for (unsigned j = 0; j < l; j++) rev[j] = f->ch[l - 1 - j], rev_inv[j] = f->ch_inv[l - 1 - j];
    cuzk_fr_inv(&r_inv, r);
    sp_poly_eval_product(&yv, rev_inv, l, z, &cuzk_fr_one);
    sp_poly_eval_product(&yw, rev, l, z, &r_inv);
    sp_fr_pow_u64(&zn, z, svk->n);
    cuzk_fr_mul(&yw, &yw, &zn);
    cuzk_g1_affine ng, a, b;
    cuzk_g2_affine nh, c, d;
    cuzk_g1_affine_neg(&ng, &svk->g);
    cuzk_g2_affine_neg(&nh, &svk->h);
    static const char *const name[4] = {"KZG: opening of the final v key (alpha)", "KZG: opening of the final "
                                        "v key (beta)", "KZG: opening of the final w key (alpha)",
                                        "KZG: opening of the final w key (beta)"};
    for (int i = 0; i < 2; i++) {
        g2_sub_mul(&c, &p->final_vkey[i], &svk->h, &yv);
        g1_sub_mul(&a, i ? &svk->g_beta : &svk->g_alpha, &svk->g, z);
        set2(&k[5 + i], name[i], &ng, &c, &a, &p->vkey_opening[i], NULL);
        g1_sub_mul(&b, &p->final_wkey[i], &svk->g, &yw);
        g2_sub_mul(&d, i ? &svk->h_beta : &svk->h_alpha, &svk->h, z);
        set2(&k[7 + i], name[2 + i], &b, &nh, &p->wkey_opening[i], &d, NULL);
    }
}

/* Check 9, the aggregated Groth16 equation: e(alpha·S, beta)·e(ic_0·S + sum_i ic_{i+1}·s_i, gamma)·
 * e(agg_c, delta) = ip_ab, S = sum_j r^j = (r^n - 1)/(r - 1), s_i = sum_j r^j·x_{j,i}. */
static int groth16_check(check *k, const cuzk_groth16_vk *vk, const cuzk_snarkpack_proof *p, const cuzk_fr *x,
                         size_t n, size_t ni, const cuzk_fr *r, unsigned nt)
{
    cuzk_fr *s = calloc(ni + 1, sizeof *s), rj = cuzk_fr_one, t, sum;
    if (!s) return CUZK_ERR_NO_MEMORY;
    for (size_t j = 0; j < n; j++) {
        for (size_t i = 0; i < ni; i++) cuzk_fr_mul(&t, &x[j * ni + i], &rj), cuzk_fr_add(&s[i + 1], &s[i + 1], &t);
        cuzk_fr_mul(&rj, &rj, r);
    }
    cuzk_fr_sub(&sum, &rj, &cuzk_fr_one); /* rj = r^n */
    cuzk_fr_sub(&t, r, &cuzk_fr_one);
    cuzk_fr_inv(&t, &t);
    cuzk_fr_mul(&sum, &sum, &t);
    s[0] = sum;
    cuzk_g1_affine ic, al;
    int rc = sp_g1_msm(&ic, vk->ic, s, ni + 1, nt, NULL);
    free(s);
    if (rc) return rc;
    cuzk_g1_jac j;
    cuzk_g1_jac_from_affine(&j, &vk->alpha_g1);
    cuzk_g1_jac_mul_fr(&j, &j, &sum);
    cuzk_g1_jac_to_affine(&al, &j);
    set2(k, "Groth16: the aggregated equation e(A, B^r) = e(alpha, beta)^S e(inputs, gamma) e(C^r, delta)", &al,
         &vk->beta_g2, &ic, &vk->gamma_g2, &p->ip_ab);
    k->n = 3, k->P[2] = p->agg_c, k->Q[2] = vk->delta_g2;
    return CUZK_OK;
}

static bool check_one(const check *k)
{
    cuzk_fp12 f;
    cuzk_gt g;
    cuzk_pairing_miller_loop(&f, k->P, k->Q, k->n);
    cuzk_pairing_final_exp(&g, &f);
    return cuzk_gt_eq(&g, &k->target);
}

/* prod_k e(rho_k·P, Q) = prod_k target_k^rho_k with 128-bit rho_k != 0 from rng. */
static bool check_batch(const check *k, size_t nk, cuzk_rng *rng)
{
    cuzk_g1_affine P[NCHECKS * MAX_PAIRS];
    cuzk_g2_affine Q[NCHECKS * MAX_PAIRS];
    cuzk_gt rhs = cuzk_fp12_one, t;
    size_t m = 0;
    for (size_t i = 0; i < nk; i++) {
        uint64_t rho[4] = {cuzk_rng_u64(rng), cuzk_rng_u64(rng) | 1, 0, 0};
        for (size_t j = 0; j < k[i].n; j++, m++) {
            cuzk_g1_jac a;
            cuzk_g1_jac_from_affine(&a, &k[i].P[j]);
            cuzk_g1_jac_mul(&a, &a, rho);
            cuzk_g1_jac_to_affine(&P[m], &a);
            Q[m] = k[i].Q[j];
        }
        cuzk_gt_pow(&t, &k[i].target, rho);
        cuzk_gt_mul(&rhs, &rhs, &t);
    }
    cuzk_fp12 f;
    cuzk_gt g;
    cuzk_pairing_miller_loop(&f, P, Q, m);
    cuzk_pairing_final_exp(&g, &f);
    return cuzk_gt_eq(&g, &rhs);
}

static int check_counts(const cuzk_snarkpack_proof *p, const cuzk_snarkpack_vk *svk, const cuzk_groth16_vk *vk,
                        size_t n, size_t ni, cuzk_snarkpack_version v, char *err, size_t err_len)
{
    if (v != CUZK_SNARKPACK_V1 && v != CUZK_SNARKPACK_V2)
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "aggregate: unknown SnarkPack version %d", (int)v);
    if (p->nproofs < 2 || p->nproofs != svk->n || (1u << p->rounds) != p->nproofs)
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "aggregate: the proof holds %u proofs, the SRS key "
                         "is for %u", p->nproofs, svk->n);
    if (n != p->nproofs)
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "aggregate: %zu rows of public inputs for %u proofs",
                         n, p->nproofs);
    if (vk->n_ic != ni + 1)
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "aggregate: %zu public inputs per proof, the "
                         "verifying key takes %zu", ni, vk->n_ic ? vk->n_ic - 1 : 0);
    return CUZK_OK;
}

/* Every relation of the proof into k (NCHECKS); MIPP's one G1 relation checked here. */
static int build_checks(check *k, const cuzk_snarkpack_proof *p, const cuzk_snarkpack_vk *svk,
                        const cuzk_groth16_vk *vk, const cuzk_fr *x, size_t ni, const uint8_t *include,
                        size_t include_len, cuzk_snarkpack_version v, unsigned nt, const char **g1_fail)
{
    folded *f = malloc(sizeof *f);
    cuzk_fr hcom, r, extra, z, fr;
    int rc = f ? sp_challenge_hcom(&hcom, &p->com_ab, &p->com_c) : CUZK_ERR_NO_MEMORY;
    if (!rc) rc = sp_challenge_r(&r, &hcom, include, include_len);
    if (!rc) rc = replay(f, p, &hcom, &r, v, nt);
    if (!rc) rc = sp_challenge_extra(&extra, &f->ch[p->rounds - 1], p);
    if (!rc) rc = sp_challenge_z(&z, v == CUZK_SNARKPACK_V1 ? &f->ch[p->rounds - 1] : &extra, p, v);
    if (!rc) rc = groth16_check(&k[9], vk, p, x, p->nproofs, ni, &r, nt);
    if (!rc) {
        tipp_mipp_checks(k, p, f);
        kzg_checks(k, p, svk, f, &z, &r);
        cuzk_fr rev_inv[CUZK_SNARKPACK_MAX_LOG];
        for (unsigned j = 0; j < p->rounds; j++) rev_inv[j] = f->ch_inv[p->rounds - 1 - j];
        sp_poly_eval_product(&fr, rev_inv, p->rounds, &r, &cuzk_fr_one);
        cuzk_g1_jac c;
        cuzk_g1_affine ca;
        cuzk_g1_jac_from_affine(&c, &p->final_c);
        cuzk_g1_jac_mul_fr(&c, &c, &fr);
        cuzk_g1_jac_to_affine(&ca, &c);
        *g1_fail = cuzk_g1_affine_eq(&ca, &f->zc) ? NULL : "MIPP: final C^r != Z_C";
    }
    free(f);
    return rc;
}

int cuzk_snarkpack_verify(const cuzk_snarkpack_proof *p, const cuzk_snarkpack_vk *svk, const cuzk_groth16_vk *vk,
                          const cuzk_fr *inputs, size_t n, size_t n_inputs, const uint8_t *include,
                          size_t include_len, cuzk_snarkpack_version v, cuzk_rng *rng, unsigned nthreads,
                          char *err, size_t err_len)
{
    if (!p || !svk || !vk || (!inputs && n_inputs))
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "aggregate: missing argument");
    int rc = check_counts(p, svk, vk, n, n_inputs, v, err, err_len);
    if (rc) return rc;
    cuzk_rng own;
    if (!rng && cuzk_rng_seed_os(&own)) return cuzk_errf(err, err_len, CUZK_ERR_IO, "aggregate: no OS entropy");
    check *k = calloc(NCHECKS, sizeof *k);
    const char *g1_fail = NULL;
    rc = k ? build_checks(k, p, svk, vk, inputs, n_inputs, include, include_len, v, nthreads ? nthreads : 1, &g1_fail)
           : CUZK_ERR_NO_MEMORY;
    if (rc) return free(k), cuzk_errf(err, err_len, rc, "aggregate: %s", cuzk_strerror(rc));
    if (!g1_fail && check_batch(k, NCHECKS, rng ? rng : &own)) return free(k), CUZK_OK;
    for (size_t i = 0; !g1_fail && i < NCHECKS; i++)
        if (!check_one(&k[i])) g1_fail = k[i].name;
    rc = cuzk_errf(err, err_len, CUZK_ERR_VERIFY_FAILED, "aggregate: %s",
                   g1_fail ? g1_fail : "the batched pairing check (each relation alone holds)");
    free(k);
    return rc;
}

/*
 * A synthetic snarkjs zkey and witness in memory, shaped like the zkeys
 * snarkjs writes (constraint rows, then one A row per public wire and ONE;
 * section-4 records sorted by row; queries with their points at infinity
 * dropped) but with random points instead of a trusted setup: its proofs do
 * not verify. It exists to compare provers with each other (the GPU's against
 * the CPU's, byte for byte) and to time them at any size without a ptau.
 * Real keys come from snarkjs (tests/circom.test.sh).
 *
 * Shape per constraint row: A = 1 or 2 random wires, B = 1 random wire, with
 * random coefficients. A holds the wires j % 3 != 2, B1 and B2 the even ones,
 * ONE and the public wires always. Witness values: 1/4 zero, 1/4 one, 1/16
 * r - 1, the rest random (plain integers < r).
 */
#ifndef CUZK_TESTS_CIRCOM_SYNTH_H
#define CUZK_TESTS_CIRCOM_SYNTH_H

#include <stdlib.h>
#include <string.h>

#include "cuzk/circom/circom.h"
#include "cuzk/util/handle.h"
#include "cuzk/util/rng.h"

/* count random G1 / G2 affine points: a random start plus multiples of a
 * random step (one batch inversion, not count scalar multiplications). */
static void synth_g1_points(cuzk_g1_affine *out, size_t count, cuzk_rng *rng)
{
    cuzk_g1_affine gen = cuzk_g1_generator;
    cuzk_g1_jac g, p, q;
    cuzk_fr k;
    cuzk_g1_jac_from_affine(&g, &gen);
    cuzk_fr_random(&k, rng);
    cuzk_g1_jac_mul_fr(&p, &g, &k);
    cuzk_fr_random(&k, rng);
    cuzk_g1_jac_mul_fr(&q, &g, &k);
    cuzk_g1_jac *tmp = malloc((count ? count : 1) * sizeof *tmp);
    for (size_t i = 0; i < count; i++) tmp[i] = p, cuzk_g1_jac_add(&p, &p, &q);
    cuzk_g1_jac_batch_to_affine(out, tmp, count);
    free(tmp);
}

static void synth_g2_points(cuzk_g2_affine *out, size_t count, cuzk_rng *rng)
{
    cuzk_g2_affine gen = cuzk_g2_generator;
    cuzk_g2_jac g, p, q;
    cuzk_fr k;
    cuzk_g2_jac_from_affine(&g, &gen);
    cuzk_fr_random(&k, rng);
    cuzk_g2_jac_mul_fr(&p, &g, &k);
    cuzk_fr_random(&k, rng);
    cuzk_g2_jac_mul_fr(&q, &g, &k);
    cuzk_g2_jac *tmp = malloc((count ? count : 1) * sizeof *tmp);
    for (size_t i = 0; i < count; i++) tmp[i] = p, cuzk_g2_jac_add(&p, &p, &q);
    cuzk_g2_jac_batch_to_affine(out, tmp, count);
    free(tmp);
}

static void synth_value(uint64_t v[4], cuzk_rng *rng)
{
    const uint64_t kind = cuzk_rng_u64(rng) & 15;
    cuzk_fr x;
    memset(v, 0, 32);
    if (kind < 4) return;
    if (kind < 8) {
        v[0] = 1;
        return;
    }
    if (kind == 8) {
        cuzk_fr_set_u64(&x, 1);
        cuzk_fr_neg(&x, &x);
    } else {
        cuzk_fr_random(&x, rng);
    }
    cuzk_fr_to_limbs(v, &x);
}

static uint32_t *synth_query_idx(size_t *n, uint32_t n_vars, uint32_t n_public, int mod, int skip)
{
    uint32_t *idx = malloc(n_vars * sizeof *idx);
    size_t k = 0;
    for (uint32_t j = 0; j < n_vars; j++)
        if (j <= n_public || (int)(j % (uint32_t)mod) != skip) idx[k++] = j;
    *n = k;
    return idx;
}

/* z and w for a domain of 2^log_n rows (n_public < 2^log_n - 1). Free with
 * cuzk_circom_zkey_free / cuzk_circom_wtns_free. */
static void synth_circom(cuzk_circom_zkey *z, cuzk_circom_wtns *w, unsigned log_n, uint32_t n_public,
                         cuzk_rng *rng)
{
    memset(z, 0, sizeof *z);
    z->key = cuzk_handle_new(); /* a new zkey, as cuzk_circom_zkey_read gives it */
    const uint32_t n = 1u << log_n, m = n - n_public - 1; /* constraint rows */
    const uint32_t nv = m + n_public + 1;                 /* about one wire per row */
    z->n_vars = nv, z->n_public = n_public, z->domain_size = n, z->log_n = log_n;
    cuzk_g1_affine g1[3];
    cuzk_g2_affine g2[3];
    synth_g1_points(g1, 3, rng);
    synth_g2_points(g2, 3, rng);
    z->alpha_g1 = g1[0], z->beta_g1 = g1[1], z->delta_g1 = g1[2];
    z->beta_g2 = g2[0], z->gamma_g2 = g2[1], z->delta_g2 = g2[2];
    z->ic = malloc((n_public + 1) * sizeof *z->ic);
    synth_g1_points(z->ic, n_public + 1, rng);
    z->coefs = malloc((3 * (size_t)m + n_public + 1) * sizeof *z->coefs);
    size_t nc = 0;
    for (uint32_t row = 0; row < m; row++) {
        const unsigned terms = 1 + (cuzk_rng_u64(rng) & 1);
        for (unsigned t = 0; t < terms + 1; t++) {
            cuzk_circom_coef *c = &z->coefs[nc++];
            c->matrix = t == terms; /* the last term is B's */
            c->constraint = row;
            c->signal = (uint32_t)(cuzk_rng_u64(rng) % nv);
            cuzk_fr_random(&c->value, rng);
        }
    }
    for (uint32_t i = 0; i <= n_public; i++) {
        cuzk_circom_coef *c = &z->coefs[nc++];
        c->matrix = 0, c->constraint = m + i, c->signal = i;
        cuzk_fr_set_u64(&c->value, 1);
    }
    z->n_coefs = nc;
    z->a.idx = synth_query_idx(&z->a.n, nv, n_public, 3, 2);
    z->b_g1.idx = synth_query_idx(&z->b_g1.n, nv, n_public, 2, 1);
    z->b_g2.idx = synth_query_idx(&z->b_g2.n, nv, n_public, 2, 1);
    z->a.p = malloc(z->a.n * sizeof *z->a.p);
    z->b_g1.p = malloc(z->b_g1.n * sizeof *z->b_g1.p);
    z->b_g2.p = malloc(z->b_g2.n * sizeof *z->b_g2.p);
    z->c = malloc((nv - n_public - 1) * sizeof *z->c);
    z->h = malloc(n * sizeof *z->h);
    synth_g1_points(z->a.p, z->a.n, rng);
    synth_g1_points(z->b_g1.p, z->b_g1.n, rng);
    synth_g2_points(z->b_g2.p, z->b_g2.n, rng);
    synth_g1_points(z->c, nv - n_public - 1, rng);
    synth_g1_points(z->h, n, rng);
    w->n = nv;
    w->values = malloc(nv * sizeof *w->values);
    memset(w->values[0], 0, 32);
    w->values[0][0] = 1;
    for (uint32_t j = 1; j < nv; j++) synth_value(w->values[j], rng);
}

#endif

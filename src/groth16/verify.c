/* Groth16 proof encoding and (batch) verification; see groth16_verify.h. */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/groth16/groth16_verify.h"
#include "cuzk/msm/msm.h"

void cuzk_groth16_proof_encode(uint8_t out[CUZK_GROTH16_PROOF_BYTES], const cuzk_groth16_proof *p)
{
    cuzk_g1_compress(out, &p->a);
    cuzk_g2_compress(out + CUZK_G1_COMPRESSED_BYTES, &p->b);
    cuzk_g1_compress(out + CUZK_G1_COMPRESSED_BYTES + CUZK_G2_COMPRESSED_BYTES, &p->c);
}

static int proof_fail(cuzk_groth16_proof *out, cuzk_groth16_proof_error *err, cuzk_groth16_proof_part part,
                      int code)
{
    memset(out, 0, sizeof *out);
    if (err) {
        err->index = 0;
        err->part = part;
        err->code = code;
    }
    return code;
}

int cuzk_groth16_proof_decode(cuzk_groth16_proof *out, const uint8_t in[CUZK_GROTH16_PROOF_BYTES],
                              cuzk_groth16_proof_error *err)
{
    int rc;
    if ((rc = cuzk_g1_uncompress(&out->a, in)) != CUZK_OK)
        return proof_fail(out, err, CUZK_GROTH16_PART_A, rc);
    if (cuzk_g1_affine_is_infinity(&out->a))
        return proof_fail(out, err, CUZK_GROTH16_PART_A, CUZK_ERR_FORMAT);
    if ((rc = cuzk_g2_uncompress(&out->b, in + CUZK_G1_COMPRESSED_BYTES)) != CUZK_OK)
        return proof_fail(out, err, CUZK_GROTH16_PART_B, rc);
    if (cuzk_g2_affine_is_infinity(&out->b))
        return proof_fail(out, err, CUZK_GROTH16_PART_B, CUZK_ERR_FORMAT);
    if ((rc = cuzk_g1_uncompress(&out->c, in + CUZK_G1_COMPRESSED_BYTES + CUZK_G2_COMPRESSED_BYTES)) != CUZK_OK)
        return proof_fail(out, err, CUZK_GROTH16_PART_C, rc);
    if (cuzk_g1_affine_is_infinity(&out->c))
        return proof_fail(out, err, CUZK_GROTH16_PART_C, CUZK_ERR_FORMAT);
    if (err) {
        err->index = 0;
        err->part = CUZK_GROTH16_PART_NONE;
        err->code = CUZK_OK;
    }
    return CUZK_OK;
}

int cuzk_groth16_proofs_decode(cuzk_groth16_proof *out, size_t n, const uint8_t *in, size_t len,
                               cuzk_groth16_proof_error *err)
{
    if (err) {
        err->index = 0;
        err->part = CUZK_GROTH16_PART_NONE;
        err->code = CUZK_OK;
    }
    if (n > SIZE_MAX / CUZK_GROTH16_PROOF_BYTES || len != n * CUZK_GROTH16_PROOF_BYTES) {
        if (err)
            err->code = CUZK_ERR_BAD_LENGTH;
        return CUZK_ERR_BAD_LENGTH;
    }
    if (n > 0 && (!out || !in)) {
        if (err)
            err->code = CUZK_ERR_INVALID_ARG;
        return CUZK_ERR_INVALID_ARG;
    }
    for (size_t i = 0; i < n; i++) {
        int rc = cuzk_groth16_proof_decode(&out[i], in + i * CUZK_GROTH16_PROOF_BYTES, err);
        if (rc != CUZK_OK) {
            if (err)
                err->index = i;
            memset(out, 0, n * sizeof *out);
            return rc;
        }
    }
    return CUZK_OK;
}

int cuzk_groth16_prepare_vk(cuzk_groth16_pvk *pvk, const cuzk_groth16_vk *vk)
{
    if (!pvk)
        return CUZK_ERR_INVALID_ARG;
    memset(pvk, 0, sizeof *pvk);
    if (!vk || vk->n_ic == 0 || !vk->ic || vk->n_ic > SIZE_MAX / sizeof(cuzk_g1_affine))
        return CUZK_ERR_INVALID_ARG;
    pvk->ic = malloc(vk->n_ic * sizeof *pvk->ic);
    if (!pvk->ic)
        return CUZK_ERR_NO_MEMORY;
    memcpy(pvk->ic, vk->ic, vk->n_ic * sizeof *pvk->ic);
    pvk->n_ic = vk->n_ic;
    cuzk_pairing(&pvk->alpha_beta, &vk->alpha_g1, &vk->beta_g2);
    cuzk_g2_affine_neg(&pvk->neg_gamma_g2, &vk->gamma_g2);
    cuzk_g2_affine_neg(&pvk->neg_delta_g2, &vk->delta_g2);
    return CUZK_OK;
}

void cuzk_groth16_pvk_free(cuzk_groth16_pvk *pvk)
{
    if (!pvk)
        return;
    free(pvk->ic);
    memset(pvk, 0, sizeof *pvk);
}

/* acc = c0·ic[0] + sum_j s_j·ic[j+1] (c0 = NULL means 1). */
static int ic_combine(cuzk_g1_jac *acc, const cuzk_groth16_pvk *pvk, const cuzk_fr *c0, const cuzk_fr *s,
                      size_t n)
{
    cuzk_g1_jac t;
    int rc = cuzk_g1_msm(acc, pvk->ic + 1, s, n, 1);
    if (rc != CUZK_OK)
        return rc;
    cuzk_g1_jac_from_affine(&t, &pvk->ic[0]);
    if (c0)
        cuzk_g1_jac_mul_fr(&t, &t, c0);
    cuzk_g1_jac_add(acc, acc, &t);
    return CUZK_OK;
}

int cuzk_groth16_verify(const cuzk_groth16_pvk *pvk, const cuzk_groth16_proof *proof, const cuzk_fr *inputs,
                        size_t n_inputs)
{
    if (!pvk || !proof || !pvk->ic || pvk->n_ic == 0 || n_inputs != pvk->n_ic - 1 || (n_inputs && !inputs))
        return CUZK_ERR_INVALID_ARG;
    cuzk_g1_jac acc;
    int rc = ic_combine(&acc, pvk, NULL, inputs, n_inputs);
    if (rc != CUZK_OK)
        return rc;
    cuzk_g1_affine P[3];
    cuzk_g2_affine Q[3];
    P[0] = proof->a;
    Q[0] = proof->b;
    cuzk_g1_jac_to_affine(&P[1], &acc);
    Q[1] = pvk->neg_gamma_g2;
    P[2] = proof->c;
    Q[2] = pvk->neg_delta_g2;
    cuzk_fp12 f;
    cuzk_gt g;
    cuzk_pairing_miller_loop(&f, P, Q, 3);
    cuzk_pairing_final_exp(&g, &f);
    return cuzk_gt_eq(&g, &pvk->alpha_beta) ? CUZK_OK : CUZK_ERR_VERIFY_FAILED;
}

int cuzk_groth16_verify_batch_rng(const cuzk_groth16_pvk *pvk, const cuzk_groth16_proof *proofs, size_t n,
                                  const cuzk_fr *inputs, size_t n_inputs, cuzk_rng *rng)
{
    if (!pvk || !rng || !pvk->ic || pvk->n_ic == 0 || n_inputs != pvk->n_ic - 1)
        return CUZK_ERR_INVALID_ARG;
    if (n == 0)
        return CUZK_OK;
    if (!proofs || (n_inputs && !inputs))
        return CUZK_ERR_INVALID_ARG;
    if (n > (SIZE_MAX / 4) / (sizeof(cuzk_g2_affine) + sizeof(cuzk_g1_jac) + 2 * sizeof(cuzk_fr)))
        return CUZK_ERR_NO_MEMORY;

    int rc = CUZK_ERR_NO_MEMORY;
    cuzk_fr *r = malloc(n * sizeof *r);
    cuzk_fr *s = calloc(n_inputs ? n_inputs : 1, sizeof *s);
    cuzk_g1_jac *ra = malloc(n * sizeof *ra);
    cuzk_g1_affine *P = malloc((n + 2) * sizeof *P);
    cuzk_g2_affine *Q = malloc((n + 2) * sizeof *Q);
    cuzk_g1_affine *cs = malloc(n * sizeof *cs);
    if (!r || !s || !ra || !P || !Q || !cs)
        goto out;

    /* r_i: nonzero 128-bit integers (< r, so their cuzk_fr is the same value). */
    cuzk_fr rsum = cuzk_fr_zero;
    for (size_t i = 0; i < n; i++) {
        uint64_t k[4] = {0, 0, 0, 0};
        do {
            k[0] = cuzk_rng_u64(rng);
            k[1] = cuzk_rng_u64(rng);
        } while (k[0] == 0 && k[1] == 0);
        cuzk_fr_from_limbs(&r[i], k);
        cuzk_fr_add(&rsum, &rsum, &r[i]);
        cuzk_g1_jac_from_affine(&ra[i], &proofs[i].a);
        cuzk_g1_jac_mul(&ra[i], &ra[i], k);
        cs[i] = proofs[i].c;
        const cuzk_fr *x = inputs + i * n_inputs;
        for (size_t j = 0; j < n_inputs; j++) {
            cuzk_fr t;
            cuzk_fr_mul(&t, &r[i], &x[j]);
            cuzk_fr_add(&s[j], &s[j], &t);
        }
    }
    cuzk_g1_jac_batch_to_affine(P, ra, n);
    for (size_t i = 0; i < n; i++)
        Q[i] = proofs[i].b;

    /* sum r_i·acc_i = (sum r_i)·ic[0] + sum_j (sum_i r_i·x_ij)·ic[j+1] */
    cuzk_g1_jac acc, csum;
    if ((rc = ic_combine(&acc, pvk, &rsum, s, n_inputs)) != CUZK_OK)
        goto out;
    if ((rc = cuzk_g1_msm(&csum, cs, r, n, 1)) != CUZK_OK)
        goto out;
    cuzk_g1_jac_to_affine(&P[n], &acc);
    Q[n] = pvk->neg_gamma_g2;
    cuzk_g1_jac_to_affine(&P[n + 1], &csum);
    Q[n + 1] = pvk->neg_delta_g2;

    cuzk_fp12 f;
    cuzk_gt g, rhs;
    uint64_t e[4];
    cuzk_pairing_miller_loop(&f, P, Q, n + 2);
    cuzk_pairing_final_exp(&g, &f);
    /* GT has order r, so the exponent may be reduced mod r. */
    cuzk_fr_to_limbs(e, &rsum);
    cuzk_gt_pow(&rhs, &pvk->alpha_beta, e);
    rc = cuzk_gt_eq(&g, &rhs) ? CUZK_OK : CUZK_ERR_VERIFY_FAILED;
out:
    free(r);
    free(s);
    free(ra);
    free(P);
    free(Q);
    free(cs);
    return rc;
}

int cuzk_groth16_verify_batch(const cuzk_groth16_pvk *pvk, const cuzk_groth16_proof *proofs, size_t n,
                              const cuzk_fr *inputs, size_t n_inputs)
{
    cuzk_rng rng;
    if (cuzk_rng_seed_os(&rng) != 0)
        return CUZK_ERR_IO;
    int rc = cuzk_groth16_verify_batch_rng(pvk, proofs, n, inputs, n_inputs, &rng);
    memset(&rng, 0, sizeof rng);
    return rc;
}

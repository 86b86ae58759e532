/*
 * circom / snarkjs interop over BLS12-381: read circom's .r1cs and .wtns,
 * snarkjs's Groth16 .zkey and its JSON files (proof.json, public.json,
 * verification_key.json), prove the snarkjs way, verify snarkjs proofs.
 * The formats are written down in docs/circom.md (facts from iden3's
 * r1csfile, binfileutils and snarkjs sources).
 *
 * Every reader validates its input completely and reports the first problem
 * in a cuzk_circom_error (code, byte offset, message naming the file part):
 * wrong magic/version, wrong field size or prime ("not BLS12-381"),
 * truncated or oversized sections, a known section present twice, a field
 * element >= its modulus, a point off the curve, and (in VALIDATE mode) a
 * point outside the prime-order subgroup (snarkjs does not check this).
 * No reader trusts a count before checking it against the bytes present.
 *
 * Numbers in the binary formats are little endian. Field elements in .r1cs
 * and .wtns are plain integers; in .zkey, Fp coordinates are Montgomery form
 * (x·2^384 mod p, which is exactly cuzk_fp's limb layout) with the point at
 * infinity as all-zero bytes (cuzk's (0, 0)), and the coefficients of
 * section 4 are stored as c·R^2 mod r with R = 2^256.
 */
#ifndef CUZK_CIRCOM_H
#define CUZK_CIRCOM_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/ff/fr.h"
#include "cuzk/ec/g1.h"
#include "cuzk/ec/g2.h"
#include "cuzk/gpu/gpu.h"
#include "cuzk/groth16/groth16.h"
#include "cuzk/groth16/groth16_params.h"
#include "cuzk/groth16/groth16_verify.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_circom_error {
    int code;        /* the cuzk_err returned */
    uint64_t offset; /* byte offset of the offending item (binary formats) */
    char msg[384];   /* "zkey: section 5 (A) point 17 at offset 1234: not on the curve" */
} cuzk_circom_error;

typedef enum cuzk_circom_mode {
    CUZK_CIRCOM_VALIDATE = 0, /* every point: canonical, on the curve, in the subgroup */
    CUZK_CIRCOM_TRUSTED = 1   /* the query points (sections 5-9) skip the subgroup check */
} cuzk_circom_mode;

/* ---- .r1cs (version 1) ------------------------------------------------- */

/* Linear combinations in CSR form: constraint k, matrix m (0 = A, 1 = B,
 * 2 = C) has the terms [start[3k + m], start[3k + m + 1]) of wire/coef. */
typedef struct cuzk_circom_r1cs {
    uint32_t n_wires; /* including wire 0 = ONE */
    uint32_t n_pub_out, n_pub_in, n_prv_in;
    uint64_t n_labels;
    uint32_t n_constraints;
    size_t n_terms;
    size_t *start;  /* 3·n_constraints + 1 */
    uint32_t *wire; /* n_terms, each wire at most once per combination */
    cuzk_fr *coef;  /* n_terms */
} cuzk_circom_r1cs;

/* Sections by type (any order; unknown types ignored as the format says):
 * 1 header (required), 2 constraints (required), 3 wire-to-label map
 * (optional, size checked), 4/5 custom gates: CUZK_ERR_UNSUPPORTED. */
int cuzk_circom_r1cs_read_mem(cuzk_circom_r1cs *out, const uint8_t *buf, size_t len,
                              cuzk_circom_error *err);
int cuzk_circom_r1cs_read_file(cuzk_circom_r1cs *out, const char *path, cuzk_circom_error *err);
void cuzk_circom_r1cs_free(cuzk_circom_r1cs *r);

/* ---- .wtns (version 2) ------------------------------------------------- */

typedef struct cuzk_circom_wtns {
    size_t n;
    uint64_t (*values)[4]; /* plain little-endian integers, each < r */
} cuzk_circom_wtns;

int cuzk_circom_wtns_read_mem(cuzk_circom_wtns *out, const uint8_t *buf, size_t len,
                              cuzk_circom_error *err);
int cuzk_circom_wtns_read_file(cuzk_circom_wtns *out, const char *path, cuzk_circom_error *err);
void cuzk_circom_wtns_free(cuzk_circom_wtns *w);

/*
 * Whether w satisfies r: w->n == n_wires, w[0] == 1, and every constraint
 * (A·w)(B·w) = C·w. CUZK_OK, CUZK_ERR_INVALID_ARG (sizes, w[0] != 1) or
 * CUZK_ERR_UNSATISFIED with *first_failed the first failing constraint and
 * *n_failed how many fail (either may be NULL).
 */
int cuzk_circom_check(const cuzk_circom_r1cs *r, const cuzk_circom_wtns *w, size_t *first_failed,
                      size_t *n_failed, cuzk_circom_error *err);

/* ---- .zkey (Groth16, version 1) ----------------------------------------- */

typedef struct cuzk_circom_coef {
    uint32_t matrix;     /* 0 = A, 1 = B */
    uint32_t constraint; /* row, < domain_size */
    uint32_t signal;     /* wire, < n_vars */
    cuzk_fr value;       /* the coefficient itself (the file's c·R^2 undone) */
} cuzk_circom_coef;

/* A list of query points with its points at infinity dropped: point k
 * belongs to wire idx[k] (ascending). */
typedef struct cuzk_circom_g1_query { size_t n; uint32_t *idx; cuzk_g1_affine *p; } cuzk_circom_g1_query;
typedef struct cuzk_circom_g2_query { size_t n; uint32_t *idx; cuzk_g2_affine *p; } cuzk_circom_g2_query;

typedef struct cuzk_circom_zkey {
    uint32_t n_vars, n_public, domain_size; /* n_public excludes ONE */
    unsigned log_n;                         /* domain_size = 2^log_n */
    cuzk_g1_affine alpha_g1, beta_g1, delta_g1;
    cuzk_g2_affine beta_g2, gamma_g2, delta_g2;
    cuzk_g1_affine *ic;           /* section 3: n_public + 1 */
    size_t n_coefs;
    cuzk_circom_coef *coefs;      /* section 4 */
    cuzk_circom_g1_query a, b_g1; /* sections 5, 6 (n_vars points in the file) */
    cuzk_circom_g2_query b_g2;    /* section 7 */
    cuzk_g1_affine *c;            /* section 8: n_vars - n_public - 1, wires n_public+1.. */
    cuzk_g1_affine *h;            /* section 9: domain_size (odd points of the doubled domain) */
    uint32_t n_contributions;     /* section 10 (phase-2 contributions; not verified) */
    uint64_t key;                 /* its points' handle (cuzk/util/handle.h): a GPU's copy of them */
} cuzk_circom_zkey;

/* Sections 1-9 required and unique, 10 optional (its header is checked),
 * other types ignored. nthreads (0 = 1) validates points in parallel; the
 * result and the error reported (the first in file order) do not depend on
 * it. */
int cuzk_circom_zkey_read_mem(cuzk_circom_zkey *out, const uint8_t *buf, size_t len,
                              cuzk_circom_mode mode, unsigned nthreads, cuzk_circom_error *err);
int cuzk_circom_zkey_read_file(cuzk_circom_zkey *out, const char *path, cuzk_circom_mode mode,
                               unsigned nthreads, cuzk_circom_error *err);
void cuzk_circom_zkey_free(cuzk_circom_zkey *z);

/* The zkey's verifying key as cuzk's (beta_g1, delta_g1 included; ic
 * malloc'd, free with cuzk_groth16_vk_free). */
int cuzk_circom_zkey_vk(cuzk_groth16_vk *out, const cuzk_circom_zkey *z);

/* ---- the snarkjs-style prover -------------------------------------------- */

typedef enum cuzk_circom_device { CUZK_CIRCOM_CPU = 0, CUZK_CIRCOM_GPU = 1 } cuzk_circom_device;

typedef struct cuzk_circom_prove_timing {
    double abc_s;                     /* A, B, C row evaluations from section 4 */
    double ntt_s;                     /* 6 NTTs: the odd-coset evaluations of A·B - C */
    double msm_s;                     /* the five MSMs together */
    /* Per MSM: the GPU prover only (the CPU prover runs the five as one
     * task list, cuzk_msm_batch, and leaves these 0). */
    double msm_a_s, msm_b_g1_s, msm_b_g2_s, msm_c_s, msm_h_s;
    double total_s;
} cuzk_circom_prove_timing;

/*
 * One Groth16 proof from a zkey and a witness, as snarkjs's groth16 prove
 * (src/groth16_prove.js) computes it:
 *   a_i, b_i = sum over section-4 coefficients of value·w[signal] per row,
 *   c_i = a_i·b_i (rows past the constraints are zero);
 *   A, B, C interpolated on the domain (generator 5), evaluated at the odd
 *   points w_2n·w_n^i of the doubled domain; h_i = A·B - C there (Z is the
 *   constant -2 on those points, folded into the zkey's H points);
 *   pi_a = alpha1 + sum w·A + r·delta1, pi_b = beta2 + sum w·B2 + s·delta2,
 *   b1 = beta1 + sum w·B1 + s·delta1,
 *   pi_c = sum w_priv·C + sum h·H + s·pi_a + r·b1 - r·s·delta1.
 * r and s are the caller's (cuzk_circom_prove draws them from the OS).
 * w must have n_vars values with w[0] = 1; public signals are w[1..n_public].
 * The rows are computed here, the rest by the Groth16 layer's prove
 * pipeline (a cuzk_groth16_job with H_ODD, plain scalars, queries by wire).
 * Returns CUZK_OK, CUZK_ERR_INVALID_ARG (sizes, w[0] != 1),
 * CUZK_ERR_NO_DEVICE (device GPU: the GPU prover needs a worker,
 * cuzk_circom_prove_gpu), CUZK_ERR_NO_MEMORY, CUZK_ERR_IO (OS entropy).
 */
int cuzk_circom_prove_rs(cuzk_groth16_proof *out, const cuzk_circom_zkey *z,
                         const cuzk_circom_wtns *w, const cuzk_fr *r, const cuzk_fr *s,
                         cuzk_circom_device device, unsigned nthreads,
                         cuzk_circom_prove_timing *timing);
int cuzk_circom_prove(cuzk_groth16_proof *out, const cuzk_circom_zkey *z, const cuzk_circom_wtns *w,
                      cuzk_circom_device device, unsigned nthreads, cuzk_circom_prove_timing *timing);

/*
 * The same proof on a GPU worker (cuzk_gpu_prove_job, include/cuzk/gpu/gpu.h):
 * the same checks, the same bytes for the same r, s. The rows are computed
 * on the CPU (section 4 is a sparse product) and go up with the witness;
 * H's six NTTs run on the device over generator 5's domain, the A, B1, B2
 * scalars are gathered there by the queries' wire indices, and the MSMs take
 * the plain witness values. The zkey's points and wire indices stay resident
 * on the device under the zkey's address: it must stay alive and unchanged
 * until cuzk_gpu_device_release(dev, z) or the device is closed (a zkey at
 * that address whose arrays or sizes differ replaces the resident copy).
 * timing (may be NULL): abc_s the CPU rows, ntt_s and msm_*_s the device
 * phases (msm_s the MSMs' sum), total_s the whole call. Error codes as
 * cuzk_circom_prove_rs; device failures as include/cuzk/gpu/gpu.h says
 * (cuzk_gpu_worker_error explains them).
 */
int cuzk_circom_prove_gpu(cuzk_gpu_worker *w, cuzk_groth16_proof *out, const cuzk_circom_zkey *z,
                          const cuzk_circom_wtns *wt, const cuzk_fr *r, const cuzk_fr *s,
                          cuzk_circom_prove_timing *timing);

/* Fresh r, s from OS entropy (CUZK_ERR_IO without it). */
int cuzk_circom_random_rs(cuzk_fr *r, cuzk_fr *s);

/* ---- JSON (jansson) -------------------------------------------------------- */

/* proof.json: {"pi_a": [x, y, "1"], "pi_b": [[x.c0, x.c1], [y.c0, y.c1],
 * ["1", "0"]], "pi_c": [...], "protocol": "groth16", "curve": "bls12381"},
 * decimal strings; infinity as ["0", "1", "0"]. The reader requires
 * protocol groth16 and curve bls12381 where present, z = 1 (or z = 0 for
 * infinity), canonical coordinates, points on the curve and in the subgroup,
 * and rejects A, B or C at infinity. */
int cuzk_circom_proof_read_json(cuzk_groth16_proof *out, const char *buf, size_t len,
                                cuzk_circom_error *err);
/* malloc'd NUL-terminated text (free()); NULL when out of memory. */
char *cuzk_circom_proof_to_json(const cuzk_groth16_proof *p);

/* public.json: an array of decimal strings < r. *out malloc'd (free()). */
int cuzk_circom_public_read_json(cuzk_fr **out, size_t *n, const char *buf, size_t len,
                                 cuzk_circom_error *err);
char *cuzk_circom_public_to_json(const uint64_t (*values)[4], size_t n);

/* verification_key.json as snarkjs exports it: protocol, curve, nPublic,
 * vk_alpha_1, vk_beta_2, vk_gamma_2, vk_delta_2, vk_alphabeta_12 (e(alpha,
 * beta) in Fp12 as [[[c0, c1] x 3] x 2]), IC (nPublic + 1 points). The
 * reader requires nPublic + 1 = length of IC and vk_alphabeta_12 to equal
 * e(alpha, beta); beta_g1 and delta_g1 (not in the file) are left at
 * infinity. */
int cuzk_circom_vk_read_json(cuzk_groth16_vk *out, const char *buf, size_t len,
                             cuzk_circom_error *err);
char *cuzk_circom_vk_to_json(const cuzk_groth16_vk *vk);

#ifdef __cplusplus
}
#endif
#endif

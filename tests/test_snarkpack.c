/*
 * SnarkPack (cuzk/groth16/snarkpack.h) on the CPU:
 *  - GT as blstrs has it: e(G1, G2) equals blstrs' Gt::generator (pinned limbs), so commitments,
 *    compressed bytes and transcripts are those of bellperson; compression round trips, the
 *    subgroup test agrees with a^r = 1, cyclotomic elements outside GT and non-canonical
 *    coordinates are refused;
 *  - the proof length bellperson's own test pins (8212 bytes for 4 proofs);
 *  - TEST SRS: serialize, read back (whole, and cut to fewer powers as rust-fil-proofs reads
 *    the real file), the TEST trailer seen; bad counts, truncation and a bad point refused
 *    naming the vector and index;
 *  - proofs of a synthetic circuit (fresh setup, fresh witnesses) aggregated with v1 and v2 for
 *    n = 2, 4, 8 and 5 proofs padded to 8, encoded, decoded and verified; deterministic over
 *    thread counts; rejected: two proofs swapped, a public input changed, rows truncated or
 *    padded, the transcript bytes changed, the other version, a flipped byte, bytes cut or
 *    appended, another circuit's key;
 *  - through an accelerator's hooks (CPU ones, counted): the CPU's bytes; a hook failing with a
 *    device's error: the caller told, the aggregation again on the CPU, the same bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/groth16/groth16.h"
#include "cuzk/groth16/snarkpack.h"
#include "cuzk/circuits/test_circuits.h"
#include "testutil.h"

static cuzk_rng rng;

/* blstrs src/gt.rs Gt::generator() = pairing(G1 generator, G2 generator): Montgomery limbs
 * (R = 2^384, as cuzk_fp keeps them), c0.c0.c0 first. */
static const uint64_t blstrs_gt_gen[72] = {
    0x1972e433a01f85c5, 0x97d32b76fd772538, 0xc8ce546fc96bcdf9, 0xcef63e7366d40614, 0xa611342781843780,
    0x13f3448a3fc6d825, 0xd26331b02e9d6995, 0x9d68a482f7797e7d, 0x9c9b29248d39ea92, 0xf4801ca2e13107aa,
    0xa16c0732bdbcb066, 0x083ca4afba360478, 0x59e261db0916b641, 0x2716b6f4b23e960d, 0xc8e55b10a0bd9c45,
    0x0bdb0bd99c4deda8, 0x8cf89ebf57fdaac5, 0x12d6b7929e777a5e, 0x5fc85188b0e15f35, 0x34a06e3a8f096365,
    0xdb3126a6e02ad62c, 0xfc6f5aa97d9a990b, 0xa12f55f5eb89c210, 0x1723703a926f8889, 0x93588f2971828778,
    0x43f65b8611ab7585, 0x3183aaf5ec279fdf, 0xfa73d7e18ac99df6, 0x64e176a6a64c99b0, 0x179fa78c58388f1f,
    0x672a0a11ca2aef12, 0x0d11b9b52aa3f16b, 0xa44412d0699d056e, 0xc01d0177221a5ba5, 0x66e0cede6c735529,
    0x05f5a71e9fddc339, 0xd30a88a1b062c679, 0x5ac56a5d35fc8304, 0xd0c834a6a81f290d, 0xcd5430c2da3707c7,
    0xf0c27ff780500af0, 0x09245da6e2d72eae, 0x9f2e0676791b5156, 0xe2d1c8234918fe13, 0x4c9e459f3c561bf4,
    0xa3e85e53b9d3e3c1, 0x820a121e21a70020, 0x15af618341c59acc, 0x7c95658c24993ab1, 0x73eb38721ca886b9,
    0x5256d749477434bc, 0x8ba41902ea504a8b, 0x04a3d3f80c86ce6d, 0x18a64a87fb686eaa, 0xbb83e71bb920cf26,
    0x2a5277ac92a73945, 0xfc0ee59f94f046a0, 0x7158cdf3786058f7, 0x7cc1061b82f945f6, 0x03f847aa9fdbe567,
    0x8078dba56134e657, 0x1cd7ec9a43998a6e, 0xb1aa599a1a993766, 0xc9a0f62f0842ee44, 0x8e159be3b605dffa,
    0x0c86ba0d4af13fc2, 0xe80ff2a06a52ffb1, 0x7694ca48721a906c, 0x7583183e03b08514, 0xf567afdd40cee4e2,
    0x9a6d96d2e526a5fc, 0x197e9f49861f2242};

static void rand_gt(cuzk_gt *out)
{
    cuzk_fr a, b;
    cuzk_g1_affine p;
    cuzk_g2_affine q;
    cuzk_fr_random(&a, &rng), cuzk_fr_random(&b, &rng);
    tu_g1_mul_gen(&p, &a), tu_g2_mul_gen(&q, &b);
    cuzk_pairing(out, &p, &q);
}

static void t_gt(void)
{
    cuzk_gt g, want, x, y;
    memcpy(&want, blstrs_gt_gen, sizeof want);
    cuzk_pairing(&g, &cuzk_g1_generator, &cuzk_g2_generator);
    CHECK_MSG(cuzk_gt_eq(&g, &want), "e(G1, G2) is not blstrs' Gt::generator");
    uint8_t b[CUZK_GT_COMPRESSED_BYTES];
    for (int i = 0; i < 4; i++) {
        rand_gt(&x);
        uint64_t r[4];
        memcpy(r, cuzk_fr_modulus, sizeof r);
        cuzk_fp12_pow(&y, &x, r, 4);
        CHECK(cuzk_fp12_is_one(&y) && cuzk_gt_in_subgroup(&x));
        CHECK(cuzk_gt_compress(b, &x) == CUZK_OK && cuzk_gt_uncompress(&y, b) == CUZK_OK && cuzk_gt_eq(&x, &y));
        /* cyclotomic but (almost surely) not of order r: f^((p^6 - 1)(p^2 + 1)) of a random f */
        cuzk_fp12 f, t;
        cuzk_fp12_random(&f, &rng);
        cuzk_fp12_conjugate(&t, &f), cuzk_fp12_inv(&f, &f), cuzk_fp12_mul(&f, &t, &f);
        cuzk_fp12_frobenius(&t, &f, 2), cuzk_fp12_mul(&f, &t, &f);
        cuzk_fp12_pow(&y, &f, r, 4);
        CHECK(!cuzk_fp12_is_one(&y) && !cuzk_gt_in_subgroup(&f));
        CHECK(cuzk_gt_compress(b, &f) == CUZK_OK && cuzk_gt_uncompress(&y, b) == CUZK_ERR_NOT_IN_SUBGROUP);
        CHECK(cuzk_gt_compress(b, &x) == CUZK_OK);
        memset(b + 48 * (cuzk_rng_u64(&rng) % 6), 0xff, 48); /* a coefficient >= p */
        CHECK(cuzk_gt_uncompress(&y, b) == CUZK_ERR_NONCANONICAL);
    }
    CHECK(cuzk_gt_compress(b, &cuzk_fp12_one) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_snarkpack_proof_size(4) == 8212 && cuzk_snarkpack_proof_size(2) == 2260 + 2976);
}

static void t_srs(const cuzk_snarkpack_srs *s)
{
    size_t len;
    char err[512];
    uint8_t *b = cuzk_snarkpack_srs_serialize(s, 1, &len);
    CHECK(b && len > 16 + 16 * (48 + 48 + 96 + 96));
    cuzk_snarkpack_srs r;
    CHECK(cuzk_snarkpack_srs_read_mem(&r, b, len, 0, 2, err, sizeof err) == CUZK_OK && r.test);
    CHECK(r.len[3] == 16 && !memcmp(r.h_beta, s->h_beta, 16 * sizeof *r.h_beta) &&
          !memcmp(r.g_alpha, s->g_alpha, 16 * sizeof *r.g_alpha) && cuzk_snarkpack_srs_max_proofs(&r) == 8);
    cuzk_snarkpack_srs_free(&r);
    /* cut to 9 powers as rust-fil-proofs cuts the real file: the rest skipped, 4 proofs served */
    CHECK(cuzk_snarkpack_srs_read_mem(&r, b, 16 + 16 * 288, 9, 1, err, sizeof err) == CUZK_OK && !r.test);
    CHECK(r.len[0] == 9 && r.file_len[0] == 16 && cuzk_g2_affine_eq(&r.h_beta[8], &s->h_beta[8]) &&
          cuzk_snarkpack_srs_max_proofs(&r) == 4);
    cuzk_snarkpack_vk vk;
    CHECK(cuzk_snarkpack_vk_for(&vk, &r, 8, err, sizeof err) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_snarkpack_vk_for(&vk, &r, 3, err, sizeof err) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_snarkpack_vk_for(&vk, &r, 4, err, sizeof err) == CUZK_OK && cuzk_g1_affine_eq(&vk.g_beta, &s->g_beta[1]));
    cuzk_snarkpack_srs_free(&r);
    /* counts over 2^20 + 1, input ending inside a vector, a point off the curve */
    uint8_t *c = malloc(len);
    memcpy(c, b, len);
    c[16 * 48 + 4] = 0x01, c[16 * 48 + 5] = 0x10; /* g_beta count 0x00110010... */
    CHECK(cuzk_snarkpack_srs_read_mem(&r, c, len, 0, 2, err, sizeof err) == CUZK_ERR_FORMAT && strstr(err, "g_beta"));
    CHECK(cuzk_snarkpack_srs_read_mem(&r, b, len - 300 - (len - 16 - 16 * 288), 0, 2, err, sizeof err) ==
              CUZK_ERR_FORMAT && strstr(err, "h_beta_powers"));
    memcpy(c, b, len);
    size_t at = 4 + 16 * 48 + 4 + 16 * 48 + 4 + 5 * 96 + 50; /* h_alpha[5] */
    c[at] ^= 0x5a;
    int rc = cuzk_snarkpack_srs_read_mem(&r, c, len, 0, 2, err, sizeof err);
    CHECK_MSG(rc != CUZK_OK && strstr(err, "h_alpha_powers[5]"), "rc %d: %s", rc, err);
    CHECK(cuzk_snarkpack_srs_read_mem(&r, b, 3, 0, 2, err, sizeof err) == CUZK_ERR_FORMAT);
    free(c), free(b);
}

#define NI 3
#define NMAX 8

typedef struct {
    cuzk_groth16_params params;
    cuzk_groth16_proof pf[NMAX];
    cuzk_fr in[NMAX * NI];
} circuit;

/* Aggregate n proofs (ix: which of c's), encode, decode; the decoded proof into *out. */
static int agg(cuzk_snarkpack_proof *out, const cuzk_snarkpack_srs *srs, const circuit *c, const int *ix, size_t n,
               const uint8_t *inc, size_t inc_len, cuzk_snarkpack_version v, unsigned nt, uint8_t **bytes)
{
    cuzk_groth16_proof pf[NMAX];
    char err[256];
    for (size_t i = 0; i < n; i++) pf[i] = c->pf[ix[i]];
    cuzk_snarkpack_proof *p = malloc(sizeof *p);
    int rc = cuzk_snarkpack_aggregate(p, srs, pf, n, inc, inc_len, v, NULL, nt, err, sizeof err);
    size_t len = cuzk_snarkpack_proof_size((uint32_t)n);
    *bytes = malloc(len);
    if (!rc) rc = cuzk_snarkpack_proof_encode(*bytes, len, p);
    if (!rc) rc = cuzk_snarkpack_proof_decode(out, *bytes, len, err, sizeof err);
    CHECK_MSG(rc == CUZK_OK, "aggregate n=%zu v%d: %d %s", n, (int)v, rc, err);
    free(p);
    return rc;
}

static int verify(const cuzk_snarkpack_proof *p, const cuzk_snarkpack_srs *srs, const cuzk_groth16_vk *vk,
                  const cuzk_fr *in, size_t n, const uint8_t *inc, size_t inc_len, cuzk_snarkpack_version v,
                  char *err, size_t err_len)
{
    cuzk_snarkpack_vk svk;
    int rc = cuzk_snarkpack_vk_for(&svk, srs, p->nproofs, err, err_len);
    return rc ? rc : cuzk_snarkpack_verify(p, &svk, vk, in, n, NI, inc, inc_len, v, &rng, 2, err, err_len);
}

/* Each tampered form is refused, and says why. */
static void t_tamper(const cuzk_snarkpack_proof *p, const uint8_t *bytes, const cuzk_snarkpack_srs *srs,
                     const circuit *c, const cuzk_fr *in, size_t n, const uint8_t *inc, cuzk_snarkpack_version v)
{
    char err[512];
    size_t len = cuzk_snarkpack_proof_size((uint32_t)n), row = NI * sizeof *in;
    cuzk_fr *x = malloc((n + 1) * row);
    memcpy(x, in, n * row);
    size_t i = cuzk_rng_u64(&rng) % n, j = (i + 1 + cuzk_rng_u64(&rng) % (n - 1)) % n;
    memcpy(x + i * NI, in + j * NI, row), memcpy(x + j * NI, in + i * NI, row);
    int rc = verify(p, srs, &c->params.vk, x, n, inc, 32, v, err, sizeof err);
    CHECK_MSG(rc == CUZK_ERR_VERIFY_FAILED || !memcmp(in + i * NI, in + j * NI, row), "rows %zu, %zu swapped: %d", i, j, rc);
    memcpy(x, in, n * row);
    cuzk_fr_add(&x[i * NI + cuzk_rng_u64(&rng) % NI], &x[i * NI], &cuzk_fr_one);
    CHECK(verify(p, srs, &c->params.vk, x, n, inc, 32, v, err, sizeof err) == CUZK_ERR_VERIFY_FAILED &&
          strstr(err, "Groth16"));
    memcpy(x, in, n * row), memcpy(x + n * NI, in + (n - 1) * NI, row);
    CHECK(verify(p, srs, &c->params.vk, x, n - 1, inc, 32, v, err, sizeof err) == CUZK_ERR_INVALID_ARG);
    CHECK(verify(p, srs, &c->params.vk, x, n + 1, inc, 32, v, err, sizeof err) == CUZK_ERR_INVALID_ARG);
    uint8_t inc2[32];
    memcpy(inc2, inc, 32), inc2[cuzk_rng_u64(&rng) % 32] ^= 1;
    CHECK(verify(p, srs, &c->params.vk, in, n, inc2, 32, v, err, sizeof err) == CUZK_ERR_VERIFY_FAILED);
    rc = verify(p, srs, &c->params.vk, in, n, inc, 32, v == CUZK_SNARKPACK_V1 ? CUZK_SNARKPACK_V2 : CUZK_SNARKPACK_V1,
                err, sizeof err);
    CHECK_MSG(rc == CUZK_ERR_VERIFY_FAILED, "other version: %d", rc);
    uint8_t *b = malloc(len + 1);
    memcpy(b, bytes, len);
    size_t at = cuzk_rng_u64(&rng) % len;
    b[at] ^= (uint8_t)(1 + cuzk_rng_u64(&rng) % 255);
    cuzk_snarkpack_proof *q = malloc(sizeof *q);
    rc = cuzk_snarkpack_proof_decode(q, b, len, err, sizeof err);
    if (!rc) rc = verify(q, srs, &c->params.vk, in, n, inc, 32, v, err, sizeof err);
    CHECK_MSG(rc != CUZK_OK, "byte %zu flipped accepted", at);
    printf("  n=%zu v%d: byte %zu flipped: %s\n", n, (int)v, at, err);
    CHECK(cuzk_snarkpack_proof_decode(q, bytes, len - 1, err, sizeof err) == CUZK_ERR_BAD_LENGTH);
    memcpy(b, bytes, len), b[len] = 0;
    CHECK(cuzk_snarkpack_proof_decode(q, b, len + 1, err, sizeof err) == CUZK_ERR_BAD_LENGTH);
    free(q), free(b), free(x);
}

static void t_aggregate(const cuzk_snarkpack_srs *srs, const circuit *c, size_t n, size_t real,
                        cuzk_snarkpack_version v)
{
    int ix[NMAX];
    cuzk_fr in[NMAX * NI];
    uint8_t inc[32], *bytes = NULL;
    char err[512];
    int perm[NMAX];
    for (int i = 0; i < NMAX; i++) perm[i] = i;
    for (int i = NMAX - 1; i > 0; i--) {
        int j = (int)(cuzk_rng_u64(&rng) % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    for (size_t i = 0; i < n; i++) ix[i] = i < real ? perm[i] : ix[real - 1];
    for (size_t i = 0; i < n; i++) memcpy(&in[i * NI], &c->in[ix[i] * NI], NI * sizeof *in);
    cuzk_rng_bytes(&rng, inc, sizeof inc);
    cuzk_snarkpack_proof *p = malloc(sizeof *p);
    if (agg(p, srs, c, ix, n, inc, 32, v, 2, &bytes)) return free(p), free(bytes);
    int rc = verify(p, srs, &c->params.vk, in, n, inc, 32, v, err, sizeof err);
    CHECK_MSG(rc == CUZK_OK, "n=%zu (%zu real) v%d: %d %s", n, real, (int)v, rc, err);
    t_tamper(p, bytes, srs, c, in, n, inc, v);
    free(p), free(bytes);
}

/*
 * The upstream vector: rust-fil-proofs filecoin-proofs/tests/aggregate_proof_bytes (commit
 * 64a7c43a), an aggregate of 512 2KiB PoRep proofs that bellperson wrote (its test pins 29044
 * bytes and 512 proofs). Every GT value decompresses into GT and every point into its group,
 * and cuzk writes the same bytes back: the layout and blstrs' GT compression as bellperson has
 * them. Any flipped byte is refused or writes back differently.
 */
static void t_upstream(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", __FILE__);
    char *slash = strrchr(path, '/');
    snprintf(slash ? slash + 1 : path, sizeof path - (size_t)(slash ? slash + 1 - path : 0), "data/snarkpack_512.agg");
    FILE *f = fopen(path, "rb");
    CHECK_MSG(f != NULL, "%s missing", path);
    if (!f) return;
    static uint8_t buf[32768], out[32768];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    char err[256] = "";
    cuzk_snarkpack_proof *p = malloc(sizeof *p);
    CHECK(n == 29044 && cuzk_snarkpack_proof_count(buf, n) == 512);
    CHECK_MSG(cuzk_snarkpack_proof_decode(p, buf, n, err, sizeof err) == CUZK_OK, "upstream: %s", err);
    CHECK(p->rounds == 9 && cuzk_snarkpack_proof_encode(out, sizeof out, p) == CUZK_OK && !memcmp(out, buf, n));
    size_t at = 4 + cuzk_rng_u64(&rng) % (n - 4); /* past com_ab.T's first bytes: any element */
    buf[at] ^= (uint8_t)(1 + cuzk_rng_u64(&rng) % 255);
    int rc = cuzk_snarkpack_proof_decode(p, buf, n, err, sizeof err);
    if (!rc) rc = cuzk_snarkpack_proof_encode(out, sizeof out, p), rc = rc ? rc : !memcmp(out, buf, n);
    CHECK_MSG(rc != CUZK_OK, "upstream byte %zu flipped: accepted and written back the same", at);
    printf("upstream vector, byte %zu flipped: %s\n", at, err);
    free(p);
}

/* Same bytes on 1 and 2 threads; another circuit's key refuses the aggregate. */
static void t_determinism(const cuzk_snarkpack_srs *srs, const circuit *c, const circuit *other)
{
    int ix[4] = {0, 1, 2, 3};
    uint8_t inc[32] = {7}, *b1 = NULL, *b2 = NULL;
    char err[512];
    cuzk_snarkpack_proof *p = malloc(sizeof *p);
    if (!agg(p, srs, c, ix, 4, inc, 32, CUZK_SNARKPACK_V2, 1, &b1) &&
        !agg(p, srs, c, ix, 4, inc, 32, CUZK_SNARKPACK_V2, 2, &b2))
        CHECK(!memcmp(b1, b2, cuzk_snarkpack_proof_size(4)));
    int rc = verify(p, srs, &other->params.vk, c->in, 4, inc, 32, CUZK_SNARKPACK_V2, err, sizeof err);
    CHECK_MSG(rc == CUZK_ERR_VERIFY_FAILED, "another circuit's key: %d", rc);
    free(p), free(b1), free(b2);
}

/* An accelerator whose hooks compute what the CPU does, counting calls, and fail the fail_at-th
 * call (0: none) with fail_rc. */
typedef struct {
    unsigned calls, fail_at, told;
    int fail_rc, told_rc;
} fake_accel;

static int fa_call(fake_accel *f)
{
    return ++f->calls == f->fail_at ? f->fail_rc : CUZK_OK;
}

static int fa_miller(void *ctx, cuzk_fp12 *out, size_t nprod, const cuzk_pairing_group *g, size_t ng)
{
    int rc = fa_call(ctx);
    if (rc) return rc;
    for (size_t k = 0; k < nprod; k++) out[k] = cuzk_fp12_one;
    cuzk_pairing_miller_loop_groups(out, nprod, g, ng);
    return CUZK_OK;
}

static int fa_msm(void *ctx, const cuzk_msm_job *jobs, size_t nj)
{
    int rc = fa_call(ctx);
    return rc ? rc : cuzk_msm_batch(jobs, nj, 1);
}

static void fa_told(void *ctx, int rc)
{
    fake_accel *f = ctx;
    f->told++, f->told_rc = rc;
}

static int agg_fake(uint8_t *bytes, const cuzk_snarkpack_srs *srs, const cuzk_groth16_proof *pf, size_t n,
                    const uint8_t *inc, fake_accel *f, char *err, size_t err_len)
{
    cuzk_snarkpack_accel acc = {fa_miller, fa_msm, f, 1};
    cuzk_snarkpack_ctl ctl = {.ctx = f, .accel = &acc, .accel_failed = fa_told};
    cuzk_snarkpack_proof *p = malloc(sizeof *p);
    int rc = cuzk_snarkpack_aggregate(p, srs, pf, n, inc, 32, CUZK_SNARKPACK_V2, &ctl, 2, err, err_len);
    if (!rc) rc = cuzk_snarkpack_proof_encode(bytes, cuzk_snarkpack_proof_size((uint32_t)n), p);
    free(p);
    return rc;
}

/* Through an accelerator's hooks: the CPU's bytes; a hook failing with a device's error at a
 * random call: the caller told once, the aggregation run again on the CPU, the same bytes; a
 * hook failing otherwise (a bad argument): that error, no second run. */
static void t_accel(const cuzk_snarkpack_srs *srs, const circuit *c)
{
    size_t n = NMAX, len = cuzk_snarkpack_proof_size(NMAX);
    uint8_t inc[32], *want = malloc(len), *got = malloc(len);
    char err[512] = "";
    cuzk_rng_bytes(&rng, inc, sizeof inc);
    cuzk_snarkpack_proof *p = malloc(sizeof *p);
    int rc = cuzk_snarkpack_aggregate(p, srs, c->pf, n, inc, 32, CUZK_SNARKPACK_V2, NULL, 2, err, sizeof err);
    if (!rc) rc = cuzk_snarkpack_proof_encode(want, len, p);
    CHECK(rc == CUZK_OK);
    fake_accel f = {0};
    CHECK(agg_fake(got, srs, c->pf, n, inc, &f, err, sizeof err) == CUZK_OK && !memcmp(got, want, len));
    unsigned calls = f.calls; /* commitments, ip_ab, agg_c, each round's loops and Z_C, the KZG MSMs */
    CHECK_MSG(calls == 3 + 2 * 3 + 1, "%u hook calls for %zu proofs", calls, n);
    const int dev_errs[] = {CUZK_ERR_DEVICE, CUZK_ERR_NO_MEMORY, CUZK_ERR_NO_DEVICE, CUZK_ERR_INTERNAL};
    fake_accel g = {.fail_at = 1 + (unsigned)(cuzk_rng_u64(&rng) % calls), .fail_rc = dev_errs[cuzk_rng_u64(&rng) % 4]};
    memset(got, 0, len);
    rc = agg_fake(got, srs, c->pf, n, inc, &g, err, sizeof err);
    CHECK_MSG(rc == CUZK_OK && !memcmp(got, want, len) && g.told == 1 && g.told_rc == g.fail_rc,
              "hook call %u failing (%d): rc %d, told %u times", g.fail_at, g.fail_rc, rc, g.told);
    CHECK_MSG(g.calls == g.fail_at, "hooks called after the failure: %u of %u", g.calls, g.fail_at);
    fake_accel h = {.fail_at = g.fail_at, .fail_rc = CUZK_ERR_INVALID_ARG};
    rc = agg_fake(got, srs, c->pf, n, inc, &h, err, sizeof err);
    CHECK_MSG(rc == CUZK_ERR_INVALID_ARG && h.told == 0, "a hook's bad argument: rc %d, told %u", rc, h.told);
    printf("  accelerator: %u hook calls, the CPU's bytes; call %u failing (%s): told once, the CPU's bytes\n", calls,
           g.fail_at, cuzk_strerror(g.fail_rc));
    free(p), free(want), free(got);
}

int main(void)
{
    tu_init(&rng, "test_snarkpack");
    t_gt();
    t_upstream();
    cuzk_snarkpack_srs srs;
    CHECK(cuzk_snarkpack_srs_setup_test(&srs, NMAX, &rng, 2) == CUZK_OK);
    t_srs(&srs);
    circuit *c = calloc(2, sizeof *c);
    uint64_t nc = 40 + cuzk_rng_u64(&rng) % 100;
    printf("synthetic circuit: %llu constraints, %d inputs\n", (unsigned long long)nc, NI);
    CHECK(tu_synthetic_proofs(&c[0].params, c[0].pf, c[0].in, NMAX, NI, nc, &rng) == 0 &&
          tu_synthetic_proofs(&c[1].params, c[1].pf, c[1].in, NMAX, NI, nc, &rng) == 0);
    for (int v = CUZK_SNARKPACK_V1; v <= CUZK_SNARKPACK_V2; v++) {
        for (size_t n = 2; n <= NMAX; n *= 2) t_aggregate(&srs, &c[0], n, n, (cuzk_snarkpack_version)v);
        t_aggregate(&srs, &c[0], 8, 5, (cuzk_snarkpack_version)v);
    }
    t_determinism(&srs, &c[0], &c[1]);
    t_accel(&srs, &c[0]);
    cuzk_groth16_params_free(&c[0].params), cuzk_groth16_params_free(&c[1].params);
    free(c);
    cuzk_snarkpack_srs_free(&srs);
    return tu_finish("test_snarkpack");
}

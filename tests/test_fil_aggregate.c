/*
 * Filecoin's SnarkPack aggregates (cuzk/kinds/fil_aggregate.h) of 2KiB PoRep proofs: every sector's
 * partition rows derived from its public values (cuzk_fil_porep_public_inputs, fresh random
 * comm_r, comm_d, ticket, seed, sector number, prover), proved with TEST Groth16 parameters of a
 * stand-in circuit whose public inputs are exactly those rows (the real 2KiB PoRep circuit is
 * 2.7M constraints: minutes per proof here; the aggregate sees only the key and the rows), one
 * C2-style proof list per sector, aggregated as filecoin-ffi does (1, 2, 3 and 5 sectors: 2, 2,
 * 4 and 8 proofs, v1 and v2) and verified from the values alone. Refused: two sectors in the
 * other order, one seed / ticket / sector number changed, a sector left out or added, the other
 * version, a flipped byte, another prover. NI-PoRep: the seed is in neither the challenges nor
 * the transcript, so another seed verifies; comm_r changed does not. The SRS read from a
 * parameter cache: its digest against srs-inner-product.json's, a TEST one only when allowed.
 * The aggregate-seal kind's request: encoded and decoded back, cut, padded or another magic
 * refused; checked, and refused naming the field with more sectors than the SRS serves, a cut
 * proof, a point's flags, a sector number twice, a zero or non-canonical commitment, another
 * version, an NI-PoRep or unknown registered proof, no sectors. An aggregation whose ctl stops
 * it before a random stage returns CUZK_ERR_CANCELLED; one never stopped runs every stage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/c1.h"
#include "cuzk/util/error.h"
#include "cuzk/kinds/fil_aggregate.h"
#include "cuzk/filecoin/fil_params.h"
#include "cuzk/filecoin/filecoin.h"
#include "cuzk/groth16/groth16.h"
#include "fil_agg_standin.h"
#include "testutil.h"

static cuzk_rng rng;

static void rand_fr_bytes(uint8_t out[32])
{
    cuzk_fr x;
    cuzk_fr_random(&x, &rng);
    cuzk_fr_to_le32(out, &x);
}

static void rand_values(cuzk_fil_agg_values *v, cuzk_fil_agg_sector *s, size_t n, uint64_t rp,
                        cuzk_snarkpack_version ver)
{
    memset(v, 0, sizeof *v);
    v->registered_proof = rp, v->version = ver, v->sectors = s, v->num_sectors = n;
    cuzk_fil_prover_id(v->prover_id, 1000 + cuzk_rng_u64(&rng) % 100000);
    for (size_t i = 0; i < n; i++) {
        s[i].sector_number = cuzk_rng_u64(&rng) % 1000000;
        rand_fr_bytes(s[i].comm_r), rand_fr_bytes(s[i].comm_d);
        cuzk_rng_bytes(&rng, s[i].ticket, 32), cuzk_rng_bytes(&rng, s[i].seed, 32);
    }
}

static int verify(const cuzk_fil_agg_values *v, const cuzk_groth16_params *p, const cuzk_snarkpack_srs *srs,
                  const uint8_t *agg, size_t len, char *err, size_t err_len)
{
    return cuzk_fil_aggregate_verify(v, &p->vk, srs, agg, len, 2, err, err_len);
}

/* One changed copy of the values must be refused (want: the code, 0 = any failure). */
static void refused(const cuzk_fil_agg_values *v, const cuzk_groth16_params *p, const cuzk_snarkpack_srs *srs,
                    const uint8_t *agg, size_t len, const char *what, int want)
{
    char err[512] = "";
    int rc = verify(v, p, srs, agg, len, err, sizeof err);
    CHECK_MSG(want ? rc == want : rc != CUZK_OK, "%s: %d %s", what, rc, err);
    printf("  %s: %s\n", what, err);
}

static void t_tamper(const cuzk_fil_agg_values *v0, const cuzk_groth16_params *p, const cuzk_snarkpack_srs *srs,
                     const uint8_t *agg, size_t len)
{
    cuzk_fil_agg_sector s[8];
    cuzk_fil_agg_values v = *v0;
    size_t n = v0->num_sectors, i = cuzk_rng_u64(&rng) % n;
    v.sectors = s;
#define RESET() memcpy(s, v0->sectors, n * sizeof *s), v = *v0, v.sectors = s
    RESET();
    if (n > 1) {
        s[0] = v0->sectors[1], s[1] = v0->sectors[0];
        refused(&v, p, srs, agg, len, "two sectors swapped", CUZK_ERR_VERIFY_FAILED);
    }
    RESET(), s[i].seed[cuzk_rng_u64(&rng) % 32] ^= 4;
    if (cuzk_fil_agg_is_ni(&v)) { /* NI-PoRep's challenges and transcript take no seed */
        char err[512] = "";
        CHECK_MSG(verify(&v, p, srs, agg, len, err, sizeof err) == CUZK_OK, "NI-PoRep, another seed: %s", err);
        RESET(), s[i].comm_r[cuzk_rng_u64(&rng) % 31] ^= 4;
        refused(&v, p, srs, agg, len, "NI-PoRep, a comm_r changed", CUZK_ERR_VERIFY_FAILED);
        RESET(), s[i].comm_d[cuzk_rng_u64(&rng) % 31] ^= 4;
        refused(&v, p, srs, agg, len, "NI-PoRep, a comm_d changed", CUZK_ERR_VERIFY_FAILED);
    } else {
        refused(&v, p, srs, agg, len, "a seed changed", CUZK_ERR_VERIFY_FAILED);
    }
    RESET(), s[i].ticket[cuzk_rng_u64(&rng) % 32] ^= 4;
    refused(&v, p, srs, agg, len, "a ticket changed", CUZK_ERR_VERIFY_FAILED);
    RESET(), s[i].sector_number++;
    refused(&v, p, srs, agg, len, "a sector number changed", CUZK_ERR_VERIFY_FAILED);
    RESET(), v.num_sectors = n - 1;
    refused(&v, p, srs, agg, len, "the last sector left out", 0);
    RESET(), s[n] = s[cuzk_rng_u64(&rng) % n], s[n].sector_number += 1, v.num_sectors = n + 1;
    refused(&v, p, srs, agg, len, "a sector added", 0);
    RESET(), v.version = v.version == CUZK_SNARKPACK_V1 ? CUZK_SNARKPACK_V2 : CUZK_SNARKPACK_V1;
    refused(&v, p, srs, agg, len, "the other version", CUZK_ERR_VERIFY_FAILED);
    RESET(), v.prover_id[0] ^= 1;
    refused(&v, p, srs, agg, len, "another prover", CUZK_ERR_VERIFY_FAILED);
    RESET();
    uint8_t *b = malloc(len);
    memcpy(b, agg, len);
    b[cuzk_rng_u64(&rng) % len] ^= (uint8_t)(1 + cuzk_rng_u64(&rng) % 255);
    refused(&v, p, srs, b, len, "a byte flipped", 0);
    refused(&v, p, srs, agg, len - 1, "the last byte cut", CUZK_ERR_BAD_LENGTH);
    free(b);
#undef RESET
}

/* nsect sectors aggregated and verified; the tampered forms refused; the values kept in v. */
static int t_case(const cuzk_groth16_params *p, const cuzk_snarkpack_srs *srs, uint64_t rp, size_t nsect,
                  cuzk_snarkpack_version ver, cuzk_fil_agg_values *v, cuzk_fil_agg_sector *s, uint8_t **agg,
                  size_t *len)
{
    uint8_t *c2[8] = {0};
    size_t c2_len[8], ni;
    uint32_t parts;
    char err[512] = "";
    rand_values(v, s, nsect, rp, ver);
    int rc = cuzk_fil_agg_shape(v, &parts, &ni, err, sizeof err);
    if (!rc) rc = standin_prove_sectors(c2, c2_len, p, v, parts, ni, &rng);
    if (!rc) rc = cuzk_fil_aggregate(agg, len, v, (const uint8_t *const *)c2, c2_len, srs, NULL, 2, err, sizeof err);
    CHECK_MSG(rc == CUZK_OK, "aggregate %zu sectors: %d %s", nsect, rc, err);
    if (!rc) rc = verify(v, p, srs, *agg, *len, err, sizeof err);
    CHECK_MSG(rc == CUZK_OK, "%zu sectors v%d: %d %s", nsect, (int)ver, rc, err);
    printf("%zu sector(s) of %u partition(s), %zu inputs each: %u proofs, %zu bytes, v%d: %s\n", nsect, parts, ni,
           cuzk_fil_agg_target(nsect * parts), *len, (int)ver, rc ? "FAILED" : "VALID");
    for (size_t i = 0; i < nsect; i++) free(c2[i]);
    return rc;
}

static void write_bytes(const char *path, const uint8_t *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(b, 1, len, f) == len);
    if (f) fclose(f);
}

/* The aggregation SRS from a parameter cache: a TEST one taken only when allowed, the powers
 * read equal to the written ones; missing, a foreign file (the TEST one without its trailer),
 * a flipped byte refused naming the digests. */
static void t_srs_load(const cuzk_snarkpack_srs *srs)
{
    char dir[] = "/tmp/cuzk-srs-load-XXXXXX", path[128], note[512], err[1024], hex[CUZK_FIL_DIGEST_HEX + 1];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/%s", dir, CUZK_SNARKPACK_SRS_NAME);
    cuzk_snarkpack_srs got;
    cuzk_fil_srs_origin origin = 0;
    int rc = cuzk_fil_agg_srs_load(&got, &origin, dir, 16, 1, 2, note, sizeof note, err, sizeof err);
    CHECK_MSG(rc == CUZK_ERR_IO && strstr(err, "cuzk setup --aggregation"), "missing: %d %s", rc, err);
    size_t len, plain;
    uint8_t *b = cuzk_snarkpack_srs_serialize(srs, 1, &len), *p = cuzk_snarkpack_srs_serialize(srs, 0, &plain);
    CHECK(b && p && plain < len);
    if (!b || !p) return;
    write_bytes(path, b, len);
    cuzk_fil_param_digest_mem(hex, b, len);
    rc = cuzk_fil_agg_srs_load(&got, &origin, dir, 16, 1, 2, note, sizeof note, err, sizeof err);
    CHECK_MSG(rc == CUZK_OK && origin == CUZK_FIL_SRS_TEST && strstr(note, hex) && strstr(note, "TEST") &&
                  got.len[0] == 32 && got.len[2] == 32, "TEST SRS allowed: %d %s", rc, rc ? err : note);
    for (size_t i = 0; rc == CUZK_OK && i < 32; i++)
        CHECK(cuzk_g1_affine_eq(&got.g_alpha[i], &srs->g_alpha[i]) && cuzk_g2_affine_eq(&got.h_beta[i], &srs->h_beta[i]));
    if (rc == CUZK_OK) cuzk_snarkpack_srs_free(&got);
    rc = cuzk_fil_agg_srs_load(&got, &origin, dir, 16, 0, 2, note, sizeof note, err, sizeof err);
    CHECK_MSG(rc == CUZK_ERR_VERIFY_FAILED && strstr(err, "TEST parameters are not allowed") && strstr(err, hex) &&
                  strstr(err, CUZK_FIL_SRS_DIGEST), "TEST SRS refused: %d %s", rc, err);
    write_bytes(path, p, plain);
    cuzk_fil_param_digest_mem(hex, p, plain);
    rc = cuzk_fil_agg_srs_load(&got, &origin, dir, 16, 1, 2, note, sizeof note, err, sizeof err);
    CHECK_MSG(rc == CUZK_ERR_VERIFY_FAILED && strstr(err, "damaged or foreign") && strstr(err, hex),
              "foreign: %d %s", rc, err);
    size_t at = 4 + (size_t)(cuzk_rng_u64(&rng) % 32) * 48 + 47;
    b[at] ^= (uint8_t)(1u << (cuzk_rng_u64(&rng) % 8));
    write_bytes(path, b, len);
    rc = cuzk_fil_agg_srs_load(&got, &origin, dir, 16, 1, 2, note, sizeof note, err, sizeof err);
    CHECK_MSG(rc == CUZK_ERR_VERIFY_FAILED && strstr(err, "damaged or foreign") && strstr(err, "g_alpha"),
              "byte %zu flipped: %d %s", at, rc, err);
    free(b), free(p);
    remove(path);
    remove(dir);
}

/* A ctl counting the stages it is asked about; stops before stage stop_at (1-based; 0: never). */
typedef struct stage_count {
    unsigned asked, stop_at;
} stage_count;

static int stage_count_stop(void *ctx, cuzk_snarkpack_stage stage, unsigned round)
{
    (void)stage, (void)round;
    stage_count *c = ctx;
    return ++c->asked == c->stop_at;
}

/* An aggregation stopped by its ctl before a random stage returns CUZK_ERR_CANCELLED naming the
 * stage, having asked about no later stage; one whose ctl never stops asks about every stage
 * (commitments, each round, the openings) and makes the same bytes as one without a ctl. */
static void t_stop(const cuzk_groth16_params *p, const cuzk_snarkpack_srs *srs, uint64_t rp)
{
    cuzk_fil_agg_values v;
    cuzk_fil_agg_sector s[5];
    uint8_t *c2[5] = {0}, *agg = NULL, *agg2 = NULL;
    size_t c2_len[5], ni, len = 0, len2 = 0;
    uint32_t parts;
    char err[512] = "";
    rand_values(&v, s, 5, rp, (cuzk_snarkpack_version)(1 + cuzk_rng_u64(&rng) % 2));
    CHECK(cuzk_fil_agg_shape(&v, &parts, &ni, err, sizeof err) == CUZK_OK);
    CHECK(standin_prove_sectors(c2, c2_len, p, &v, parts, ni, &rng) == CUZK_OK);
    unsigned total = cuzk_snarkpack_stages(cuzk_fil_agg_target(5 * (size_t)parts));
    stage_count c = {0, 1 + (unsigned)(cuzk_rng_u64(&rng) % total)};
    cuzk_snarkpack_ctl ctl = {.stop = stage_count_stop, .ctx = &c};
    int rc = cuzk_fil_aggregate(&agg, &len, &v, (const uint8_t *const *)c2, c2_len, srs, &ctl, 2, err, sizeof err);
    CHECK_MSG(rc == CUZK_ERR_CANCELLED && !agg && c.asked == c.stop_at && strstr(err, "stopped before"),
              "stopped before stage %u of %u: %d, asked %u: %s", c.stop_at, total, rc, c.asked, err);
    printf("  stopped before stage %u of %u: %s\n", c.stop_at, total, err);
    c = (stage_count){0, 0};
    rc = cuzk_fil_aggregate(&agg, &len, &v, (const uint8_t *const *)c2, c2_len, srs, &ctl, 2, err, sizeof err);
    if (!rc) rc = cuzk_fil_aggregate(&agg2, &len2, &v, (const uint8_t *const *)c2, c2_len, srs, NULL, 2, err, sizeof err);
    CHECK_MSG(rc == CUZK_OK && c.asked == total && len == len2 && !memcmp(agg, agg2, len),
              "a ctl that never stops: %d, asked %u of %u stages: %s", rc, c.asked, total, err);
    for (int i = 0; i < 5; i++) free(c2[i]);
    free(agg), free(agg2);
}

/* r's encoding decoded again is r (values and proof bytes). */
static bool request_round_trip(const cuzk_fil_agg_request *r, const uint8_t *buf, size_t len)
{
    cuzk_fil_agg_request d;
    char err[256];
    bool ok = cuzk_fil_agg_request_decode(&d, buf, len, err, sizeof err) == CUZK_OK;
    ok = ok && d.v.registered_proof == r->v.registered_proof && d.v.version == r->v.version &&
         !memcmp(d.v.prover_id, r->v.prover_id, 32) && d.v.num_sectors == r->v.num_sectors;
    for (size_t i = 0; ok && i < r->v.num_sectors; i++)
        ok = !memcmp(&d.v.sectors[i], &r->v.sectors[i], sizeof d.v.sectors[i]) && d.proof_len[i] == r->proof_len[i] &&
             !memcmp(d.proofs[i], r->proofs[i], r->proof_len[i]);
    if (ok) cuzk_fil_agg_request_clear(&d);
    return ok;
}

/* The check refuses r (changed by the caller) naming text. */
static void request_refused(const cuzk_fil_agg_request *r, size_t max, const char *what, const char *text)
{
    char err[512] = "";
    int rc = cuzk_fil_agg_request_check(r, max, err, sizeof err);
    CHECK_MSG(rc == CUZK_ERR_INVALID_ARG && strstr(err, text), "%s: %d %s", what, rc, err);
    printf("  request, %s: %s\n", what, err);
}

/* The aggregate-seal kind's inputs: encoded, decoded back, checked; cut, padded or changed
 * encodings and requests refused naming the field. */
static void t_request(const cuzk_groth16_params *p, uint64_t rp, uint64_t ni_rp)
{
    cuzk_fil_agg_values v;
    cuzk_fil_agg_sector s[3];
    uint8_t *c2[3] = {0}, *buf;
    size_t c2_len[3], ni, len;
    uint32_t parts;
    char err[512] = "";
    rand_values(&v, s, 3, rp, CUZK_SNARKPACK_V2);
    CHECK(cuzk_fil_agg_shape(&v, &parts, &ni, err, sizeof err) == CUZK_OK);
    CHECK(standin_prove_sectors(c2, c2_len, p, &v, parts, ni, &rng) == CUZK_OK);
    cuzk_fil_agg_request r = {.v = v, .proofs = (const uint8_t *const *)c2, .proof_len = c2_len};
    len = cuzk_fil_agg_request_size(&r);
    CHECK((buf = malloc(len + 1)) != NULL);
    cuzk_fil_agg_request_encode(&r, buf);
    CHECK(request_round_trip(&r, buf, len));
    CHECK(cuzk_fil_agg_request_check(&r, 0, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_fil_agg_request_check(&r, 3, err, sizeof err) == CUZK_OK);
    cuzk_fil_agg_request d;
    size_t cut = cuzk_rng_u64(&rng) % len;
    CHECK(cuzk_fil_agg_request_decode(&d, buf, cut, err, sizeof err) == CUZK_ERR_FORMAT);
    buf[len] = 0;
    CHECK(cuzk_fil_agg_request_decode(&d, buf, len + 1, err, sizeof err) == CUZK_ERR_FORMAT);
    buf[0] ^= 1;
    CHECK(cuzk_fil_agg_request_decode(&d, buf, len, err, sizeof err) == CUZK_ERR_FORMAT);
    printf("  request cut at %zu of %zu bytes, padded, other magic: refused\n", cut, len);
    request_refused(&r, 2, "3 sectors, 2 served", "serves at most 2");
    size_t k = cuzk_rng_u64(&rng) % 3;
    char name[64];
    snprintf(name, sizeof name, "aggregate_sectors[%zu].proof is 191 bytes", k);
    c2_len[k]--, request_refused(&r, 0, "a proof cut", name), c2_len[k]++;
    uint8_t keep = c2[k][0];
    c2[k][0] &= 0x7f; /* the compression flag cleared: not bellperson's form */
    snprintf(name, sizeof name, "aggregate_sectors[%zu].proof: partition 0: point A", k);
    request_refused(&r, 0, "point A's flags", name), c2[k][0] = keep;
    s[2].sector_number = s[0].sector_number;
    request_refused(&r, 0, "a sector number twice", "is aggregate_sectors[0]'s");
    rand_values(&v, s, 3, rp, CUZK_SNARKPACK_V2), r.v = v;
    memset(s[k].comm_r, 0, 32);
    snprintf(name, sizeof name, "aggregate_sectors[%zu].comm_r is zero", k);
    request_refused(&r, 0, "a zero comm_r", name);
    rand_fr_bytes(s[k].comm_r), memset(s[k].comm_d, 0xff, 32);
    snprintf(name, sizeof name, "aggregate_sectors[%zu].comm_d is not a field element", k);
    request_refused(&r, 0, "comm_d of 0xff bytes", name);
    rand_fr_bytes(s[k].comm_d);
    r.v.version = 3, request_refused(&r, 0, "version 3", "aggregate_version"), r.v.version = CUZK_SNARKPACK_V1;
    r.v.registered_proof = ni_rp, request_refused(&r, 0, "an NI-PoRep registered proof, 1-partition proofs",
                                                  "a C2 output of this registered proof is 13 partition(s)");
    r.v.registered_proof = 99, request_refused(&r, 0, "registered proof 99", "registered_proof");
    r.v.registered_proof = rp, r.v.num_sectors = 0, request_refused(&r, 0, "no sectors", "aggregate_sectors is empty");
    r.v.num_sectors = 3;
    CHECK_MSG(cuzk_fil_agg_request_check(&r, 0, err, sizeof err) == CUZK_OK, "the request restored: %s", err);
    for (int i = 0; i < 3; i++) free(c2[i]);
    free(buf);
}

/* NI-PoRep requests: 3 sectors' partition proofs pass; a sector's NI C2 output (an aggregate)
 * in their place is refused naming it; 66 sectors (FIP-0092: 1 to 65) refused by the request
 * check and by cuzk_fil_aggregate, before any work. */
static void t_request_ni(const cuzk_groth16_params *p, uint64_t ni_rp, const cuzk_snarkpack_srs *srs)
{
    cuzk_fil_agg_values v;
    cuzk_fil_agg_sector s[3];
    uint8_t *c2[3] = {0};
    size_t c2_len[3], ni;
    uint32_t parts;
    char err[512] = "";
    rand_values(&v, s, 3, ni_rp, CUZK_SNARKPACK_V2);
    CHECK(cuzk_fil_agg_shape(&v, &parts, &ni, err, sizeof err) == CUZK_OK && parts == 13);
    CHECK(standin_prove_sectors(c2, c2_len, p, &v, parts, ni, &rng) == CUZK_OK);
    cuzk_fil_agg_request r = {.v = v, .proofs = (const uint8_t *const *)c2, .proof_len = c2_len};
    CHECK_MSG(cuzk_fil_agg_request_check(&r, 0, err, sizeof err) == CUZK_OK, "3 NI-PoRep sectors: %s", err);
    /* sector k's own NI C2: its 13 proofs aggregated alone (v2, seal_commit_phase2's form) */
    size_t k = cuzk_rng_u64(&rng) % 3, one_len = 0;
    uint8_t *one = NULL, *keep = c2[k];
    cuzk_fil_agg_values v1 = v;
    v1.sectors = &s[k], v1.num_sectors = 1;
    CHECK(cuzk_fil_aggregate(&one, &one_len, &v1, (const uint8_t *const *)&c2[k], &c2_len[k], srs, NULL, 2, err,
                             sizeof err) == CUZK_OK && one_len == 14164);
    c2[k] = one, c2_len[k] = one_len;
    char name[80];
    snprintf(name, sizeof name, "aggregate_sectors[%zu].proof is 14164 bytes: an NI-PoRep C2 output", k);
    request_refused(&r, 0, "an NI C2 output as a sector's proof", name);
    c2[k] = keep, c2_len[k] = (size_t)parts * CUZK_GROTH16_PROOF_BYTES;
    cuzk_fil_agg_sector *many = calloc(CUZK_FIL_NI_AGG_MAX_SECTORS + 1, sizeof *many);
    const uint8_t **pp = calloc(CUZK_FIL_NI_AGG_MAX_SECTORS + 1, sizeof *pp);
    size_t *pl = calloc(CUZK_FIL_NI_AGG_MAX_SECTORS + 1, sizeof *pl);
    CHECK(many && pp && pl);
    for (size_t i = 0; many && pp && pl && i <= CUZK_FIL_NI_AGG_MAX_SECTORS; i++)
        many[i] = s[i % 3], many[i].sector_number = i + 1, pp[i] = c2[i % 3], pl[i] = c2_len[i % 3];
    r.v.sectors = many, r.v.num_sectors = CUZK_FIL_NI_AGG_MAX_SECTORS + 1, r.proofs = pp, r.proof_len = pl;
    request_refused(&r, 0, "66 NI-PoRep sectors", "FIP-0092 aggregates 1 to 65");
    uint8_t *agg = NULL;
    size_t len = 0;
    int rc = cuzk_fil_aggregate(&agg, &len, &r.v, pp, pl, srs, NULL, 2, err, sizeof err);
    CHECK_MSG(rc == CUZK_ERR_INVALID_ARG && !agg && strstr(err, "FIP-0092"), "66 NI-PoRep sectors aggregated: %d %s",
              rc, err);
    free(many), free(pp), free(pl), free(one);
    for (int i = 0; i < 3; i++) free(c2[i]);
}

int main(void)
{
    tu_init(&rng, "test_fil_aggregate");
    const cuzk_fil_seal_proof *sp = cuzk_fil_seal_proof_by_name("StackedDrg2KiBV1_1");
    const cuzk_fil_seal_proof *ni_sp = cuzk_fil_seal_proof_by_name("StackedDrg2KiBV1_2_Feat_NonInteractivePoRep");
    CHECK(sp && ni_sp);
    if (!sp || !ni_sp) return tu_finish("test_fil_aggregate");
    cuzk_fil_agg_values v = {.registered_proof = sp->id};
    uint32_t parts;
    size_t ni;
    char err[256];
    CHECK(cuzk_fil_agg_shape(&v, &parts, &ni, err, sizeof err) == CUZK_OK);
    cuzk_groth16_params p;
    cuzk_snarkpack_srs srs;
    CHECK(standin_setup(&p, ni, &rng) == CUZK_OK && cuzk_snarkpack_srs_setup_test(&srs, 64, &rng, 2) == CUZK_OK);
    t_srs_load(&srs);
    t_request(&p, sp->id, ni_sp->id);
    t_stop(&p, &srs, sp->id);
    t_request_ni(&p, ni_sp->id, &srs);
    /* the most sectors whose proofs pad to what the SRS serves, and no more */
    size_t most = cuzk_fil_agg_max_sectors(sp->id, &srs);
    uint32_t served = cuzk_snarkpack_srs_max_proofs(&srs);
    CHECK_MSG(most && cuzk_fil_agg_target(most * parts) <= served && cuzk_fil_agg_target((most + 1) * parts) > served &&
              cuzk_fil_agg_max_sectors(99, &srs) == 0, "%zu sectors of %u partitions, %u proofs", most, parts, served);
    static const size_t nsect[] = {1, 2, 3, 5};
    cuzk_fil_agg_sector s[8];
    for (int ver = CUZK_SNARKPACK_V1; ver <= CUZK_SNARKPACK_V2; ver++)
        for (size_t k = 0; k < 4; k++) {
            uint8_t *agg = NULL;
            size_t len = 0;
            if (!t_case(&p, &srs, sp->id, nsect[k], (cuzk_snarkpack_version)ver, &v, s, &agg, &len) && (int)(k % 2) == ver % 2)
                t_tamper(&v, &p, &srs, agg, len);
            free(agg);
        }
    /* NI-PoRep sectors (13 partitions of the same circuit at 2KiB): 1 (13 proofs padded to 16, the
     * NI C2's own aggregate), 2 (26 to 32) and 3 (39 to 64), v2 as ProveCommitSectorsNI takes them */
    for (size_t k = 1; k <= 3; k++) {
        uint8_t *agg = NULL;
        size_t len = 0;
        if (!t_case(&p, &srs, ni_sp->id, k, CUZK_SNARKPACK_V2, &v, s, &agg, &len) && k > 1)
            t_tamper(&v, &p, &srs, agg, len);
        free(agg);
    }
    cuzk_groth16_params_free(&p);
    cuzk_snarkpack_srs_free(&srs);
    return tu_finish("test_fil_aggregate");
}

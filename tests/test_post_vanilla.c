/*
 * PoSt vanilla proofs (fil_vanilla.h) at 2KiB, end to end: random stand-in sealed sectors
 * written to and read back from sector directories; vanilla proofs generated as
 * filecoin-proofs' generate_single_vanilla_proof lays them out; parse / encode round trip;
 * prepare (challenges rebuilt from randomness and sector id, every opening checked); the job's
 * witness satisfies TestCS with exactly the rebuilt public inputs; Groth16 proofs (direct and
 * through an extracted PCE) verify against them. WindowPoSt with 2 sectors for API 1.0 (id 5)
 * and 1.2 (id 10), 1 sector (padding) and WinningPoSt (id 0) with the sector selected by cuzk.
 * The four constraint systems agree on each job's system (cs_sys4.h).
 * Tampering (a leaf, a path hash, comm_r, randomness, the partition index, another sector's
 * comm_r) is refused by prepare and, in the witness or the public inputs, by TestCS or the
 * verifier; malformed blobs are refused with the field named.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/filecoin_gen/fil_gen.h"
#include "cs_sys4.h"
#include "fil_job_prove.h"

static int post_synth(cuzk_cs *cs, const void *ctx, bool blank)
{
    const cuzk_fil_post_partition *j = ctx;
    return cuzk_post_circuit(cs, &j->cfg, blank ? NULL : &j->w, 1);
}

/* The four constraint systems agree on the job's system (counts, witness, matrices, densities). */
static void parity(fj_synth fn, const void *ctx, const char *what)
{
    sys4 sy;
    sys_new(&sy);
    for (int k = 0; k < 4; k++) {
        cuzk_cs *cs = sys_get(&sy, k);
        cuzk_cs_alloc_one(cs);
        CHECK(fn(cs, ctx, false) == 0);
        cuzk_cs_finalize(cs);
    }
    check_parity(&sy, what);
    sys_free(&sy);
}

static void rnd32(uint8_t out[32], cuzk_rng *rng)
{
    cuzk_rng_bytes(rng, out, 32);
    out[31] &= 0x3f;
}

/* Re-encodes v into a fresh blob (the caller frees). */
static cuzk_fil_blob reencode(uint64_t id, const cuzk_fil_post_vanilla *v)
{
    uint8_t *b = NULL;
    size_t n = 0;
    CHECK(cuzk_fil_post_vanilla_encode(&b, &n, id, v) == 0);
    return (cuzk_fil_blob){b, n};
}

/* prepare fails with rc and an error containing want; on 3 threads with the same message. */
static void refused(uint64_t id, const uint8_t rnd[32], uint32_t part, const cuzk_fil_blob *b, size_t n,
                    const cuzk_fr *expect, int rc, const char *want)
{
    cuzk_fil_post_partition j;
    char err[256] = "", err3[256] = "";
    int got = cuzk_fil_post_prepare(&j, id, rnd, part, b, n, expect, err, sizeof err);
    CHECK_MSG(got == rc && fj_names(err, want), "want %d naming '%s', got %d: %s", rc, want, got, err);
    if (!got) cuzk_fil_post_partition_free(&j);
    int got3 = cuzk_fil_post_prepare_threads(&j, id, rnd, part, b, n, expect, 3, err3, sizeof err3);
    CHECK_MSG(got3 == got && !strcmp(err3, err), "3 threads: %d \"%s\" against %d \"%s\"", got3, err3, got, err);
    if (!got3) cuzk_fil_post_partition_free(&j);
}

/* Malformed blobs: each rejected before synthesis with the field named. */
static void malformed(uint64_t id, const cuzk_fil_blob *good)
{
    cuzk_fil_post_vanilla v;
    char err[256];
    uint8_t *b = malloc(good->len + 1);
    /* truncations at a spread of lengths */
    for (size_t cut = 0; cut < good->len; cut += 1 + good->len / 37) {
        CHECK_MSG(cuzk_fil_post_vanilla_parse(&v, id, good->data, cut, err, sizeof err) == CUZK_ERR_FORMAT &&
                      fj_names(err, "truncated"),
                  "cut %zu: %s", cut, err);
    }
    /* a trailing byte */
    memcpy(b, good->data, good->len);
    b[good->len] = 0;
    CHECK(cuzk_fil_post_vanilla_parse(&v, id, b, good->len + 1, err, sizeof err) == CUZK_ERR_FORMAT &&
          fj_names(err, "trailing"));
    /* byte offsets of a 2KiB (8-0-0) proof: sector_id 8, comm_r 32, sectors len 8, inclusion len 8,
     * then per proof: tag 4, root 32, leaf 32, path len 8, per level (hashes len 8, 7 x 32, index 8) */
    const size_t p0 = 8 + 32 + 8 + 8;
    struct {
        size_t off;
        uint8_t val;
        int rc;
        const char *field;
    } cases[] = {
        {8 + 32, 2, CUZK_ERR_FORMAT, "vanilla_proof.sectors"},
        {8 + 32 + 8, 9, CUZK_ERR_FORMAT, "vanilla_proof.sectors[0].inclusion_proofs"},
        {p0, 1, CUZK_ERR_FORMAT, "inclusion_proofs[0].data"},
        {p0 + 4 + 64, 3, CUZK_ERR_FORMAT, "inclusion_proofs[0].path"},
        {p0 + 4 + 64 + 8, 8, CUZK_ERR_FORMAT, "inclusion_proofs[0].path[0].hashes"},
        {p0 + 4 + 64 + 8 + 8 + 7 * 32, 8, CUZK_ERR_FORMAT, "inclusion_proofs[0].path[0].index"},
        {8 + 31, 0xff, CUZK_ERR_NONCANONICAL, "comm_r"},
        {p0 + 4 + 31, 0xff, CUZK_ERR_NONCANONICAL, "inclusion_proofs[0].root"},
        {p0 + 4 + 64 + 8 + 8 + 2 * 32 + 31, 0xff, CUZK_ERR_NONCANONICAL, "inclusion_proofs[0].path[0].hashes[2]"},
        {good->len - 1, 0xff, CUZK_ERR_NONCANONICAL, "comm_r_last"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(b, good->data, good->len);
        b[cases[i].off] = cases[i].val;
        int rc = cuzk_fil_post_vanilla_parse(&v, id, b, good->len, err, sizeof err);
        CHECK_MSG(rc == cases[i].rc && fj_names(err, cases[i].field), "case %zu: want '%s', got %d: %s", i,
                  cases[i].field, rc, err);
    }
    /* the wrong size class: an 8MiB PoSt proof reading a 2KiB blob */
    CHECK(cuzk_fil_post_vanilla_parse(&v, id + 1, good->data, good->len, err, sizeof err) != 0);
    CHECK(cuzk_fil_post_vanilla_parse(&v, 99, good->data, good->len, err, sizeof err) == CUZK_ERR_INVALID_ARG &&
          fj_names(err, "registered_proof"));
    free(b);
}

static void window_case(uint64_t id, cuzk_fil_sector *sec, size_t nsec, cuzk_rng *rng, bool prove)
{
    char what[64];
    snprintf(what, sizeof what, "2KiB WindowPoSt id %llu, %zu sectors", (unsigned long long)id, nsec);
    uint8_t rnd[32];
    rnd32(rnd, rng);
    cuzk_fil_blob b[2];
    for (size_t i = 0; i < nsec; i++) {
        uint8_t *p;
        size_t n;
        CHECK(cuzk_fil_post_vanilla_generate(&p, &n, id, &sec[i], rnd, i) == 0);
        b[i] = (cuzk_fil_blob){p, n};
        /* parse / encode round trip is byte exact */
        cuzk_fil_post_vanilla v;
        char err[256];
        CHECK_MSG(cuzk_fil_post_vanilla_parse(&v, id, p, n, err, sizeof err) == 0, "%s", err);
        cuzk_fil_blob again = reencode(id, &v);
        CHECK(again.len == n && !memcmp(again.data, p, n));
        free((void *)again.data);
        CHECK(v.sector_id == sec[i].sector_id && v.num_proofs == 10);
        cuzk_fil_post_vanilla_free(&v);
    }
    cuzk_fr comm_r[2];
    for (size_t i = 0; i < nsec; i++) cuzk_fr_from_le32(&comm_r[i], sec[i].comm_r);
    cuzk_fil_post_partition j;
    char err[256] = "";
    CHECK_MSG(cuzk_fil_post_prepare(&j, id, rnd, 0, b, nsec, comm_r, err, sizeof err) == 0, "%s: %s", what, err);
    {   /* on 2 threads: the same job */
        cuzk_fil_post_partition j2;
        CHECK(cuzk_fil_post_prepare_threads(&j2, id, rnd, 0, b, nsec, comm_r, 2, err, sizeof err) == 0 &&
              j2.num_inputs == j.num_inputs && !memcmp(j2.inputs, j.inputs, j.num_inputs * sizeof *j.inputs) &&
              !memcmp(j2.leaves, j.leaves, nsec * 10 * sizeof *j.leaves) &&
              !memcmp(j2.challenges, j.challenges, nsec * 10 * sizeof *j.challenges));
        cuzk_fil_post_partition_free(&j2);
    }
    /* the rebuilt inputs equal those from the request-level view alone */
    uint64_t ids[2] = {sec[0].sector_id, nsec > 1 ? sec[1].sector_id : 0};
    cuzk_fr *pub = malloc(sizeof(cuzk_fr) * j.num_inputs);
    CHECK(cuzk_fil_post_public_inputs(pub, id, rnd, 0, ids, comm_r, nsec) == 0 &&
          !memcmp(pub, j.inputs, j.num_inputs * sizeof *pub));
    size_t nc = fj_satisfied(post_synth, &j, j.inputs, j.num_inputs, what);
    printf("%s: %zu constraints, %zu inputs\n", what, nc, j.num_inputs);
    parity(post_synth, &j, what);
    if (prove) {
        cuzk_groth16_pvk pvk;
        cuzk_groth16_proof pf;
        fj_prove(post_synth, &j, j.inputs, j.num_inputs, true, true, rng, what, &pvk, &pf);
        /* public inputs rebuilt from other randomness, another comm_r, or the next partition do not verify */
        uint8_t r2[32];
        memcpy(r2, rnd, 32);
        r2[0] ^= 1;
        CHECK(cuzk_fil_post_public_inputs(pub, id, r2, 0, ids, comm_r, nsec) == 0);
        CHECK(cuzk_groth16_verify(&pvk, &pf, pub, j.num_inputs) == CUZK_ERR_VERIFY_FAILED);
        cuzk_fr c2[2] = {comm_r[0], comm_r[nsec - 1]};
        cuzk_fr_add(&c2[0], &c2[0], &cuzk_fr_one);
        CHECK(cuzk_fil_post_public_inputs(pub, id, rnd, 0, ids, c2, nsec) == 0);
        CHECK(cuzk_groth16_verify(&pvk, &pf, pub, j.num_inputs) == CUZK_ERR_VERIFY_FAILED);
        if (id < 10) { /* API 1.0: the partition index moves the challenges */
            CHECK(cuzk_fil_post_public_inputs(pub, id, rnd, 1, ids, comm_r, nsec) == 0);
            CHECK(cuzk_groth16_verify(&pvk, &pf, pub, j.num_inputs) == CUZK_ERR_VERIFY_FAILED);
        }
        cuzk_groth16_pvk_free(&pvk);
    }
    /* a tampered witness leaf: TestCS refuses */
    cuzk_fr_add(&j.leaves[3], &j.leaves[3], &cuzk_fr_one);
    fj_unsatisfied(post_synth, &j, what);
    cuzk_fil_post_partition_free(&j);

    /* the same through a flattened request (fil_request.h), and what a request may lack */
    cuzk_fil_request rq = {.kind = CUZK_FIL_KIND_WINDOW_POST, .registered_proof = id, .sector_size = 2048,
                           .present = CUZK_FIL_REQ_RANDOMNESS, .blobs = b, .num_blobs = nsec};
    memcpy(rq.randomness, rnd, 32);
    uint8_t *flat = malloc(cuzk_fil_request_size(&rq));
    cuzk_fil_request_encode(&rq, flat);
    cuzk_fil_request dq;
    CHECK(cuzk_fil_request_decode(&dq, flat, cuzk_fil_request_size(&rq), err, sizeof err) == 0);
    CHECK_MSG(cuzk_fil_post_prepare_request(&j, &dq, err, sizeof err) == 0, "request: %s", err);
    CHECK(j.num_inputs == 22);
    cuzk_fil_post_partition_free(&j);
    dq.present = 0;
    CHECK(cuzk_fil_post_prepare_request(&j, &dq, err, sizeof err) == CUZK_ERR_INVALID_ARG &&
          fj_names(err, "randomness: missing"));
    dq.present = CUZK_FIL_REQ_RANDOMNESS;
    dq.kind = CUZK_FIL_KIND_WINNING_POST;
    CHECK(cuzk_fil_post_prepare_request(&j, &dq, err, sizeof err) == CUZK_ERR_INVALID_ARG &&
          fj_names(err, "registered_proof"));
    dq.kind = CUZK_FIL_KIND_WINDOW_POST;
    dq.sector_size = 4096;
    CHECK(cuzk_fil_post_prepare_request(&j, &dq, err, sizeof err) == CUZK_ERR_INVALID_ARG &&
          fj_names(err, "sector_size"));
    cuzk_fil_request_clear(&dq);
    free(flat);

    /* prepare refuses: other randomness, other partition (API 1.0), wrong count, wrong comm_r,
     * a tampered leaf / path hash / comm_r in the blob */
    uint8_t r2[32];
    memcpy(r2, rnd, 32);
    r2[5] ^= 0x10;
    refused(id, r2, 0, b, nsec, NULL, CUZK_ERR_VERIFY_FAILED, "the challenge is");
    if (id < 10) refused(id, rnd, 1, b, nsec, NULL, CUZK_ERR_VERIFY_FAILED, "the challenge is");
    r2[31] = 0xff;
    refused(id, r2, 0, b, nsec, NULL, CUZK_ERR_NONCANONICAL, "randomness");
    refused(id, rnd, 0, b, 0, NULL, CUZK_ERR_INVALID_ARG, "vanilla_proofs");
    if (nsec == 2) {
        cuzk_fil_blob three[3] = {b[0], b[1], b[1]};
        refused(id, rnd, 0, three, 3, NULL, CUZK_ERR_INVALID_ARG, "vanilla_proofs");
        cuzk_fil_blob dup[2] = {b[0], b[0]};
        refused(id, rnd, 0, dup, 2, NULL, CUZK_ERR_INVALID_ARG, "vanilla_proofs[1].sector_id");
        cuzk_fr sw[2] = {comm_r[1], comm_r[0]};
        refused(id, rnd, 0, b, 2, sw, CUZK_ERR_VERIFY_FAILED, "vanilla_proofs[0].comm_r");
    }
    cuzk_fil_post_vanilla v;
    CHECK(cuzk_fil_post_vanilla_parse(&v, id, b[0].data, b[0].len, err, sizeof err) == 0);
    cuzk_fil_blob t[2] = {b[0], nsec > 1 ? b[1] : b[0]};
    cuzk_fr_add(&v.proofs[4].leaf, &v.proofs[4].leaf, &cuzk_fr_one);
    t[0] = reencode(id, &v);
    refused(id, rnd, 0, t, nsec, NULL, CUZK_ERR_VERIFY_FAILED, "inclusion_proofs[4]: path does not hash");
    free((void *)t[0].data);
    cuzk_fr_sub(&v.proofs[4].leaf, &v.proofs[4].leaf, &cuzk_fr_one);
    cuzk_fr_add(&v.proofs[7].path[2], &v.proofs[7].path[2], &cuzk_fr_one);
    t[0] = reencode(id, &v);
    refused(id, rnd, 0, t, nsec, NULL, CUZK_ERR_VERIFY_FAILED, "inclusion_proofs[7]: path does not hash");
    free((void *)t[0].data);
    cuzk_fr_sub(&v.proofs[7].path[2], &v.proofs[7].path[2], &cuzk_fr_one);
    cuzk_fr_add(&v.comm_r, &v.comm_r, &cuzk_fr_one);
    t[0] = reencode(id, &v);
    refused(id, rnd, 0, t, nsec, NULL, CUZK_ERR_VERIFY_FAILED, "vanilla_proofs[0].comm_r: not H(comm_c");
    free((void *)t[0].data);
    cuzk_fil_post_vanilla_free(&v);
    if (nsec == 2) malformed(id, &b[1]);
    for (size_t i = 0; i < nsec; i++) free((void *)b[i].data);
    free(pub);
}

static void winning_case(cuzk_fil_sector *sec, size_t nsec, uint64_t miner, cuzk_rng *rng)
{
    const uint64_t id = 0; /* StackedDrgWinning2KiBV1 */
    uint8_t rnd[32];
    rnd32(rnd, rng);
    uint64_t pick = cuzk_fil_winning_sector_index(rnd, miner, nsec);
    CHECK(pick < nsec);
    uint8_t *p;
    size_t n;
    CHECK(cuzk_fil_post_vanilla_generate(&p, &n, id, &sec[pick], rnd, 0) == 0);
    cuzk_fil_blob b = {p, n};
    cuzk_fil_post_partition j;
    char err[256] = "";
    CHECK_MSG(cuzk_fil_post_prepare(&j, id, rnd, 0, &b, 1, NULL, err, sizeof err) == 0, "winning: %s", err);
    CHECK(j.num_inputs == 132 && j.w.num_sectors == 66);
    cuzk_fr comm_r;
    cuzk_fr_from_le32(&comm_r, sec[pick].comm_r);
    cuzk_fr *pub = malloc(sizeof(cuzk_fr) * j.num_inputs);
    CHECK(cuzk_fil_post_public_inputs(pub, id, rnd, 0, &sec[pick].sector_id, &comm_r, 1) == 0 &&
          !memcmp(pub, j.inputs, j.num_inputs * sizeof *pub));
    fj_satisfied(post_synth, &j, j.inputs, j.num_inputs, "2KiB WinningPoSt");
    parity(post_synth, &j, "2KiB WinningPoSt");
    cuzk_groth16_pvk pvk;
    cuzk_groth16_proof pf;
    fj_prove(post_synth, &j, j.inputs, j.num_inputs, false, true, rng, "2KiB WinningPoSt", &pvk, &pf);
    uint8_t r2[32];
    memcpy(r2, rnd, 32);
    r2[1] ^= 4;
    CHECK(cuzk_fil_post_public_inputs(pub, id, r2, 0, &sec[pick].sector_id, &comm_r, 1) == 0);
    CHECK(cuzk_groth16_verify(&pvk, &pf, pub, j.num_inputs) == CUZK_ERR_VERIFY_FAILED);
    uint64_t other = sec[pick].sector_id + 1;
    CHECK(cuzk_fil_post_public_inputs(pub, id, rnd, 0, &other, &comm_r, 1) == 0);
    CHECK(cuzk_groth16_verify(&pvk, &pf, pub, j.num_inputs) == CUZK_ERR_VERIFY_FAILED);
    cuzk_groth16_pvk_free(&pvk);
    cuzk_fil_post_partition_free(&j);
    refused(id, r2, 0, &b, 1, NULL, CUZK_ERR_VERIFY_FAILED, "the challenge is");
    cuzk_fil_blob two[2] = {b, b};
    refused(id, rnd, 0, two, 2, NULL, CUZK_ERR_INVALID_ARG, "vanilla_proofs: 2 proofs");
    refused(id, rnd, 1, &b, 1, NULL, CUZK_ERR_INVALID_ARG, "partition_index");
    /* a WindowPoSt blob (10 proofs) is not a WinningPoSt one (66) */
    uint8_t *wp;
    size_t wn;
    CHECK(cuzk_fil_post_vanilla_generate(&wp, &wn, 5, &sec[pick], rnd, 0) == 0);
    cuzk_fil_blob wb = {wp, wn};
    refused(id, rnd, 0, &wb, 1, NULL, CUZK_ERR_FORMAT, "inclusion_proofs: 10 entries, want 66");
    free(wp);
    free(p);
    free(pub);
}

/* 32GiB (8-8-0, ProofData::Sub) and 64GiB (8-8-2, Top) WindowPoSt blobs: too large to build
 * trees for, so random contents; encode / parse keep every value, and the positions the writer
 * puts in each PathElement spell the leaf index (sub and top paths have one element each). */
static void big_shapes(cuzk_rng *rng)
{
    static const struct {
        uint64_t id;
        unsigned variant, plen;
    } cases[] = {{13, 1, 9 * 7 + 7}, {14, 2, 9 * 7 + 7 + 1}}; /* 2^27-leaf base trees: 9 levels */
    for (size_t c = 0; c < 2; c++) {
        cuzk_fil_post_vanilla v = {.sector_id = cuzk_rng_u64(rng), .num_proofs = 10};
        cuzk_fil_mproof pr[10];
        cuzk_fr *paths = malloc(sizeof(cuzk_fr) * 10 * cases[c].plen);
        const cuzk_fil_post_proof *p = cuzk_fil_post_proof_get(cases[c].id);
        cuzk_fr_random(&v.comm_r, rng);
        cuzk_fr_random(&v.comm_c, rng);
        cuzk_fr_random(&v.comm_r_last, rng);
        for (unsigned i = 0; i < 10; i++) {
            pr[i].path = paths + i * cases[c].plen;
            for (unsigned k = 0; k < cases[c].plen; k++) cuzk_fr_random(&pr[i].path[k], rng);
            cuzk_fr_random(&pr[i].leaf, rng);
            pr[i].root = v.comm_r_last;
            pr[i].index = cuzk_rng_u64(rng) % (p->sector_size / 32);
        }
        v.proofs = pr;
        uint8_t *b;
        size_t n;
        CHECK(cuzk_fil_post_vanilla_encode(&b, &n, cases[c].id, &v) == 0);
        /* proof 0 starts after sector_id, comm_r and the two lengths: its u32 variant */
        CHECK(b[56] == cases[c].variant && b[57] == 0);
        /* then base_proof first (not root and leaf as in Single): 9 levels */
        CHECK(b[60] == 9 && b[61] == 0);
        cuzk_fil_post_vanilla w;
        char err[256];
        CHECK_MSG(cuzk_fil_post_vanilla_parse(&w, cases[c].id, b, n, err, sizeof err) == 0, "%s", err);
        bool same = w.sector_id == v.sector_id && cuzk_fr_eq(&w.comm_r, &v.comm_r) &&
                    cuzk_fr_eq(&w.comm_c, &v.comm_c) && cuzk_fr_eq(&w.comm_r_last, &v.comm_r_last);
        for (unsigned i = 0; i < 10; i++) {
            same = same && w.proofs[i].index == pr[i].index && cuzk_fr_eq(&w.proofs[i].leaf, &pr[i].leaf) &&
                   cuzk_fr_eq(&w.proofs[i].root, &pr[i].root) &&
                   !memcmp(w.proofs[i].path, pr[i].path, sizeof(cuzk_fr) * cases[c].plen);
        }
        CHECK_MSG(same, "%s: round trip", p->name);
        cuzk_fil_post_vanilla_free(&w);
        /* a 2KiB reader refuses it at the variant */
        CHECK(cuzk_fil_post_vanilla_parse(&w, 10, b, n, err, sizeof err) == CUZK_ERR_FORMAT &&
              fj_names(err, "inclusion_proofs[0].data"));
        free(b);
        free(paths);
    }
}

/*
 * The upstream vector: curio's lib/proof/testgolden/post.vproof (commit 682a1e8d), a WindowPoSt
 * vanilla proof that rust-fil-proofs made for a real 32 GiB sector (postpub.json: PoStProof 8 =
 * StackedDrgWindow32GiBV1, sector 1, prover 1000, randomness all zero, SealedCID below). It
 * pins the bincode layout (ProofData::Sub), the leaf challenges cuzk derives (every inclusion
 * proof opens exactly them), the Poseidon tree hashing (paths reach comm_r_last), comm_r =
 * H(comm_c, comm_r_last), and the CID form of a sealed commitment.
 */
static void golden(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", __FILE__);
    char *slash = strrchr(path, '/');
    snprintf(slash ? slash + 1 : path, sizeof path - (size_t)(slash ? slash + 1 - path : 0),
             "data/curio-window-post-32gib.vproof");
    FILE *f = fopen(path, "rb");
    CHECK_MSG(f != NULL, "%s missing", path);
    if (!f) return;
    static uint8_t buf[32768];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    CHECK(n == 24960);
    cuzk_fil_post_vanilla v;
    char err[256] = "";
    CHECK_MSG(cuzk_fil_post_vanilla_parse(&v, 8, buf, n, err, sizeof err) == 0, "golden: %s", err);
    if (v.num_proofs != 10) return;
    CHECK(v.sector_id == 1);
    uint8_t *again;
    size_t alen;
    CHECK(cuzk_fil_post_vanilla_encode(&again, &alen, 8, &v) == 0 && alen == n && !memcmp(again, buf, n));
    free(again);
    /* the sealed CID (bagboea4b5abcbx3jccdohrttzfneleehcpkmle4oltwuh4q3rcf5tpdodaoj6mtl) as bytes */
    uint8_t cid[40], cr[32], vr[32];
    CHECK(tu_unhex(cid, 40, "0182e20381e80220df691086e3c673c95a45908713d4c5938e5ced43f21b888bd9bc6e181c9f326b") == 0);
    CHECK(cuzk_fil_commitment(cr, cid, 40, CUZK_FIL_COMM_SEALED, "comm_r", err, sizeof err) == 0);
    cuzk_fr_to_le32(vr, &v.comm_r);
    CHECK(!memcmp(cr, vr, 32));
    static const uint8_t zero[32];
    uint64_t ch[10];
    cuzk_fil_post_sector_challenges(ch, cuzk_fil_post_proof_get(8), zero, 1, 0);
    for (unsigned i = 0; i < 10; i++)
        CHECK_MSG(v.proofs[i].index == ch[i], "challenge %u: upstream opens %llu, cuzk derives %llu", i,
                  (unsigned long long)v.proofs[i].index, (unsigned long long)ch[i]);
    cuzk_fr comm_r;
    cuzk_fr_from_le32(&comm_r, cr);
    cuzk_fil_blob b = {buf, n};
    cuzk_fil_post_partition j;
    CHECK_MSG(cuzk_fil_post_prepare(&j, 8, zero, 0, &b, 1, &comm_r, err, sizeof err) == 0, "golden: %s", err);
    CHECK(j.num_inputs == 2349 * 11 && cuzk_fr_eq(&j.inputs[0], &comm_r));
    cuzk_fil_post_partition_free(&j);
    /* API 1.2 (id 13) derives the same leaves at sector index 0; partition 1 of API 1.0 does not */
    CHECK(cuzk_fil_post_prepare(&j, 13, zero, 0, &b, 1, &comm_r, err, sizeof err) == 0);
    cuzk_fil_post_partition_free(&j);
    refused(8, zero, 1, &b, 1, NULL, CUZK_ERR_VERIFY_FAILED, "the challenge is");
    cuzk_fil_post_vanilla_free(&v);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_post_vanilla");
    const uint64_t miner = 1000 + cuzk_rng_u64(&rng) % 100000;
    /* three stand-in 2KiB sealed sectors (seal proof 5, StackedDrg2KiBV1_1) through directories */
    cuzk_fil_sector sec[3];
    char dir[] = "/tmp/cuzk_post_vanilla_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    for (int i = 0; i < 3; i++) {
        cuzk_fil_sector s;
        CHECK(cuzk_fil_sector_random(&s, 5, 100 + cuzk_rng_u64(&rng) % 1000000 * 3 + (uint64_t)i, miner, &rng) == 0);
        char d[128], err[256] = "";
        snprintf(d, sizeof d, "%s/s%d", dir, i);
        CHECK(cuzk_fil_sector_write(&s, d) == 0);
        CHECK_MSG(cuzk_fil_sector_read(&sec[i], d, err, sizeof err) == 0, "%s", err);
        CHECK(sec[i].sector_id == s.sector_id && !memcmp(sec[i].comm_r, s.comm_r, 32) &&
              !memcmp(sec[i].replica, s.replica, 64 * sizeof(cuzk_fr)) && sec[i].data &&
              !memcmp(sec[i].data, s.data, 64 * sizeof(cuzk_fr)));
        /* a sector whose replica does not match comm_r_last is refused */
        if (i == 0) {
            cuzk_fr_add(&s.replica[9], &s.replica[9], &cuzk_fr_one);
            CHECK(cuzk_fil_sector_write(&s, d) == 0);
            cuzk_fil_sector bad;
            CHECK(cuzk_fil_sector_read(&bad, d, err, sizeof err) == CUZK_ERR_FORMAT && fj_names(err, "comm_r_last"));
        }
        cuzk_fil_sector_free(&s);
    }
    window_case(10, sec, 2, &rng, true); /* StackedDrgWindow2KiBV1_2 */
    window_case(5, sec, 2, &rng, true);  /* StackedDrgWindow2KiBV1 (API 1.0: sector index in the challenge) */
    window_case(10, sec + 2, 1, &rng, false);
    winning_case(sec, 3, miner, &rng);
    big_shapes(&rng);
    golden();

    /* prover_id: the uvarint of the actor id */
    uint8_t pid[32];
    cuzk_fil_prover_id(pid, 1000);
    CHECK(pid[0] == 0xe8 && pid[1] == 0x07 && pid[2] == 0);
    for (int i = 0; i < 3; i++) cuzk_fil_sector_free(&sec[i]);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    return tu_finish("test_post_vanilla");
}

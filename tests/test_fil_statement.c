/*
 * A Filecoin proof's statement from its verifier's values (cuzk/filecoin/fil_statement.h):
 *  - base32 (CID strings) against RFC 4648's vectors and a bit-at-a-time encoder here;
 *    strings that are not strict lowercase unpadded base32 refused;
 *  - PoRep public inputs from the public values alone equal those the prover's checked C1
 *    gives (a 2KiB sector sealed natively from a fresh seed), and move when the ticket, seed,
 *    sector number, prover id, comm_d or comm_r do;
 *  - the values in every form (hex, 0x, \x, base64, CIDs, ID addresses, JSON with integers and
 *    {"/": cid} links) give the same statement; each kind's rows equal the prove-side
 *    derivations (cuzk_fil_post_public_inputs over the sorted sectors, snap's);
 *  - bad values and statements refused naming the value.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/base32.h"
#include "cuzk/util/base64.h"
#include "cuzk/filecoin/c1.h"
#include "cuzk/util/error.h"
#include "cuzk/filecoin/fil_statement.h"
#include "cuzk/filecoin/fil_vanilla.h"
#include "cuzk/util/hex.h"
#include "cuzk/filecoin_gen/seal.h"
#include "testutil.h"

/* RFC 4648 base32, lowercase, unpadded, one bit at a time (the oracle). */
static void b32_encode(char *out, const uint8_t *in, size_t n)
{
    static const char A[] = "abcdefghijklmnopqrstuvwxyz234567";
    unsigned v = 0, nb = 0;
    for (size_t bit = 0; bit < 8 * n; bit++) {
        v = v << 1 | ((in[bit / 8] >> (7 - bit % 8)) & 1);
        if (++nb == 5) *out++ = A[v], v = 0, nb = 0;
    }
    if (nb) *out++ = A[v << (5 - nb)];
    *out = 0;
}

static void t_base32(cuzk_rng *rng)
{
    static const char *const vec[][2] = {{"f", "my"}, {"fo", "mzxq"}, {"foo", "mzxw6"}, {"foob", "mzxw6yq"},
                                         {"fooba", "mzxw6ytb"}, {"foobar", "mzxw6ytboi"}};
    for (int i = 0; i < 6; i++) {
        size_t len;
        uint8_t *b = cuzk_base32_decode(vec[i][1], strlen(vec[i][1]), &len);
        CHECK_MSG(b && len == strlen(vec[i][0]) && !memcmp(b, vec[i][0], len), "RFC 4648 %s", vec[i][1]);
        free(b);
    }
    for (int r = 0; r < 2000; r++) {
        uint8_t in[64], *b;
        char s[120];
        size_t n = cuzk_rng_u64(rng) % sizeof in, len;
        cuzk_rng_bytes(rng, in, n);
        b32_encode(s, in, n);
        CHECK_MSG((b = cuzk_base32_decode(s, strlen(s), &len)) && len == n && !memcmp(b, in, n), "%s", s);
        free(b);
        if (!n) continue;
        size_t at = cuzk_rng_u64(rng) % strlen(s);
        char t[120];
        strcpy(t, s);
        t[at] = "A=1 8-"[cuzk_rng_u64(rng) % 6];
        CHECK_MSG(!(b = cuzk_base32_decode(t, strlen(t), &len)), "accepted %s", t);
        free(b);
    }
    size_t len;
    uint8_t *b = cuzk_base32_decode("mz", 2, &len); /* "my" is "f"; "mz" sets an unused bit */
    CHECK(!b);
    free(b);
    CHECK(!(b = cuzk_base32_decode("mzx", 3, &len))); /* 15 bits: no whole byte count */
    free(b);
}

/* ---- PoRep: public values alone against the checked C1 --------------------------------- */

static void seal_values(cuzk_fil_seal_values *v, const cuzk_sealed_sector *s)
{
    v->registered_proof = s->p.registered_proof;
    memcpy(v->prover_id, s->prover_id, 32);
    v->sector_id = s->p.sector_id;
    memcpy(v->ticket, s->ticket, 32);
    memcpy(v->seed, s->seed, 32);
    memcpy(v->comm_d, s->comm_d, 32);
    memcpy(v->comm_r, s->comm_r, 32);
}

static void t_porep_inputs(cuzk_rng *rng, const cuzk_sealed_sector *s, const cuzk_fil_c1 *c1)
{
    size_t ni = cuzk_porep_num_inputs(&c1->cfg) - 1;
    cuzk_fr *want = calloc(ni, sizeof *want), *got = calloc(ni, sizeof *got);
    cuzk_fil_seal_values v;
    seal_values(&v, s);
    for (unsigned k = 0; k < c1->cfg.partitions; k++) {
        CHECK(cuzk_fil_c1_public_inputs(c1, k, want) == ni);
        CHECK(cuzk_fil_porep_public_inputs(got, &v, k) == 0);
        CHECK_MSG(!memcmp(want, got, ni * sizeof *got), "partition %u: the inputs differ from the C1's", k);
    }
    CHECK(cuzk_fil_porep_public_inputs(got, &v, c1->cfg.partitions) == CUZK_ERR_INVALID_ARG);
    /* every value is in the statement: one byte of each changes the rows */
    uint8_t *fields[] = {v.ticket, v.seed, v.prover_id, v.comm_d, v.comm_r};
    const char *names[] = {"ticket", "seed", "prover_id", "comm_d", "comm_r"};
    for (int f = 0; f < 5; f++) {
        cuzk_fil_seal_values w = v;
        uint8_t *p = (uint8_t *)&w + (fields[f] - (uint8_t *)&v);
        p[cuzk_rng_u64(rng) % 31] ^= (uint8_t)(1 + cuzk_rng_u64(rng) % 63);
        CHECK(cuzk_fil_porep_public_inputs(got, &w, 0) == 0);
        CHECK_MSG(memcmp(want, got, ni * sizeof *got), "%s changed, the same inputs", names[f]);
    }
    cuzk_fil_seal_values w = v;
    w.sector_id++;
    CHECK(cuzk_fil_porep_public_inputs(got, &w, 0) == 0 && memcmp(want, got, ni * sizeof *got));
    w = v;
    memset(w.comm_r + 24, 0xff, 8);
    CHECK(cuzk_fil_porep_public_inputs(got, &w, 0) == CUZK_ERR_NONCANONICAL);
    free(want), free(got);
}

/* ---- statements -------------------------------------------------------------------------- */

static char *hex32(char out[65], const uint8_t b[32]) { return cuzk_hex_encode(out, b, 32), out; }

/* "b" + base32 of a Filecoin commitment CID (CIDv1, codec, multihash, 32 bytes). */
static char *cid_text(char out[80], const uint8_t d[32], int sealed)
{
    uint8_t c[40] = {0x01, 0x82, 0xe2, 0x03, 0x81, 0xe8, 0x02, 0x20};
    if (!sealed) memcpy(c, (uint8_t[]){0x01, 0x81, 0xe2, 0x03, 0x92, 0x20, 0x20}, 7);
    size_t h = sealed ? 8 : 7;
    memcpy(c + h, d, 32);
    out[0] = 'b';
    b32_encode(out + 1, c, h + 32);
    return out;
}

static int set(cuzk_fil_statement *st, const char *f, const char *v)
{
    char err[512];
    int rc = cuzk_fil_statement_set(st, f, v, err, sizeof err);
    if (rc) fprintf(stderr, "  set %s=%s: %s\n", f, v, err);
    return rc;
}

/* The PoRep statement of s from values in a form chosen by `form`. */
static void porep_statement(cuzk_fil_statement *st, const cuzk_sealed_sector *s, int form)
{
    char a[80], b[80], num[32], t[80];
    cuzk_fil_statement_init(st);
    CHECK(set(st, "kind", "porep") == 0);
    snprintf(num, sizeof num, form & 1 ? "%llu" : "StackedDrg2KiBV1_1", (unsigned long long)s->p.registered_proof);
    CHECK(set(st, form & 4 ? "sector_size" : "registered_proof", form & 4 ? "2KiB" : num) == 0);
    snprintf(num, sizeof num, form & 2 ? "f0%llu" : "%llu", (unsigned long long)s->p.miner_id);
    CHECK(set(st, form & 8 ? "prover_id" : "miner", form & 8 ? hex32(a, s->prover_id) : num) == 0);
    snprintf(num, sizeof num, "%llu", (unsigned long long)s->p.sector_id);
    CHECK(set(st, "sector_number", num) == 0);
    CHECK(set(st, "comm_r", form & 1 ? cid_text(a, s->comm_r, 1) : hex32(a, s->comm_r)) == 0);
    if (!(form & 2)) snprintf(b, sizeof b, "0x%s", hex32(t, s->comm_d));
    CHECK(set(st, "comm_d", form & 2 ? cid_text(b, s->comm_d, 0) : b) == 0);
    if (form & 1) cuzk_base64_encode(a, s->ticket, 32);
    else snprintf(a, sizeof a, "\\x%s", hex32(t, s->ticket));
    CHECK(set(st, "ticket", a) == 0);
    CHECK(set(st, "seed", hex32(a, s->seed)) == 0);
}

static void t_porep_statement(const cuzk_sealed_sector *s, const cuzk_fil_c1 *c1)
{
    char err[512];
    size_t ni = cuzk_porep_num_inputs(&c1->cfg) - 1;
    cuzk_fr *want = calloc(ni, sizeof *want), *got = calloc(ni, sizeof *got);
    CHECK(cuzk_fil_c1_public_inputs(c1, 0, want) == ni);
    for (int form = 0; form < 16; form++) {
        cuzk_fil_statement st;
        porep_statement(&st, s, form);
        CHECK_MSG(cuzk_fil_statement_finish(&st, err, sizeof err) == 0, "form %d: %s", form, err);
        CHECK(st.num_inputs == ni && st.partitions == c1->cfg.partitions && st.circuit == CUZK_FIL_CIRCUIT_POREP);
        CHECK_MSG(cuzk_fil_statement_inputs(&st, 0, got) == 0 && !memcmp(got, want, ni * sizeof *got), "form %d", form);
        cuzk_fil_statement_free(&st);
    }
    /* the same from JSON: integers, a {"/": cid} link, base64 */
    char json[1024], r[80], d[80], tk[80], sd[80];
    cuzk_base64_encode(tk, s->ticket, 32);
    snprintf(json, sizeof json,
             "{\"kind\":\"porep\",\"registered_proof\":%llu,\"miner\":\"t0%llu\",\"sector_number\":%llu,"
             "\"comm_r\":{\"/\":\"%s\"},\"comm_d\":\"%s\",\"ticket\":\"%s\",\"seed\":\"%s\"}",
             (unsigned long long)s->p.registered_proof, (unsigned long long)s->p.miner_id,
             (unsigned long long)s->p.sector_id, cid_text(r, s->comm_r, 1), cid_text(d, s->comm_d, 0), tk,
             hex32(sd, s->seed));
    cuzk_fil_statement st;
    cuzk_fil_statement_init(&st);
    CHECK_MSG(cuzk_fil_statement_set_json(&st, json, strlen(json), err, sizeof err) == 0, "%s", err);
    CHECK_MSG(cuzk_fil_statement_finish(&st, err, sizeof err) == 0, "%s", err);
    CHECK(cuzk_fil_statement_inputs(&st, 0, got) == 0 && !memcmp(got, want, ni * sizeof *got));
    /* a value given twice, here on top of the file */
    CHECK(cuzk_fil_statement_set(&st, "seed", sd, err, sizeof err) == CUZK_ERR_INVALID_ARG && strstr(err, "twice"));
    CHECK(cuzk_fil_statement_set(&st, "prover_id", sd, err, sizeof err) == CUZK_ERR_INVALID_ARG &&
          strstr(err, "miner and prover_id"));
    cuzk_fil_statement_free(&st);
    free(want), free(got);
}

/* Values that do not parse: each refused naming the value. */
static void t_bad_values(const cuzk_sealed_sector *s)
{
    char sealed[80], unsealed[80], big[80], err[512];
    cid_text(sealed, s->comm_r, 1);
    cid_text(unsealed, s->comm_d, 0);
    memset(big, 'f', 64), big[64] = 0; /* 0xff.. is not a field element */
    static char trunc[80];
    snprintf(trunc, sizeof trunc, "%.*s", (int)strlen(sealed) - 2, sealed);
    const char *bad[][3] = {
        {"kind", "post", "kind: \"post\""},
        {"comm_r", unsealed, "comm_r: the CID of an unsealed"},
        {"comm_d", sealed, "comm_d: the CID of a sealed"},
        {"comm_r", trunc, "neither 64 hex digits nor a CID"},
        {"comm_r", "Bagboea4b5abc", "neither 64 hex digits nor a CID"},
        {"comm_r", big, "not a canonical field element"},
        {"comm_r_new", "12", "comm_r_new"},
        {"ticket", "00", "ticket: \"00\" is not 32 bytes"},
        {"seed", "AAAA", "seed"},
        {"sector_number", "-1", "sector_number: \"-1\" is not a decimal number"},
        {"sector_number", "18446744073709551616", "not a decimal number"},
        {"sector_number", "1e3", "not a decimal number"},
        {"partition", "4294967296", "below 2^32"},
        {"miner", "f1abcdef", "not an ID address"},
        {"miner", "f0", "not an ID address"},
        {"prover_id", big, "prover_id: not a canonical"},
        {"sector", "12", "sector: \"12\" is not NUMBER:COMM_R"},
        {"sector", "x:00", "not a sector number"},
        {"sector", "7:00", "sector 7: comm_r"},
        {"sector_size", "32G", "sector_size"},
        {"registered_proof", "Stacked Drg", "neither a number nor a proof name"},
        {"commr", "1", "commr: not a value"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cuzk_fil_statement st;
        cuzk_fil_statement_init(&st);
        err[0] = 0;
        int rc = cuzk_fil_statement_set(&st, bad[i][0], bad[i][1], err, sizeof err);
        CHECK_MSG(rc != 0 && strstr(err, bad[i][2]) && !st.given, "%s=%s: rc %d, \"%s\"", bad[i][0], bad[i][1], rc, err);
        cuzk_fil_statement_free(&st);
    }
    const char *bad_json[][2] = {
        {"[1]", "expected an object"},
        {"{\"kind\":\"porep\",\"kind\":\"snap\"}", "JSON line 1"},
        {"{\"kind\":\"porep\"", "JSON line 1"},
        {"{\"sector_number\":-3}", "sector_number: expected a string or a non-negative integer"},
        {"{\"sector_number\":1.5}", "sector_number: expected"},
        {"{\"sectors\":{}}", "sectors: expected an array"},
        {"{\"sectors\":[{\"sector_number\":1}]}", "sectors[0]: expected"},
        {"{\"sectors\":[7]}", "sectors[0]: expected"},
        {"{\"extra\":\"1\"}", "extra: not a value"},
        {"{\"comm_r\":{\"/\":1}}", "comm_r: expected"},
    };
    for (size_t i = 0; i < sizeof bad_json / sizeof bad_json[0]; i++) {
        cuzk_fil_statement st;
        cuzk_fil_statement_init(&st);
        err[0] = 0;
        int rc = cuzk_fil_statement_set_json(&st, bad_json[i][0], strlen(bad_json[i][0]), err, sizeof err);
        CHECK_MSG(rc != 0 && strstr(err, bad_json[i][1]), "%s: rc %d, \"%s\"", bad_json[i][0], rc, err);
        cuzk_fil_statement_free(&st);
    }
}

/* Statements that parse but are not whole or not consistent: finish refuses them. */
static void t_bad_statements(const cuzk_sealed_sector *s)
{
    char h[65], r[65], err[512];
    hex32(h, s->comm_d);
    hex32(r, s->comm_r);
    char sec1[96], sec2[96], sec3[96];
    snprintf(sec1, sizeof sec1, "5:%s", r);
    snprintf(sec2, sizeof sec2, "9:%s", r);
    snprintf(sec3, sizeof sec3, "5:%s", h);
    const char *zero = "0000000000000000000000000000000000000000000000000000000000000000";
    const char *cases[][20] = {
        /* field, value, ... , NULL, expected message */
        {"registered_proof", "5", NULL, "kind: missing"},
        {"kind", "snap", "comm_r_old", r, "comm_r_new", r, NULL, "comm_d_new: missing"},
        {"kind", "snap", "comm_r_old", r, "comm_r_new", r, "comm_d_new", h, NULL, "registered_proof or sector_size"},
        {"kind", "snap", "sector_size", "2KiB", "comm_r_old", r, "comm_r_new", r, "comm_d_new", h, "seed", h, NULL,
         "seed: not a value of a snap proof"},
        {"kind", "snap", "registered_proof", "StackedDrg2KiBV1_1", "comm_r_old", r, "comm_r_new", r, "comm_d_new", h,
         NULL, "(give an update proof by number"},
        {"kind", "window-post", "registered_proof", "0", "randomness", h, "sector", sec1, NULL,
         "registered_proof: 0 is not a window-post proof"},
        {"kind", "winning-post", "sector_size", "2KiB", "randomness", h, "sector", sec1, "sector", sec2, NULL,
         "a winning-post proves its one challenged sector, 2 given"},
        {"kind", "window-post", "sector_size", "2KiB", "randomness", h, "sector", sec1, "sector", sec3, NULL,
         "sector: 5 given twice"},
        {"kind", "window-post", "sector_size", "2KiB", "randomness", h, "sector", sec1, "partition", "1", NULL,
         "partition: 1, this window-post proof has 1"},
        {"kind", "window-post", "sector_size", "8MiB", "registered_proof", "StackedDrgWindow2KiBV1_2", "randomness", h,
         "sector", sec1, NULL, "sector_size: 8388608 bytes, registered proof"},
        {"kind", "porep", "registered_proof", "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", "miner", "1",
         "sector_number", "1", "comm_r", r, "comm_d", h, "ticket", h, "seed", h, NULL, "NI-PoRep"},
        {"kind", "porep", "sector_size", "2KiB", "miner", "1", "sector_number", "1", "comm_r", zero, "comm_d", h,
         "ticket", h, "seed", h, NULL, "comm_r: all zero"},
        {"kind", "porep", "sector_size", "4KiB", "miner", "1", "sector_number", "1", "comm_r", r, "comm_d", h,
         "ticket", h, NULL, "seed: missing"},
        {"kind", "porep", "sector_size", "3KiB", "miner", "1", "sector_number", "1", "comm_r", r, "comm_d", h,
         "ticket", h, "seed", h, NULL, "no porep proof has 3072-byte sectors"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cuzk_fil_statement st;
        cuzk_fil_statement_init(&st);
        size_t j = 0;
        int ok = 1;
        for (; cases[i][j]; j += 2) ok &= set(&st, cases[i][j], cases[i][j + 1]) == 0;
        err[0] = 0;
        int rc = cuzk_fil_statement_finish(&st, err, sizeof err);
        CHECK_MSG(ok && rc != 0 && !st.finished && strstr(err, cases[i][j + 1]), "case %zu: rc %d, \"%s\"", i, rc, err);
        cuzk_fil_statement_free(&st);
    }
}

/* A random canonical commitment. */
static void rand_comm(cuzk_rng *rng, uint8_t out[32])
{
    cuzk_rng_bytes(rng, out, 32);
    out[31] &= 0x3f;
}

/* Window / Winning PoSt: the rows are cuzk_fil_post_public_inputs over the sectors sorted by
 * number, partition by partition; the randomness's top two bits do not count. */
static void t_post_statement(cuzk_rng *rng)
{
    enum { N = 5 };
    uint64_t ids[N];
    uint8_t comm[N][32], rnd[32];
    cuzk_fr fr[N];
    char err[512], v[200], c[80];
    for (int i = 0; i < N; i++) {
        ids[i] = 1000 * (uint64_t)i + cuzk_rng_u64(rng) % 1000; /* ascending */
        rand_comm(rng, comm[i]);
        cuzk_fr_from_le32(&fr[i], comm[i]);
    }
    cuzk_rng_bytes(rng, rnd, 32);
    rnd[31] |= 0xc0;
    for (int form = 0; form < 3; form++) {
        cuzk_fil_statement st;
        cuzk_fil_statement_init(&st);
        CHECK(set(&st, "kind", form == 2 ? "winning-post" : "window-post") == 0);
        const char *proof = form == 1 ? "StackedDrgWindow2KiBV1" : form == 2 ? "0" : "StackedDrgWindow2KiBV1_2";
        CHECK(set(&st, "registered_proof", proof) == 0);
        CHECK(set(&st, "randomness", hex32(c, rnd)) == 0);
        int n = form == 2 ? 1 : N;
        for (int i = n - 1; i >= 0; i--) { /* given in reverse: sorted by number again */
            int j = (i * 3) % n;
            snprintf(v, sizeof v, "%llu:%s", (unsigned long long)ids[j],
                     form ? cid_text(c, comm[j], 1) : hex32(c, comm[j]));
            CHECK(set(&st, "sector", v) == 0);
        }
        CHECK_MSG(cuzk_fil_statement_finish(&st, err, sizeof err) == 0, "%s", err);
        CHECK(st.partitions == (form == 2 ? 1u : 3u) && st.num_inputs == (form == 2 ? 132u : 22u));
        uint8_t r0[32];
        memcpy(r0, rnd, 32);
        r0[31] &= 0x3f;
        for (uint32_t k = 0; k < st.partitions; k++) {
            cuzk_fr got[132], want[132];
            size_t lo = 2 * k, m = form == 2 ? 1 : (N - lo < 2 ? N - lo : 2);
            CHECK(cuzk_fil_statement_inputs(&st, k, got) == 0);
            CHECK(cuzk_fil_post_public_inputs(want, st.registered_proof, r0, k, ids + lo, fr + lo, m) == 0);
            CHECK_MSG(!memcmp(got, want, st.num_inputs * sizeof *got), "form %d partition %u", form, k);
        }
        if (form == 1) { /* V1: partition 2's sector index counts in its challenges */
            cuzk_fr a[22], b[22];
            CHECK(cuzk_fil_statement_inputs(&st, 2, a) == 0);
            CHECK(cuzk_fil_post_public_inputs(b, st.registered_proof, r0, 0, ids + 4, fr + 4, 1) == 0);
            CHECK(memcmp(a, b, sizeof a) != 0);
            CHECK(set(&st, "partition", "2") == 0 && cuzk_fil_statement_finish(&st, err, sizeof err) == 0);
            CHECK(cuzk_fil_statement_proofs(&st) == 1 && cuzk_fil_statement_partition_of(&st, 0) == 2);
            CHECK(cuzk_fil_statement_inputs(&st, 0, b) == 0 && !memcmp(a, b, sizeof a));
            CHECK(cuzk_fil_statement_inputs(&st, 1, b) == CUZK_ERR_INVALID_ARG);
        }
        cuzk_fil_statement_free(&st);
    }
}

/* SnapDeals: each partition's row is cuzk_fil_snap_public_inputs'. */
static void t_snap_statement(cuzk_rng *rng)
{
    uint8_t ro[32], rn[32], dn[32];
    char a[80], b[80], c[80], err[512];
    rand_comm(rng, ro), rand_comm(rng, rn), rand_comm(rng, dn);
    cuzk_fil_statement st;
    cuzk_fil_statement_init(&st);
    CHECK(set(&st, "kind", "snap") == 0 && set(&st, "sector_size", "8MiB") == 0);
    CHECK(set(&st, "comm_r_old", cid_text(a, ro, 1)) == 0 && set(&st, "comm_r_new", hex32(b, rn)) == 0 &&
          set(&st, "comm_d_new", cid_text(c, dn, 0)) == 0);
    CHECK_MSG(cuzk_fil_statement_finish(&st, err, sizeof err) == 0, "%s", err);
    CHECK(st.partitions == cuzk_fil_snap_partitions(st.registered_proof) && st.partitions > 1 && st.num_inputs == 4);
    cuzk_fr fo, fn, fd, got[4], want[4];
    cuzk_fr_from_le32(&fo, ro), cuzk_fr_from_le32(&fn, rn), cuzk_fr_from_le32(&fd, dn);
    for (uint32_t k = 0; k < st.partitions; k++) {
        CHECK(cuzk_fil_statement_inputs(&st, k, got) == 0);
        CHECK(cuzk_fil_snap_public_inputs(want, st.registered_proof, k, &fo, &fd, &fn) == 0);
        CHECK_MSG(!memcmp(got, want, sizeof got), "partition %u", k);
    }
    cuzk_fil_statement_free(&st);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_fil_statement");
    t_base32(&rng);
    const cuzk_fil_seal_proof *rp = cuzk_fil_seal_proof_by_name("StackedDrg2KiBV1_1");
    cuzk_seal_params p = {.registered_proof = rp->id,
                          .miner_id = cuzk_rng_u64(&rng) >> (cuzk_rng_u64(&rng) % 64),
                          .sector_id = cuzk_rng_u64(&rng) >> (cuzk_rng_u64(&rng) % 64),
                          .seed = cuzk_rng_u64(&rng),
                          .nthreads = 2};
    cuzk_sealed_sector s;
    cuzk_fil_c1 *c1 = NULL;
    char err[512];
    CHECK(cuzk_seal(&s, &p) == 0);
    CHECK(cuzk_seal_c1(&s, &c1) == 0);
    CHECK_MSG(cuzk_fil_c1_check(c1, rp->id, p.miner_id, p.sector_id, err, sizeof err) == 0, "%s", err);
    t_porep_inputs(&rng, &s, c1);
    t_porep_statement(&s, c1);
    t_bad_values(&s);
    t_bad_statements(&s);
    t_post_statement(&rng);
    t_snap_statement(&rng);
    cuzk_fil_c1_free(c1);
    cuzk_sealed_sector_free(&s);
    return tu_finish("test_fil_statement");
}

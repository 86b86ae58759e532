/*
 * Native sealing and the PoRep C1 output: a 2KiB sector sealed from fresh
 * random params (seed printed) -> tree D checked against a one-shot OpenSSL
 * SHA-256 tree over data.bin's bytes, every label checked against the
 * circuit module's cuzk_porep_label with the graph's parents -> C1 JSON
 * (inner and curio's wrapper) -> our parser (round trip byte-identical) ->
 * vanilla verification with rebuilt replica_id, challenges and parents ->
 * the partition circuit satisfied on TestCS with the public inputs rebuilt
 * by cuzk (the issue-#7 item: TestCS from real vanilla proofs).
 * Tampering: a label, a path hash, comm_r, the seed, the ticket, replica_id,
 * a challenge index, the miner or sector id are caught by the check; a parent
 * label changed after the check is caught by the circuit; malformed JSON (14
 * shapes) is rejected with the field named. 4KiB (8-2-0 trees) and 32KiB
 * (8-8-2) sectors seal and pass the vanilla verification. The synthetic
 * generator: a 32GiB C1 (Sub proofs) round-trips and checks; an 8MiB one
 * checks and satisfies the circuit (32GiB on TestCS: tests/tool_seal_synth.c).
 * Groth16 (test setup, prove, verify with rebuilt inputs, a wrong seed's
 * inputs rejected) on the real 2KiB circuit (~2.4M constraints) takes
 * minutes on 2 cores: run with CUZK_SEAL_GROTH16=1.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/sha.h>

#include "cuzk/util/base64.h"
#include "cuzk/filecoin/c1.h"
#include "cuzk/cs/cs.h"
#include "cuzk/util/error.h"
#include "cuzk/groth16/groth16.h"
#include "cuzk/filecoin_gen/seal.h"
#include "testutil.h"

static char *to_json(const cuzk_fil_c1 *c1, int wrapped, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    int rc = wrapped ? cuzk_fil_c1_write_wrapped(c1, 1, f) : cuzk_fil_c1_write(c1, f);
    fclose(f);
    CHECK(rc == 0);
    return buf;
}

/* Navigates "a/0/b" in a jansson tree. */
static json_t *jat(json_t *j, const char *path)
{
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *save = NULL, *t = strtok_r(tmp, "/", &save); t && j; t = strtok_r(NULL, "/", &save))
        j = json_is_array(j) ? json_array_get(j, strtoul(t, NULL, 10)) : json_object_get(j, t);
    return j;
}

typedef void (*mutate_fn)(json_t *root);

/* Applies m to the JSON text, parses; returns the parse code and the parsed C1 (or NULL).
 * Parsed on 3 threads too (the proofs apart): the same code, message and C1. */
static int mutated(const char *json, mutate_fn m, cuzk_fil_c1 **out, char *err, size_t cap)
{
    json_t *root = json_loads(json, 0, NULL);
    m(root);
    char *s = json_dumps(root, JSON_COMPACT);
    int rc = cuzk_fil_c1_parse((const uint8_t *)s, strlen(s), out, err, cap);
    cuzk_fil_c1 *t = NULL;
    char err3[512];
    int rc3 = cuzk_fil_c1_parse_threads((const uint8_t *)s, strlen(s), 3, &t, err3, sizeof err3);
    bool same = rc3 == rc && (rc ? !strcmp(err3, err) : t != NULL);
    if (same && !rc) {
        size_t l1, l3;
        char *j1 = to_json(*out, 0, &l1), *j3 = to_json(t, 0, &l3);
        same = l1 == l3 && !memcmp(j1, j3, l1);
        free(j1);
        free(j3);
    }
    CHECK_MSG(same, "3 threads: rc %d / %d, \"%s\" / \"%s\"", rc3, rc, err3, err);
    cuzk_fil_c1_free(t);
    /* the same document in curio's wrapper: on 1 and 3 threads the same code
     * and message (the inner's, under Phase1Out/) */
    {
        const size_t sl = strlen(s), bl = cuzk_base64_len(sl);
        char *w = malloc(bl + 96), e1[512], e3w[512];
        int o = snprintf(w, 96, "{\"SectorNum\":1,\"Phase1Out\":\"");
        cuzk_base64_encode(w + o, (const uint8_t *)s, sl);
        strcat(w + o + bl, "\",\"SectorSize\":2048}");
        cuzk_fil_c1 *w1 = NULL, *w3 = NULL;
        const int r1 = cuzk_fil_c1_parse((const uint8_t *)w, strlen(w), &w1, e1, sizeof e1);
        const int r3 = cuzk_fil_c1_parse_threads((const uint8_t *)w, strlen(w), 3, &w3, e3w, sizeof e3w);
        CHECK_MSG(r1 == rc && r3 == rc && (rc ? !strcmp(e1, e3w) && strstr(e1, "Phase1Out") : w1 && w3),
                  "wrapped: rc %d / %d / %d, \"%s\" / \"%s\"", r1, r3, rc, e1, e3w);
        cuzk_fil_c1_free(w1);
        cuzk_fil_c1_free(w3);
        free(w);
    }
    free(s);
    json_decref(root);
    return rc;
}

#define P0 "vanilla_proofs/StackedDrg2KiBV1/0/0/"
static void set_int(json_t *root, const char *path, json_int_t v)
{
    json_t *j = jat(root, path);
    CHECK_MSG(j && json_is_integer(j), "path %s", path);
    if (j) json_integer_set(j, v);
}
static void bump_byte(json_t *root, const char *path)
{
    json_t *j = jat(root, path);
    CHECK_MSG(j && json_is_integer(j), "path %s", path);
    if (j) json_integer_set(j, (json_integer_value(j) + 1) & 0x3f); /* stays canonical as byte 0 */
}

/* ---- malformed: rejected by the parser, with the field named ---- */
static void m_rp(json_t *r) { json_object_set_new(r, "registered_proof", json_string("StackedDrg3KiBV1")); }
static void m_size(json_t *r)
{
    json_t *v = jat(r, "vanilla_proofs");
    json_object_set(v, "StackedDrg8MiBV1", json_object_get(v, "StackedDrg2KiBV1"));
    json_object_del(v, "StackedDrg2KiBV1");
}
static void m_parts(json_t *r)
{
    json_t *a = jat(r, "vanilla_proofs/StackedDrg2KiBV1");
    json_array_append_new(a, json_deep_copy(json_array_get(a, 0)));
}
static void m_chals(json_t *r) { json_array_remove(jat(r, "vanilla_proofs/StackedDrg2KiBV1/0"), 1); }
static void m_levels(json_t *r) { json_array_remove(jat(r, P0 "comm_d_proofs/data/Single/path/path"), 0); }
static void m_index(json_t *r) { set_int(r, P0 "comm_d_proofs/data/Single/path/path/2/index", 2); }
static void m_rows(json_t *r)
{
    json_t *rows = jat(r, P0 "replica_column_proofs/c_x/column/rows");
    json_array_append_new(rows, json_deep_copy(json_array_get(rows, 0)));
}
static void m_noncanon(json_t *r) { set_int(r, P0 "comm_r_last_proof/data/Single/root/31", 0xff); }
static void m_byte(json_t *r) { set_int(r, "comm_d/3", 256); }
static void m_variant(json_t *r)
{
    json_t *d = jat(r, P0 "comm_r_last_proof/data");
    json_object_set(d, "Sub", json_object_get(d, "Single"));
    json_object_del(d, "Single");
}
static void m_layer(json_t *r) { set_int(r, P0 "labeling_proofs/1/layer_index", 1); }
static void m_unknown(json_t *r) { json_object_set_new(jat(r, P0 "encoding_proof"), "extra", json_true()); }
static void m_hashes(json_t *r) { json_array_remove(jat(r, P0 "comm_r_last_proof/data/Single/path/path/0/hashes"), 0); }
static void m_drg(json_t *r) { json_array_remove(jat(r, P0 "replica_column_proofs/drg_parents"), 5); }
/* a proof whose comm_d_proofs are 1-2 M zeros: ~50 bytes of nodes each, past
 * the 16 MiB a proof's load may take */
static size_t g_junk;
static void m_junk(json_t *r)
{
    json_t *a = json_array();
    for (size_t i = 0; i < g_junk; i++) json_array_append_new(a, json_integer(0));
    json_object_set_new(jat(r, P0), "comm_d_proofs", a);
}
/* a proof that is an array: named from its text, without loading it */
static void m_proof_array(json_t *r) { json_array_set_new(jat(r, "vanilla_proofs/StackedDrg2KiBV1/0"), 1, json_array()); }

/* ---- tampered values that parse: caught by the vanilla verification ---- */
static void t_label(json_t *r) { bump_byte(r, P0 "replica_column_proofs/c_x/column/rows/0/0"); }
static void t_path(json_t *r) { bump_byte(r, P0 "comm_d_proofs/data/Single/path/path/1/hashes/0/0"); }
static void t_comm_r(json_t *r) { bump_byte(r, "comm_r/0"); }
static void t_ticket(json_t *r) { bump_byte(r, "ticket/0"); }
static void t_replica_id(json_t *r) { bump_byte(r, "replica_id/0"); }
static void t_parent_row(json_t *r) { bump_byte(r, P0 "replica_column_proofs/exp_parents/3/column/rows/1/0"); }
static void t_lab_parent(json_t *r) { bump_byte(r, P0 "labeling_proofs/1/parents/9/0"); }
static void t_leaf(json_t *r) { bump_byte(r, P0 "comm_r_last_proof/data/Single/leaf/0"); }
static int g_node;
static void t_node(json_t *r)
{
    for (int l = 0; l < 2; l++) {
        char p[128];
        snprintf(p, sizeof p, P0 "labeling_proofs/%d/node", l);
        set_int(r, p, g_node);
    }
    set_int(r, P0 "encoding_proof/node", g_node);
}
static uint8_t g_seed[32];
static void t_seed(json_t *r)
{
    json_t *a = json_array();
    for (int i = 0; i < 32; i++) json_array_append_new(a, json_integer(g_seed[i]));
    json_object_set_new(r, "seed", a);
}

/* SHA-256 tree over the data bytes, each digest's top two bits cleared (fr32). */
static void oracle_comm_d(uint8_t out[32], const uint8_t *data, size_t nodes)
{
    uint8_t *lv = malloc(nodes * 32);
    memcpy(lv, data, nodes * 32);
    for (size_t n = nodes; n > 1; n /= 2)
        for (size_t i = 0; i < n / 2; i++) {
            SHA256(lv + 64 * i, 64, lv + 32 * i);
            lv[32 * i + 31] &= 0x3f;
        }
    memcpy(out, lv, 32);
    free(lv);
}

static void satisfied(const cuzk_fil_c1 *c1, const char *what, int expect)
{
    for (unsigned k = 0; k < c1->cfg.partitions; k++) {
        cuzk_porep_witness w;
        cuzk_porep_challenge *ch;
        CHECK(cuzk_fil_c1_witness(c1, k, &w, &ch) == 0);
        if (!ch) return;
        cuzk_test_cs *t = cuzk_test_cs_new();
        cuzk_cs_alloc_one(&t->base);
        CHECK(cuzk_porep_circuit(&t->base, &c1->cfg, &w) == 0);
        bool ok = cuzk_test_cs_is_satisfied(t);
        CHECK_MSG(ok == expect, "%s partition %u: %s at %s", what, k, ok ? "satisfied" : "unsatisfied",
                  t->first_unsat ? t->first_unsat : "-");
        /* an unsatisfied system names its first failing constraint (namespace path) */
        if (!ok) CHECK_MSG(t->first_unsat && strchr(t->first_unsat, '/'), "%s: no failing constraint named", what);
        size_t ni = cuzk_porep_num_inputs(&c1->cfg);
        cuzk_fr *pub = malloc(sizeof(cuzk_fr) * ni);
        CHECK(cuzk_fil_c1_public_inputs(c1, k, pub) == ni - 1);
        CHECK(t->base.num_inputs == ni && memcmp(pub, &t->input.v[1], (ni - 1) * sizeof(cuzk_fr)) == 0);
        free(pub);
        free(ch);
        cuzk_cs_free(&t->base);
    }
}

static void groth16(const cuzk_fil_c1 *c1, cuzk_rng *rng)
{
    cuzk_porep_witness w;
    cuzk_porep_challenge *ch;
    CHECK(cuzk_fil_c1_witness(c1, 0, &w, &ch) == 0);
    cuzk_recording_cs *rc = cuzk_recording_cs_new();
    cuzk_proving_cs *pc = cuzk_proving_cs_new();
    cuzk_cs_alloc_one(&rc->base);
    cuzk_cs_alloc_one(&pc->base);
    CHECK(cuzk_porep_circuit(&rc->base, &c1->cfg, NULL) == 0);
    CHECK(cuzk_porep_circuit(&pc->base, &c1->cfg, &w) == 0);
    cuzk_cs_finalize(&rc->base);
    cuzk_cs_finalize(&pc->base);
    cuzk_groth16_params p;
    CHECK(cuzk_groth16_setup(&p, rc, rng, 2) == 0);
    cuzk_groth16_proof pf;
    CHECK(cuzk_groth16_prove(&pf, &p, pc, rng, 2) == 0);
    cuzk_groth16_pvk pvk;
    CHECK(cuzk_groth16_prepare_vk(&pvk, &p.vk) == 0);
    size_t ni = cuzk_porep_num_inputs(&c1->cfg) - 1;
    cuzk_fr *pub = malloc(sizeof(cuzk_fr) * ni);
    CHECK(cuzk_fil_c1_public_inputs(c1, 0, pub) == ni);
    CHECK_MSG(cuzk_groth16_verify(&pvk, &pf, pub, ni) == 0, "verify with rebuilt inputs");
    cuzk_fr_add(&pub[3], &pub[3], &cuzk_fr_one); /* another challenge */
    CHECK(cuzk_groth16_verify(&pvk, &pf, pub, ni) != 0);
    free(pub);
    cuzk_groth16_pvk_free(&pvk);
    cuzk_groth16_params_free(&p);
    cuzk_cs_free(&rc->base);
    cuzk_cs_free(&pc->base);
    free(ch);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_seal");
    g_junk = ((size_t)1 << 20) + (size_t)(cuzk_rng_u64(&rng) % (1u << 20));
    const cuzk_fil_seal_proof *rp = cuzk_fil_seal_proof_by_name("StackedDrg2KiBV1_1");
    cuzk_seal_params p = {.registered_proof = rp->id,
                          .miner_id = cuzk_rng_u64(&rng) >> (cuzk_rng_u64(&rng) % 64),
                          .sector_id = cuzk_rng_u64(&rng) % 100000,
                          .seed = cuzk_rng_u64(&rng),
                          .nthreads = 2};
    cuzk_sealed_sector s;
    CHECK(cuzk_seal(&s, &p) == 0);
    const uint64_t N = s.cfg.nodes;

    /* tree D against one-shot SHA-256 over the data bytes */
    {
        uint8_t *bytes = malloc(N * 32), want[32];
        for (uint64_t n = 0; n < N; n++) cuzk_fr_to_le32(bytes + 32 * n, &s.data[n]);
        for (uint64_t n = 0; n < N; n++) CHECK(bytes[32 * n + 31] < 0x40);
        oracle_comm_d(want, bytes, N);
        CHECK_MSG(memcmp(want, s.comm_d, 32) == 0, "comm_d differs from the OpenSSL tree");
        free(bytes);
    }
    /* every label from its graph parents through the circuit module's native label */
    {
        size_t bad = 0;
        for (unsigned l = 1; l <= s.cfg.layers; l++)
            for (uint64_t n = 1; n < N; n++) {
                uint32_t par[14];
                cuzk_fil_graph_parents(&s.graph, (uint32_t)n, par);
                cuzk_fr drg[6], exp[8], pp[37], lab;
                for (int j = 0; j < 6; j++) drg[j] = s.labels[(size_t)(l - 1) * N + par[j]];
                for (int j = 0; j < 8; j++) exp[j] = l > 1 ? s.labels[(size_t)(l - 2) * N + par[6 + j]] : cuzk_fr_zero;
                cuzk_porep_expand_parents(pp, l, drg, exp);
                cuzk_porep_label(&lab, &s.replica_id_fr, l, n, pp);
                bad += !cuzk_fr_eq(&lab, &s.labels[(size_t)(l - 1) * N + n]);
            }
        CHECK_MSG(bad == 0, "%zu labels differ", bad);
        /* node 0 hashes no parents: SHA-256(replica_id || layer BE || node BE || zeros) */
        uint8_t m[64] = {0}, d[32], got[32];
        memcpy(m, s.replica_id, 32);
        m[35] = 1;
        SHA256(m, 64, d);
        d[31] &= 0x3f;
        cuzk_fr_to_le32(got, &s.labels[0]);
        CHECK(memcmp(d, got, 32) == 0);
    }
    /* prover_id: the ID-address payload (uvarint), as curio's make_prover_id tests pin it */
    {
        uint8_t want[32] = {0};
        uint64_t m = p.miner_id;
        for (int i = 0; m || i == 0; i++, m >>= 7) want[i] = (uint8_t)(m & 0x7f) | (m > 0x7f ? 0x80 : 0);
        CHECK(memcmp(want, s.prover_id, 32) == 0);
        static const struct {
            uint64_t id;
            uint8_t b0, b1;
        } pin[] = {{1000, 0xe8, 0x07}, {0, 0, 0}, {127, 0x7f, 0}, {128, 0x80, 0x01}};
        for (int i = 0; i < 4; i++) {
            cuzk_seal_params q = p;
            q.miner_id = pin[i].id;
            cuzk_sealed_sector s2;
            CHECK(cuzk_seal(&s2, &q) == 0);
            CHECK(s2.prover_id[0] == pin[i].b0 && s2.prover_id[1] == pin[i].b1 && s2.prover_id[2] == 0);
            cuzk_sealed_sector_free(&s2);
        }
    }
    /* deterministic from the seed; another seed, another sector */
    {
        cuzk_sealed_sector s2;
        CHECK(cuzk_seal(&s2, &p) == 0);
        CHECK(memcmp(s2.comm_r, s.comm_r, 32) == 0 && memcmp(s2.comm_d, s.comm_d, 32) == 0);
        cuzk_sealed_sector_free(&s2);
        cuzk_seal_params q = p;
        q.seed++;
        CHECK(cuzk_seal(&s2, &q) == 0);
        CHECK(memcmp(s2.comm_r, s.comm_r, 32) != 0 && memcmp(s2.comm_d, s.comm_d, 32) != 0);
        cuzk_sealed_sector_free(&s2);
    }

    /* C1: write, parse both encodings, byte-identical round trip, check, circuit */
    cuzk_fil_c1 *c1 = NULL, *back = NULL, *wback = NULL;
    CHECK(cuzk_seal_c1(&s, &c1) == 0);
    size_t jl, wl, jl2;
    char *json = to_json(c1, 0, &jl), *wjson = to_json(c1, 1, &wl), err[512];
    CHECK(strncmp(json, "{\"registered_proof\":\"StackedDrg2KiBV1_1\",\"vanilla_proofs\":{\"StackedDrg2KiBV1\":[[{"
                        "\"comm_d_proofs\":{\"data\":{\"Single\":{\"root\":[", 120) == 0);
    CHECK(strstr(json, ",\"_h\":null},\"inclusion_proof\":") && strstr(json, "\"layer_index\":2,\"node\":"));
    CHECK_MSG(cuzk_fil_c1_parse((uint8_t *)json, jl, &back, err, sizeof err) == 0, "%s", err);
    CHECK_MSG(cuzk_fil_c1_parse((uint8_t *)wjson, wl, &wback, err, sizeof err) == 0, "%s", err);
    if (!back || !wback) return tu_finish("test_seal");
    {   /* both encodings on 2-4 threads (the proofs apart, curio's base64 taken from the text): the same C1 */
        for (unsigned th = 2; th <= 4; th++) {
            cuzk_fil_c1 *t = NULL, *tw = NULL;
            CHECK(cuzk_fil_c1_parse_threads((uint8_t *)json, jl, th, &t, err, sizeof err) == 0 &&
                  cuzk_fil_c1_parse_threads((uint8_t *)wjson, wl, th, &tw, err, sizeof err) == 0);
            size_t a, b, c, d;
            char *x = t ? to_json(t, 0, &a) : NULL, *y = to_json(back, 0, &b);
            char *xw = tw ? to_json(tw, 1, &c) : NULL, *yw = to_json(wback, 1, &d);
            CHECK_MSG(x && xw && a == b && !memcmp(x, y, a) && c == d && !memcmp(xw, yw, c) && tw->wrapped,
                      "%u threads: another C1", th);
            free(x), free(y), free(xw), free(yw);
            cuzk_fil_c1_free(t);
            cuzk_fil_c1_free(tw);
        }
    }
    char *json2 = to_json(back, 0, &jl2);
    CHECK(jl2 == jl && memcmp(json, json2, jl) == 0);
    free(json2);
    json2 = to_json(wback, 0, &jl2);
    CHECK(wback->wrapped && wback->wrap_sector_size == 2048 && jl2 == jl && memcmp(json, json2, jl) == 0);
    free(json2);
    CHECK_MSG(cuzk_fil_c1_check(back, rp->id, p.miner_id, p.sector_id, err, sizeof err) == 0, "%s", err);
    CHECK(memcmp(back->replica_id, s.replica_id, 32) == 0);
    satisfied(back, "2KiB", 1);
    /* the wrapper's SectorNum (1) must be the sector's */
    CHECK(cuzk_fil_c1_check(wback, rp->id, p.miner_id, p.sector_id == 1 ? 2 : p.sector_id, err, sizeof err) != 0);
    CHECK(cuzk_fil_c1_check(wback, rp->id, p.miner_id, 1, err, sizeof err) != 0 || p.sector_id == 1);
    /* wrong miner, sector, registered proof */
    CHECK(cuzk_fil_c1_check(back, rp->id, p.miner_id + 1, p.sector_id, err, sizeof err) == CUZK_ERR_VERIFY_FAILED &&
          strstr(err, "replica_id"));
    CHECK(cuzk_fil_c1_check(back, rp->id, p.miner_id, p.sector_id + 1, err, sizeof err) == CUZK_ERR_VERIFY_FAILED);
    CHECK(cuzk_fil_c1_check(back, rp->id - 5, p.miner_id, p.sector_id, err, sizeof err) == CUZK_ERR_VERIFY_FAILED &&
          strstr(err, "registered_proof"));
    CHECK(!back->checked);
    CHECK(cuzk_fil_c1_public_inputs(back, 0, (cuzk_fr[64]){0}) == 0); /* unchecked: nothing */

    static const struct {
        mutate_fn m;
        const char *field;
    } bad[] = {
        {m_rp, "registered_proof: unknown registered proof"},
        {m_size, "vanilla_proofs: the size class must be \"StackedDrg2KiBV1\""},
        {m_parts, "vanilla_proofs.StackedDrg2KiBV1: expected 1 partitions, got 2"},
        {m_chals, "vanilla_proofs.StackedDrg2KiBV1[0]: expected 2 challenges, got 1"},
        {m_levels, "[0][0].comm_d_proofs.data.Single.path.path: expected 6 levels, got 5"},
        {m_index, "comm_d_proofs.data.Single.path.path[2].index: 2 out of range [0, 1]"},
        {m_rows, "replica_column_proofs.c_x.column.rows: expected 2 elements, got 3"},
        {m_noncanon, "comm_r_last_proof.data.Single.root: not a canonical field element"},
        {m_byte, "comm_d: element 3 is not a byte"},
        {m_variant, "comm_r_last_proof.data: expected the Single variant"},
        {m_layer, "labeling_proofs[1].layer_index: expected layer 2, got 1"},
        {m_unknown, "encoding_proof: unknown field \"extra\""},
        {m_hashes, "comm_r_last_proof.data.Single.path.path[0].hashes: expected 7 elements, got 6"},
        {m_drg, "replica_column_proofs.drg_parents: expected 6 parents, got 5"},
        {m_junk, "vanilla_proofs.StackedDrg2KiBV1[0][0]: more values than a proof holds (over 16 MiB"},
        {m_proof_array, "vanilla_proofs.StackedDrg2KiBV1[0][1]: expected an object, got an array"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cuzk_fil_c1 *x = NULL;
        int rc = mutated(json, bad[i].m, &x, err, sizeof err);
        CHECK_MSG(rc == CUZK_ERR_FORMAT && !x && strstr(err, bad[i].field), "malformed %zu: rc %d, \"%s\"", i, rc, err);
        cuzk_fil_c1_free(x);
    }
    {
        cuzk_fil_c1 *x = NULL;
        CHECK(cuzk_fil_c1_parse((const uint8_t *)json, jl - 1, &x, err, sizeof err) == CUZK_ERR_FORMAT &&
              strstr(err, "malformed JSON"));
        const char *w1 = "{\"SectorNum\":1,\"Phase1Out\":\"e30*\",\"SectorSize\":2048}";
        CHECK(cuzk_fil_c1_parse((const uint8_t *)w1, strlen(w1), &x, err, sizeof err) == CUZK_ERR_FORMAT &&
              strstr(err, "Phase1Out: not valid base64"));
        const char *w2 = "{\"SectorNum\":1,\"Phase1Out\":\"e30=\",\"SectorSize\":2048}"; /* "{}" */
        CHECK(cuzk_fil_c1_parse((const uint8_t *)w2, strlen(w2), &x, err, sizeof err) == CUZK_ERR_FORMAT &&
              strstr(err, "Phase1Out/: missing field \"registered_proof\""));
        char *w3 = strdup(wjson), *q = strstr(w3, "\"SectorSize\":2048");
        memcpy(q, "\"SectorSize\":4096", 17);
        CHECK(cuzk_fil_c1_parse((const uint8_t *)w3, wl, &x, err, sizeof err) == CUZK_ERR_FORMAT &&
              strstr(err, "SectorSize"));
        free(w3);
    }

    /* tampered values: parsed, refused by the check */
    g_node = (int)(back->proofs[0].node % (N - 1)) + 1;
    {
        uint64_t orig[2], now[2];
        cuzk_fil_porep_challenges(orig, 2, 0, s.replica_id, s.seed, N);
        do {
            cuzk_rng_bytes(&rng, g_seed, 32);
            cuzk_fil_porep_challenges(now, 2, 0, s.replica_id, g_seed, N);
        } while (now[0] == orig[0] && now[1] == orig[1]);
    }
    static const struct {
        mutate_fn m;
        const char *what;
    } tam[] = {
        {t_label, "column"}, /* c_x row 0: its column hash no longer opens comm_c */
        {t_path, "comm_d_proofs: does not open comm_d"},
        {t_comm_r, "comm_r"},
        {t_ticket, "replica_id"},
        {t_replica_id, "replica_id"},
        {t_parent_row, "column"},
        {t_lab_parent, "labeling_proofs[1].parents"},
        {t_leaf, "comm_r_last"},
        {t_node, "proves node"},
        {t_seed, "challenge"},
    };
    for (size_t i = 0; i < sizeof tam / sizeof tam[0]; i++) {
        if (tam[i].m == t_node && (uint64_t)g_node == back->proofs[0].node) continue;
        cuzk_fil_c1 *x = NULL;
        int rc = mutated(json, tam[i].m, &x, err, sizeof err);
        CHECK_MSG(rc == 0 && x, "tampered %zu does not parse: %s", i, err);
        if (!x) continue;
        rc = cuzk_fil_c1_check(x, rp->id, p.miner_id, p.sector_id, err, sizeof err);
        CHECK_MSG(rc == CUZK_ERR_VERIFY_FAILED && strstr(err, tam[i].what), "tampered %zu (%s): rc %d \"%s\"", i,
                  tam[i].what, rc, err);
        /* threaded: the same verdict and message (the first failure in file order) */
        char err3[512];
        int rc3 = cuzk_fil_c1_check_threads(x, rp->id, p.miner_id, p.sector_id, 3, err3, sizeof err3);
        CHECK_MSG(rc3 == rc && !strcmp(err3, err), "tampered %zu on 3 threads: rc %d \"%s\"", i, rc3, err3);
        cuzk_fil_c1_free(x);
    }
    /* two bad challenges, a late one and an earlier one: on any thread count the message
     * names the earlier, as the one-thread check finds it */
    {
        const size_t nq = (size_t)back->cfg.partitions * back->cfg.challenges;
        CHECK(nq >= 2);
        if (nq >= 2) {
            const size_t late = nq - 1, early = cuzk_rng_u64(&rng) % (nq - 1);
            cuzk_fr keep_l = back->proofs[late].comm_r_last.leaf, keep_e = back->proofs[early].comm_r_last.leaf;
            cuzk_fr_add(&back->proofs[late].comm_r_last.leaf, &keep_l, &cuzk_fr_one);
            cuzk_fr_add(&back->proofs[early].comm_r_last.leaf, &keep_e, &cuzk_fr_one);
            char want[64];
            snprintf(want, sizeof want, "vanilla_proofs[%zu][%zu]", early / back->cfg.challenges,
                     early % back->cfg.challenges);
            for (unsigned th = 1; th <= 4; th++) {
                int rc = cuzk_fil_c1_check_threads(back, rp->id, p.miner_id, p.sector_id, th, err, sizeof err);
                CHECK_MSG(rc == CUZK_ERR_VERIFY_FAILED && strstr(err, want), "%u threads: rc %d \"%s\", want %s", th,
                          rc, err, want);
            }
            back->proofs[late].comm_r_last.leaf = keep_l;
            back->proofs[early].comm_r_last.leaf = keep_e;
        }
    }
    /* a parent's label changed after the check: the circuit refuses it (c_x's labels are not
     * witness values: the circuit computes them from the parents) */
    CHECK(cuzk_fil_c1_check(back, rp->id, p.miner_id, p.sector_id, err, sizeof err) == 0);
    {
        cuzk_fr keep = back->proofs[1].drg[2].rows[1];
        cuzk_fr_add(&back->proofs[1].drg[2].rows[1], &keep, &cuzk_fr_one);
        satisfied(back, "tampered label", 0);
        back->proofs[1].drg[2].rows[1] = keep;
    }
    if (getenv("CUZK_SEAL_GROTH16")) groth16(back, &rng);
    else fprintf(stderr, "test_seal: Groth16 on the 2KiB circuit skipped (CUZK_SEAL_GROTH16=1 runs it)\n");
    free(json);
    free(wjson);
    cuzk_fil_c1_free(c1);
    cuzk_fil_c1_free(back);
    cuzk_fil_c1_free(wback);
    cuzk_sealed_sector_free(&s);

    /* test shapes with sub and top trees: sealed, vanilla proofs check */
    static const uint64_t sizes[] = {4096, 32768};
    for (int i = 0; i < 2; i++) {
        cuzk_seal_params q = p;
        q.sector_size = sizes[i];
        CHECK(cuzk_seal(&s, &q) == 0);
        CHECK(cuzk_seal_c1(&s, &c1) == 0);
        CHECK_MSG(cuzk_fil_c1_check(c1, rp->id, q.miner_id, q.sector_id, err, sizeof err) == 0, "%llu: %s",
                  (unsigned long long)sizes[i], err);
        cuzk_fil_c1_free(c1);
        cuzk_sealed_sector_free(&s);
    }
    /* the synthetic full-size C1 (Sub variant, 10 partitions x 18 challenges): round trip, check */
    {
        cuzk_seal_params q = p;
        q.registered_proof = cuzk_fil_seal_proof_by_name("StackedDrg32GiBV1_1")->id;
        CHECK(cuzk_seal_synthetic_c1(&q, &c1) == 0);
        if (!c1) return tu_finish("test_seal");
        json = to_json(c1, 0, &jl);
        CHECK(strstr(json, "\"comm_r_last_proof\":{\"data\":{\"Sub\":{\"base_proof\":{\"path\":[{\"hashes\":"));
        CHECK_MSG(cuzk_fil_c1_parse((uint8_t *)json, jl, &back, err, sizeof err) == 0, "%s", err);
        if (back) {
            json2 = to_json(back, 0, &jl2);
            CHECK(jl2 == jl && memcmp(json, json2, jl) == 0);
            free(json2);
            CHECK_MSG(cuzk_fil_c1_check(back, q.registered_proof, q.miner_id, q.sector_id, err, sizeof err) == 0,
                      "32GiB synthetic: %s", err);
            /* the same generator and sparse trees at 8MiB: its partition satisfies the circuit */
        }
        free(json);
        cuzk_fil_c1_free(c1);
        cuzk_fil_c1_free(back);
        q.registered_proof = cuzk_fil_seal_proof_by_name("StackedDrg8MiBV1_1")->id;
        CHECK(cuzk_seal_synthetic_c1(&q, &c1) == 0);
        if (c1) {
            CHECK_MSG(cuzk_fil_c1_check(c1, q.registered_proof, q.miner_id, q.sector_id, err, sizeof err) == 0,
                      "8MiB synthetic: %s", err);
            satisfied(c1, "8MiB synthetic", 1);
        }
        cuzk_fil_c1_free(c1);
    }
    return tu_finish("test_seal");
}

/*
 * The Filecoin kinds' one table (cuzk/kinds/fil_kinds.h) against what names and
 * uses it:
 * - every entry: its name from its proof kind and size ("porep-32g", spelled
 *   here independently), found again by name, its registered proof of the
 *   right family and size, its parameter file under the family's v28 prefix
 *   and listed in filecoin-proofs' parameters.json at the entry's size; the
 *   4 x 5 grid covered once;
 * - every registered proof (seal 0..19, PoSt 0..14, update 0..4) in a request
 *   without a sector size maps to the one entry of its kind and size; ids
 *   that are none, sizes that are not Filecoin's, SnapDeals vanilla proofs
 *   that are not one per partition are refused with the field named;
 * - the engine registers exactly the table's names from a param cache that
 *   holds every kind's .params (empty files: nothing is loaded);
 * - random SubmitProofRequests through the service's conversion (its fields,
 *   kind name, commitments, the kinds layer's encoding) decode to the
 *   request's fields and to the kind the name says, which is what the kind's
 *   prepare checks; the test kinds keep their names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/kinds/kinds.h"
#include "cuzk/util/error.h"
#include "cuzk/kinds/fil_kinds.h"
#include "cuzk/filecoin/fil_params.h"
#include "cuzk/filecoin/fil_vanilla.h"
#include "cuzk/filecoin/filecoin.h"
#include "cuzk/v1/proving.pb-c.h"
#include "server/service.h"
#include "testutil.h"

static cuzk_rng rng;

/* The oracle's spelling: the prefix of a proof kind, the tag of a size. */
static const char *prefix_of(cuzk_fil_proof_kind k)
{
    switch (k) {
    case CUZK_FIL_KIND_POREP: return "porep";
    case CUZK_FIL_KIND_SNAP: return "snap";
    case CUZK_FIL_KIND_WINDOW_POST: return "wpost";
    case CUZK_FIL_KIND_WINNING_POST: return "winning";
    case CUZK_FIL_KIND_NI_POREP: return "ni-porep";
    }
    return "?";
}

static void tag_of(char *out, size_t cap, uint64_t size)
{
    if (size >= 1ull << 30) snprintf(out, cap, "%llug", (unsigned long long)(size >> 30));
    else if (size >= 1ull << 20) snprintf(out, cap, "%llum", (unsigned long long)(size >> 20));
    else snprintf(out, cap, "%lluk", (unsigned long long)(size >> 10));
}

static const uint64_t filecoin_sizes[5] = {2048ull, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};

/* The entry's registered proof: of its family, at its size; its cache id. */
static bool proof_of_entry(const cuzk_fil_kind_entry *e, char cache_id[CUZK_FIL_CACHE_ID_MAX])
{
    switch (e->kind) {
    case CUZK_FIL_KIND_POREP:
    case CUZK_FIL_KIND_NI_POREP: {
        /* NI-PoRep: an NI proof of the size whose parameter file is the interactive V1_1's */
        const cuzk_fil_seal_proof *p = cuzk_fil_seal_proof_get(e->proof_id);
        bool ni = e->kind == CUZK_FIL_KIND_NI_POREP;
        char inter[CUZK_FIL_CACHE_ID_MAX];
        return p && p->sector_size == e->sector_size && (p->feature == CUZK_FIL_FEAT_NON_INTERACTIVE) == ni &&
               cuzk_fil_porep_cache_id(cache_id, e->proof_id) &&
               cuzk_fil_porep_cache_id(inter, cuzk_fil_seal_proof_get(e->proof_id - (ni ? 10 : 0))->id) &&
               !strcmp(inter, cache_id);
    }
    case CUZK_FIL_KIND_WINDOW_POST:
    case CUZK_FIL_KIND_WINNING_POST: {
        const cuzk_fil_post_proof *p = cuzk_fil_post_proof_get(e->proof_id);
        bool winning = e->kind == CUZK_FIL_KIND_WINNING_POST;
        return p && p->sector_size == e->sector_size && (p->kind == CUZK_FIL_POST_WINNING) == winning &&
               cuzk_fil_post_cache_id(cache_id, e->proof_id);
    }
    case CUZK_FIL_KIND_SNAP:
        return cuzk_fil_update_proof_sector_size(e->proof_id) == e->sector_size &&
               cuzk_fil_update_cache_id(cache_id, e->proof_id, 0);
    }
    return false;
}

static void test_table(void)
{
    cuzk_fil_manifest m;
    char err[256];
    CHECK(cuzk_fil_manifest_builtin(&m, err, sizeof err) == 0);
    unsigned seen[6][5] = {{0}}; /* proof kinds 1-4, NI-PoRep at 5 */
    for (size_t i = 0; i < CUZK_FIL_KINDS; i++) {
        cuzk_fil_kind_entry e, back;
        cuzk_fil_kind_at(&e, i);
        char tag[16], want[32];
        tag_of(tag, sizeof tag, e.sector_size);
        snprintf(want, sizeof want, "%s-%s", prefix_of(e.kind), tag);
        CHECK_MSG(!strcmp(e.name, want), "entry %zu: %s, want %s", i, e.name, want);
        CHECK(cuzk_fil_kind_by_name(&back, e.name) == 0 && !memcmp(&back, &e, sizeof e));
        /* the circuit: the name, the PoRep's for NI-PoRep (its parameters, PCE, residency) */
        snprintf(want, sizeof want, "%s-%s", e.kind == CUZK_FIL_KIND_NI_POREP ? "porep" : prefix_of(e.kind), tag);
        CHECK_MSG(!strcmp(e.circuit_id, want), "entry %zu: circuit %s, want %s", i, e.circuit_id, want);
        int ki = e.kind == CUZK_FIL_KIND_NI_POREP ? 5 : (int)e.kind;
        for (int s = 0; s < 5; s++)
            if (e.sector_size == filecoin_sizes[s] && ki >= 1 && ki <= 5) seen[ki][s]++;
        char cache_id[CUZK_FIL_CACHE_ID_MAX], file[CUZK_FIL_CACHE_ID_MAX + 16];
        bool ok = proof_of_entry(&e, cache_id);
        CHECK_MSG(ok, "%s: registered proof %llu is not its family's at its size", e.name,
                  (unsigned long long)e.proof_id);
        if (!ok) continue;
        static const char *const family[6] = {"", "v28-stacked-proof-of-replication-", "v28-empty-sector-update-",
                                              "v28-proof-of-spacetime-fallback-", "v28-proof-of-spacetime-fallback-",
                                              "v28-stacked-proof-of-replication-"};
        cuzk_fil_param_file_name(file, sizeof file, cache_id, ".params");
        CHECK_MSG(!strncmp(file, family[ki], strlen(family[ki])), "%s: %s", e.name, file);
        const cuzk_fil_manifest_entry *me = cuzk_fil_manifest_find(&m, file);
        CHECK_MSG(me && me->sector_size == e.sector_size, "%s: %s %s", e.name, file,
                  me ? "listed at another size" : "not in parameters.json");
    }
    for (int k = 1; k <= 5; k++)
        for (int s = 0; s < 5; s++) CHECK_MSG(seen[k][s] == 1, "kind %d size %d: %u entries", k, s, seen[k][s]);
    cuzk_fil_kind_entry e;
    CHECK(cuzk_fil_kind_by_name(&e, "porep-16g") == -1 && cuzk_fil_kind_by_name(&e, "test-porep") == -1);
    cuzk_fil_manifest_free(&m);
}

/* cuzk_fil_kind_of on a request of kind k, registered proof id, no sector size. */
static int kind_of_proof(cuzk_fil_proof_kind k, uint64_t id, size_t blobs, cuzk_fil_kind_entry *e, char *why,
                         size_t why_len)
{
    cuzk_fil_request r = {.kind = k, .registered_proof = id, .num_blobs = blobs};
    int rc = cuzk_fil_kind_of(&r, e, why, why_len);
    CHECK(rc || r.sector_size == e->sector_size);
    return rc;
}

static void test_registered_proofs(void)
{
    cuzk_fil_kind_entry e;
    char why[256];
    unsigned mapped = 0;
    for (uint64_t id = 0; id < 24; id++) {
        const cuzk_fil_seal_proof *sp = cuzk_fil_seal_proof_get(id);
        /* a PoRep request of an NI-PoRep proof names the NI-PoRep kind, so does NI_POREP_SEAL_COMMIT */
        cuzk_fil_proof_kind want = sp && sp->feature == CUZK_FIL_FEAT_NON_INTERACTIVE ? CUZK_FIL_KIND_NI_POREP
                                                                                       : CUZK_FIL_KIND_POREP;
        int rc = kind_of_proof(CUZK_FIL_KIND_POREP, id, 1, &e, why, sizeof why);
        CHECK_MSG(sp ? rc == 0 && e.kind == want && e.sector_size == sp->sector_size
                     : rc == CUZK_ERR_INVALID_ARG && strstr(why, "registered_proof"),
                  "seal proof %llu: rc %d %s", (unsigned long long)id, rc, rc ? why : e.name);
        mapped += sp && !rc;
        rc = kind_of_proof(CUZK_FIL_KIND_NI_POREP, id, 1, &e, why, sizeof why);
        CHECK_MSG(sp ? rc == 0 && e.kind == CUZK_FIL_KIND_NI_POREP && e.sector_size == sp->sector_size
                     : rc == CUZK_ERR_INVALID_ARG && strstr(why, "registered_proof"),
                  "NI-PoRep of seal proof %llu: rc %d %s", (unsigned long long)id, rc, rc ? why : e.name);
        const cuzk_fil_post_proof *pp = cuzk_fil_post_proof_get(id);
        cuzk_fil_proof_kind pk = pp && pp->kind == CUZK_FIL_POST_WINNING ? CUZK_FIL_KIND_WINNING_POST
                                                                         : CUZK_FIL_KIND_WINDOW_POST;
        rc = kind_of_proof(pk, id, 1, &e, why, sizeof why);
        CHECK_MSG(pp ? rc == 0 && e.kind == pk && e.sector_size == pp->sector_size : rc == CUZK_ERR_INVALID_ARG,
                  "PoSt proof %llu: rc %d", (unsigned long long)id, rc);
        mapped += pp && !rc;
        uint64_t us = cuzk_fil_update_proof_sector_size(id);
        unsigned parts = us ? cuzk_fil_snap_partitions(id) : 1;
        rc = kind_of_proof(CUZK_FIL_KIND_SNAP, id, parts, &e, why, sizeof why);
        CHECK_MSG(us ? rc == 0 && e.kind == CUZK_FIL_KIND_SNAP && e.sector_size == us : rc == CUZK_ERR_INVALID_ARG,
                  "update proof %llu: rc %d", (unsigned long long)id, rc);
        mapped += us && !rc;
    }
    fprintf(stderr, "test_fil_kinds: %u registered proofs mapped to a kind\n", mapped);
    CHECK(mapped >= 5 + 5 + 5); /* V1_1 seal, every PoSt size, every update size at least */
    /* SnapDeals: one vanilla proof per partition (16 at 32 and 64 GiB) */
    CHECK(kind_of_proof(CUZK_FIL_KIND_SNAP, 3, 1, &e, why, sizeof why) && strstr(why, "disagrees") &&
          strstr(why, "16 partitions"));
    CHECK(kind_of_proof(CUZK_FIL_KIND_SNAP, 0, 16, &e, why, sizeof why) && strstr(why, "disagrees"));
    CHECK(kind_of_proof(CUZK_FIL_KIND_SNAP, 99, 1, &e, why, sizeof why) && strstr(why, "registered_proof 99"));
    /* a size that is not Filecoin's, an unset and an unknown proof kind */
    uint64_t odd = 4096 + (cuzk_rng_u64(&rng) % 1000) * 2048;
    cuzk_fil_request r = {.kind = CUZK_FIL_KIND_POREP, .sector_size = odd};
    char want[160];
    snprintf(want, sizeof want, "sector_size %llu is not a Filecoin sector size (2048, 8388608, 536870912, "
             "34359738368 or 68719476736)", (unsigned long long)odd);
    CHECK_MSG(cuzk_fil_kind_of(&r, &e, why, sizeof why) && !strcmp(why, want), "%s", why);
    r = (cuzk_fil_request){.kind = 0, .sector_size = 2048};
    CHECK(cuzk_fil_kind_of(&r, &e, why, sizeof why) && !strcmp(why, "proof_kind is not set"));
    r = (cuzk_fil_request){.kind = (cuzk_fil_proof_kind)7, .sector_size = 2048};
    CHECK(cuzk_fil_kind_of(&r, &e, why, sizeof why) && !strcmp(why, "unknown proof_kind 7"));
}

typedef struct names {
    char name[CUZK_FIL_KINDS + 1][32];
    size_t n;
} names;

static void on_kind(void *ud, const char *name, const char *circuit_id)
{
    names *ns = ud;
    if (ns->n <= CUZK_FIL_KINDS) snprintf(ns->name[ns->n++], 32, "%s", name);
    cuzk_fil_kind_entry e;
    if (!strcmp(name, CUZK_FIL_AGG_KIND)) return; /* a task kind, outside the table */
    CHECK(cuzk_fil_kind_by_name(&e, name) == 0 && !strcmp(e.circuit_id, circuit_id));
}

/* An empty .params and .vk for every entry in dir; with keys_only, the
 * PoRep entries' .vk alone (a host that checks aggregates) */
static bool write_param_files(const char *dir, bool keys_only)
{
    for (size_t i = 0; i < CUZK_FIL_KINDS; i++) {
        cuzk_fil_kind_entry e;
        cuzk_fil_kind_at(&e, i);
        char cache_id[CUZK_FIL_CACHE_ID_MAX], file[CUZK_FIL_CACHE_ID_MAX + 16], path[4200];
        if (!proof_of_entry(&e, cache_id)) return false;
        if (keys_only && e.kind != CUZK_FIL_KIND_POREP) continue;
        for (int v = keys_only; v < 2; v++) {
            cuzk_fil_param_file_name(file, sizeof file, cache_id, v ? ".vk" : ".params");
            snprintf(path, sizeof path, "%s/%s", dir, file);
            FILE *f = fopen(path, "w");
            if (!f) return false;
            fclose(f);
        }
    }
    return true;
}

/* The kinds a new engine registers from the param cache dir (into ns),
 * the directory removed after; the register call's rc */
static int register_from(const char *dir, names *ns, unsigned *registered, char *err, size_t err_len)
{
    cuzk_engine *e = NULL;
    cuzk_engine_config cfg = {.synthesis_workers = 1, .num_devices = 1, .workers_per_device = 1};
    CHECK(cuzk_engine_create(&e, &cfg) == CUZK_OK);
    ns->n = 0, *registered = 0;
    cuzk_engine_filecoin_opts o = {.param_cache = dir};
    int rc = e ? cuzk_engine_register_filecoin(e, &o, on_kind, ns, registered, err, err_len) : -1;
    if (e) cuzk_engine_destroy(e);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    return rc;
}

/* The kinds a cache of the PoRep keys alone registers: aggregate-seal only
 * (it checks aggregates against the .vk; nothing proves without .params);
 * an empty cache, none */
static void test_registration_keys_only(void)
{
    for (int keys = 0; keys < 2; keys++) {
        char dir[] = "/tmp/cuzk-fil-keys-XXXXXX";
        if (!mkdtemp(dir) || (keys && !write_param_files(dir, true))) {
            CHECK(!"param cache of PoRep keys");
            return;
        }
        names ns;
        unsigned registered;
        char err[256] = "";
        int rc = register_from(dir, &ns, &registered, err, sizeof err);
        CHECK_MSG(rc == CUZK_OK && registered == (unsigned)keys && ns.n == (size_t)keys, "%s: rc %d, %u kinds: %s",
                  keys ? "PoRep keys alone" : "empty cache", rc, registered, err);
        CHECK(!keys || (ns.n == 1 && !strcmp(ns.name[0], CUZK_FIL_AGG_KIND)));
    }
}

static void test_registration(void)
{
    char dir[] = "/tmp/cuzk-fil-kinds-XXXXXX";
    if (!mkdtemp(dir) || !write_param_files(dir, false)) {
        CHECK(!"param cache of empty files");
        return;
    }
    names ns;
    unsigned registered;
    char err[256] = "";
    int rc = register_from(dir, &ns, &registered, err, sizeof err);
    /* the table's kinds, then the PoRep proofs' aggregation (there are PoRep keys) */
    CHECK_MSG(rc == CUZK_OK && registered == CUZK_FIL_KINDS + 1 && ns.n == CUZK_FIL_KINDS + 1, "rc %d, %u kinds: %s",
              rc, registered, err);
    CHECK_MSG(ns.n == CUZK_FIL_KINDS + 1 && !strcmp(ns.name[CUZK_FIL_KINDS], CUZK_FIL_AGG_KIND), "last kind %s",
              ns.n ? ns.name[ns.n - 1] : "(none)");
    for (size_t i = 0; i < CUZK_FIL_KINDS && i < ns.n; i++) {
        cuzk_fil_kind_entry te;
        cuzk_fil_kind_at(&te, i);
        CHECK_MSG(!strcmp(ns.name[i], te.name), "registered %s, the table's entry %zu is %s", ns.name[i], i, te.name);
    }
}

/* A random Filecoin SubmitProofRequest of entry e: its fields from q's storage. */
typedef struct req_store {
    uint8_t rand[32], comm[3][32], blob[16][40];
    ProtobufCBinaryData vps[16];
} req_store;

static void random_request(Cuzk__V1__SubmitProofRequest *q, req_store *st, const cuzk_fil_kind_entry *e)
{
    cuzk__v1__submit_proof_request__init(q);
    q->proof_kind = (Cuzk__V1__ProofKind)e->kind;
    bool by_proof = cuzk_rng_u64(&rng) & 1;
    q->sector_size = by_proof ? 0 : e->sector_size;
    /* a PoRep request's NI proof would name the NI kind: interactive ids (0-14) for porep-* */
    q->registered_proof = by_proof ? e->proof_id : cuzk_rng_u64(&rng) % (e->kind == CUZK_FIL_KIND_POREP ? 15 : 20);
    q->partition_index = (uint32_t)(cuzk_rng_u64(&rng) % 16);
    q->sector_number = cuzk_rng_u64(&rng), q->miner_id = cuzk_rng_u64(&rng);
    cuzk_rng_bytes(&rng, st->rand, 32);
    if (cuzk_rng_u64(&rng) & 1) q->randomness = (ProtobufCBinaryData){32, st->rand};
    ProtobufCBinaryData *comms[3] = {&q->comm_r_old, &q->comm_r_new, &q->comm_d_new};
    for (int i = 0; i < 3; i++) {
        cuzk_rng_bytes(&rng, st->comm[i], 32);
        st->comm[i][31] &= 0x0f; /* a canonical field element, little-endian */
        if (cuzk_rng_u64(&rng) & 1) *comms[i] = (ProtobufCBinaryData){32, st->comm[i]};
    }
    size_t n = e->kind == CUZK_FIL_KIND_SNAP ? cuzk_fil_snap_partitions(e->proof_id) : 1 + cuzk_rng_u64(&rng) % 4;
    for (size_t i = 0; i < n; i++) {
        size_t len = cuzk_rng_u64(&rng) % 41;
        cuzk_rng_bytes(&rng, st->blob[i], len);
        st->vps[i] = (ProtobufCBinaryData){len, st->blob[i]};
    }
    if (n == 1 && e->kind != CUZK_FIL_KIND_SNAP && (cuzk_rng_u64(&rng) & 1)) {
        q->vanilla_proof = st->vps[0]; /* PoRep's C1 output comes in vanilla_proof */
    } else {
        q->n_vanilla_proofs = n;
        q->vanilla_proofs = st->vps;
    }
}

/* The decoded request against q, field by field. */
static bool same_request(const cuzk_fil_request *d, const Cuzk__V1__SubmitProofRequest *q, uint64_t size)
{
    const ProtobufCBinaryData *comms[3] = {&q->comm_r_old, &q->comm_r_new, &q->comm_d_new};
    const uint8_t *got[3] = {d->comm_r_old, d->comm_r_new, d->comm_d_new};
    bool ok = (int)d->kind == (int)q->proof_kind && d->sector_size == size &&
              d->registered_proof == q->registered_proof && d->partition_index == q->partition_index &&
              d->sector_number == q->sector_number && d->miner_id == q->miner_id &&
              !(d->present & CUZK_FIL_REQ_RANDOMNESS) == !q->randomness.len &&
              (!q->randomness.len || !memcmp(d->randomness, q->randomness.data, 32));
    for (int i = 0; i < 3; i++)
        ok = ok && !(d->present & (CUZK_FIL_REQ_COMM_R_OLD << i)) == !comms[i]->len &&
             (!comms[i]->len || !memcmp(got[i], comms[i]->data, 32));
    size_t n = q->n_vanilla_proofs ? q->n_vanilla_proofs : 1;
    const ProtobufCBinaryData *v = q->n_vanilla_proofs ? q->vanilla_proofs : &q->vanilla_proof;
    ok = ok && d->num_blobs == n;
    for (size_t i = 0; ok && i < n; i++)
        ok = d->blobs[i].len == v[i].len && !memcmp(d->blobs[i].data, v[i].data, v[i].len);
    return ok;
}

static void test_service_round_trip(void)
{
    for (int round = 0; round < 400; round++) {
        cuzk_fil_kind_entry e, named;
        cuzk_fil_kind_at(&e, (size_t)(cuzk_rng_u64(&rng) % CUZK_FIL_KINDS));
        Cuzk__V1__SubmitProofRequest q;
        req_store st;
        random_request(&q, &st, &e);
        cuzk_fil_blob blobs[16];
        cuzk_fil_request fr, d;
        char kind[64] = "", why[320] = "";
        service_fil_request(&q, &fr, blobs);
        bool ok = service_kind_name(&q, &fr, kind, sizeof kind, why, sizeof why) &&
                  service_fil_comms(&q, &fr, why, sizeof why);
        CHECK_MSG(ok && !strcmp(kind, e.name), "%s: %s %s", e.name, kind, why);
        size_t len = 0;
        uint8_t *bytes = ok ? cuzk_fil_kind_encode(&fr, &len) : NULL;
        if (!bytes) continue;
        int rc = cuzk_fil_request_decode(&d, bytes, len, why, sizeof why);
        CHECK_MSG(rc == 0 && same_request(&d, &q, e.sector_size), "%s: round trip: %s", e.name, rc ? why : "differs");
        /* the kind the name says is the one the decoded request names: what the kind's prepare checks */
        CHECK(cuzk_fil_kind_by_name(&named, kind) == 0 && rc == 0 && named.kind == d.kind &&
              named.sector_size == d.sector_size);
        if (rc == 0) cuzk_fil_request_clear(&d);
        free(bytes);
    }
    /* curio's PoRep kind with an NI-PoRep C1: the ni-porep kind, its encoding says NI-PoRep */
    for (int s = 0; s < 5; s++) {
        Cuzk__V1__SubmitProofRequest q;
        cuzk__v1__submit_proof_request__init(&q);
        q.proof_kind = CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT;
        q.registered_proof = 15 + (uint64_t)s;
        q.sector_size = (cuzk_rng_u64(&rng) & 1) ? filecoin_sizes[s] : 0;
        cuzk_fil_blob blob;
        cuzk_fil_request fr, d;
        char kind[64], why[256], want[32], tag[16];
        service_fil_request(&q, &fr, &blob);
        tag_of(tag, sizeof tag, filecoin_sizes[s]);
        snprintf(want, sizeof want, "ni-porep-%s", tag);
        bool ok = service_kind_name(&q, &fr, kind, sizeof kind, why, sizeof why) && !strcmp(kind, want);
        size_t len = 0;
        uint8_t *bytes = ok ? cuzk_fil_kind_encode(&fr, &len) : NULL;
        CHECK_MSG(bytes && cuzk_fil_request_decode(&d, bytes, len, why, sizeof why) == 0 &&
                      d.kind == CUZK_FIL_KIND_NI_POREP && d.sector_size == filecoin_sizes[s],
                  "PoRep request of NI proof %d: %s %s", 15 + s, kind, why);
        if (bytes) cuzk_fil_request_clear(&d);
        free(bytes);
    }
    static const struct {
        Cuzk__V1__ProofKind k;
        const char *name;
    } tests[] = {{CUZK__V1__PROOF_KIND__TEST_POREP, "test-porep"},
                 {CUZK__V1__PROOF_KIND__TEST_WINDOW_POST, "test-window"},
                 {CUZK__V1__PROOF_KIND__TEST_WINNING_POST, "test-winning"}};
    for (size_t i = 0; i < 3; i++) {
        Cuzk__V1__SubmitProofRequest q;
        cuzk__v1__submit_proof_request__init(&q);
        q.proof_kind = tests[i].k;
        cuzk_fil_blob blob;
        cuzk_fil_request fr;
        char kind[64], why[256];
        service_fil_request(&q, &fr, &blob);
        CHECK(service_kind_name(&q, &fr, kind, sizeof kind, why, sizeof why) && !strcmp(kind, tests[i].name));
    }
}

int main(void)
{
    tu_init(&rng, "test_fil_kinds");
    test_table();
    test_registered_proofs();
    test_registration();
    test_registration_keys_only();
    test_service_round_trip();
    return tu_finish("test_fil_kinds");
}

/* The ProvingEngine service (see service.h). */
#define _GNU_SOURCE
#include "server/service.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cuzk/util/clock.h"
#include "cuzk/kinds/fil_kinds.h"
#include "cuzk/filecoin/fil_request.h"
#include "cuzk/filecoin/fil_vanilla.h"
#include "cuzk/v1/proving.pb-c.h"
#include "server/log.h"
#include "server/proto_check.h"
#include "server/reflection.h"

enum { M_SUBMIT, M_AWAIT, M_PROVE, M_CANCEL, M_STATUS, M_METRICS, M_PRELOAD, M_EVICT, M_REFLECT, M_COUNT };
static const char *method_names[M_COUNT] = {"SubmitProof", "AwaitProof", "Prove",      "CancelProof",
                                            "GetStatus",   "GetMetrics", "PreloadSRS", "EvictSRS",
                                            "ServerReflectionInfo"};
#define NCODES 17

struct srv_service {
    srv_dispatch *b;
    pthread_mutex_t mu; /* guards token */
    char token[CFG_STR_MAX];
    atomic_bool open_tcp; /* allow_unauthenticated_tcp: no token, every TCP peer */
    atomic_bool mutual_tls; /* every TCP peer proved a client certificate in the handshake */
    atomic_bool draining;
    double start; /* cuzk_now() at creation, for the uptime */
    atomic_uint_fast64_t calls[M_COUNT + 1][NCODES]; /* last row: unknown methods */
    atomic_uint_fast64_t job_seq;
    log_limit rejects; /* lines for rejected calls */
    const rpc_server *srv; /* for the calls in progress; NULL: none */
};

/* Rejected calls are logged (a client's mistakes, a wrong token, a full
 * daemon are an operator's business), at most this many a minute: a client
 * in a loop must not flood the journal. */
#define REJECT_LOG_BURST 20
#define REJECT_LOG_WINDOW_S 60.0

srv_service *service_create(srv_dispatch *b)
{
    srv_service *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->b = b;
    pthread_mutex_init(&s->mu, NULL);
    s->start = cuzk_now();
    log_limit_init(&s->rejects, REJECT_LOG_BURST, REJECT_LOG_WINDOW_S);
    return s;
}

void service_set_server(srv_service *s, const rpc_server *srv) { s->srv = srv; }

void service_destroy(srv_service *s)
{
    if (!s) return;
    service_flush_log(s, true);
    log_limit_destroy(&s->rejects);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

void service_set_token(srv_service *s, const char *token)
{
    pthread_mutex_lock(&s->mu);
    snprintf(s->token, sizeof s->token, "%s", token ? token : "");
    pthread_mutex_unlock(&s->mu);
}

void service_set_open_tcp(srv_service *s, bool on) { atomic_store(&s->open_tcp, on); }
void service_set_mutual_tls(srv_service *s, bool on) { atomic_store(&s->mutual_tls, on); }

void service_set_draining(srv_service *s, bool on) { atomic_store(&s->draining, on); }
bool service_draining(const srv_service *s) { return atomic_load(&s->draining); }

static uint64_t uptime_s(const srv_service *s)
{
    return (uint64_t)(cuzk_now() - s->start);
}

/* ---- helpers ------------------------------------------------------------- */

typedef struct reply {
    int code;
    char *msg; /* malloc'd, whole: a status message is never cut */
} reply;

static int fail(reply *r, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(reply *r, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    free(r->msg);
    if (vasprintf(&r->msg, fmt, ap) < 0) r->msg = NULL;
    va_end(ap);
    r->code = code;
    return code;
}

/* Packs any message into a malloc'd buffer and replies OK. */
static void send_msg(rpc_call *c, const ProtobufCMessage *m)
{
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) {
        rpc_call_reply(c, RPC_RESOURCE_EXHAUSTED, "out of memory for the reply", NULL, 0);
        return;
    }
    protobuf_c_message_pack(m, buf);
    rpc_call_reply(c, RPC_OK, "", buf, n);
    free(buf);
}

/* Constant-time comparison: the token must not leak through timing. */
static bool token_equal(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned char d = (unsigned char)(la != lb);
    for (size_t i = 0; i < la; i++) d |= (unsigned char)(a[i] ^ b[i % (lb ? lb : 1)]);
    return d == 0;
}

/* Unix sockets: file permissions decide. TCP with a token: the token (over
 * mutual TLS, the certificate too). TCP without one: every peer with
 * allow_unauthenticated_tcp or over mutual TLS (the certificate is the
 * credential: the handshake let no one else in), otherwise loopback peers
 * only (protected mode, as Redis does it; TLS alone proves the server to the
 * client, not the client to the server). */
static bool authorized(srv_service *s, rpc_call *c, reply *r)
{
    srv_peer_kind pk = rpc_call_peer_kind(c);
    if (pk == SRV_PEER_UNIX) return true;
    char want[CFG_STR_MAX];
    pthread_mutex_lock(&s->mu);
    memcpy(want, s->token, sizeof want);
    pthread_mutex_unlock(&s->mu);
    if (!want[0]) {
        if (atomic_load(&s->open_tcp) || atomic_load(&s->mutual_tls) || pk == SRV_PEER_LOOPBACK) return true;
        fail(r, RPC_UNAUTHENTICATED,
             "protected mode: this daemon has no auth_token, so it serves only loopback and unix-socket "
             "clients, and %.80s is neither. To serve remote clients set [daemon] auth_token (or "
             "auth_token_file; clients send `authorization: Bearer <token>`), or tls_client_ca (mutual TLS), "
             "or, on a firewalled network, allow_unauthenticated_tcp = true; then restart the daemon",
             rpc_call_peer(c));
        return false;
    }
    char got[CFG_STR_MAX + 16];
    if (!rpc_call_metadata(c, "authorization", got, sizeof got)) {
        fail(r, RPC_UNAUTHENTICATED, "missing `authorization: Bearer <token>` metadata (TCP callers need the daemon's auth_token)");
        return false;
    }
    /* the scheme is case-insensitive and one or more spaces follow it (RFC 7235) */
    const char *tok = got + 6;
    if (strncasecmp(got, "Bearer", 6) || *tok != ' ') {
        fail(r, RPC_UNAUTHENTICATED, "`authorization` metadata is not `Bearer <token>`");
        return false;
    }
    tok += strspn(tok, " ");
    if (!token_equal(tok, want)) {
        fail(r, RPC_UNAUTHENTICATED, "wrong bearer token");
        return false;
    }
    return true;
}

bool service_kind_name(const Cuzk__V1__SubmitProofRequest *q, cuzk_fil_request *fr, char *out, size_t outlen,
                       char *why, size_t whylen)
{
    switch (q->proof_kind) {
    case CUZK__V1__PROOF_KIND__TEST_POREP: snprintf(out, outlen, "test-porep"); return true;
    case CUZK__V1__PROOF_KIND__TEST_WINDOW_POST: snprintf(out, outlen, "test-window"); return true;
    case CUZK__V1__PROOF_KIND__TEST_WINNING_POST: snprintf(out, outlen, "test-winning"); return true;
    case CUZK__V1__PROOF_KIND__AGGREGATE_SEAL: snprintf(out, outlen, "%s", CUZK_FIL_AGG_KIND); return true;
    default: break;
    }
    cuzk_fil_kind_entry ke; /* the Filecoin kinds: the kinds layer's table says which */
    if (cuzk_fil_kind_of(fr, &ke, why, whylen)) return false;
    snprintf(out, outlen, "%s", ke.name);
    return true;
}

bool service_valid_request_id(const char *id, char *why, size_t whylen)
{
    size_t n = strlen(id);
    if (n == 0 || n > SERVICE_MAX_ID) {
        snprintf(why, whylen, "request_id is %zu bytes; ids are 1-%d bytes of UTF-8", n, SERVICE_MAX_ID);
        return false;
    }
    const unsigned char *p = (const unsigned char *)id, *end = p + n;
    while (p < end) {
        unsigned c = *p;
        size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
        uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;
        bool ok = len && (size_t)(end - p) >= len;
        for (size_t i = 1; ok && i < len; i++) {
            ok = (p[i] & 0xc0) == 0x80;
            cp = cp << 6 | (p[i] & 0x3f);
        }
        /* shortest form only, no surrogates, at most U+10FFFF */
        static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (ok) ok = cp >= min_cp[len] && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff);
        if (!ok) {
            snprintf(why, whylen, "request_id is not valid UTF-8 (byte %zu)", (size_t)(p - (const unsigned char *)id));
            return false;
        }
        p += len;
    }
    return true;
}

/* FNV-1a: a seed for test kinds when the request carries none. */
static uint64_t seed_from_id(const char *id)
{
    uint64_t h = 1469598103934665603ull;
    for (; *id; id++) h = (h ^ (unsigned char)*id) * 1099511628211ull;
    return h;
}

void service_fil_request(const Cuzk__V1__SubmitProofRequest *q, cuzk_fil_request *fr, cuzk_fil_blob *blobs)
{
    size_t n = q->n_vanilla_proofs ? q->n_vanilla_proofs : 1;
    if (q->n_vanilla_proofs) {
        for (size_t i = 0; i < n; i++) blobs[i] = (cuzk_fil_blob){q->vanilla_proofs[i].data, q->vanilla_proofs[i].len};
    } else {
        blobs[0] = (cuzk_fil_blob){q->vanilla_proof.data, q->vanilla_proof.len};
    }
    *fr = (cuzk_fil_request){
        .kind = (cuzk_fil_proof_kind)q->proof_kind,
        .partition_index = q->partition_index,
        .registered_proof = q->registered_proof,
        .sector_size = q->sector_size,
        .sector_number = q->sector_number,
        .miner_id = q->miner_id,
        .blobs = blobs,
        .num_blobs = n,
    };
    if (q->randomness.len == 32) {
        memcpy(fr->randomness, q->randomness.data, 32);
        fr->present |= CUZK_FIL_REQ_RANDOMNESS;
    }
}

bool service_fil_comms(const Cuzk__V1__SubmitProofRequest *q, cuzk_fil_request *fr, char *why, size_t whylen)
{
    const ProtobufCBinaryData *comms[3] = {&q->comm_r_old, &q->comm_r_new, &q->comm_d_new};
    static const char *names[3] = {"comm_r_old", "comm_r_new", "comm_d_new"};
    static const cuzk_fil_comm_kind kinds[3] = {CUZK_FIL_COMM_SEALED, CUZK_FIL_COMM_SEALED, CUZK_FIL_COMM_UNSEALED};
    uint8_t *dst[3] = {fr->comm_r_old, fr->comm_r_new, fr->comm_d_new};
    for (int i = 0; i < 3; i++) {
        if (!comms[i]->len) continue;
        if (cuzk_fil_commitment(dst[i], comms[i]->data, comms[i]->len, kinds[i], names[i], why, whylen)) return false;
        fr->present |= (uint32_t)CUZK_FIL_REQ_COMM_R_OLD << i;
    }
    return true;
}

static bool call_gone(void *ud) { return rpc_call_cancelled(ud); }

/* job_id: the request's id, checked, or a generated one; false with why. */
static bool job_id_of(srv_service *s, const Cuzk__V1__SubmitProofRequest *q, char *job_id, size_t job_id_len,
                      char *why, size_t whylen)
{
    if (q->request_id && q->request_id[0]) {
        if (!service_valid_request_id(q->request_id, why, whylen)) return false;
        snprintf(job_id, job_id_len, "%s", q->request_id);
    } else {
        snprintf(job_id, job_id_len, "job-%llx-%llu", (unsigned long long)time(NULL),
                 (unsigned long long)atomic_fetch_add(&s->job_seq, 1));
    }
    return true;
}

/* A test kind's inputs: the 8-byte seed in vanilla_proof, or one made from
 * the job id into seed; false when vanilla_proof is some other length. */
static bool test_seed(const Cuzk__V1__SubmitProofRequest *q, const char *job_id, uint8_t seed[8], srv_submit_req *sr)
{
    if (q->vanilla_proof.len == 8) {
        sr->inputs = q->vanilla_proof.data;
    } else if (q->vanilla_proof.len == 0) {
        uint64_t v = seed_from_id(job_id);
        for (int i = 0; i < 8; i++) seed[i] = (uint8_t)(v >> (8 * i));
        sr->inputs = seed;
    } else {
        return false;
    }
    sr->inputs_len = 8;
    return true;
}

/* Validates a SubmitProofRequest (fr: its Filecoin fields) and submits it. */
static int submit_request(srv_service *s, rpc_call *c, const Cuzk__V1__SubmitProofRequest *q, cuzk_fil_request *fr,
                          char *job_id, size_t job_id_len, uint32_t *queue_pos, bool *duplicate, uint32_t timeout_ms,
                          reply *r)
{
    char kind[64], why[320];
    /* curio's ProofShare SnapDeals requests carry no sector_size: the kinds
     * layer takes it from the registered proof (the kind then checks the rest) */
    if (!service_kind_name(q, fr, kind, sizeof kind, why, sizeof why) ||
        !job_id_of(s, q, job_id, job_id_len, why, sizeof why))
        return fail(r, RPC_INVALID_ARGUMENT, "%s", why);
    int prio = (int)q->priority;
    if (prio < 0 || prio > 4) return fail(r, RPC_INVALID_ARGUMENT, "unknown priority %d (0-4)", prio);
    if (q->randomness.len && q->randomness.len != 32)
        return fail(r, RPC_INVALID_ARGUMENT, "randomness must be 32 bytes, got %zu", q->randomness.len);
    /* 32 raw bytes or the CID bytes curio sends (cuzk_fil_commitment) */
    if (!service_fil_comms(q, fr, why, sizeof why)) return fail(r, RPC_INVALID_ARGUMENT, "%s", why);

    uint8_t seed[8], *fil_inputs = NULL;
    srv_submit_req sr = {.request_id = job_id, .kind = kind, .priority = prio, .timeout_ms = timeout_ms,
                         .origin = rpc_call_peer(c), .gone = call_gone, .gone_ud = c};
    if (!strncmp(kind, "test-", 5)) {
        if (!test_seed(q, job_id, seed, &sr))
            return fail(r, RPC_INVALID_ARGUMENT, "test kinds take an 8-byte little-endian seed in vanilla_proof (or none), got %zu bytes", q->vanilla_proof.len);
    } else if (q->proof_kind == CUZK__V1__PROOF_KIND__AGGREGATE_SEAL) {
        int code = service_aggregate_inputs(q, &fil_inputs, &sr.inputs_len, why, sizeof why);
        if (code != RPC_OK) return fail(r, code, "%s", why);
        sr.inputs = fil_inputs;
    } else {
        /* Filecoin kinds: the request's fields as the kinds take them; the
         * engine's kind parses the vanilla proofs and rebuilds the public inputs. */
        if (q->vanilla_proof.len == 0 && q->n_vanilla_proofs == 0)
            return fail(r, RPC_INVALID_ARGUMENT, "vanilla_proof (PoRep) or vanilla_proofs (PoSt, SnapDeals) is empty");
        fil_inputs = cuzk_fil_kind_encode(fr, &sr.inputs_len);
        if (!fil_inputs) return fail(r, RPC_RESOURCE_EXHAUSTED, "no memory for the request");
        sr.inputs = fil_inputs;
    }
    if (!srv_has_kind(s->b, kind)) {
        free(fil_inputs);
        return fail(r, RPC_UNIMPLEMENTED, "proof kind %s is not available in this daemon (Filecoin kinds need their parameter files in the param_cache; test kinds need `cuzk daemon --test-kinds`)", kind);
    }
    char err[640];
    int code = srv_submit(s->b, &sr, queue_pos, duplicate, err, sizeof err);
    free(fil_inputs);
    /* the "submitted" line is the engine's, written before the job can run */
    return code == RPC_OK ? RPC_OK : fail(r, code, "%s", err);
}

/* Validates a SubmitProofRequest and submits it. job_id receives the id. */
static int do_submit(srv_service *s, rpc_call *c, Cuzk__V1__SubmitProofRequest *q,
                     char *job_id, size_t job_id_len, uint32_t *queue_pos, bool *duplicate,
                     uint32_t timeout_ms, reply *r)
{
    if (service_draining(s))
        return fail(r, RPC_UNAVAILABLE, "the daemon is shutting down and takes no new proofs; retry on another instance or after restart");
    cuzk_fil_blob *blobs = calloc(q->n_vanilla_proofs ? q->n_vanilla_proofs : 1, sizeof *blobs);
    if (!blobs) return fail(r, RPC_RESOURCE_EXHAUSTED, "no memory for the request");
    cuzk_fil_request fr;
    service_fil_request(q, &fr, blobs);
    int code = submit_request(s, c, q, &fr, job_id, job_id_len, queue_pos, duplicate, timeout_ms, r);
    free(blobs);
    return code;
}

static void fill_await(Cuzk__V1__AwaitProofResponse *a, const char *job_id, const srv_result *res)
{
    a->job_id = (char *)job_id;
    switch (res->outcome) {
    case SRV_COMPLETED: a->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED; break;
    case SRV_FAILED: a->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED; break;
    case SRV_CANCELLED: a->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED; break;
    case SRV_TIMEOUT: a->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__TIMEOUT; break;
    }
    a->proof.data = res->proof;
    a->proof.len = res->proof_len;
    a->error_message = res->message ? res->message : (char *)"";
    a->queue_wait_ms = res->queue_ms;
    a->srs_load_ms = res->srs_ms;
    a->synthesis_ms = res->synthesis_ms;
    a->gpu_compute_ms = res->prove_ms;
    a->verify_ms = res->verify_ms;
    a->total_ms = res->total_ms;
}

/* Wait limit: the request's, capped by the call's deadline. */
static int64_t wait_limit(rpc_call *c, uint64_t req_ms)
{
    int64_t d = rpc_call_deadline_ms(c);
    int64_t w = req_ms ? (int64_t)(req_ms > INT64_MAX / 2 ? INT64_MAX / 2 : req_ms) : -1;
    if (d != INT64_MAX) {
        d = d > 0 ? d : 0;
        if (w < 0 || d < w) w = d;
    }
    return w;
}

/* ---- methods ------------------------------------------------------------- */

/* A string field holding a NUL is refused (proto_check.h): protobuf-c would
 * hand it over cut at the NUL, and "id\0a" and "id\0b" would be one job. */
static bool nul_field(const ProtobufCMessageDescriptor *d, const uint8_t *req, size_t len, reply *r)
{
    const char *f = proto_nul_string(d, req, len);
    if (f) fail(r, RPC_INVALID_ARGUMENT, "%s holds a NUL byte (U+0000), which no string field may hold", f);
    return f != NULL;
}

#define DECODE(type, fn, var)                                                                 \
    type *var = fn##__unpack(NULL, len, req);                                                 \
    if (!var) return fail(r, RPC_INVALID_ARGUMENT, "request is not a valid %s message", #type + 10); \
    if (nul_field(&fn##__descriptor, req, len, r)) {                                          \
        fn##__free_unpacked(var, NULL);                                                       \
        return r->code;                                                                       \
    }

static int m_submit(srv_service *s, rpc_call *c, const uint8_t *req, size_t len, reply *r)
{
    DECODE(Cuzk__V1__SubmitProofRequest, cuzk__v1__submit_proof_request, q);
    char job_id[SERVICE_MAX_ID + 1];
    uint32_t pos = 0;
    bool dup = false;
    int code = do_submit(s, c, q, job_id, sizeof job_id, &pos, &dup, 0, r);
    cuzk__v1__submit_proof_request__free_unpacked(q, NULL);
    if (code != RPC_OK) return code;
    Cuzk__V1__SubmitProofResponse a = CUZK__V1__SUBMIT_PROOF_RESPONSE__INIT;
    a.job_id = job_id;
    a.queue_position = pos;
    send_msg(c, &a.base);
    return RPC_OK;
}

static int await_and_reply(srv_service *s, rpc_call *c, const char *job_id, int64_t limit,
                           bool cancel_on_gone, bool wrap, reply *r)
{
    srv_result res;
    char err[384];
    int code = srv_await(s->b, job_id, limit, call_gone, c, &res, err, sizeof err);
    if (code == RPC_CANCELLED) {
        bool was;
        char e2[128];
        if (cancel_on_gone) srv_cancel(s->b, job_id, "its Prove call ended (client cancel or deadline)", &was, e2, sizeof e2);
        return fail(r, rpc_call_deadline_ms(c) <= 0 ? RPC_DEADLINE_EXCEEDED : RPC_CANCELLED, "call ended before the proof was ready");
    }
    if (code != RPC_OK) return fail(r, code, "%s", err);
    Cuzk__V1__AwaitProofResponse a = CUZK__V1__AWAIT_PROOF_RESPONSE__INIT;
    fill_await(&a, job_id, &res);
    if (wrap) {
        Cuzk__V1__ProveResponse p = CUZK__V1__PROVE_RESPONSE__INIT;
        p.result = &a;
        send_msg(c, &p.base);
    } else {
        send_msg(c, &a.base);
    }
    free(res.proof);
    free(res.message);
    return RPC_OK;
}

/* A job id from a request into out (SERVICE_MAX_ID + 1 bytes); false when
 * it is longer (never truncated: a prefix could name another job). */
static bool copy_job_id(char *out, const char *id)
{
    size_t n = id ? strlen(id) : 0;
    if (n > SERVICE_MAX_ID) n = 0;
    memcpy(out, id ? id : "", n);
    out[n] = '\0';
    return !id || strlen(id) <= SERVICE_MAX_ID;
}

static int m_await(srv_service *s, rpc_call *c, const uint8_t *req, size_t len, reply *r)
{
    DECODE(Cuzk__V1__AwaitProofRequest, cuzk__v1__await_proof_request, q);
    char job_id[SERVICE_MAX_ID + 1];
    bool fits = copy_job_id(job_id, q->job_id);
    uint64_t t = q->timeout_ms;
    cuzk__v1__await_proof_request__free_unpacked(q, NULL);
    if (!fits) return fail(r, RPC_INVALID_ARGUMENT, "job_id is longer than %d bytes", SERVICE_MAX_ID);
    if (!job_id[0]) return fail(r, RPC_INVALID_ARGUMENT, "job_id is empty");
    /* A client giving up on Await leaves the job running: it may await again. */
    return await_and_reply(s, c, job_id, wait_limit(c, t), false, false, r);
}

static int m_prove(srv_service *s, rpc_call *c, const uint8_t *req, size_t len, reply *r)
{
    DECODE(Cuzk__V1__ProveRequest, cuzk__v1__prove_request, q);
    if (!q->submit) {
        cuzk__v1__prove_request__free_unpacked(q, NULL);
        return fail(r, RPC_INVALID_ARGUMENT, "ProveRequest.submit is missing");
    }
    char job_id[SERVICE_MAX_ID + 1];
    uint32_t pos = 0;
    bool dup = false;
    int64_t d = rpc_call_deadline_ms(c);
    /* The job's own deadline trails the call's: at the call's deadline the
     * call is cancelled and cancels the job; this only bounds a job whose
     * cancellation got lost. */
    if (d != INT64_MAX) d = d > 0 ? d + 2000 : 2000;
    uint32_t timeout = d == INT64_MAX ? 0 : d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
    int code = do_submit(s, c, q->submit, job_id, sizeof job_id, &pos, &dup, timeout, r);
    cuzk__v1__prove_request__free_unpacked(q, NULL);
    if (code != RPC_OK) return code;
    /* The job belongs to this call unless it was submitted before. */
    /* No wait limit of its own: the deadline cancels the call, which cancels the job. */
    return await_and_reply(s, c, job_id, -1, !dup, true, r);
}

static int m_cancel(srv_service *s, rpc_call *c, const uint8_t *req, size_t len, reply *r)
{
    DECODE(Cuzk__V1__CancelProofRequest, cuzk__v1__cancel_proof_request, q);
    char job_id[SERVICE_MAX_ID + 1], err[384];
    bool fits = copy_job_id(job_id, q->job_id);
    cuzk__v1__cancel_proof_request__free_unpacked(q, NULL);
    if (!fits) return fail(r, RPC_INVALID_ARGUMENT, "job_id is longer than %d bytes", SERVICE_MAX_ID);
    if (!job_id[0]) return fail(r, RPC_INVALID_ARGUMENT, "job_id is empty");
    bool was = false;
    char why[240];
    snprintf(why, sizeof why, "CancelProof from %s", rpc_call_peer(c)); /* said in the job's own last line */
    int code = srv_cancel(s->b, job_id, why, &was, err, sizeof err);
    if (code != RPC_OK) return fail(r, code, "%s", err);
    Cuzk__V1__CancelProofResponse a = CUZK__V1__CANCEL_PROOF_RESPONSE__INIT;
    a.was_running = was;
    send_msg(c, &a.base);
    return RPC_OK;
}

/* What a GetStatusResponse points into besides the srv_status: the
 * messages of its repeated fields, and their pointer arrays. */
typedef struct status_reply {
    Cuzk__V1__QueueStatus qs[32], *qp[32];
    Cuzk__V1__SRSStatus ss[32], *sp[32];
    Cuzk__V1__GPUStatus gs[64], *gp[64];
    Cuzk__V1__ClusterQueue *cq, **cqp;
    Cuzk__V1__ClusterHost *ch, **chp;
} status_reply;

/* GetStatus.gpus: the prover's workers, as curio lists them. */
static void status_put_gpus(Cuzk__V1__GetStatusResponse *a, srv_status *st, status_reply *sr)
{
    for (size_t i = 0; i < st->n_gpus; i++) {
        Cuzk__V1__GPUStatus *g = &sr->gs[i];
        cuzk__v1__gpustatus__init(g);
        g->ordinal = st->gpus[i].ordinal;
        g->name = st->gpus[i].name;
        g->vram_total_bytes = st->gpus[i].vram_total;
        g->vram_free_bytes = st->gpus[i].vram_free;
        g->memory_budget_bytes = st->gpus[i].vram_budget;
        g->memory_held_bytes = st->gpus[i].vram_held;
        g->memory_plan = st->gpus[i].plan;
        g->current_job_id = st->gpus[i].job_id;
        g->current_proof_kind = st->gpus[i].kind;
        sr->gp[i] = g;
    }
    a->n_gpus = st->n_gpus;
    a->gpus = sr->gp;
}

static void status_put_queues(Cuzk__V1__GetStatusResponse *a, srv_status *st, status_reply *sr)
{
    for (size_t i = 0; i < st->n_queues; i++) {
        cuzk__v1__queue_status__init(&sr->qs[i]);
        sr->qs[i].proof_kind = st->queues[i].kind;
        sr->qs[i].pending = st->queues[i].pending;
        sr->qs[i].in_progress = st->queues[i].in_progress;
        sr->qp[i] = &sr->qs[i];
    }
    a->n_queues = st->n_queues;
    a->queues = sr->qp;
}

static void status_put_srs(Cuzk__V1__GetStatusResponse *a, srv_status *st, status_reply *sr)
{
    for (size_t i = 0; i < st->n_srs; i++) {
        Cuzk__V1__SRSStatus *s = &sr->ss[i];
        cuzk__v1__srsstatus__init(s);
        s->circuit_id = st->srs[i].circuit_id;
        s->tier = (Cuzk__V1__SRSStatus__Tier)st->srs[i].tier;
        s->size_bytes = st->srs[i].size_bytes;
        s->ref_count = st->srs[i].ref_count;
        if (st->srs[i].error) s->error = st->srs[i].error;
        s->keys = (Cuzk__V1__SRSStatus__Keys)st->srs[i].keys;
        if (st->srs[i].keys_note) s->keys_note = st->srs[i].keys_note;
        sr->sp[i] = s;
    }
    a->n_loaded_srs = st->n_srs;
    a->loaded_srs = sr->sp;
}

static void status_put_cluster_queue(Cuzk__V1__ClusterQueue *q, const cuzk_cluster_queue *v)
{
    cuzk__v1__cluster_queue__init(q);
    q->proof_kind = (char *)v->kind;
    q->priority = (Cuzk__V1__Priority)v->priority;
    q->jobs_pending = v->jobs_pending;
    q->jobs_in_progress = v->jobs_running;
    q->partitions_pending = v->parts_pending;
    q->partitions_claimed = v->parts_claimed;
}

static void status_put_cluster_host(Cuzk__V1__ClusterHost *h, const cuzk_cluster_host *v)
{
    cuzk__v1__cluster_host__init(h);
    h->name = (char *)v->name;
    h->slots = v->slots;
    h->busy = v->busy;
    h->claims = v->held;
    h->alive = v->alive;
    h->heartbeat_age_ms = v->heartbeat_age_ms;
    h->partitions_completed = v->completed;
}

/* A cluster member: the cluster's queue per kind and priority, and its
 * hosts (arrays allocated in sr: status_reply_free). */
static void status_put_cluster(Cuzk__V1__GetStatusResponse *a, srv_status *st, status_reply *sr)
{
    const cuzk_cluster_view *v = &st->cluster;
    size_t nq = st->in_cluster ? v->n_queues : 0, nh = st->in_cluster ? v->n_hosts : 0;
    sr->cq = calloc(nq + 1, sizeof *sr->cq), sr->cqp = calloc(nq + 1, sizeof *sr->cqp);
    sr->ch = calloc(nh + 1, sizeof *sr->ch), sr->chp = calloc(nh + 1, sizeof *sr->chp);
    if (!sr->cq || !sr->cqp || !sr->ch || !sr->chp) nq = nh = 0; /* the engine's part still answers */
    for (size_t i = 0; i < nq; i++) {
        status_put_cluster_queue(&sr->cq[i], &v->queues[i]);
        sr->cqp[i] = &sr->cq[i];
    }
    for (size_t i = 0; i < nh; i++) {
        status_put_cluster_host(&sr->ch[i], &v->hosts[i]);
        sr->chp[i] = &sr->ch[i];
    }
    a->n_cluster_queues = nq;
    a->cluster_queues = sr->cqp;
    a->n_cluster_hosts = nh;
    a->cluster_hosts = sr->chp;
    if (st->cluster_error[0]) a->cluster_error = st->cluster_error;
}

static void status_reply_free(status_reply *sr) { free(sr->cq), free(sr->cqp), free(sr->ch), free(sr->chp); }

static int m_status(srv_service *s, rpc_call *c, const uint8_t *req, size_t len, reply *r)
{
    DECODE(Cuzk__V1__GetStatusRequest, cuzk__v1__get_status_request, q);
    cuzk__v1__get_status_request__free_unpacked(q, NULL);
    srv_status st;
    memset(&st, 0, sizeof st);
    srv_get_status(s->b, &st);
    Cuzk__V1__GetStatusResponse a = CUZK__V1__GET_STATUS_RESPONSE__INIT;
    status_reply sr;
    status_put_gpus(&a, &st, &sr);
    status_put_queues(&a, &st, &sr);
    status_put_srs(&a, &st, &sr);
    a.total_proofs_completed = st.proofs_completed;
    a.total_proofs_failed = st.proofs_failed;
    a.uptime_seconds = uptime_s(s);
    a.pinned_memory_bytes = st.memory_pinned;
    a.pinned_memory_limit_bytes = st.memory_pinned_limit;
    a.draining = service_draining(s);
    status_put_cluster(&a, &st, &sr);
    send_msg(c, &a.base);
    status_reply_free(&sr);
    srv_status_free(&st);
    return RPC_OK;
}

static int m_metrics(srv_service *s, rpc_call *c, const uint8_t *req, size_t len, reply *r)
{
    DECODE(Cuzk__V1__GetMetricsRequest, cuzk__v1__get_metrics_request, q);
    cuzk__v1__get_metrics_request__free_unpacked(q, NULL);
    char *text = service_metrics(s);
    if (!text) return fail(r, RPC_RESOURCE_EXHAUSTED, "out of memory");
    Cuzk__V1__GetMetricsResponse a = CUZK__V1__GET_METRICS_RESPONSE__INIT;
    a.prometheus_text = text;
    send_msg(c, &a.base);
    free(text);
    return RPC_OK;
}

static int m_preload(srv_service *s, rpc_call *c, const uint8_t *req, size_t len, reply *r)
{
    DECODE(Cuzk__V1__PreloadSrsRequest, cuzk__v1__preload_srs_request, q);
    char id[96], *err = NULL;
    snprintf(id, sizeof id, "%s", q->circuit_id ? q->circuit_id : "");
    cuzk__v1__preload_srs_request__free_unpacked(q, NULL);
    if (!id[0]) return fail(r, RPC_INVALID_ARGUMENT, "circuit_id is empty");
    bool already = false;
    uint64_t ms = 0;
    int code = srv_preload(s->b, id, &already, &ms, &err);
    if (code != RPC_OK) {
        fail(r, code, "%s", err ? err : "out of memory");
        free(err);
        return code;
    }
    Cuzk__V1__PreloadSrsResponse a = CUZK__V1__PRELOAD_SRS_RESPONSE__INIT;
    a.already_loaded = already;
    a.load_time_ms = ms;
    send_msg(c, &a.base);
    return RPC_OK;
}

static int m_evict(srv_service *s, rpc_call *c, const uint8_t *req, size_t len, reply *r)
{
    DECODE(Cuzk__V1__EvictSrsRequest, cuzk__v1__evict_srs_request, q);
    char id[96], err[384];
    snprintf(id, sizeof id, "%s", q->circuit_id ? q->circuit_id : "");
    cuzk__v1__evict_srs_request__free_unpacked(q, NULL);
    if (!id[0]) return fail(r, RPC_INVALID_ARGUMENT, "circuit_id is empty");
    bool was = false;
    uint64_t freed = 0;
    int code = srv_evict(s->b, id, &was, &freed, err, sizeof err);
    if (code != RPC_OK) return fail(r, code, "%s", err);
    Cuzk__V1__EvictSrsResponse a = CUZK__V1__EVICT_SRS_RESPONSE__INIT;
    a.was_loaded = was;
    a.freed_bytes = freed;
    send_msg(c, &a.base);
    return RPC_OK;
}

/* gRPC server reflection (grpcurl), v1alpha and v1: a stream of requests */
static int m_reflect(srv_service *s, rpc_call *c, const uint8_t *req, size_t len, reply *r)
{
    char why[160];
    int code = reflection_serve(c, req, len, why, sizeof why);
    return code == RPC_OK ? code : fail(r, code, "%s", why);
}

typedef int (*method_fn)(srv_service *, rpc_call *, const uint8_t *, size_t, reply *);
static const method_fn methods[M_COUNT] = {m_submit, m_await,   m_prove,   m_cancel, m_status,
                                           m_metrics, m_preload, m_evict, m_reflect};

static void say_held(uint64_t held)
{
    const log_field f[] = {LOG_STR("event", "calls_not_logged"), LOG_NUM("count", held)};
    if (held)
        log_fields(CFG_LOG_WARN, f, 2, "%llu more rejected calls were not logged (at most %d a minute are)",
                   (unsigned long long)held, REJECT_LOG_BURST);
}

void service_flush_log(srv_service *s, bool force) { say_held(log_limit_flush(&s->rejects, force)); }

/* A call that ends without its answer: counted; logged with its code and
 * peer (rate limited) unless the client itself ended it. */
static void account(srv_service *s, int m, const char *method, int code, const char *peer, const char *msg)
{
    atomic_fetch_add(&s->calls[m][code < NCODES && code >= 0 ? code : RPC_UNKNOWN], 1);
    if (code == RPC_OK) return;
    const char *name = m < M_COUNT ? method_names[m] : method;
    const bool by_client = code == RPC_CANCELLED || code == RPC_DEADLINE_EXCEEDED;
    const log_field f[] = {LOG_STR("event", by_client ? "call_ended" : "call_rejected"), LOG_STR("method", name),
                           LOG_STR("peer", peer), LOG_STR("code", rpc_status_name(code)),
                           LOG_NUM("grpc_status", code), LOG_STR("reason", msg)};
    if (by_client) {
        log_fields(CFG_LOG_DEBUG, f, 6, "%s from %s: %s: %s", name, peer, rpc_status_name(code), msg);
        return;
    }
    uint64_t held;
    if (!log_limit_take(&s->rejects, &held)) return;
    say_held(held);
    log_fields(code == RPC_INTERNAL ? CFG_LOG_ERROR : CFG_LOG_WARN, f, 6, "rejected %s from %s: %s: %s", name, peer,
               rpc_status_name(code), msg);
}

static int method_index(const char *method)
{
    static const char prefix[] = "/cuzk.v1.ProvingEngine/";
    if (reflection_method(method)) return M_REFLECT;
    if (!strncmp(method, prefix, sizeof prefix - 1))
        for (int i = 0; i < M_REFLECT; i++) /* ProvingEngine's own */
            if (!strcmp(method + sizeof prefix - 1, method_names[i])) return i;
    return M_COUNT;
}

void service_refused(void *ud, const char *method, int code, const char *peer, const char *msg)
{
    account(ud, method_index(method), method, code, peer, msg);
}

void service_handle(void *ud, rpc_call *c, const char *method, const uint8_t *req, size_t len)
{
    srv_service *s = ud;
    reply r = {RPC_OK, NULL};
    int m = method_index(method);
    int code;
    if (m == M_COUNT) code = fail(&r, RPC_UNIMPLEMENTED, "unknown method %s", method);
    else if (!authorized(s, c, &r)) code = r.code;
    else code = methods[m](s, c, req, len, &r);
    const char *msg = r.msg ? r.msg : rpc_status_name(code);
    /* logged before the status goes out: a client that waits for it and
     * calls again must find this call's line before the next one's */
    account(s, m, method, code, rpc_call_peer(c), msg);
    if (code != RPC_OK) rpc_call_reply(c, code, msg, NULL, 0);
    free(r.msg);
}

/* ---- metrics and status -------------------------------------------------- */

typedef struct sbuf {
    char *p;
    size_t len, cap;
    bool oom;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = b->oom ? 0 : vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (b->oom || n < 0) return;
        if (b->p && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap + (size_t)n + 1) * 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->oom = true;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
}

char *service_metrics(srv_service *s)
{
    sbuf b = {0};
    sb_printf(&b, "# HELP cuzk_rpc_requests_total gRPC calls by method and status code.\n"
                  "# TYPE cuzk_rpc_requests_total counter\n");
    for (int m = 0; m <= M_COUNT; m++)
        for (int k = 0; k < NCODES; k++) {
            uint64_t v = atomic_load(&s->calls[m][k]);
            if (v) sb_printf(&b, "cuzk_rpc_requests_total{method=\"%s\",code=\"%s\"} %llu\n",
                             m < M_COUNT ? method_names[m] : "unknown", rpc_status_name(k), (unsigned long long)v);
        }
    sb_printf(&b, "# HELP cuzk_uptime_seconds Seconds since the daemon started.\n# TYPE cuzk_uptime_seconds gauge\n"
                  "cuzk_uptime_seconds %llu\n", (unsigned long long)uptime_s(s));
    sb_printf(&b, "# HELP cuzk_draining 1 while shutting down.\n# TYPE cuzk_draining gauge\ncuzk_draining %d\n",
              service_draining(s) ? 1 : 0);
    if (s->srv)
        sb_printf(&b, "# HELP cuzk_rpc_calls_in_progress gRPC calls admitted and not over (each holds a slot of "
                      "daemon.max_concurrent_calls).\n# TYPE cuzk_rpc_calls_in_progress gauge\n"
                      "cuzk_rpc_calls_in_progress %u\n"
                      "# HELP cuzk_rpc_max_concurrent_calls daemon.max_concurrent_calls.\n"
                      "# TYPE cuzk_rpc_max_concurrent_calls gauge\ncuzk_rpc_max_concurrent_calls %u\n"
                      "# HELP cuzk_rpc_oversize_rejected_total Request messages over daemon.max_message_size, refused "
                      "by gRPC with RESOURCE_EXHAUSTED before they were read.\n"
                      "# TYPE cuzk_rpc_oversize_rejected_total counter\ncuzk_rpc_oversize_rejected_total %llu\n",
                  rpc_server_active_calls(s->srv), rpc_server_max_calls(s->srv),
                  (unsigned long long)rpc_server_oversize_refused(s->srv));
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    return srv_metrics_text(s->b, b.p);
}

char *service_status_json(srv_service *s)
{
    char *engine = srv_status_json(s->b), *cluster = srv_cluster_json(s->b);
    sbuf b = {0};
    sb_printf(&b, "{\"uptime_seconds\":%llu,\"draining\":%s,\"engine\":%s%s%s}\n",
              (unsigned long long)uptime_s(s), service_draining(s) ? "true" : "false",
              engine ? engine : "null", cluster ? ",\"cluster\":" : "", cluster ? cluster : "");
    free(engine);
    free(cluster);
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    return b.p;
}

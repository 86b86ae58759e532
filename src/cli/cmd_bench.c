/*
 * `cuzk bench`: a client of the daemon's gRPC API (like curio's cuzk-bench),
 * on the same gRPC C core adapter as the server.
 *   single   one proof through Prove, its timings
 *   batch    --count N proofs, --concurrency J at a time, a summary table
 *   stress   --mix kind:rate,... for --duration, then a table per kind
 *   status | metrics | preload | evict | cancel
 * curio's cuzk-bench forms work too: its type names, --c1 FILE, --vanilla
 * FILE as a JSON array of base64 proofs, the request fields as options
 * (--sector-num, --miner-id, --partition, --randomness HEX, --comm-* HEX),
 * -a http://host:port, and --log-level (accepted, nothing to log here).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <strings.h>

#include "cli/cli.h"
#include "cuzk/util/clock.h"
#include "cuzk/util/size.h"
#include "cuzk/util/base64.h"
#include "cuzk/util/hex.h"
#include "cuzk/util/rng.h"
#include "cuzk/v1/proving.pb-c.h"
#include "cuzk/filecoin_gen/fil_request_file.h"
#include "server/grpc_adapter.h"
#include "server/tls.h"

#define SVC "/cuzk.v1.ProvingEngine/"

typedef struct opts {
    const char *addr, *token, *kind, *vanilla, *c1, *request, *mix, *circuit_id, *job_id;
    const char *tls_ca, *tls_cert, *tls_key, *tls_name; /* --tls-*: TLS to the daemon */
    uint64_t sector_size, registered_proof, timeout_ms;
    bool sector_size_set, registered_proof_set;
    /* the request's fields as options (curio's cuzk-bench); fields: the
     * CUZK_FIL_REQ_* bits of the 32-byte values given */
    uint64_t sector_number, miner_id;
    uint32_t partition, fields;
    uint8_t value[4][32]; /* randomness, comm_r_old, comm_r_new, comm_d_new */
    int priority;
    uint32_t count, concurrency, max_inflight;
    double duration_s;
} opts;

typedef struct record {
    int kind_ix;
    int grpc;   /* gRPC status */
    int status; /* AwaitProofResponse.Status */
    double client_ms;
    uint64_t queue, synth, prove, verify, total;
    size_t proof_len;
    char msg[200];
} record;

static rpc_client *cl;
static opts O;
static cuzk_rng rng;
static pthread_mutex_t rng_mu = PTHREAD_MUTEX_INITIALIZER;

/* ---- requests ------------------------------------------------------------- */

static const struct {
    const char *name;
    int kind;
} kinds[] = {
    {"test-porep", CUZK__V1__PROOF_KIND__TEST_POREP},
    {"test-window", CUZK__V1__PROOF_KIND__TEST_WINDOW_POST},
    {"test-winning", CUZK__V1__PROOF_KIND__TEST_WINNING_POST},
    {"porep", CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT},
    {"snap", CUZK__V1__PROOF_KIND__SNAP_DEALS_UPDATE},
    {"wpost", CUZK__V1__PROOF_KIND__WINDOW_POST_PARTITION},
    {"winning", CUZK__V1__PROOF_KIND__WINNING_POST},
    {"ni-porep", CUZK__V1__PROOF_KIND__NI_POREP_SEAL_COMMIT},
};

/* curio's cuzk-bench names for the Filecoin kinds */
static const struct {
    const char *alias, *name;
} kind_aliases[] = {
    {"porep-c2", "porep"},    {"seal-commit", "porep"}, {"snap-deals", "snap"},     {"update", "snap"},
    {"window-post", "wpost"}, {"windowpost", "wpost"},  {"winning-post", "winning"}, {"winningpost", "winning"},
};

/* The index in kinds of a type name (either case, curio's names too), or -1. */
static int kind_index(const char *name)
{
    for (size_t i = 0; i < sizeof kind_aliases / sizeof kind_aliases[0]; i++)
        if (!strcasecmp(kind_aliases[i].alias, name)) name = kind_aliases[i].name;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcasecmp(kinds[i].name, name)) return (int)i;
    return -1;
}

static const char *status_name(int s)
{
    static const char *n[] = {"UNKNOWN", "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"};
    return s >= 0 && s <= 4 ? n[s] : "?";
}

/* One unary call with protobuf-c messages. */
static int call(const char *method, const ProtobufCMessage *req, const ProtobufCMessageDescriptor *rd,
                ProtobufCMessage **resp, uint64_t timeout_ms, char *msg, size_t msglen)
{
    size_t n = protobuf_c_message_get_packed_size(req);
    uint8_t *buf = malloc(n ? n : 1), *out = NULL;
    size_t outlen = 0;
    if (!buf) return snprintf(msg, msglen, "out of memory"), RPC_RESOURCE_EXHAUSTED;
    protobuf_c_message_pack(req, buf);
    char full[96];
    snprintf(full, sizeof full, SVC "%s", method);
    int code = rpc_client_call(cl, full, buf, n, timeout_ms, &out, &outlen, msg, msglen);
    free(buf);
    if (code == RPC_OK) {
        *resp = protobuf_c_message_unpack(rd, NULL, outlen, out);
        if (!*resp) code = RPC_INTERNAL, snprintf(msg, msglen, "undecodable reply");
    }
    free(out);
    return code;
}

static uint8_t *vanilla_data, *c1_data;
static size_t vanilla_len, c1_len;
static ProtobufCBinaryData *vanilla_list; /* --vanilla as a JSON array of base64 proofs */
static size_t vanilla_n;

/* --vanilla FILE in curio's form, a JSON array of base64 strings (Go's
 * json.Marshal of [][]byte), becomes vanilla_proofs; any other file is one
 * proof, sent whole (curio's cuzk-bench falls back the same way). 0, or -1
 * with a message for an array that is not all base64. */
static int vanilla_parse(const char *path)
{
    json_t *root = json_loadb((const char *)vanilla_data, vanilla_len, 0, NULL);
    if (!json_is_array(root)) {
        json_decref(root);
        return 0;
    }
    int rc = 0;
    vanilla_n = json_array_size(root);
    vanilla_list = calloc(vanilla_n ? vanilla_n : 1, sizeof *vanilla_list);
    if (!vanilla_list) rc = (cli_errorf("bench: out of memory"), -1);
    for (size_t i = 0; rc == 0 && i < vanilla_n; i++) {
        json_t *v = json_array_get(root, i);
        size_t n = 0;
        uint8_t *b = json_is_string(v) ? cuzk_base64_decode(json_string_value(v), json_string_length(v), &n) : NULL;
        if (!b) {
            rc = (cli_errorf("bench: %s: entry %zu of the JSON array is not a base64 string", path, i), -1);
            vanilla_n = i;
            break;
        }
        vanilla_list[i] = (ProtobufCBinaryData){n, b};
    }
    if (rc == 0 && vanilla_n == 0) rc = (cli_errorf("bench: %s: an empty JSON array", path), -1);
    json_decref(root);
    return rc;
}
static cuzk_fil_request_file request; /* --request FILE */
static ProtobufCBinaryData *request_blobs;

/* One Prove call; fills r. */
static void prove_one(int kind_ix, uint64_t index, record *r)
{
    memset(r, 0, sizeof *r);
    r->kind_ix = kind_ix;
    Cuzk__V1__SubmitProofRequest s = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
    char id[96];
    uint8_t seed[8];
    pthread_mutex_lock(&rng_mu);
    uint64_t nonce = cuzk_rng_u64(&rng);
    cuzk_rng_bytes(&rng, seed, sizeof seed);
    pthread_mutex_unlock(&rng_mu);
    snprintf(id, sizeof id, "bench-%d-%llu-%016llx", (int)getpid(), (unsigned long long)index,
             (unsigned long long)nonce);
    s.request_id = id;
    s.proof_kind = (Cuzk__V1__ProofKind)kinds[kind_ix].kind;
    s.sector_size = O.sector_size;
    s.registered_proof = O.registered_proof;
    s.priority = (Cuzk__V1__Priority)O.priority;
    if (O.request) {
        const cuzk_fil_request_file *q = &request;
        s.sector_size = q->sector_size;
        s.registered_proof = q->registered_proof;
        s.sector_number = q->sector_number;
        s.miner_id = q->miner_id;
        s.partition_index = q->partition_index;
        ProtobufCBinaryData *vals[4] = {&s.randomness, &s.comm_r_old, &s.comm_r_new, &s.comm_d_new};
        const uint8_t *src[4] = {q->randomness, q->comm_r_old, q->comm_r_new, q->comm_d_new};
        for (int i = 0; i < 4; i++)
            if (q->present & (1u << i)) *vals[i] = (ProtobufCBinaryData){32, (uint8_t *)src[i]};
        if (q->single) {
            s.vanilla_proof = request_blobs[0];
        } else {
            s.n_vanilla_proofs = q->num_blobs;
            s.vanilla_proofs = request_blobs;
        }
    } else if (c1_data || vanilla_data || O.fields || O.sector_number || O.miner_id || O.partition) {
        s.sector_number = O.sector_number;
        s.miner_id = O.miner_id;
        s.partition_index = O.partition;
        ProtobufCBinaryData *vals[4] = {&s.randomness, &s.comm_r_old, &s.comm_r_new, &s.comm_d_new};
        for (int i = 0; i < 4; i++)
            if (O.fields & (1u << i)) *vals[i] = (ProtobufCBinaryData){32, O.value[i]};
        if (c1_data) {
            s.vanilla_proof = (ProtobufCBinaryData){c1_len, c1_data};
        } else if (vanilla_list) {
            s.n_vanilla_proofs = vanilla_n;
            s.vanilla_proofs = vanilla_list;
        } else if (vanilla_data) {
            s.vanilla_proof = (ProtobufCBinaryData){vanilla_len, vanilla_data};
        }
    } else if (kinds[kind_ix].kind >= CUZK__V1__PROOF_KIND__TEST_POREP) {
        s.vanilla_proof.data = seed; /* a fresh witness per proof */
        s.vanilla_proof.len = sizeof seed;
    }
    Cuzk__V1__ProveRequest p = CUZK__V1__PROVE_REQUEST__INIT;
    p.submit = &s;
    ProtobufCMessage *resp = NULL;
    double t0 = cuzk_now();
    r->grpc = call("Prove", &p.base, &cuzk__v1__prove_response__descriptor, &resp, O.timeout_ms,
                   r->msg, sizeof r->msg);
    r->client_ms = (cuzk_now() - t0) * 1000.0;
    if (r->grpc != RPC_OK) return;
    Cuzk__V1__ProveResponse *pr = (Cuzk__V1__ProveResponse *)resp;
    Cuzk__V1__AwaitProofResponse *a = pr->result;
    if (a) {
        r->status = a->status;
        r->queue = a->queue_wait_ms, r->synth = a->synthesis_ms, r->prove = a->gpu_compute_ms;
        r->verify = a->verify_ms, r->total = a->total_ms, r->proof_len = a->proof.len;
        snprintf(r->msg, sizeof r->msg, "%s", a->error_message ? a->error_message : "");
    }
    protobuf_c_message_free_unpacked(resp, NULL);
}

static bool record_ok(const record *r) { return r->grpc == RPC_OK && r->status == 1; }

/* ---- summary ---------------------------------------------------------------- */

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void summary(const record *rs, size_t n, int kind_ix, double wall_s)
{
    size_t ok = 0, failed = 0;
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return;
    for (size_t i = 0; i < n; i++)
        if (kind_ix < 0 || rs[i].kind_ix == kind_ix) record_ok(&rs[i]) ? ok++ : failed++;
    printf("\n%s: %zu proofs, %zu ok, %zu failed, %.2f s wall, %.2f proofs/min\n",
           kind_ix < 0 ? "all" : kinds[kind_ix].name, ok + failed, ok, failed, wall_s,
           wall_s > 0 ? (double)ok * 60.0 / wall_s : 0.0);
    printf("  %-22s %8s %10s %10s %10s %10s\n", "ms", "n", "min", "median", "mean", "max");
    static const char *names[] = {"client round trip", "queue wait", "synthesis (workers)", "prove (workers)",
                                  "verify (workers)", "total (daemon)"};
    for (int f = 0; f < 6; f++) {
        size_t m = 0;
        double sum = 0;
        for (size_t i = 0; i < n; i++) {
            const record *r = &rs[i];
            if ((kind_ix >= 0 && r->kind_ix != kind_ix) || !record_ok(r)) continue;
            double x = f == 0 ? r->client_ms : f == 1 ? (double)r->queue : f == 2 ? (double)r->synth
                     : f == 3 ? (double)r->prove : f == 4 ? (double)r->verify : (double)r->total;
            v[m++] = x, sum += x;
        }
        if (!m) continue;
        qsort(v, m, sizeof *v, cmp_d);
        printf("  %-22s %8zu %10.1f %10.1f %10.1f %10.1f\n", names[f], m, v[0], v[m / 2], sum / (double)m, v[m - 1]);
    }
    free(v);
    for (size_t i = 0, shown = 0; i < n && shown < 5; i++)
        if ((kind_ix < 0 || rs[i].kind_ix == kind_ix) && !record_ok(&rs[i])) {
            printf("  failure: %s / %s: %s\n", rpc_status_name(rs[i].grpc),
                   rs[i].grpc == RPC_OK ? status_name(rs[i].status) : "-", rs[i].msg);
            shown++;
        }
}

/* ---- prove phases (the daemon's cuzk_prove_phase_seconds histogram) ---------- */

#define NPHASES 16
typedef struct phases {
    int n;
    char name[NPHASES][16];
    double sum[NPHASES], count;
} phases;

/* The phase sums and the count of timed prove calls now; n = 0 when the
 * daemon has none (an older daemon, or metrics refused). */
static void phases_get(phases *ph)
{
    memset(ph, 0, sizeof *ph);
    Cuzk__V1__GetMetricsRequest q = CUZK__V1__GET_METRICS_REQUEST__INIT;
    ProtobufCMessage *resp = NULL;
    char msg[256];
    if (call("GetMetrics", &q.base, &cuzk__v1__get_metrics_response__descriptor, &resp, O.timeout_ms, msg,
             sizeof msg) != RPC_OK)
        return;
    const char *t = ((Cuzk__V1__GetMetricsResponse *)resp)->prometheus_text;
    static const char sum_p[] = "cuzk_prove_phase_seconds_sum{phase=\"", cnt_p[] = "cuzk_prove_phase_seconds_count{phase=\"";
    for (const char *l = t; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        const bool is_sum = !strncmp(l, sum_p, sizeof sum_p - 1), is_cnt = !strncmp(l, cnt_p, sizeof cnt_p - 1);
        if (!is_sum && !is_cnt) continue;
        const char *name = l + (is_sum ? sizeof sum_p : sizeof cnt_p) - 1, *end = strchr(name, '"');
        if (!end || (size_t)(end - name) >= sizeof ph->name[0] || end[1] != '}') continue;
        const double v = strtod(end + 2, NULL);
        if (is_cnt) {
            ph->count = v;
        } else if (ph->n < NPHASES) {
            memcpy(ph->name[ph->n], name, (size_t)(end - name));
            ph->sum[ph->n++] = v;
        }
    }
    protobuf_c_message_free_unpacked(resp, NULL);
}

/* Mean seconds per prove call of each phase between two snapshots. */
static void phases_print(const phases *a, const phases *b)
{
    const double calls = b->count - a->count;
    if (b->n == 0 || a->n != b->n || calls <= 0) return;
    printf("  prove phases on the daemon (all its work meanwhile), mean of %.0f prove calls, s:", calls);
    double copy = 0, wait = 0;
    for (int i = 0; i < b->n; i++) {
        const double d = (b->sum[i] - a->sum[i]) / calls;
        printf(" %s %.3f", b->name[i], d);
        if (!strcmp(b->name[i], "stream_copy")) copy = d;
        if (!strcmp(b->name[i], "stream_wait")) wait = d;
    }
    printf("\n");
    /* points streamed from the host (a card smaller than the set): the copy engine's time per
     * call, and the part of it the kernels did not wait for */
    if (copy > 0)
        printf("  streamed copies: %.3f s a prove call, %.0f %% hidden under kernels (%.3f s waited)\n", copy,
               100.0 * (copy - (wait < copy ? wait : copy)) / copy, wait);
}

/* ---- batch ------------------------------------------------------------------ */

typedef struct batch_state {
    int kind_ix;
    uint32_t count;
    atomic_uint next, done, failed;
    record *rs;
} batch_state;

static void *batch_worker(void *arg)
{
    batch_state *b = arg;
    for (;;) {
        unsigned i = atomic_fetch_add(&b->next, 1);
        if (i >= b->count) return NULL;
        prove_one(b->kind_ix, i, &b->rs[i]);
        if (!record_ok(&b->rs[i])) atomic_fetch_add(&b->failed, 1);
        atomic_fetch_add(&b->done, 1);
    }
}

static void progress(const char *what, unsigned done, unsigned total, unsigned inflight, unsigned failed,
                     double elapsed, bool final)
{
    bool tty = isatty(2);
    static double last;
    if (!final && !tty && elapsed - last < 5.0) return;
    last = elapsed;
    fprintf(stderr, "%s[%s] %u/%u done, %u in flight, %u failed, %.1f s%s", tty ? "\r" : "", what, done,
            total, inflight, failed, elapsed, tty && !final ? "   " : "\n");
}

static int run_batch(int kind_ix, uint32_t count, uint32_t conc)
{
    batch_state b = {.kind_ix = kind_ix, .count = count};
    b.rs = calloc(count ? count : 1, sizeof *b.rs);
    pthread_t *th = calloc(conc, sizeof *th);
    if (!b.rs || !th) return cli_errorf("out of memory"), 1;
    phases ph0, ph1;
    phases_get(&ph0);
    double t0 = cuzk_now();
    uint32_t started = 0;
    for (uint32_t j = 0; j < conc; j++)
        if (!pthread_create(&th[j], NULL, batch_worker, &b)) started++;
    while (atomic_load(&b.done) < count && started) {
        struct timespec ts = {0, 250 * 1000000L};
        nanosleep(&ts, NULL);
        unsigned d = atomic_load(&b.done), nx = atomic_load(&b.next);
        progress("batch", d, count, (nx < count ? nx : count) - d, atomic_load(&b.failed), cuzk_now() - t0, false);
    }
    for (uint32_t j = 0; j < started; j++) pthread_join(th[j], NULL);
    double wall = cuzk_now() - t0;
    progress("batch", atomic_load(&b.done), count, 0, atomic_load(&b.failed), wall, true);
    summary(b.rs, count, kind_ix, wall);
    phases_get(&ph1);
    phases_print(&ph0, &ph1);
    int rc = atomic_load(&b.failed) ? 1 : 0;
    free(b.rs);
    free(th);
    return rc;
}

/* ---- stress ----------------------------------------------------------------- */

typedef struct stress_job {
    int kind_ix;
    uint64_t index;
    record *slot;
} stress_job;

static atomic_uint stress_inflight, stress_done, stress_failed;

static void *stress_thread(void *arg)
{
    stress_job *j = arg;
    prove_one(j->kind_ix, j->index, j->slot);
    if (!record_ok(j->slot)) atomic_fetch_add(&stress_failed, 1);
    atomic_fetch_add(&stress_done, 1);
    atomic_fetch_sub(&stress_inflight, 1);
    free(j);
    return NULL;
}

static int run_stress(void)
{
    int ix[16];
    double rate[16], next_t[16];
    size_t nk = 0;
    char *mix = strdup(O.mix);
    for (char *save = NULL, *tok = strtok_r(mix, ",", &save); tok && nk < 16; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':');
        if (!colon) return cli_errorf("stress: --mix entries are kind:rate (proofs/s), got '%s'", tok), free(mix), 2;
        *colon = '\0';
        int k = kind_index(tok);
        char *end;
        double r = strtod(colon + 1, &end);
        if (k < 0 || *end || !(r > 0 && r <= 1000))
            return cli_errorf("stress: bad kind or rate in '%s:%s'", tok, colon + 1), free(mix), 2;
        ix[nk] = k, rate[nk] = r, next_t[nk] = 0, nk++;
    }
    free(mix);
    if (!nk) return cli_errorf("stress: --mix is empty"), 2;
    double total_rate = 0;
    for (size_t i = 0; i < nk; i++) total_rate += rate[i];
    size_t cap = (size_t)(total_rate * O.duration_s) + 16 * nk + 16;
    record *rs = calloc(cap, sizeof *rs);
    if (!rs) return cli_errorf("out of memory"), 1;
    size_t n = 0, skipped = 0;
    double t0 = cuzk_now();
    for (;;) {
        double now = cuzk_now() - t0;
        if (now >= O.duration_s) break;
        /* fire every kind whose time has come (fixed intervals, 1/rate) */
        double soonest = O.duration_s;
        for (size_t i = 0; i < nk; i++) {
            while (next_t[i] <= now && n < cap) {
                next_t[i] += 1.0 / rate[i];
                if (atomic_load(&stress_inflight) >= O.max_inflight) {
                    skipped++;
                    continue;
                }
                stress_job *j = malloc(sizeof *j);
                if (!j) break;
                *j = (stress_job){ix[i], n, &rs[n]};
                n++;
                atomic_fetch_add(&stress_inflight, 1);
                pthread_t th;
                if (pthread_create(&th, NULL, stress_thread, j)) {
                    atomic_fetch_sub(&stress_inflight, 1);
                    rs[j->index].grpc = RPC_RESOURCE_EXHAUSTED;
                    snprintf(rs[j->index].msg, sizeof rs[0].msg, "client: cannot start a thread");
                    free(j);
                } else {
                    pthread_detach(th);
                }
            }
            if (next_t[i] < soonest) soonest = next_t[i];
        }
        double sleep_s = soonest - (cuzk_now() - t0);
        if (sleep_s > 0.25) sleep_s = 0.25;
        if (sleep_s > 0) {
            struct timespec ts = {(time_t)sleep_s, (long)((sleep_s - (double)(time_t)sleep_s) * 1e9)};
            nanosleep(&ts, NULL);
        }
        progress("stress", atomic_load(&stress_done), (unsigned)n, atomic_load(&stress_inflight),
                 atomic_load(&stress_failed), cuzk_now() - t0, false);
    }
    while (atomic_load(&stress_inflight)) {
        struct timespec ts = {0, 100 * 1000000L};
        nanosleep(&ts, NULL);
        progress("stress", atomic_load(&stress_done), (unsigned)n, atomic_load(&stress_inflight),
                 atomic_load(&stress_failed), cuzk_now() - t0, false);
    }
    double wall = cuzk_now() - t0;
    progress("stress", atomic_load(&stress_done), (unsigned)n, 0, atomic_load(&stress_failed), wall, true);
    if (skipped) printf("%zu requests not sent: --max-inflight %u reached\n", skipped, O.max_inflight);
    for (size_t i = 0; i < nk; i++) summary(rs, n, ix[i], wall);
    free(rs);
    return atomic_load(&stress_failed) ? 1 : 0;
}

/* ---- the other verbs ---------------------------------------------------------- */

static int report(int code, const char *msg)
{
    cli_errorf("%s: %s", rpc_status_name(code), msg);
    return 1;
}

static int run_single(int kind_ix)
{
    record r;
    phases ph0, ph1;
    phases_get(&ph0);
    prove_one(kind_ix, 0, &r);
    if (r.grpc != RPC_OK) return report(r.grpc, r.msg);
    phases_get(&ph1);
    /* NI-PoRep's answer is the SnarkPack aggregate of its partitions, not the proofs themselves */
    bool agg = kinds[kind_ix].kind == CUZK__V1__PROOF_KIND__NI_POREP_SEAL_COMMIT;
    char what[64];
    snprintf(what, sizeof what, agg ? "the partitions' SnarkPack aggregate, itself verified" : "%zu partitions of 192 bytes",
             r.proof_len / 192);
    printf("%s: %s, %zu-byte proof (%s), each partition verified by the daemon before the reply\n",
           kinds[kind_ix].name, status_name(r.status), r.proof_len, what);
    if (r.msg[0]) printf("  message: %s\n", r.msg);
    printf("  client round trip %.1f ms; daemon: queue %llu ms, synthesis %llu ms, prove %llu ms, verify %llu ms, total %llu ms\n",
           r.client_ms, (unsigned long long)r.queue, (unsigned long long)r.synth, (unsigned long long)r.prove,
           (unsigned long long)r.verify, (unsigned long long)r.total);
    phases_print(&ph0, &ph1);
    return record_ok(&r) ? 0 : 1;
}

static int run_status(void)
{
    Cuzk__V1__GetStatusRequest q = CUZK__V1__GET_STATUS_REQUEST__INIT;
    ProtobufCMessage *resp;
    char msg[256];
    int code = call("GetStatus", &q.base, &cuzk__v1__get_status_response__descriptor, &resp, O.timeout_ms, msg, sizeof msg);
    if (code != RPC_OK) return report(code, msg);
    Cuzk__V1__GetStatusResponse *s = (Cuzk__V1__GetStatusResponse *)resp;
    printf("uptime %llu s, %llu proofs completed, %llu failed, memory %llu / %llu MiB%s\n",
           (unsigned long long)s->uptime_seconds, (unsigned long long)s->total_proofs_completed,
           (unsigned long long)s->total_proofs_failed, (unsigned long long)(s->pinned_memory_bytes >> 20),
           (unsigned long long)(s->pinned_memory_limit_bytes >> 20), s->draining ? ", DRAINING" : "");
    printf("  %-16s %8s %12s\n", "queue", "pending", "in progress");
    for (size_t i = 0; i < s->n_queues; i++)
        printf("  %-16s %8u %12u\n", s->queues[i]->proof_kind, s->queues[i]->pending, s->queues[i]->in_progress);
    static const char *tiers[] = {"hot", "warm", "cold", "FAILED"};
    /* whose verifying key (SRSStatus.Keys); nothing before a load */
    static const char *keys[] = {"", ", keys: ceremony",
                                 ", keys: NOT the ceremony's (proofs will be rejected on chain)",
                                 ", keys: no .vk (nothing confirms whose)", ", keys: the .vk's"};
    for (size_t i = 0; i < s->n_loaded_srs; i++)
        printf("  srs %-12s %s%s%s%s\n", s->loaded_srs[i]->circuit_id,
               (unsigned)s->loaded_srs[i]->tier < 4 ? tiers[s->loaded_srs[i]->tier] : "?",
               (unsigned)s->loaded_srs[i]->keys < 5 ? keys[s->loaded_srs[i]->keys] : "",
               s->loaded_srs[i]->error[0] ? ": " : "", s->loaded_srs[i]->error);
    for (size_t i = 0; i < s->n_gpus; i++) {
        const Cuzk__V1__GPUStatus *g = s->gpus[i];
        printf("  gpu %u %s: ", g->ordinal, g->name);
        if (g->vram_total_bytes)
            printf("%llu / %llu MiB free, ", (unsigned long long)(g->vram_free_bytes >> 20),
                   (unsigned long long)(g->vram_total_bytes >> 20));
        printf("%s%s%s\n", g->current_job_id[0] ? g->current_job_id : "idle", g->current_proof_kind[0] ? " " : "",
               g->current_proof_kind);
    }
    protobuf_c_message_free_unpacked(resp, NULL);
    return 0;
}

static int run_simple(const char *verb)
{
    ProtobufCMessage *resp = NULL;
    char msg[256];
    int code;
    if (!strcmp(verb, "metrics")) {
        Cuzk__V1__GetMetricsRequest q = CUZK__V1__GET_METRICS_REQUEST__INIT;
        code = call("GetMetrics", &q.base, &cuzk__v1__get_metrics_response__descriptor, &resp, O.timeout_ms, msg, sizeof msg);
        if (code != RPC_OK) return report(code, msg);
        fputs(((Cuzk__V1__GetMetricsResponse *)resp)->prometheus_text, stdout);
    } else if (!strcmp(verb, "preload")) {
        Cuzk__V1__PreloadSrsRequest q = CUZK__V1__PRELOAD_SRS_REQUEST__INIT;
        q.circuit_id = (char *)O.circuit_id;
        code = call("PreloadSRS", &q.base, &cuzk__v1__preload_srs_response__descriptor, &resp, O.timeout_ms, msg, sizeof msg);
        if (code != RPC_OK) return report(code, msg);
        Cuzk__V1__PreloadSrsResponse *a = (Cuzk__V1__PreloadSrsResponse *)resp;
        printf("%s: %s (%llu ms)\n", O.circuit_id, a->already_loaded ? "already resident" : "loaded",
               (unsigned long long)a->load_time_ms);
    } else if (!strcmp(verb, "evict")) {
        Cuzk__V1__EvictSrsRequest q = CUZK__V1__EVICT_SRS_REQUEST__INIT;
        q.circuit_id = (char *)O.circuit_id;
        code = call("EvictSRS", &q.base, &cuzk__v1__evict_srs_response__descriptor, &resp, O.timeout_ms, msg, sizeof msg);
        if (code != RPC_OK) return report(code, msg);
        Cuzk__V1__EvictSrsResponse *a = (Cuzk__V1__EvictSrsResponse *)resp;
        printf("%s: %s, %llu bytes freed\n", O.circuit_id, a->was_loaded ? "evicted" : "was not resident",
               (unsigned long long)a->freed_bytes);
    } else { /* cancel */
        Cuzk__V1__CancelProofRequest q = CUZK__V1__CANCEL_PROOF_REQUEST__INIT;
        q.job_id = (char *)O.job_id;
        code = call("CancelProof", &q.base, &cuzk__v1__cancel_proof_response__descriptor, &resp, O.timeout_ms, msg, sizeof msg);
        if (code != RPC_OK) return report(code, msg);
        printf("%s: cancelled (%s)\n", O.job_id, ((Cuzk__V1__CancelProofResponse *)resp)->was_running ? "was running" : "was queued");
    }
    protobuf_c_message_free_unpacked(resp, NULL);
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cuzk bench <verb> [--addr ADDR] [--token T] [--timeout SECONDS] [options]\n\n"
            "  single  --type KIND [--vanilla FILE] [--sector-size SIZE] [--registered-proof N] [--priority 0-4]\n"
            "          [--c1 FILE] [--sector-num N] [--miner-id N] [--partition N] [--randomness HEX]\n"
            "          [--comm-r-old HEX] [--comm-r-new HEX] [--comm-d-new HEX]   (curio's cuzk-bench form)\n"
            "          or --request FILE (a request written by `cuzk gen-vanilla`: kind, fields, vanilla proofs)\n"
            "  batch   --type KIND [--count N (3)] [--concurrency J (1)]\n"
            "  stress  --mix KIND:RATE[,KIND:RATE...] (proofs/s) [--duration SECONDS (30)] [--max-inflight N (64)]\n"
            "  status | metrics | preload --circuit-id ID | evict --circuit-id ID | cancel --job-id ID\n\n"
            "  --addr   unix:///path, host:port or http://host:port (default unix:///run/cuzk/cuzk.sock)\n"
            "  --token  bearer token for TCP (default $CUZK_TOKEN)\n"
            "  --tls-ca FILE     speak TLS, verifying the daemon's certificate with these CA certificates (PEM)\n"
            "  --tls-cert FILE --tls-key FILE   this client's certificate and key (mutual TLS; implies TLS,\n"
            "                    with the system's CA certificates unless --tls-ca)\n"
            "  --tls-server-name NAME   the name to expect in the daemon's certificate (default: ADDR's host)\n"
            "  KIND     test-porep, test-window, test-winning (daemon --test-kinds), or\n"
            "           porep, ni-porep, snap, wpost, winning (curio's names too: porep-c2, snap-deals, window-post, ...)\n"
            "  --c1     PoRep: the C1 output (JSON); --vanilla: a JSON array of base64 proofs (PoSt, SnapDeals)\n"
            "           or one proof file sent whole\n"
            "  sizes    --sector-size, else the daemon's reading of --registered-proof, else 32 GiB\n"
            "  HEX      32 bytes as 64 hex digits; PoSt without --randomness sends zeros (as curio's cuzk-bench)\n");
}

int cmd_bench(int argc, char **argv)
{
    O = (opts){.addr = "unix:///run/cuzk/cuzk.sock", .token = getenv("CUZK_TOKEN"), .count = 3,
               .concurrency = 1, .max_inflight = 64, .duration_s = 30, .sector_size = 32ull << 30};
    const char *verb = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t x;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout), 0;
        if (a[0] != '-') {
            if (verb) return cli_errorf("bench: unexpected '%s'", a), usage(stderr), 2;
            verb = a;
            continue;
        }
        if (!v) return cli_errorf("bench: %s needs a value", a), 2;
        i++;
        static const char *const value_opts[4] = {"--randomness", "--comm-r-old", "--comm-r-new", "--comm-d-new"};
        int vi = -1;
        for (int k = 0; k < 4; k++)
            if (!strcmp(a, value_opts[k])) vi = k;
        if (vi >= 0) {
            if (cuzk_hex_decode(O.value[vi], 32, v))
                return cli_errorf("bench: %s: want 32 bytes as 64 hex digits, got '%s'", a, v), 2;
            O.fields |= 1u << vi;
        }
        else if (!strcmp(a, "--addr") || !strcmp(a, "-a")) O.addr = v;
        else if (!strcmp(a, "--token")) O.token = v;
        else if (!strcmp(a, "--tls-ca")) O.tls_ca = v;
        else if (!strcmp(a, "--tls-cert")) O.tls_cert = v;
        else if (!strcmp(a, "--tls-key")) O.tls_key = v;
        else if (!strcmp(a, "--tls-server-name")) O.tls_name = v;
        else if (!strcmp(a, "--type") || !strcmp(a, "-t")) O.kind = v;
        else if (!strcmp(a, "--vanilla")) O.vanilla = v;
        else if (!strcmp(a, "--c1")) O.c1 = v;
        else if (!strcmp(a, "--sector-num") && cli_parse_u64(v, &x)) O.sector_number = x;
        else if (!strcmp(a, "--miner-id") && cli_parse_u64(v, &x)) O.miner_id = x;
        else if (!strcmp(a, "--partition") && cli_parse_u64(v, &x) && x <= UINT32_MAX) O.partition = (uint32_t)x;
        else if (!strcmp(a, "--log-level")) continue; /* curio's global option: nothing to log here */
        else if (!strcmp(a, "--request")) O.request = v;
        else if (!strcmp(a, "--mix")) O.mix = v;
        else if (!strcmp(a, "--circuit-id")) O.circuit_id = v;
        else if (!strcmp(a, "--job-id")) O.job_id = v;
        else if (!strcmp(a, "--sector-size") && cuzk_size_parse(v, &x)) O.sector_size = x, O.sector_size_set = true;
        else if (!strcmp(a, "--registered-proof") && cli_parse_u64(v, &x)) O.registered_proof = x, O.registered_proof_set = true;
        else if (!strcmp(a, "--priority") && cli_parse_u64(v, &x) && x <= 4) O.priority = (int)x;
        else if ((!strcmp(a, "--count") || !strcmp(a, "-c")) && cli_parse_u64(v, &x) && x && x < 1000000) O.count = (uint32_t)x;
        else if ((!strcmp(a, "--concurrency") || !strcmp(a, "-j")) && cli_parse_u64(v, &x) && x && x <= 1024) O.concurrency = (uint32_t)x;
        else if (!strcmp(a, "--max-inflight") && cli_parse_u64(v, &x) && x && x <= 4096) O.max_inflight = (uint32_t)x;
        else if (!strcmp(a, "--duration") && cli_parse_u64(v, &x) && x && x <= 86400) O.duration_s = (double)x;
        else if (!strcmp(a, "--timeout") && cli_parse_u64(v, &x)) O.timeout_ms = x * 1000;
        else return cli_errorf("bench: bad option or value: %s %s", a, v), usage(stderr), 2;
    }
    if (!verb) return usage(stderr), 2;
    int kind_ix = -1;
    bool needs_kind = !strcmp(verb, "single") || !strcmp(verb, "batch");
    char err[2048]; /* a TLS error names two paths */
    if (O.request) {
        if (cuzk_fil_request_file_read(O.request, &request, err, sizeof err)) return cli_errorf("bench: %s", err), 1;
        O.kind = request.proof_kind;
        request_blobs = calloc(request.num_blobs, sizeof *request_blobs);
        if (!request_blobs) return cli_errorf("bench: out of memory"), 1;
        for (size_t i = 0; i < request.num_blobs; i++)
            request_blobs[i] = (ProtobufCBinaryData){request.blob_lens[i], request.blobs[i]};
    }
    if (needs_kind) {
        if (!O.kind) return cli_errorf("bench %s: --type KIND is required (see --help)", verb), 2;
        if ((kind_ix = kind_index(O.kind)) < 0) return cli_errorf("bench %s: unknown --type '%s' (see --help)", verb, O.kind), 2;
    }
    /* without --sector-size, a registered proof says the size (the daemon
     * reads it from a size of 0) */
    if (!O.sector_size_set && O.registered_proof_set) O.sector_size = 0;
    int kc = kind_ix >= 0 ? kinds[kind_ix].kind : -1;
    if (!O.request && !(O.fields & CUZK_FIL_REQ_RANDOMNESS) &&
        (kc == CUZK__V1__PROOF_KIND__WINDOW_POST_PARTITION || kc == CUZK__V1__PROOF_KIND__WINNING_POST)) {
        fprintf(stderr, "bench: no --randomness: sending 32 zero bytes (as curio's cuzk-bench does)\n");
        O.fields |= CUZK_FIL_REQ_RANDOMNESS;
    }
    if (!strcmp(verb, "stress") && !O.mix) return cli_errorf("bench stress: --mix is required"), 2;
    if ((!strcmp(verb, "preload") || !strcmp(verb, "evict")) && !O.circuit_id)
        return cli_errorf("bench %s: --circuit-id is required", verb), 2;
    if (!strcmp(verb, "cancel") && !O.job_id) return cli_errorf("bench cancel: --job-id is required"), 2;
    if (O.vanilla && !(vanilla_data = cli_read_file("bench", O.vanilla, &vanilla_len))) return 1;
    if (O.c1 && !(c1_data = cli_read_file("bench", O.c1, &c1_len))) return 1;
    if (O.c1 && O.vanilla) return cli_errorf("bench: --c1 (PoRep) and --vanilla (PoSt, SnapDeals): one of them"), 2;
    if (vanilla_data && vanilla_parse(O.vanilla)) return 1;
    cuzk_rng_seed_os(&rng);
    static const char *const tls_names[3] = {"--tls-cert", "--tls-key", "--tls-ca"};
    tls_pem pem;
    bool use_tls = O.tls_ca || O.tls_cert || O.tls_key || O.tls_name;
    if (use_tls && tls_load(O.tls_cert, O.tls_key, O.tls_ca, tls_names, &pem, err, sizeof err))
        return cli_errorf("bench: %s", err), 2;
    rpc_tls tls = {.cert = use_tls ? pem.cert : NULL, .key = use_tls ? pem.key : NULL,
                   .ca = use_tls ? pem.ca : NULL, .server_name = O.tls_name};
    cl = rpc_client_open(O.addr, O.token, use_tls ? &tls : NULL, err, sizeof err);
    if (use_tls) tls_pem_free(&pem); /* the channel keeps its own copy */
    if (!cl) return cli_errorf("bench: %s", err), 1;
    int rc;
    if (!strcmp(verb, "single")) rc = run_single(kind_ix);
    else if (!strcmp(verb, "batch")) rc = run_batch(kind_ix, O.count, O.concurrency < O.count ? O.concurrency : O.count);
    else if (!strcmp(verb, "stress")) rc = run_stress();
    else if (!strcmp(verb, "status")) rc = run_status();
    else if (!strcmp(verb, "metrics") || !strcmp(verb, "preload") || !strcmp(verb, "evict") || !strcmp(verb, "cancel"))
        rc = run_simple(verb);
    else rc = (cli_errorf("bench: unknown verb '%s'", verb), usage(stderr), 2);
    rpc_client_close(cl);
    free(vanilla_data);
    free(c1_data);
    for (size_t i = 0; i < vanilla_n; i++) free(vanilla_list[i].data);
    free(vanilla_list);
    free(request_blobs);
    cuzk_fil_request_file_free(&request);
    return rc;
}

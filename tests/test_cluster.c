/*
 * The cluster's queue (cuzk/cluster/cluster.h) against a real PostgreSQL (started by
 * tests/pg.sh when $CUZK_PG is not set; skipped only when the server
 * binaries are not installed): schema created by daemons connecting at
 * once; idempotent submits; concurrent claimers on their own connections
 * never get the same partition and together get every one; concurrent
 * completions finish a job exactly once with the results in partition
 * order; leases that run out are claimed again and the late result is
 * discarded; max_attempts, failures, cancellation, retries of an id,
 * priorities, deadlines, host names held by a live daemon; a completion is
 * one round trip; payloads in payload_dir (written once under their
 * SHA-256, read back checked, removed when no active job needs them); a
 * node with a real engine claims only the kinds whose parameters fit its
 * memory budget, and fails (never proves) partitions whose payload file is
 * corrupt or missing.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/util/clock.h"
#include "cuzk/cluster/cluster.h"
#include "cuzk/util/error.h"
#include "cuzk/util/file.h"
#include "engine_test.h"
#include "pg_test.h"
#include "testutil.h"

static const char *conninfo;
static cuzk_rng rng;
static bool chaos; /* $CUZK_PG_CHAOS: snapshot isolation, serialization failures injected */

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static cuzk_cluster_db *open_host(const char *host, uint32_t lease_ms, uint32_t max_attempts, bool join)
{
    cuzk_cluster_opts o = {.conninfo = conninfo, .host = host, .lease_ms = lease_ms, .max_attempts = max_attempts};
    cuzk_cluster_db *db = NULL;
    char err[512];
    int rc = cuzk_cluster_db_open(&o, &db, err, sizeof err);
    CHECK_MSG(rc == CUZK_OK, "open %s: %s", host, err);
    if (rc == CUZK_OK && join) {
        rc = cuzk_cluster_host_join(db, 4, "k,kb", err, sizeof err);
        CHECK_MSG(rc == CUZK_OK, "join %s: %s", host, err);
    }
    return db;
}

/* ---- concurrent schema creation ------------------------------------------ */

static atomic_int opened;
static void *open_main(void *arg)
{
    cuzk_cluster_opts o = {.conninfo = conninfo, .host = arg};
    cuzk_cluster_db *db = NULL;
    char err[512];
    if (cuzk_cluster_db_open(&o, &db, err, sizeof err) == CUZK_OK) atomic_fetch_add(&opened, 1);
    else fprintf(stderr, "open: %s\n", err);
    cuzk_cluster_db_close(db);
    return NULL;
}

/* A "database" that accepts connections (the kernel's backlog does) and
 * never answers: opening gives up after the connect timeout with a message
 * that says so, instead of waiting for ever. alarm() turns a hang into a
 * failure. */
static const char *alarm_what = ""; /* what hung, for the alarm's line */
static size_t alarm_len;

static void on_alarm(int sig)
{
    (void)sig;
    ssize_t w = write(2, alarm_what, alarm_len);
    (void)w;
    _exit(1);
}

/* A hang of what follows, past s seconds, fails the test saying what hung. */
static void alarm_in(unsigned s, const char *what)
{
    alarm_what = what;
    alarm_len = strlen(what);
    signal(SIGALRM, on_alarm);
    alarm(s);
}

static void hung_database(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    CHECK(s >= 0 && bind(s, (struct sockaddr *)&a, sizeof a) == 0 && listen(s, 8) == 0 &&
          getsockname(s, (struct sockaddr *)&a, &al) == 0);
    char ci[128];
    snprintf(ci, sizeof ci, "host=127.0.0.1 port=%u dbname=x user=x sslmode=disable", ntohs(a.sin_port));
    cuzk_cluster_opts o = {.conninfo = ci, .host = "x"};
    cuzk_cluster_db *db = NULL;
    char err[512];
    alarm_in(60, "test_cluster: opening a silent database hung past 60 s\n");
    double t0 = cuzk_now();
    int rc = cuzk_cluster_db_open(&o, &db, err, sizeof err);
    double took = cuzk_now() - t0;
    alarm(0);
    fprintf(stderr, "silent database: gave up after %.1f s: %s\n", took, rc ? err : "(opened?)");
    CHECK(rc == CUZK_ERR_IO && !db);
    CHECK_MSG(strstr(err, "cannot connect") && strstr(err, "timeout"), "%s", err);
    /* a caller's deadline sooner than connect_timeout (a pooled connection
     * opened for a gRPC call of 1 s): opening ends by it, not 30 s later */
    snprintf(ci, sizeof ci, "host=127.0.0.1 port=%u dbname=x user=x sslmode=disable connect_timeout=30",
             ntohs(a.sin_port));
    o.open_within_ms = 1000;
    alarm_in(15, "test_cluster: opening a silent database with a 1 s deadline hung past 15 s\n");
    t0 = cuzk_now();
    rc = cuzk_cluster_db_open(&o, &db, err, sizeof err);
    took = cuzk_now() - t0;
    alarm(0);
    fprintf(stderr, "silent database, a 1 s deadline (connect_timeout 30): gave up after %.1f s: %s\n", took,
            rc ? err : "(opened?)");
    CHECK(rc == CUZK_ERR_IO && !db);
    CHECK_MSG(strstr(err, "cannot connect") && strstr(err, "timeout"), "%s", err);
    close(s);
}

static void schema_and_options(void)
{
    pthread_t t[4];
    char names[4][8];
    for (int i = 0; i < 4; i++) {
        snprintf(names[i], sizeof names[i], "m%d", i);
        pthread_create(&t[i], NULL, open_main, names[i]);
    }
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    CHECK_MSG(atomic_load(&opened) == 4, "%d of 4 daemons connecting at once got the schema", atomic_load(&opened));
    char err[512], *js = NULL;
    cuzk_cluster_db *db = open_host("s", 0, 0, false);
    CHECK(db && cuzk_cluster_status_json(db, &js, err, sizeof err) == CUZK_OK && js && strstr(js, "\"schema\" : 5"));
    if (js) fprintf(stderr, "fresh status: %s\n", js);
    free(js);
    cuzk_cluster_db_close(db);
    /* a password in the conninfo is refused without echoing it */
    char ci[600];
    snprintf(ci, sizeof ci, "%s password=hunter2secret", conninfo);
    cuzk_cluster_opts o = {.conninfo = ci, .host = "x"};
    db = NULL;
    CHECK(cuzk_cluster_db_open(&o, &db, err, sizeof err) == CUZK_ERR_INVALID_ARG && !db);
    CHECK_MSG(strstr(err, "password_file") && !strstr(err, "hunter2"), "%s", err);
    o.conninfo = "host= = =";
    CHECK(cuzk_cluster_db_open(&o, &db, err, sizeof err) == CUZK_ERR_INVALID_ARG && !db);
    CHECK_MSG(strstr(err, "cluster.conninfo"), "%s", err);
    o.conninfo = "host=/nonexistent-cuzk-dir dbname=x";
    CHECK(cuzk_cluster_db_open(&o, &db, err, sizeof err) == CUZK_ERR_IO && !db);
    CHECK_MSG(strstr(err, "cannot connect"), "%s", err);
    hung_database();
}

/* ---- concurrent claimers --------------------------------------------------- */

enum { NJOBS = 3, NPART = 60, NCLAIMERS = 6 };
static char job_ids[NJOBS][40];
static uint8_t results[NJOBS][NPART][192]; /* what partition p of job j proves to */

typedef struct claimer {
    char host[16];
    cuzk_cluster_lease got[NJOBS * NPART];
    size_t n;
    unsigned done_flags, accepted, errors;
    unsigned seed;
} claimer;

static pthread_barrier_t bar;

static int job_index(const char *id)
{
    for (int j = 0; j < NJOBS; j++)
        if (!strcmp(job_ids[j], id)) return j;
    return -1;
}

static void *claim_main(void *arg)
{
    claimer *c = arg;
    cuzk_cluster_opts o = {.conninfo = conninfo, .host = c->host, .lease_ms = 600000};
    cuzk_cluster_db *db = NULL;
    char err[512];
    if (cuzk_cluster_db_open(&o, &db, err, sizeof err) || cuzk_cluster_host_join(db, 4, "k", err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", c->host, err);
        c->errors++;
        pthread_barrier_wait(&bar);
        pthread_barrier_wait(&bar);
        cuzk_cluster_db_close(db);
        return NULL;
    }
    pthread_barrier_wait(&bar);
    /* claim in random batches until the queue is empty */
    for (;;) {
        size_t want = 1 + rand_r(&c->seed) % 5, n = 0;
        if (cuzk_cluster_claim(db, "k", want, c->got + c->n, &n, err, sizeof err)) {
            fprintf(stderr, "%s: claim: %s\n", c->host, err);
            c->errors++;
            break;
        }
        c->n += n;
        if (n == 0) break;
    }
    pthread_barrier_wait(&bar);
    /* complete them all, concurrently with the other claimers */
    for (size_t i = 0; i < c->n; i++) {
        int j = job_index(c->got[i].job_id);
        bool acc = false, done = false;
        if (j < 0 || cuzk_cluster_complete(db, &c->got[i], results[j][c->got[i].partition], 1, &acc, &done, err,
                                           sizeof err)) {
            fprintf(stderr, "%s: complete: %s\n", c->host, j < 0 ? "unknown job" : err);
            c->errors++;
            continue;
        }
        c->accepted += acc;
        if (done) c->done_flags |= 1u << j;
    }
    cuzk_cluster_db_close(db);
    return NULL;
}

static void concurrent_claims(void)
{
    cuzk_cluster_db *db = open_host("submitter", 0, 0, true);
    char err[512];
    uint64_t tag = cuzk_rng_u64(&rng);
    for (int j = 0; j < NJOBS; j++) {
        snprintf(job_ids[j], sizeof job_ids[j], "conc-%d-%016llx", j, (unsigned long long)tag);
        for (int p = 0; p < NPART; p++)
            for (int b = 0; b < 192; b += 8) {
                uint64_t v = cuzk_rng_u64(&rng);
                memcpy(results[j][p] + b, &v, 8);
            }
        uint8_t payload[333];
        for (size_t b = 0; b < sizeof payload; b++) payload[b] = (uint8_t)cuzk_rng_u64(&rng);
        cuzk_cluster_job job = {.id = job_ids[j], .kind = "k", .priority = CUZK_PRIORITY_NORMAL,
                                .num_partitions = NPART, .payload = payload, .payload_len = sizeof payload};
        bool dup = true;
        uint32_t pos = 99;
        CHECK_MSG(cuzk_cluster_submit(db, &job, &dup, &pos, err, sizeof err) == CUZK_OK, "%s", err);
        CHECK(!dup && pos == (uint32_t)j);
        /* the same again: the same job; other inputs: refused */
        CHECK(cuzk_cluster_submit(db, &job, &dup, NULL, err, sizeof err) == CUZK_OK && dup);
        payload[cuzk_rng_u64(&rng) % sizeof payload] ^= 1;
        CHECK(cuzk_cluster_submit(db, &job, &dup, NULL, err, sizeof err) == CUZK_ERR_INVALID_ARG);
        CHECK_MSG(strstr(err, "other inputs"), "%s", err);
        job.kind = "kb";
        payload[0] ^= 0; /* (kind differs as well) */
        CHECK(cuzk_cluster_submit(db, &job, &dup, NULL, err, sizeof err) == CUZK_ERR_INVALID_ARG);
    }
    claimer cl[NCLAIMERS];
    pthread_t t[NCLAIMERS];
    pthread_barrier_init(&bar, NULL, NCLAIMERS);
    for (int i = 0; i < NCLAIMERS; i++) {
        memset(&cl[i], 0, sizeof cl[i]);
        snprintf(cl[i].host, sizeof cl[i].host, "c%d", i);
        cl[i].seed = (unsigned)cuzk_rng_u64(&rng);
        pthread_create(&t[i], NULL, claim_main, &cl[i]);
    }
    for (int i = 0; i < NCLAIMERS; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&bar);
    /* every partition claimed exactly once, each first attempt */
    unsigned seen[NJOBS][NPART] = {{0}}, total = 0, accepted = 0, errors = 0, busy_claimers = 0;
    unsigned done_count[NJOBS] = {0};
    for (int i = 0; i < NCLAIMERS; i++) {
        for (size_t k = 0; k < cl[i].n; k++) {
            int j = job_index(cl[i].got[k].job_id);
            if (j >= 0 && cl[i].got[k].partition < NPART) seen[j][cl[i].got[k].partition]++;
            CHECK(cl[i].got[k].attempt == 1 && !strcmp(cl[i].got[k].kind, "k"));
        }
        total += (unsigned)cl[i].n, accepted += cl[i].accepted, errors += cl[i].errors;
        busy_claimers += cl[i].n > 0;
        for (int j = 0; j < NJOBS; j++) done_count[j] += (cl[i].done_flags >> j) & 1;
    }
    unsigned twice = 0, never = 0;
    for (int j = 0; j < NJOBS; j++)
        for (int p = 0; p < NPART; p++) twice += seen[j][p] > 1, never += seen[j][p] == 0;
    fprintf(stderr, "concurrent claims: %u claims by %u of %d claimers, %u accepted, %u double, %u never\n", total,
            busy_claimers, NCLAIMERS, accepted, twice, never);
    CHECK(errors == 0 && twice == 0 && never == 0 && total == NJOBS * NPART && accepted == total);
    for (int j = 0; j < NJOBS; j++) {
        CHECK_MSG(done_count[j] == 1, "job %d completed %u times", j, done_count[j]);
        cuzk_cluster_job_info in;
        CHECK(cuzk_cluster_job_get(db, job_ids[j], &in, err, sizeof err) == CUZK_OK);
        CHECK(in.state == CUZK_JOB_DONE && in.partitions_done == NPART && in.proof_len == NPART * 192);
        CHECK_MSG(in.proof && !memcmp(in.proof, results[j], sizeof results[j]),
                  "job %d's proof is not its results in partition order", j);
        cuzk_cluster_job_info_free(&in);
        cuzk_cluster_part_info *parts = NULL;
        size_t np = 0;
        CHECK(cuzk_cluster_job_parts(db, job_ids[j], &parts, &np, err, sizeof err) == CUZK_OK && np == NPART);
        for (size_t p = 0; p < np; p++)
            CHECK(parts[p].partition == p && !strcmp(parts[p].state, "done") && parts[p].verified &&
                  parts[p].proved_by[0] == 'c');
        free(parts);
    }
    cuzk_cluster_db_close(db);
}

/* ---- leases ------------------------------------------------------------------ */

static cuzk_cluster_job one_job(const char *id, const char *kind, int prio, uint32_t parts, const uint8_t *payload,
                                size_t len)
{
    cuzk_cluster_job j = {.id = id, .kind = kind, .priority = prio, .num_partitions = parts, .payload = payload,
                          .payload_len = len};
    return j;
}

static void leases(void)
{
    enum { LEASE = 1000 }; /* heartbeats every LEASE / 5: a loaded machine may stall a while */
    cuzk_cluster_db *a = open_host("lease-a", LEASE, 3, true), *b = open_host("lease-b", LEASE, 3, true);
    char err[512], id[48];
    snprintf(id, sizeof id, "lease-%016llx", (unsigned long long)cuzk_rng_u64(&rng));
    uint8_t payload[64], r1[192], r2[192];
    for (size_t i = 0; i < sizeof payload; i++) payload[i] = (uint8_t)cuzk_rng_u64(&rng);
    for (size_t i = 0; i < 192; i++) r1[i] = (uint8_t)cuzk_rng_u64(&rng), r2[i] = r1[i] ^ 0x5a;
    cuzk_cluster_job job = one_job(id, "kb", CUZK_PRIORITY_HIGH, 2, payload, sizeof payload);
    bool dup;
    CHECK(cuzk_cluster_submit(a, &job, &dup, NULL, err, sizeof err) == CUZK_OK);
    uint8_t *pl = NULL;
    size_t pll = 0;
    cuzk_cluster_lease ca[2], cb[2];
    size_t na = 0, nb = 0;
    CHECK(cuzk_cluster_claim(a, "kb", 2, ca, &na, err, sizeof err) == CUZK_OK && na == 2);
    CHECK(cuzk_cluster_payload(a, ca[0].job_seq, &pl, &pll, err, sizeof err) == CUZK_OK && pll == sizeof payload &&
          !memcmp(pl, payload, pll));
    free(pl);
    /* a heart-beating host keeps its claims past the lease */
    cuzk_cluster_host_stats st = {.slots = 4, .busy = 2};
    bool lost[2] = {true, true};
    for (int i = 0; i < 6; i++) {
        sleep_ms(LEASE / 5);
        CHECK(cuzk_cluster_heartbeat(a, &st, ca, 2, lost, err, sizeof err) == CUZK_OK && !lost[0] && !lost[1]);
    }
    unsigned exp = 99, tmo = 99;
    CHECK(cuzk_cluster_expire(b, &exp, &tmo, err, sizeof err) == CUZK_OK && exp == 0 && tmo == 0);
    CHECK(cuzk_cluster_claim(b, "kb", 2, cb, &nb, err, sizeof err) == CUZK_OK && nb == 0);
    /* silent for longer than a lease: partition 0's result comes late and is discarded ... */
    sleep_ms(2 * LEASE);
    bool acc = true, done = true;
    CHECK(cuzk_cluster_complete(a, &ca[0], r1, 1, &acc, &done, err, sizeof err) == CUZK_OK && !acc && !done);
    CHECK(cuzk_cluster_heartbeat(a, &st, ca, 2, lost, err, sizeof err) == CUZK_OK && lost[0] && lost[1]);
    /* ... both go back to the queue and to another host, second attempt */
    CHECK(cuzk_cluster_expire(b, &exp, &tmo, err, sizeof err) == CUZK_OK && exp == 2);
    CHECK(cuzk_cluster_claim(b, "kb", 4, cb, &nb, err, sizeof err) == CUZK_OK && nb == 2);
    CHECK(nb == 2 && cb[0].attempt == 2 && cb[1].attempt == 2 && cb[0].partition == 0);
    /* the first host's late result for partition 1 is discarded too */
    CHECK(cuzk_cluster_complete(a, &ca[1], r1, 1, &acc, &done, err, sizeof err) == CUZK_OK && !acc);
    /* each completion, taken or discarded, is one round trip */
    uint64_t trips = cuzk_cluster_db_statements(b);
    CHECK(cuzk_cluster_complete(b, &cb[0], r1, 1, &acc, &done, err, sizeof err) == CUZK_OK && acc && !done);
    CHECK(cuzk_cluster_complete(b, &cb[0], r2, 1, &acc, &done, err, sizeof err) == CUZK_OK && !acc); /* twice */
    CHECK(cuzk_cluster_complete(b, &cb[1], r2, 1, &acc, &done, err, sizeof err) == CUZK_OK && acc && done);
    trips = cuzk_cluster_db_statements(b) - trips;
    /* (more where serialization failures are injected: each is a retry) */
    CHECK_MSG(chaos ? trips >= 3 : trips == 3, "three completions took %llu round trips", (unsigned long long)trips);
    cuzk_cluster_job_info in;
    CHECK(cuzk_cluster_job_get(a, id, &in, err, sizeof err) == CUZK_OK && in.state == CUZK_JOB_DONE);
    CHECK(in.proof_len == 384 && !memcmp(in.proof, r1, 192) && !memcmp(in.proof + 192, r2, 192));
    cuzk_cluster_job_info_free(&in);
    cuzk_cluster_part_info *parts = NULL;
    size_t np = 0;
    CHECK(cuzk_cluster_job_parts(a, id, &parts, &np, err, sizeof err) == CUZK_OK && np == 2);
    for (size_t p = 0; p < np; p++)
        CHECK(!strcmp(parts[p].proved_by, "lease-b") && parts[p].expirations == 1 && parts[p].attempt == 2);
    free(parts);

    /* a partition whose holders keep dying fails its job after max_attempts (3) */
    snprintf(id, sizeof id, "lost-%016llx", (unsigned long long)cuzk_rng_u64(&rng));
    job = one_job(id, "kb", CUZK_PRIORITY_HIGH, 1, payload, sizeof payload);
    CHECK(cuzk_cluster_submit(a, &job, &dup, NULL, err, sizeof err) == CUZK_OK);
    for (int att = 1; att <= 3; att++) {
        CHECK(cuzk_cluster_claim(att % 2 ? a : b, "kb", 1, ca, &na, err, sizeof err) == CUZK_OK && na == 1);
        CHECK(na == 1 && ca[0].attempt == (uint32_t)att);
        sleep_ms(2 * LEASE);
        CHECK(cuzk_cluster_expire(b, &exp, &tmo, err, sizeof err) == CUZK_OK && exp == 1);
    }
    CHECK(cuzk_cluster_job_get(a, id, &in, err, sizeof err) == CUZK_OK && in.state == CUZK_JOB_FAILED);
    CHECK_MSG(strstr(in.message, "claimed 3 times"), "%s", in.message);
    cuzk_cluster_job_info_free(&in);
    CHECK(cuzk_cluster_claim(a, "kb", 1, ca, &na, err, sizeof err) == CUZK_OK && na == 0);

    /* a claim the host stops listing (it gave it up) runs out; the listed one stays */
    snprintf(id, sizeof id, "drop-%016llx", (unsigned long long)cuzk_rng_u64(&rng));
    job = one_job(id, "kb", CUZK_PRIORITY_HIGH, 2, payload, sizeof payload);
    CHECK(cuzk_cluster_submit(a, &job, &dup, NULL, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_cluster_claim(a, "kb", 2, ca, &na, err, sizeof err) == CUZK_OK && na == 2);
    for (int i = 0; i < 8; i++) {
        sleep_ms(LEASE / 5);
        CHECK(cuzk_cluster_heartbeat(a, &st, ca, 1, lost, err, sizeof err) == CUZK_OK && !lost[0]);
    }
    CHECK(cuzk_cluster_expire(b, &exp, &tmo, err, sizeof err) == CUZK_OK && exp == 1);
    CHECK(cuzk_cluster_heartbeat(a, &st, ca, 2, lost, err, sizeof err) == CUZK_OK && !lost[0] && lost[1]);
    CHECK(cuzk_cluster_claim(b, "kb", 2, cb, &nb, err, sizeof err) == CUZK_OK && nb == 1 && cb[0].partition == 1);
    CHECK(cuzk_cluster_complete(a, &ca[0], r1, 1, &acc, &done, err, sizeof err) == CUZK_OK && acc && !done);
    CHECK(cuzk_cluster_complete(b, &cb[0], r2, 1, &acc, &done, err, sizeof err) == CUZK_OK && acc && done);

    /* a deadline */
    snprintf(id, sizeof id, "deadline-%016llx", (unsigned long long)cuzk_rng_u64(&rng));
    job = one_job(id, "kb", CUZK_PRIORITY_HIGH, 3, payload, sizeof payload);
    job.timeout_ms = LEASE / 2;
    CHECK(cuzk_cluster_submit(a, &job, &dup, NULL, err, sizeof err) == CUZK_OK);
    sleep_ms(LEASE);
    CHECK(cuzk_cluster_expire(b, &exp, &tmo, err, sizeof err) == CUZK_OK && tmo == 1);
    CHECK(cuzk_cluster_job_get(a, id, &in, err, sizeof err) == CUZK_OK && in.state == CUZK_JOB_TIMED_OUT &&
          in.error == CUZK_ERR_TIMEOUT);
    cuzk_cluster_job_info_free(&in);
    CHECK(cuzk_cluster_claim(a, "kb", 3, ca, &na, err, sizeof err) == CUZK_OK && na == 0);
    cuzk_cluster_db_close(a);
    cuzk_cluster_db_close(b);
}

/* ---- failures, cancellation, retries, priorities, hosts ---------------------- */

static void lifecycle(void)
{
    cuzk_cluster_db *a = open_host("life-a", 60000, 0, true), *b = open_host("life-b", 60000, 0, true);
    char err[512], id[48];
    uint8_t payload[16], r[192] = {1};
    for (size_t i = 0; i < sizeof payload; i++) payload[i] = (uint8_t)cuzk_rng_u64(&rng);
    bool dup, acc, done, lost[4];
    cuzk_cluster_lease ca[4], cb[4];
    size_t na, nb;
    cuzk_cluster_job_info in;
    cuzk_cluster_host_stats st = {.slots = 4};

    /* a partition that fails for good fails the job; the other holder learns it */
    snprintf(id, sizeof id, "fail-%016llx", (unsigned long long)cuzk_rng_u64(&rng));
    cuzk_cluster_job job = one_job(id, "k", CUZK_PRIORITY_NORMAL, 2, payload, sizeof payload);
    CHECK(cuzk_cluster_submit(a, &job, &dup, NULL, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_cluster_claim(a, "k", 1, ca, &na, err, sizeof err) == CUZK_OK && na == 1);
    CHECK(cuzk_cluster_claim(b, "k", 1, cb, &nb, err, sizeof err) == CUZK_OK && nb == 1);
    CHECK(cuzk_cluster_fail(a, &ca[0], false, "synthesis failed: bad replica", err, sizeof err) == CUZK_OK);
    CHECK(cuzk_cluster_heartbeat(b, &st, cb, 1, lost, err, sizeof err) == CUZK_OK && lost[0]);
    CHECK(cuzk_cluster_complete(b, &cb[0], r, 1, &acc, &done, err, sizeof err) == CUZK_OK && !acc);
    CHECK(cuzk_cluster_job_get(a, id, &in, err, sizeof err) == CUZK_OK && in.state == CUZK_JOB_FAILED);
    CHECK_MSG(strstr(in.message, "partition 0: synthesis failed: bad replica"), "%s", in.message);
    cuzk_cluster_job_info_free(&in);
    /* the same id again is a new attempt, with any inputs; old claims stay void */
    payload[3] ^= 0xff;
    CHECK(cuzk_cluster_submit(a, &job, &dup, NULL, err, sizeof err) == CUZK_OK && !dup);
    CHECK(cuzk_cluster_complete(b, &cb[0], r, 1, &acc, &done, err, sizeof err) == CUZK_OK && !acc);
    /* a retryable failure puts the partition back for another host */
    CHECK(cuzk_cluster_claim(a, "k", 2, ca, &na, err, sizeof err) == CUZK_OK && na == 2);
    CHECK(na == 2 && ca[0].job_seq != cb[0].job_seq && ca[0].attempt == 1);
    CHECK(cuzk_cluster_fail(a, &ca[1], true, "out of device memory", err, sizeof err) == CUZK_OK);
    CHECK(cuzk_cluster_claim(b, "k", 2, cb, &nb, err, sizeof err) == CUZK_OK && nb == 1);
    CHECK(nb == 1 && cb[0].partition == 1 && cb[0].attempt == 2);
    CHECK(cuzk_cluster_complete(a, &ca[0], r, 1, &acc, &done, err, sizeof err) == CUZK_OK && acc && !done);
    CHECK(cuzk_cluster_complete(b, &cb[0], r, 1, &acc, &done, err, sizeof err) == CUZK_OK && acc && done);

    /* cancellation: the pending part is dropped, the holder learns it */
    snprintf(id, sizeof id, "cancel-%016llx", (unsigned long long)cuzk_rng_u64(&rng));
    job = one_job(id, "k", CUZK_PRIORITY_NORMAL, 3, payload, sizeof payload);
    CHECK(cuzk_cluster_submit(a, &job, &dup, NULL, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_cluster_job_get(b, id, &in, err, sizeof err) == CUZK_OK && in.state == CUZK_JOB_QUEUED);
    cuzk_cluster_job_info_free(&in);
    CHECK(cuzk_cluster_claim(a, "k", 1, ca, &na, err, sizeof err) == CUZK_OK && na == 1);
    CHECK(cuzk_cluster_job_get(b, id, &in, err, sizeof err) == CUZK_OK && in.state == CUZK_JOB_RUNNING &&
          in.partitions_claimed == 1);
    cuzk_cluster_job_info_free(&in);
    bool was = false;
    CHECK(cuzk_cluster_cancel(b, id, &was, err, sizeof err) == CUZK_OK && was);
    CHECK(cuzk_cluster_heartbeat(a, &st, ca, 1, lost, err, sizeof err) == CUZK_OK && lost[0]);
    CHECK(cuzk_cluster_claim(b, "k", 3, cb, &nb, err, sizeof err) == CUZK_OK && nb == 0);
    CHECK(cuzk_cluster_complete(a, &ca[0], r, 1, &acc, &done, err, sizeof err) == CUZK_OK && !acc);
    CHECK(cuzk_cluster_job_get(b, id, &in, err, sizeof err) == CUZK_OK && in.state == CUZK_JOB_CANCELLED &&
          in.error == CUZK_ERR_CANCELLED && !in.proof);
    cuzk_cluster_job_info_free(&in);
    CHECK(cuzk_cluster_cancel(b, id, &was, err, sizeof err) == CUZK_ERR_INVALID_ARG);
    CHECK_MSG(strstr(err, "already finished (cancelled)"), "%s", err);
    CHECK(cuzk_cluster_cancel(b, "no-such-job", &was, err, sizeof err) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_cluster_job_get(b, "no-such-job", &in, err, sizeof err) == CUZK_ERR_INVALID_ARG);
    CHECK_MSG(strstr(err, "no job no-such-job"), "%s", err);

    /* priorities: CRITICAL first, then the older job, lower partitions first */
    char lo[48], crit[48];
    snprintf(lo, sizeof lo, "lo-%016llx", (unsigned long long)cuzk_rng_u64(&rng));
    snprintf(crit, sizeof crit, "crit-%016llx", (unsigned long long)cuzk_rng_u64(&rng));
    job = one_job(lo, "k", CUZK_PRIORITY_LOW, 2, payload, sizeof payload);
    CHECK(cuzk_cluster_submit(a, &job, &dup, NULL, err, sizeof err) == CUZK_OK);
    job = one_job(crit, "kb", CUZK_PRIORITY_CRITICAL, 1, payload, sizeof payload);
    CHECK(cuzk_cluster_submit(a, &job, &dup, NULL, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_cluster_claim(b, "k,kb", 2, cb, &nb, err, sizeof err) == CUZK_OK && nb == 2);
    CHECK(nb == 2 && !strcmp(cb[0].job_id, crit) && cb[0].priority == CUZK_PRIORITY_CRITICAL &&
          !strcmp(cb[1].job_id, lo) && cb[1].partition == 0);
    /* a host claims only kinds it names */
    CHECK(cuzk_cluster_claim(a, "kb", 2, ca, &na, err, sizeof err) == CUZK_OK && na == 0);
    CHECK(cuzk_cluster_claim(a, "k'); DROP TABLE x; --", 2, ca, &na, err, sizeof err) == CUZK_ERR_INVALID_ARG);

    /* a host name held by a live daemon is refused; a clean leave frees it
     * and gives its claims back */
    cuzk_cluster_db *b2 = open_host("life-b", 60000, 0, false);
    CHECK(b2 && cuzk_cluster_host_join(b2, 2, "k", err, sizeof err) == CUZK_ERR_INVALID_ARG);
    CHECK_MSG(strstr(err, "in use"), "%s", err);
    CHECK(cuzk_cluster_host_leave(b, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_cluster_heartbeat(b, &st, cb, 2, lost, err, sizeof err) == CUZK_ERR_INVALID_ARG);
    CHECK(b2 && cuzk_cluster_host_join(b2, 2, "k", err, sizeof err) == CUZK_OK);
    CHECK(cuzk_cluster_claim(a, "k,kb", 4, ca, &na, err, sizeof err) == CUZK_OK && na == 3);
    CHECK(na == 3 && !strcmp(ca[0].job_id, crit) && ca[0].attempt == 2 && !strcmp(ca[1].job_id, lo) &&
          ca[1].partition == 0 && ca[1].attempt == 2 && ca[2].partition == 1 && ca[2].attempt == 1);
    char *js = NULL;
    CHECK(cuzk_cluster_status_json(a, &js, err, sizeof err) == CUZK_OK && js && strstr(js, "\"life-a\"") &&
          strstr(js, "\"held\" : 3"));
    if (js) fprintf(stderr, "status: %.600s...\n", js);
    free(js);
    cuzk_cluster_db_close(b2);
    cuzk_cluster_db_close(a);
    cuzk_cluster_db_close(b);
}

/* ---- payloads in payload_dir ----------------------------------------------- */

static void sha256(const uint8_t *p, size_t n, char hex[65])
{
    uint8_t d[32];
    unsigned dl = 32;
    CHECK(EVP_Digest(p, n, d, &dl, EVP_sha256(), NULL) == 1);
    for (int i = 0; i < 32; i++) sprintf(hex + 2 * i, "%02x", d[i]);
}

static unsigned files_in(const char *dir)
{
    DIR *d = opendir(dir);
    unsigned n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += e->d_name[0] != '.';
    if (d) closedir(d);
    return n;
}

static bool file_is(const char *path, const uint8_t *p, size_t n)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    bool same = cuzk_file_read(path, 0, &buf, &len) == CUZK_OK && len == n && !memcmp(buf, p, n);
    free(buf);
    return same;
}

static void write_file(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(p, 1, n, f) == n);
    if (f) fclose(f);
}

static cuzk_cluster_db *open_payload_host(const char *host, const char *dir, size_t threshold)
{
    cuzk_cluster_opts o = {.conninfo = conninfo, .host = host, .lease_ms = 60000, .payload_dir = dir,
                           .payload_threshold = threshold};
    cuzk_cluster_db *db = NULL;
    char err[512];
    int rc = cuzk_cluster_db_open(&o, &db, err, sizeof err);
    CHECK_MSG(rc == CUZK_OK, "open %s: %s", host, err);
    if (rc == CUZK_OK) CHECK_MSG(cuzk_cluster_host_join(db, 4, "pk", err, sizeof err) == CUZK_OK, "%s", err);
    return db;
}

/* The payload of the job whose only partition db claims now. */
static int claimed_payload(cuzk_cluster_db *db, cuzk_cluster_lease *l, uint8_t **pl, size_t *len, char *err,
                           size_t errlen)
{
    size_t n = 0;
    *pl = NULL;
    CHECK(cuzk_cluster_claim(db, "pk", 1, l, &n, err, errlen) == CUZK_OK && n == 1);
    return n == 1 ? cuzk_cluster_payload(db, l->job_seq, pl, len, err, errlen) : CUZK_ERR_INTERNAL;
}

static void payload_files(void)
{
    char dir[] = "/tmp/cuzk-payloads-XXXXXX", err[512], path[128], hex[65], id[64];
    CHECK(mkdtemp(dir) != NULL);
    cuzk_cluster_db *a = open_payload_host("pay-a", dir, 100), *none = open_payload_host("pay-n", NULL, 0);
    uint8_t big[1000], small[100], *pl = NULL;
    for (size_t i = 0; i < sizeof big; i++) big[i] = (uint8_t)cuzk_rng_u64(&rng);
    for (size_t i = 0; i < sizeof small; i++) small[i] = (uint8_t)cuzk_rng_u64(&rng);
    sha256(big, sizeof big, hex);
    snprintf(path, sizeof path, "%s/%s", dir, hex);
    uint64_t tag = cuzk_rng_u64(&rng);
    char ids[6][64];
    for (int i = 0; i < 6; i++) snprintf(ids[i], sizeof ids[i], "pay%d-%016llx", i, (unsigned long long)tag);
    bool dup;
    size_t len = 0;
    cuzk_cluster_lease l;

    /* over the threshold: a file named by its SHA-256, holding the payload */
    cuzk_cluster_job job = one_job(ids[0], "pk", CUZK_PRIORITY_NORMAL, 1, big, sizeof big);
    CHECK_MSG(cuzk_cluster_submit(a, &job, &dup, NULL, err, sizeof err) == CUZK_OK && !dup, "%s", err);
    CHECK_MSG(file_is(path, big, sizeof big) && files_in(dir) == 1, "the payload in %s", path);
    CHECK(cuzk_cluster_submit(a, &job, &dup, NULL, err, sizeof err) == CUZK_OK && dup);
    /* at the threshold: in the row; the same payload under another id: the same file */
    job = one_job(ids[1], "pk", CUZK_PRIORITY_NORMAL, 1, small, sizeof small);
    CHECK(cuzk_cluster_submit(a, &job, &dup, NULL, err, sizeof err) == CUZK_OK && files_in(dir) == 1);
    job = one_job(ids[2], "pk", CUZK_PRIORITY_NORMAL, 1, big, sizeof big);
    CHECK(cuzk_cluster_submit(a, &job, &dup, NULL, err, sizeof err) == CUZK_OK && files_in(dir) == 1);
    /* read back (job 0) and from the row (job 1) */
    CHECK(claimed_payload(a, &l, &pl, &len, err, sizeof err) == CUZK_OK && !strcmp(l.job_id, ids[0]));
    CHECK(pl && len == sizeof big && !memcmp(pl, big, len));
    free(pl);
    CHECK(claimed_payload(a, &l, &pl, &len, err, sizeof err) == CUZK_OK && !strcmp(l.job_id, ids[1]));
    CHECK(pl && len == sizeof small && !memcmp(pl, small, len));
    free(pl);
    /* job 2's file, wrong: a host says what is wrong and gives no bytes */
    CHECK(claimed_payload(a, &l, &pl, &len, err, sizeof err) == CUZK_OK && !strcmp(l.job_id, ids[2]));
    free(pl);
    CHECK(cuzk_cluster_payload(none, l.job_seq, &pl, &len, err, sizeof err) == CUZK_ERR_IO && !pl);
    CHECK_MSG(strstr(err, hex) && strstr(err, "no cluster.payload_dir"), "%s", err);
    uint8_t bad[sizeof big];
    memcpy(bad, big, sizeof big);
    bad[cuzk_rng_u64(&rng) % sizeof bad] ^= (uint8_t)(1 + cuzk_rng_u64(&rng) % 255);
    write_file(path, bad, sizeof bad);
    CHECK(cuzk_cluster_payload(a, l.job_seq, &pl, &len, err, sizeof err) == CUZK_ERR_IO && !pl);
    CHECK_MSG(strstr(err, path) && strstr(err, "SHA-256 is not the job's"), "%s", err);
    write_file(path, big, sizeof big - 1);
    CHECK(cuzk_cluster_payload(a, l.job_seq, &pl, &len, err, sizeof err) == CUZK_ERR_IO && !pl);
    CHECK_MSG(strstr(err, path) && strstr(err, "999 bytes where the job's payload has 1000"), "%s", err);
    CHECK(unlink(path) == 0);
    CHECK(cuzk_cluster_payload(a, l.job_seq, &pl, &len, err, sizeof err) == CUZK_ERR_IO && !pl);
    CHECK_MSG(strstr(err, path) && strstr(err, "No such file"), "%s", err);
    /* a submit of the same payload makes the file whole again */
    write_file(path, bad, sizeof bad);
    job = one_job(ids[3], "pk", CUZK_PRIORITY_NORMAL, 1, big, sizeof big);
    CHECK(cuzk_cluster_submit(a, &job, &dup, NULL, err, sizeof err) == CUZK_OK && file_is(path, big, sizeof big));
    CHECK(cuzk_cluster_payload(a, l.job_seq, &pl, &len, err, sizeof err) == CUZK_OK && len == sizeof big);
    free(pl);

    /* the file goes when the last active job naming it ends, however it ends */
    unsigned removed = 99;
    bool acc = false, done = false, was;
    uint8_t r[192] = {7};
    CHECK(cuzk_cluster_complete(a, &l, r, 1, &acc, &done, err, sizeof err) == CUZK_OK && acc && done); /* job 2 */
    CHECK(cuzk_cluster_cancel(a, ids[0], &was, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_cluster_payload_gc(a, &removed, err, sizeof err) == CUZK_OK && removed == 0);
    CHECK(file_is(path, big, sizeof big)); /* job 3 needs it */
    CHECK(cuzk_cluster_claim(a, "pk", 1, &l, &len, err, sizeof err) == CUZK_OK && !strcmp(l.job_id, ids[3]));
    CHECK(cuzk_cluster_complete(a, &l, r, 1, &acc, &done, err, sizeof err) == CUZK_OK && acc && done);
    CHECK(cuzk_cluster_payload_gc(none, &removed, err, sizeof err) == CUZK_OK && removed == 0); /* no dir: none */
    CHECK(access(path, F_OK) == 0);
    CHECK(cuzk_cluster_payload_gc(a, &removed, err, sizeof err) == CUZK_OK && removed == 1);
    CHECK(access(path, F_OK) != 0 && files_in(dir) == 0);
    CHECK(cuzk_cluster_payload_gc(a, &removed, err, sizeof err) == CUZK_OK && removed == 0);
    /* a file already gone is fine; a later submit writes it anew */
    job = one_job(ids[4], "pk", CUZK_PRIORITY_NORMAL, 1, big, sizeof big);
    CHECK(cuzk_cluster_submit(a, &job, &dup, NULL, err, sizeof err) == CUZK_OK && file_is(path, big, sizeof big));
    CHECK(cuzk_cluster_cancel(a, ids[4], &was, err, sizeof err) == CUZK_OK && unlink(path) == 0);
    CHECK(cuzk_cluster_payload_gc(a, &removed, err, sizeof err) == CUZK_OK);
    job = one_job(ids[5], "pk", CUZK_PRIORITY_NORMAL, 1, big, sizeof big);
    CHECK(cuzk_cluster_submit(a, &job, &dup, NULL, err, sizeof err) == CUZK_OK && file_is(path, big, sizeof big));
    CHECK(cuzk_cluster_cancel(a, ids[5], &was, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_cluster_payload_gc(a, &removed, err, sizeof err) == CUZK_OK && removed == 1 && files_in(dir) == 0);
    snprintf(id, sizeof id, "%s", ids[1]); /* job 1 (in the row) is still pending: cancel it */
    CHECK(cuzk_cluster_cancel(a, id, &was, err, sizeof err) == CUZK_OK);
    cuzk_cluster_db_close(a);
    cuzk_cluster_db_close(none);
    CHECK(rmdir(dir) == 0);
}

/* ---- a node with an engine -------------------------------------------------- */

static PGconn *sql_conn;

/* The first column of the first row of an SQL query is want. */
static bool sql_value(const char *q, const char *want)
{
    PGresult *r = PQexec(sql_conn, q);
    bool same = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) >= 1 && !strcmp(PQgetvalue(r, 0, 0), want);
    if (!same)
        fprintf(stderr, "%s: %s (want %s)\n", q,
                PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) ? PQgetvalue(r, 0, 0) : PQresultErrorMessage(r),
                want);
    PQclear(r);
    return same;
}

static void sql_exec(PGconn *c, const char *q)
{
    PGresult *r = PQexec(c, q);
    CHECK_MSG(PQresultStatus(r) == PGRES_COMMAND_OK, "%s: %s", q, PQresultErrorMessage(r));
    PQclear(r);
}

/* A node stalled past its lease (its heartbeat made old, as a SIGSTOP'd
 * daemon's is) while another daemon takes its name: at its next heartbeat
 * it learns it and claims nothing more, though jobs of its kind wait. */
static void node_loses_name(cuzk_cluster_db *s, const char *dir)
{
    char err[512], id[64];
    sql_exec(sql_conn, "UPDATE cuzk_hosts SET heartbeat_at = now() - interval '1 hour' WHERE name = 'node-a'");
    cuzk_cluster_db *taker = open_payload_host("node-a", dir, 4); /* joins under the name */
    for (int i = 0; i < 600 && !log_count("stops claiming"); i++) sleep_ms(50);
    CHECK_MSG(log_count("was taken by another daemon") == 1 && log_count("stops claiming") == 1,
              "the stalled node learnt it lost its name");
    uint64_t seed = cuzk_rng_u64(&rng) >> 1;
    snprintf(id, sizeof id, "node-orphan-%016llx", (unsigned long long)cuzk_rng_u64(&rng));
    cuzk_cluster_job job = one_job(id, "small", CUZK_PRIORITY_HIGH, 2, (uint8_t *)&seed, 8);
    bool dup;
    CHECK(cuzk_cluster_submit(s, &job, &dup, NULL, err, sizeof err) == CUZK_OK);
    /* several of the node's turns (its idle claims come at least every second) */
    sleep_ms(2500);
    cuzk_cluster_part_info *parts = NULL;
    size_t np = 0;
    CHECK(cuzk_cluster_job_parts(s, id, &parts, &np, err, sizeof err) == CUZK_OK && np == 2);
    for (size_t p = 0; p < np; p++)
        CHECK_MSG(!strcmp(parts[p].state, "pending") && parts[p].attempt == 0,
                  "a node that lost its name claimed partition %zu: %s, attempt %u", p, parts[p].state,
                  parts[p].attempt);
    free(parts);
    bool was;
    CHECK(cuzk_cluster_cancel(s, id, &was, err, sizeof err) == CUZK_OK);
    cuzk_cluster_db_close(taker); /* a kill -9: the name stays held until seen dead */
}

static void wait_state(cuzk_cluster_db *db, const char *id, cuzk_job_state want, cuzk_cluster_job_info *in)
{
    char err[512];
    /* a bound for a hung run, not a timing assertion */
    for (int i = 0; i < 6000; i++) {
        cuzk_cluster_job_info_free(in);
        if (cuzk_cluster_job_get(db, id, in, err, sizeof err) == CUZK_OK && in->state >= CUZK_JOB_DONE) break;
        sleep_ms(50);
    }
    CHECK_MSG(in->state == want, "job %s: state %d, want %d (%s)", id, in->state, want, in->message);
}

static void node_with_engine(void)
{
    /* two kinds: "small" fits the 1 MiB budget, "big" (about 3 MB of
     * parameters) does not; every payload (8 bytes) goes through files */
    tkind ks, kb;
    tk_setup(&ks, 64, 2, &rng);
    tk_setup(&kb, 4096, 2, &rng);
    cuzk_engine_config ec = {.synthesis_workers = 1, .workers_per_device = 1, .memory_budget = 1 << 20,
                             .log = log_capture};
    cuzk_engine *e = NULL;
    CHECK(cuzk_engine_create(&e, &ec) == CUZK_OK);
    cuzk_engine_kind small = tk_kind(&ks, "small", "small-c", 2, CUZK_PRIORITY_NORMAL),
                     big = tk_kind(&kb, "big", "big-c", 2, CUZK_PRIORITY_NORMAL);
    CHECK(cuzk_engine_register_kind(e, &small) == CUZK_OK && cuzk_engine_register_kind(e, &big) == CUZK_OK);
    bool fits = false;
    CHECK(cuzk_engine_kind_fits(e, "small", &fits) == CUZK_OK && fits);
    CHECK(cuzk_engine_kind_fits(e, "big", &fits) == CUZK_OK && !fits);
    char dir[] = "/tmp/cuzk-node-payloads-XXXXXX", err[512], ids[4][64];
    CHECK(mkdtemp(dir) != NULL);
    uint64_t tag = cuzk_rng_u64(&rng), seeds[4];
    const char *names[4] = {"big", "small", "corrupt", "missing"};
    for (int i = 0; i < 4; i++) {
        snprintf(ids[i], sizeof ids[i], "node-%s-%016llx", names[i], (unsigned long long)tag);
        seeds[i] = cuzk_rng_u64(&rng) >> 1; /* not TK_FAIL_SYNTH */
    }
    cuzk_cluster_db *s = open_payload_host("node-submitter", dir, 4);
    bool dup;
    /* the big job first and CRITICAL: a node that claimed regardless would take it first */
    cuzk_cluster_job job = one_job(ids[0], "big", CUZK_PRIORITY_CRITICAL, 2, (uint8_t *)&seeds[0], 8);
    CHECK(cuzk_cluster_submit(s, &job, &dup, NULL, err, sizeof err) == CUZK_OK);
    job = one_job(ids[1], "small", CUZK_PRIORITY_LOW, 2, (uint8_t *)&seeds[1], 8);
    CHECK(cuzk_cluster_submit(s, &job, &dup, NULL, err, sizeof err) == CUZK_OK && files_in(dir) == 2);
    cuzk_cluster_node_opts no = {
        .db = {.conninfo = conninfo, .host = "node-a", .lease_ms = 3000, .max_attempts = 3, .payload_dir = dir,
               .payload_threshold = 4},
        .engine = e, .slots = 2, .kinds = "big,small", .log = log_capture};
    cuzk_cluster_node *n = NULL;
    CHECK_MSG(cuzk_cluster_node_start(&no, &n, err, sizeof err) == CUZK_OK, "%s", err);
    cuzk_cluster_job_info in = {0};
    wait_state(s, ids[1], CUZK_JOB_DONE, &in);
    CHECK_MSG(tk_bytes_ok(&ks, in.proof, in.proof_len, seeds[1], 2), "the small job's proof verifies");
    /* the big job was never claimed: not a NO_MEMORY failure using up attempts */
    cuzk_cluster_part_info *parts = NULL;
    size_t np = 0;
    CHECK(cuzk_cluster_job_parts(s, ids[0], &parts, &np, err, sizeof err) == CUZK_OK && np == 2);
    for (size_t p = 0; p < np; p++)
        CHECK_MSG(!strcmp(parts[p].state, "pending") && parts[p].attempt == 0, "big partition %zu: %s, attempt %u",
                  p, parts[p].state, parts[p].attempt);
    free(parts);
    CHECK(log_count("not claiming big") >= 1);
    /* the small job's file went with it (its completer removed it); the big one's stays */
    for (int i = 0; i < 100 && files_in(dir) != 1; i++) sleep_ms(50); /* after the write-back */
    CHECK_MSG(files_in(dir) == 1, "%u payload files left", files_in(dir));
    node_loses_name(s, dir);
    cuzk_cluster_node_stop(n);
    /* stopped after losing its name: the name's new holder is not marked stopped */
    CHECK(sql_value("SELECT stopped_at IS NULL FROM cuzk_hosts WHERE name = 'node-a'", "t"));

    /* a corrupt and a missing payload file: each attempt fails with the
     * reason, the job fails after max_attempts; nothing is proved */
    for (int i = 2; i < 4; i++) {
        job = one_job(ids[i], "small", CUZK_PRIORITY_HIGH, 2, (uint8_t *)&seeds[i], 8);
        CHECK(cuzk_cluster_submit(s, &job, &dup, NULL, err, sizeof err) == CUZK_OK);
    }
    char path[160], hex[65];
    sha256((uint8_t *)&seeds[2], 8, hex);
    snprintf(path, sizeof path, "%s/%s", dir, hex);
    uint64_t other = seeds[2] ^ 1;
    write_file(path, (uint8_t *)&other, 8);
    sha256((uint8_t *)&seeds[3], 8, hex);
    snprintf(path, sizeof path, "%s/%s", dir, hex);
    CHECK(unlink(path) == 0);
    /* a restart right after a kill -9: the name is still held by the dead
     * incarnation (the new holder above, never heart-beating again); the
     * node waits for it to be seen dead (one lease) and takes it */
    n = NULL;
    sql_exec(sql_conn, "UPDATE cuzk_hosts SET heartbeat_at = now() WHERE name = 'node-a'"); /* then killed */
    log_clear();
    CHECK_MSG(cuzk_cluster_node_start(&no, &n, err, sizeof err) == CUZK_OK, "restart within a lease: %s", err);
    CHECK_MSG(log_count("waiting up to one lease") == 1, "the restart found the name held and waited");
    wait_state(s, ids[2], CUZK_JOB_FAILED, &in);
    CHECK_MSG(strstr(in.message, "its last attempt") && strstr(in.message, "SHA-256 is not the job's"), "%s",
              in.message);
    wait_state(s, ids[3], CUZK_JOB_FAILED, &in);
    CHECK_MSG(strstr(in.message, "its last attempt") && strstr(in.message, "No such file"), "%s", in.message);
    cuzk_cluster_job_info_free(&in);
    CHECK(cuzk_cluster_job_parts(s, ids[2], &parts, &np, err, sizeof err) == CUZK_OK);
    for (size_t p = 0; p < np; p++) CHECK(!parts[p].verified && !parts[p].proved_by[0]);
    free(parts);
    cuzk_cluster_node_stop(n);
    bool was;
    CHECK(cuzk_cluster_cancel(s, ids[0], &was, err, sizeof err) == CUZK_OK);
    unsigned removed = 0;
    CHECK(cuzk_cluster_payload_gc(s, &removed, err, sizeof err) == CUZK_OK);
    CHECK_MSG(files_in(dir) == 0, "%u payload files left after every job ended", files_in(dir));
    cuzk_cluster_db_close(s);
    cuzk_engine_destroy(e);
    tk_free(&ks);
    tk_free(&kb);
    CHECK(rmdir(dir) == 0);
}

/* ---- migrations --------------------------------------------------------------- */

/* A database of schema 1 with a job in it (the tables as version 1 made
 * them: the later versions' additions dropped) is brought to this build's version by
 * the next daemon to connect; a database newer than this build is
 * refused, and so, by a reader, is an older one (a reader migrates
 * nothing). */
static void migration(void)
{
    char err[512], id[48], dir[] = "/tmp/cuzk-migrate-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    cuzk_cluster_db *a = open_payload_host("mig-a", dir, 16);
    uint8_t payload[12], big[64], *pl = NULL;
    size_t len = 0;
    for (size_t i = 0; i < sizeof payload; i++) payload[i] = (uint8_t)cuzk_rng_u64(&rng);
    for (size_t i = 0; i < sizeof big; i++) big[i] = (uint8_t)cuzk_rng_u64(&rng);
    snprintf(id, sizeof id, "mig-%016llx", (unsigned long long)cuzk_rng_u64(&rng));
    cuzk_cluster_job job = one_job(id, "pk", CUZK_PRIORITY_NORMAL, 1, payload, sizeof payload);
    bool dup;
    CHECK(cuzk_cluster_submit(a, &job, &dup, NULL, err, sizeof err) == CUZK_OK);
    cuzk_cluster_db_close(a);
    PGconn *c = PQconnectdb(conninfo);
    CHECK(PQstatus(c) == CONNECTION_OK);
    sql_exec(c, "SET client_min_messages = warning");
    sql_exec(c, "DROP TABLE cuzk_payloads");
    sql_exec(c, "ALTER TABLE cuzk_jobs DROP COLUMN payload_file, DROP COLUMN payload_sha256, DROP COLUMN payload_len");
    /* and version 3's to 5's: the partial indexes, the claims' incarnation, the
     * partitions' submission time; version 1's indexes back */
    sql_exec(c, "DROP INDEX cuzk_jobs_by_queue, cuzk_jobs_by_deadline, cuzk_jobs_by_end, cuzk_partitions_by_queue, "
                "cuzk_partitions_held");
    sql_exec(c, "ALTER TABLE cuzk_partitions DROP COLUMN claimed_inc, DROP COLUMN queued_at");
    sql_exec(c, "CREATE INDEX cuzk_partitions_queue ON cuzk_partitions (state, priority DESC, job_seq, part)");
    sql_exec(c, "CREATE INDEX cuzk_partitions_holder ON cuzk_partitions (claimed_by)");
    sql_exec(c, "UPDATE cuzk_meta SET v = 1 WHERE k = 'schema'");
    a = open_payload_host("mig-b", dir, 16);
    char *js = NULL;
    CHECK(a && cuzk_cluster_status_json(a, &js, err, sizeof err) == CUZK_OK && js && strstr(js, "\"schema\" : 5"));
    free(js);
    cuzk_cluster_lease l;
    CHECK(claimed_payload(a, &l, &pl, &len, err, sizeof err) == CUZK_OK && !strcmp(l.job_id, id));
    CHECK_MSG(pl && len == sizeof payload && !memcmp(pl, payload, len), "the version 1 job's payload after the migration");
    free(pl);
    snprintf(id, sizeof id, "mig2-%016llx", (unsigned long long)cuzk_rng_u64(&rng));
    job = one_job(id, "pk", CUZK_PRIORITY_NORMAL, 1, big, sizeof big);
    CHECK(cuzk_cluster_submit(a, &job, &dup, NULL, err, sizeof err) == CUZK_OK && files_in(dir) == 1);
    bool was;
    CHECK(cuzk_cluster_cancel(a, id, &was, err, sizeof err) == CUZK_OK);
    unsigned removed = 0;
    CHECK(cuzk_cluster_payload_gc(a, &removed, err, sizeof err) == CUZK_OK && removed == 1 && files_in(dir) == 0);
    cuzk_cluster_db_close(a);
    /* newer than this build: refused, saying what to do */
    sql_exec(c, "UPDATE cuzk_meta SET v = v + 1 WHERE k = 'schema'");
    cuzk_cluster_opts o = {.conninfo = conninfo, .host = "mig-c"};
    a = NULL;
    CHECK(cuzk_cluster_db_open(&o, &a, err, sizeof err) == CUZK_ERR_UNSUPPORTED && !a);
    CHECK_MSG(strstr(err, "newer than this daemon's") && strstr(err, "upgrade the daemon"), "%s", err);
    sql_exec(c, "UPDATE cuzk_meta SET v = v - 1 WHERE k = 'schema'");
    /* a reader takes this version, and leaves an older one as it is */
    o.schema_check_only = true;
    CHECK(cuzk_cluster_db_open(&o, &a, err, sizeof err) == CUZK_OK && a);
    cuzk_cluster_db_close(a);
    a = NULL;
    sql_exec(c, "UPDATE cuzk_meta SET v = v - 1 WHERE k = 'schema'");
    CHECK(cuzk_cluster_db_open(&o, &a, err, sizeof err) == CUZK_ERR_UNSUPPORTED && !a);
    CHECK_MSG(strstr(err, "a daemon of this build migrates it"), "%s", err);
    char ver[16];
    snprintf(ver, sizeof ver, "%d", CUZK_CLUSTER_SCHEMA - 1);
    CHECK(sql_value("SELECT v FROM cuzk_meta WHERE k = 'schema'", ver));
    /* every statement of every migration run again over the schema it made:
     * where DDL commits by itself (YugabyteDB) a migration cut short leaves
     * part of it done, and the next daemon takes it up from its version */
    sql_exec(c, "UPDATE cuzk_meta SET v = 0 WHERE k = 'schema'");
    a = open_payload_host("mig-d", dir, 16);
    CHECK_MSG(a != NULL, "the migrations run again over the schema they made");
    if (a) cuzk_cluster_db_close(a);
    snprintf(ver, sizeof ver, "%d", CUZK_CLUSTER_SCHEMA);
    CHECK(sql_value("SELECT v FROM cuzk_meta WHERE k = 'schema'", ver));
    CHECK(sql_value("SELECT string_agg(indexname, ',' ORDER BY indexname) FROM pg_indexes WHERE tablename LIKE "
                    "'cuzk_%' AND indexname NOT LIKE '%_pkey' AND indexname NOT LIKE '%_key'",
                    "cuzk_jobs_by_deadline,cuzk_jobs_by_end,cuzk_jobs_by_queue,cuzk_partitions_by_queue,"
                    "cuzk_partitions_held"));
    PQfinish(c);
    CHECK(rmdir(dir) == 0);
}

/* ---- a name taken over ------------------------------------------------------ */

/* Host x stalls past its lease holding a claim; another daemon joins as x
 * (taking the name back releases the stalled one's claim). The stalled
 * one, resumed, is told at its heartbeat, claims nothing, and its late
 * result and its leave touch nothing of the new incarnation's. */
static void name_taken(void)
{
    char err[512], id[48];
    snprintf(id, sizeof id, "taken-%016llx", (unsigned long long)cuzk_rng_u64(&rng));
    uint8_t payload[16], r[192] = {9};
    for (size_t i = 0; i < sizeof payload; i++) payload[i] = (uint8_t)cuzk_rng_u64(&rng);
    cuzk_cluster_db *old = open_host("taken-x", 1000, 0, true);
    cuzk_cluster_job job = one_job(id, "kt", CUZK_PRIORITY_NORMAL, 2, payload, sizeof payload);
    bool dup, acc = true, done, lost[2];
    CHECK(cuzk_cluster_submit(old, &job, &dup, NULL, err, sizeof err) == CUZK_OK);
    cuzk_cluster_lease lo[3], ln[2];
    size_t no = 0, nn = 0;
    CHECK(cuzk_cluster_claim(old, "kt", 1, lo, &no, err, sizeof err) == CUZK_OK && no == 1);
    sql_exec(sql_conn, "UPDATE cuzk_hosts SET heartbeat_at = now() - interval '1 hour' WHERE name = 'taken-x'");
    cuzk_cluster_db *fresh = open_host("taken-x", 60000, 0, true);
    cuzk_cluster_host_stats st = {.slots = 4};
    CHECK(cuzk_cluster_heartbeat(old, &st, lo, 1, lost, err, sizeof err) == CUZK_ERR_INVALID_ARG);
    CHECK_MSG(strstr(err, "was taken"), "%s", err);
    CHECK(cuzk_cluster_claim(old, "kt", 2, lo + 1, &no, err, sizeof err) == CUZK_OK);
    CHECK_MSG(no == 0, "a daemon that lost its name claimed %zu partitions under it", no);
    CHECK(cuzk_cluster_claim(fresh, "kt", 2, ln, &nn, err, sizeof err) == CUZK_OK && nn == 2);
    CHECK(nn == 2 && ln[0].partition == 0 && ln[0].attempt == 2 && ln[1].attempt == 1);
    CHECK(cuzk_cluster_complete(old, &lo[0], r, 1, &acc, &done, err, sizeof err) == CUZK_OK && !acc);
    CHECK(cuzk_cluster_host_leave(old, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_cluster_heartbeat(fresh, &st, ln, 2, lost, err, sizeof err) == CUZK_OK);
    CHECK_MSG(!lost[0] && !lost[1], "the old incarnation's leave released the new one's claims");
    done = false;
    for (size_t i = 0; i < nn; i++)
        CHECK(cuzk_cluster_complete(fresh, &ln[i], r, 1, &acc, &done, err, sizeof err) == CUZK_OK && acc);
    CHECK(done);
    cuzk_cluster_db_close(old);
    cuzk_cluster_db_close(fresh);
}

/* ---- queue positions ----------------------------------------------------------- */

/* A submit's position is the jobs of its kind hosts take before it: higher
 * priority, then older; other kinds do not count. */
static void queue_positions(void)
{
    cuzk_cluster_db *a = open_host("qpos", 60000, 0, true);
    char err[512], id[64];
    uint8_t payload[8];
    uint64_t tag = cuzk_rng_u64(&rng);
    static const struct {
        const char *kind;
        int prio;
        uint32_t want;
    } seq[] = {{"kq", CUZK_PRIORITY_LOW, 0},      {"kq", CUZK_PRIORITY_NORMAL, 0}, {"kq", CUZK_PRIORITY_LOW, 2},
               {"kq2", CUZK_PRIORITY_HIGH, 0},    {"kq", CUZK_PRIORITY_CRITICAL, 0},
               {"kq", CUZK_PRIORITY_NORMAL, 2},   {"kq", CUZK_PRIORITY_LOW, 5}};
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        snprintf(id, sizeof id, "qpos-%zu-%016llx", i, (unsigned long long)tag);
        for (size_t b = 0; b < sizeof payload; b++) payload[b] = (uint8_t)cuzk_rng_u64(&rng);
        cuzk_cluster_job job = one_job(id, seq[i].kind, seq[i].prio, 1, payload, sizeof payload);
        bool dup;
        uint32_t pos = 99;
        CHECK(cuzk_cluster_submit(a, &job, &dup, &pos, err, sizeof err) == CUZK_OK);
        CHECK_MSG(pos == seq[i].want, "job %zu (%s, priority %d): queue position %u, want %u", i, seq[i].kind,
                  seq[i].prio, pos, seq[i].want);
    }
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        bool was;
        snprintf(id, sizeof id, "qpos-%zu-%016llx", i, (unsigned long long)tag);
        CHECK(cuzk_cluster_cancel(a, id, &was, err, sizeof err) == CUZK_OK);
    }
    cuzk_cluster_db_close(a);
}

/* Where sequences are cached per connection (YugabyteDB; PostgreSQL's
 * CACHE does the same for the sessions opened after it is set) a job
 * submitted later on another connection can get a lower seq: the claim's
 * order and the queue position go by submission time, not by seq. */
static void cached_sequences(void)
{
    sql_exec(sql_conn, "ALTER SEQUENCE cuzk_job_seq CACHE 32");
    cuzk_cluster_db *a = open_host("seq-a", 60000, 0, true), *b = open_host("seq-b", 60000, 0, false);
    char err[512], ids[3][64], q[200];
    uint64_t tag = cuzk_rng_u64(&rng);
    uint32_t pos[3] = {99, 99, 99};
    /* a takes a block of values, then b the next: a's second job, the last
     * submitted, gets a lower seq than b's */
    cuzk_cluster_db *by[3] = {a, b, a};
    for (int i = 0; i < 3; i++) {
        snprintf(ids[i], sizeof ids[i], "seq%d-%016llx", i, (unsigned long long)tag);
        uint8_t payload[8] = {(uint8_t)i, (uint8_t)tag};
        cuzk_cluster_job job = one_job(ids[i], "kseq", CUZK_PRIORITY_NORMAL, 1, payload, sizeof payload);
        bool dup;
        CHECK_MSG(cuzk_cluster_submit(by[i], &job, &dup, &pos[i], err, sizeof err) == CUZK_OK, "%s", err);
    }
    snprintf(q, sizeof q, "SELECT (SELECT seq FROM cuzk_jobs WHERE id = '%s') > "
                          "(SELECT seq FROM cuzk_jobs WHERE id = '%s')", ids[1], ids[2]);
    CHECK_MSG(sql_value(q, "t"), "the last job submitted has the lower seq (else this shows nothing)");
    CHECK_MSG(pos[0] == 0 && pos[1] == 1 && pos[2] == 2, "queue positions %u %u %u, want 0 1 2 (submission order)",
              pos[0], pos[1], pos[2]);
    /* one at a time: each claim picks the first waiting */
    for (int i = 0; i < 3; i++) {
        cuzk_cluster_lease l;
        size_t n = 0;
        CHECK(cuzk_cluster_claim(a, "kseq", 1, &l, &n, err, sizeof err) == CUZK_OK && n == 1);
        CHECK_MSG(n == 1 && !strcmp(l.job_id, ids[i]), "claim %d: %s, want %s (submission order)", i,
                  n ? l.job_id : "none", ids[i]);
    }
    for (int i = 0; i < 3; i++) {
        bool was;
        CHECK(cuzk_cluster_cancel(a, ids[i], &was, err, sizeof err) == CUZK_OK);
    }
    cuzk_cluster_db_close(a);
    cuzk_cluster_db_close(b);
    sql_exec(sql_conn, "ALTER SEQUENCE cuzk_job_seq CACHE 1");
}

/* ---- retention --------------------------------------------------------------------- */

static void sql_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sql_printf(const char *fmt, ...)
{
    char q[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(q, sizeof q, fmt, ap);
    va_end(ap);
    sql_exec(sql_conn, q);
}

static bool job_known(cuzk_cluster_db *db, const char *id)
{
    char err[512];
    cuzk_cluster_job_info in;
    int rc = cuzk_cluster_job_get(db, id, &in, err, sizeof err);
    cuzk_cluster_job_info_free(&in);
    return rc == CUZK_OK;
}

/* Finished jobs past the horizon go with their partitions, the others
 * stay: finished within it, and active ones however old. A job's payload
 * in the database goes as soon as the job ends. Hosts not heard of within
 * the horizon go too. */
static void retention(void)
{
    enum { OLD_DONE, OLD_FAILED, OLD_CANCELLED, NEW_DONE, OLD_ACTIVE, NJ };
    cuzk_cluster_opts o = {.conninfo = conninfo, .host = "ret-a", .lease_ms = 60000, .retention_ms = 3600000};
    cuzk_cluster_db *a = NULL;
    char err[512], ids[NJ][64];
    CHECK_MSG(cuzk_cluster_db_open(&o, &a, err, sizeof err) == CUZK_OK, "%s", err);
    CHECK(a && cuzk_cluster_host_join(a, 4, "kr", err, sizeof err) == CUZK_OK);
    uint64_t tag = cuzk_rng_u64(&rng);
    size_t plen = 100000 + cuzk_rng_u64(&rng) % 100000;
    uint8_t *payload = malloc(plen), r[192] = {3};
    for (size_t i = 0; i < plen; i++) payload[i] = (uint8_t)cuzk_rng_u64(&rng);
    bool dup, acc, done, was;
    for (int j = 0; j < NJ; j++) {
        snprintf(ids[j], sizeof ids[j], "ret%d-%016llx", j, (unsigned long long)tag);
        payload[0] = (uint8_t)j;
        cuzk_cluster_job job = one_job(ids[j], "kr", CUZK_PRIORITY_NORMAL, 2, payload, plen);
        CHECK(cuzk_cluster_submit(a, &job, &dup, NULL, err, sizeof err) == CUZK_OK);
    }
    free(payload);
    cuzk_cluster_lease l[2 * NJ];
    size_t n = 0;
    CHECK(cuzk_cluster_claim(a, "kr", 2 * NJ, l, &n, err, sizeof err) == CUZK_OK && n == 2 * NJ);
    for (size_t i = 0; i < n; i++) {
        int j = (int)(i / 2); /* claim order: oldest job first */
        if (j == OLD_DONE || j == NEW_DONE) CHECK(cuzk_cluster_complete(a, &l[i], r, 1, &acc, &done, err, sizeof err) == CUZK_OK && acc);
        if (j == OLD_FAILED && i % 2 == 0) CHECK(cuzk_cluster_fail(a, &l[i], false, "bad", err, sizeof err) == CUZK_OK);
    }
    CHECK(cuzk_cluster_cancel(a, ids[OLD_CANCELLED], &was, err, sizeof err) == CUZK_OK);
    /* every finished job's payload left the database with it; the active one's stays */
    for (int j = 0; j < NJ; j++) {
        char q[200];
        snprintf(q, sizeof q, "SELECT length(payload) > 0 FROM cuzk_jobs WHERE id = '%s'", ids[j]);
        CHECK_MSG(sql_value(q, j == OLD_ACTIVE ? "t" : "f"), "job %d's payload in the database", j);
    }
    /* age them: finished two hours ago (the horizon is one), the active one submitted then */
    for (int j = 0; j < NJ; j++)
        if (j != NEW_DONE)
            sql_printf("UPDATE cuzk_jobs SET finished_at = finished_at - interval '2 hours', "
                       "submitted_at = submitted_at - interval '2 hours' WHERE id = '%s'", ids[j]);
    sql_exec(sql_conn, "INSERT INTO cuzk_hosts (name, incarnation, heartbeat_at, stopped_at) "
                       "VALUES ('ret-gone', 1, now() - interval '2 hours', now() - interval '2 hours')");
    sql_exec(sql_conn, "INSERT INTO cuzk_hosts (name, incarnation, heartbeat_at) "
                       "VALUES ('ret-dead', 1, now() - interval '59 minutes')");
    unsigned deleted = 99;
    CHECK_MSG(cuzk_cluster_prune(a, &deleted, err, sizeof err) == CUZK_OK, "%s", err);
    CHECK_MSG(deleted == 3, "%u finished jobs past the horizon deleted, want 3", deleted);
    for (int j = 0; j < NJ; j++) {
        bool gone = j == OLD_DONE || j == OLD_FAILED || j == OLD_CANCELLED;
        CHECK_MSG(job_known(a, ids[j]) == !gone, "job %d %s", j, gone ? "kept past the horizon" : "deleted");
        char q[200];
        snprintf(q, sizeof q, "SELECT count(*) FROM cuzk_partitions WHERE job_id = '%s'", ids[j]);
        CHECK_MSG(sql_value(q, gone ? "0" : "2"), "job %d's partitions", j);
    }
    CHECK(sql_value("SELECT count(*) FROM cuzk_hosts WHERE name IN ('ret-gone', 'ret-dead', 'ret-a')", "2"));
    CHECK(sql_value("SELECT count(*) FROM cuzk_hosts WHERE name = 'ret-gone'", "0"));
    CHECK(cuzk_cluster_prune(a, &deleted, err, sizeof err) == CUZK_OK && deleted == 0);
    /* the one finished within the horizon, and an id once deleted is a new job */
    cuzk_cluster_job_info in;
    CHECK(cuzk_cluster_job_get(a, ids[NEW_DONE], &in, err, sizeof err) == CUZK_OK && in.state == CUZK_JOB_DONE &&
          in.proof_len == 384);
    cuzk_cluster_job_info_free(&in);
    cuzk_cluster_job job = one_job(ids[OLD_DONE], "kr", CUZK_PRIORITY_NORMAL, 1, r, 8);
    CHECK(cuzk_cluster_submit(a, &job, &dup, NULL, err, sizeof err) == CUZK_OK && !dup);
    CHECK(cuzk_cluster_cancel(a, ids[OLD_DONE], &was, err, sizeof err) == CUZK_OK);
    CHECK(cuzk_cluster_cancel(a, ids[OLD_ACTIVE], &was, err, sizeof err) == CUZK_OK);
    sql_exec(sql_conn, "DELETE FROM cuzk_hosts WHERE name = 'ret-dead'");
    cuzk_cluster_db_close(a);
    /* without a horizon nothing goes */
    o.retention_ms = 0;
    CHECK(cuzk_cluster_db_open(&o, &a, err, sizeof err) == CUZK_OK);
    sql_printf("UPDATE cuzk_jobs SET finished_at = now() - interval '1000 hours' WHERE id = '%s'", ids[NEW_DONE]);
    CHECK(a && cuzk_cluster_prune(a, &deleted, err, sizeof err) == CUZK_OK && deleted == 0);
    CHECK(job_known(a, ids[NEW_DONE]));
    cuzk_cluster_db_close(a);
}

/* ---- a frozen database ---------------------------------------------------------- */

/* A TCP proxy to the test's server that can freeze: its connections stay
 * open and the kernel keeps acknowledging, but nothing is passed on, as
 * with a PostgreSQL stopped by SIGSTOP (which a shared server must not
 * be). */
typedef struct proxy {
    int lfd;
    char target[300]; /* the server's unix socket */
    atomic_bool frozen, stop;
    atomic_int cuts; /* raised: the connections made before are closed */
    pthread_t th;
} proxy;

typedef struct pipe_ends {
    proxy *px;
    int a, b;
    int cuts; /* the proxy's cuts when this connection was made */
} pipe_ends;

static void *pipe_main(void *arg)
{
    pipe_ends *pe = arg;
    char buf[65536];
    for (bool open = true; open && !atomic_load(&pe->px->stop) && atomic_load(&pe->px->cuts) == pe->cuts;) {
        if (atomic_load(&pe->px->frozen)) {
            sleep_ms(10);
            continue;
        }
        struct pollfd p[2] = {{.fd = pe->a, .events = POLLIN}, {.fd = pe->b, .events = POLLIN}};
        if (poll(p, 2, 50) <= 0) continue;
        for (int i = 0; i < 2 && open; i++) {
            if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t n = read(p[i].fd, buf, sizeof buf);
            open = n > 0 && write(i ? pe->a : pe->b, buf, (size_t)n) == n;
        }
    }
    close(pe->a);
    close(pe->b);
    free(pe);
    return NULL;
}

static void *proxy_main(void *arg)
{
    proxy *px = arg;
    while (!atomic_load(&px->stop)) {
        struct pollfd p = {.fd = px->lfd, .events = POLLIN};
        if (poll(&p, 1, 50) <= 0) continue;
        int c = accept(px->lfd, NULL, NULL), u = socket(AF_UNIX, SOCK_STREAM, 0);
        struct sockaddr_un ua = {.sun_family = AF_UNIX};
        snprintf(ua.sun_path, sizeof ua.sun_path, "%s", px->target);
        pipe_ends *pe = malloc(sizeof *pe);
        pthread_t t;
        if (c < 0 || u < 0 || !pe || connect(u, (struct sockaddr *)&ua, sizeof ua) != 0) {
            if (c >= 0) close(c);
            if (u >= 0) close(u);
            free(pe);
            continue;
        }
        *pe = (pipe_ends){px, c, u, atomic_load(&px->cuts)};
        pthread_create(&t, NULL, pipe_main, pe);
        pthread_detach(t);
    }
    return NULL;
}

/* Starts the proxy; ci: a conninfo through it. */
static bool proxy_start(proxy *px, char *ci, size_t cilen)
{
    PQconninfoOption *opts = PQconninfoParse(conninfo, NULL);
    const char *host = NULL, *port = "5432", *dbname = NULL, *user = NULL;
    for (PQconninfoOption *o = opts; o && o->keyword; o++) {
        if (!o->val || !o->val[0]) continue;
        if (!strcmp(o->keyword, "host")) host = o->val;
        if (!strcmp(o->keyword, "port")) port = o->val;
        if (!strcmp(o->keyword, "dbname")) dbname = o->val;
        if (!strcmp(o->keyword, "user")) user = o->val;
    }
    bool unix_sock = host && host[0] == '/' && dbname;
    if (unix_sock) snprintf(px->target, sizeof px->target, "%s/.s.PGSQL.%s", host, port);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    px->lfd = socket(AF_INET, SOCK_STREAM, 0);
    bool ok = unix_sock && px->lfd >= 0 && bind(px->lfd, (struct sockaddr *)&a, sizeof a) == 0 &&
              listen(px->lfd, 16) == 0 && getsockname(px->lfd, (struct sockaddr *)&a, &al) == 0;
    if (ok)
        snprintf(ci, cilen, "host=127.0.0.1 port=%u dbname=%s%s%s sslmode=disable", ntohs(a.sin_port), dbname,
                 user ? " user=" : "", user ? user : "");
    PQconninfoFree(opts);
    atomic_init(&px->frozen, false);
    atomic_init(&px->stop, false);
    atomic_init(&px->cuts, 0);
    return ok && pthread_create(&px->th, NULL, proxy_main, px) == 0;
}

/* With the database frozen, a call with a deadline gives up at it, one
 * without at the statement bound, and a node's thread goes on turning (it
 * stops when told); thawed, the same handle works again. alarm() turns a
 * hang into a failure. */
static void frozen_database(void)
{
    static proxy px; /* its connections' threads outlive this function a little */
    char ci[400], err[512], id[48];
    if (!proxy_start(&px, ci, sizeof ci)) {
        CHECK_MSG(false, "the test's conninfo has no unix socket to proxy: %s", conninfo);
        return;
    }
    tkind ks;
    tk_setup(&ks, 64, 2, &rng);
    cuzk_engine_config ec = {.synthesis_workers = 1, .workers_per_device = 1, .log = log_capture};
    cuzk_engine *e = NULL;
    CHECK(cuzk_engine_create(&e, &ec) == CUZK_OK);
    cuzk_engine_kind small = tk_kind(&ks, "small", "small-c", 2, CUZK_PRIORITY_NORMAL);
    CHECK(cuzk_engine_register_kind(e, &small) == CUZK_OK);
    cuzk_cluster_opts o = {.conninfo = ci, .host = "frozen-a", .lease_ms = 3000, .statement_timeout_ms = 1000};
    cuzk_cluster_db *a = NULL;
    CHECK_MSG(cuzk_cluster_db_open(&o, &a, err, sizeof err) == CUZK_OK, "through the proxy: %s", err);
    snprintf(id, sizeof id, "frozen-%016llx", (unsigned long long)cuzk_rng_u64(&rng));
    uint8_t payload[8] = {1};
    cuzk_cluster_job job = one_job(id, "kz", CUZK_PRIORITY_NORMAL, 1, payload, sizeof payload);
    bool dup, was;
    CHECK(a && cuzk_cluster_submit(a, &job, &dup, NULL, err, sizeof err) == CUZK_OK);
    cuzk_cluster_node_opts no = {.db = o, .engine = e, .slots = 2, .kinds = "small", .log = log_capture};
    no.db.host = "frozen-n";
    cuzk_cluster_node *n = NULL;
    CHECK_MSG(cuzk_cluster_node_start(&no, &n, err, sizeof err) == CUZK_OK, "%s", err);
    sleep_ms(300); /* the node's first turns */
    atomic_store(&px.frozen, true);
    alarm_in(90, "test_cluster: a call on a frozen database hung past its deadline\n");
    cuzk_cluster_job_info in;
    cuzk_cluster_db_deadline(a, 500);
    double t0 = cuzk_now();
    CHECK(cuzk_cluster_job_get(a, id, &in, err, sizeof err) == CUZK_ERR_IO);
    fprintf(stderr, "frozen database, a call with a 500 ms deadline: %.2f s: %s\n", cuzk_now() - t0, err);
    CHECK_MSG(strstr(err, "no answer within the deadline"), "%s", err);
    cuzk_cluster_job_info_free(&in);
    cuzk_cluster_db_deadline(a, 0);
    t0 = cuzk_now();
    CHECK(cuzk_cluster_cancel(a, id, &was, err, sizeof err) == CUZK_ERR_IO);
    fprintf(stderr, "frozen database, a call bounded by the statement timeout (1 s): %.2f s: %s\n",
            cuzk_now() - t0, err);
    t0 = cuzk_now();
    if (n) cuzk_cluster_node_stop(n);
    fprintf(stderr, "frozen database, a node stopped in %.2f s\n", cuzk_now() - t0);
    alarm(0);
    atomic_store(&px.frozen, false);
    CHECK_MSG(a && cuzk_cluster_job_get(a, id, &in, err, sizeof err) == CUZK_OK && in.state == CUZK_JOB_QUEUED,
              "thawed: %s", err);
    cuzk_cluster_job_info_free(&in);
    CHECK(a && cuzk_cluster_cancel(a, id, &was, err, sizeof err) == CUZK_OK);
    cuzk_cluster_db_close(a);
    atomic_store(&px.stop, true);
    pthread_join(px.th, NULL);
    close(px.lfd);
    cuzk_engine_destroy(e);
    tk_free(&ks);
}

/* A connection cut while the server stops answering new ones (accepted,
 * never served): the statements that follow make it again, and each
 * attempt ends at the conninfo's connect_timeout (2 s here), not at the
 * statement bound (30 s + 2 s) a statement gets. alarm() turns a hang
 * into a failure. */
static void reconnect_bounded(void)
{
    static proxy px;
    char ci[400], ci2[440], err[512];
    if (!proxy_start(&px, ci, sizeof ci)) {
        CHECK_MSG(false, "the test's conninfo has no unix socket to proxy: %s", conninfo);
        return;
    }
    snprintf(ci2, sizeof ci2, "%s connect_timeout=2", ci);
    cuzk_cluster_opts o = {.conninfo = ci2, .host = "recon", .statement_timeout_ms = 30000};
    cuzk_cluster_db *db = NULL;
    CHECK_MSG(cuzk_cluster_db_open(&o, &db, err, sizeof err) == CUZK_OK, "through the proxy: %s", err);
    cuzk_cluster_job_info in;
    CHECK(db && cuzk_cluster_job_get(db, "recon-none", &in, err, sizeof err) == CUZK_ERR_INVALID_ARG);
    atomic_store(&px.frozen, true);
    atomic_fetch_add(&px.cuts, 1);
    sleep_ms(200); /* the proxy's threads close the connection */
    alarm_in(15, "test_cluster: a reconnection to a silent server hung past connect_timeout (15 s)\n");
    bool reconnected = false;
    for (int i = 0; db && i < 3; i++) {
        double t0 = cuzk_now();
        int rc = cuzk_cluster_job_get(db, "recon-none", &in, err, sizeof err);
        fprintf(stderr, "cut connection, silent server, call %d: %.1f s: %s\n", i, cuzk_now() - t0, err);
        CHECK(rc == CUZK_ERR_IO);
        reconnected |= strstr(err, "connecting again") && strstr(err, "timeout");
        cuzk_cluster_job_info_free(&in);
    }
    alarm(0);
    CHECK_MSG(reconnected, "no call tried to connect again");
    atomic_store(&px.frozen, false);
    CHECK_MSG(db && cuzk_cluster_job_get(db, "recon-none", &in, err, sizeof err) == CUZK_ERR_INVALID_ARG,
              "served again: %s", err);
    cuzk_cluster_db_close(db);
    atomic_store(&px.stop, true);
    pthread_join(px.th, NULL);
    close(px.lfd);
}

/* ---- snapshot isolation and serialization failures ------------------------------ */

/* $CUZK_PG_CHAOS=P (0 < P < 1): the whole test at REPEATABLE READ, PostgreSQL's
 * snapshot isolation (YugabyteDB's default), where a statement meeting a
 * concurrent change fails with 40001 instead of waiting; and a fraction P
 * of the daemons' writes (statements of the connections named cuzk on the
 * queue's tables) failing with 40001 besides, counted in a sequence (which
 * a rollback does not undo). Every operation must retry its way through. */
static void chaos_setup(const char *p)
{
    char *end;
    double frac = strtod(p, &end);
    if (*end || !(frac > 0 && frac < 1)) {
        CHECK_MSG(false, "CUZK_PG_CHAOS=%s: a fraction between 0 and 1", p);
        return;
    }
    chaos = true;
    sql_exec(sql_conn, "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET default_transaction_isolation = %L', "
                       "current_database(), 'repeatable read'); END $$");
    cuzk_cluster_db *db = open_host("chaos", 0, 0, false); /* the schema, to put triggers on */
    cuzk_cluster_db_close(db);
    char q[600];
    snprintf(q, sizeof q,
             "CREATE SEQUENCE cuzk_test_chaos_n; "
             "CREATE FUNCTION cuzk_test_chaos() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN "
             " IF current_setting('application_name') = 'cuzk' AND random() < %.4f THEN "
             "  PERFORM nextval('cuzk_test_chaos_n'); "
             "  RAISE EXCEPTION 'injected serialization failure' USING ERRCODE = '40001'; "
             " END IF; RETURN NULL; END $f$",
             frac);
    sql_exec(sql_conn, q);
    static const char *const tables[] = {"cuzk_jobs", "cuzk_partitions", "cuzk_hosts", "cuzk_payloads"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(q, sizeof q, "CREATE TRIGGER cuzk_test_chaos BEFORE INSERT OR UPDATE OR DELETE ON %s "
                              "FOR EACH STATEMENT EXECUTE FUNCTION cuzk_test_chaos()", tables[i]);
        sql_exec(sql_conn, q);
    }
    fprintf(stderr, "chaos: REPEATABLE READ, %.1f%% of the daemons' writes fail with 40001\n", 100 * frac);
}

/* The failures injected: some, or the run showed nothing. */
static void chaos_report(void)
{
    PGresult *r = PQexec(sql_conn, "SELECT last_value, is_called FROM cuzk_test_chaos_n");
    long long n = PQresultStatus(r) == PGRES_TUPLES_OK && PQgetvalue(r, 0, 1)[0] == 't'
                      ? atoll(PQgetvalue(r, 0, 0))
                      : 0;
    PQclear(r);
    fprintf(stderr, "chaos: %lld serialization failures injected\n", n);
    CHECK_MSG(n > 0, "no serialization failure was injected");
}

int main(int argc, char **argv)
{
    (void)argc;
    conninfo = pg_test_conninfo(argv);
    tu_init(&rng, "test_cluster");
    sql_conn = pg_test_sql(conninfo);
    if (getenv("CUZK_PG_CHAOS")) chaos_setup(getenv("CUZK_PG_CHAOS"));
    schema_and_options();
    concurrent_claims();
    leases();
    lifecycle();
    payload_files();
    node_with_engine();
    name_taken();
    queue_positions();
    cached_sequences();
    retention();
    frozen_database();
    reconnect_bounded();
    migration();
    if (chaos) chaos_report();
    return tu_finish("test_cluster");
}

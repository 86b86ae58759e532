/*
 * `cuzk cluster`: the cluster's PostgreSQL queue (docs/cluster.md) from the
 * command line, with the daemon's configuration ([cluster] conninfo and
 * password_file) or --conninfo:
 *   status         hosts (slots, claims held, heartbeat age, counters),
 *                  partitions per state, expirations, queue per kind (JSON)
 *   job ID         each partition of a job: state, attempts, holder, prover
 *   load ...       a load generator: N simulated hosts (threads, a
 *                  connection each) claiming and completing partitions as
 *                  fast as the database lets them, no proving; claims and
 *                  completions per second and the latency a claim adds
 *                  (docs/scale.md)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cluster_mix.h"
#include "cuzk/util/clock.h"
#include "cuzk/util/size.h"
#include "cuzk/cluster/cluster.h"
#include "cuzk/util/error.h"
#include "server/config.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cuzk cluster status [--config FILE | --conninfo STR]\n"
            "       cuzk cluster job ID [--config FILE | --conninfo STR]\n"
            "       cuzk cluster load [--config FILE | --conninfo STR] [--hosts N] [--jobs N]\n"
            "                         [--partitions N] [--batch N] [--payload BYTES]\n"
            "       cuzk cluster load --mix [--config FILE | --conninfo STR] [--hosts N] [--seconds N]\n"
            "                         [--partitions N] [--slots N] [--prove-ms N] [--load F]\n"
            "                         [--status-per-s F] [--payload-dir DIR]\n\n"
            "  --config FILE    the daemon's configuration: [cluster] conninfo, password_file\n"
            "                   (default /data/zk/cuzk.toml)\n"
            "  --conninfo STR   libpq connection string instead (password: $PGPASSWORD, ~/.pgpass)\n"
            "  load: N simulated hosts (default 8) claim and complete the partitions of\n"
            "  --jobs (default 200) jobs of --partitions (default 10) each, --batch claims\n"
            "  at a time (default 1), without proving; with --payload (e.g. 50M or 50MB,\n"
            "  a 32 GiB C1; K, M, G alone are 10^3, 10^6, 10^9, as KB, MB, GB) each job\n"
            "  stores that many bytes and a host fetches them from the first partition\n"
            "  of a job it claims, as a daemon does. Use a database of its own (it adds\n"
            "  jobs of kind cuzk-load, completed by the end)\n"
            "  load --mix: N simulated daemons (default 8) for --seconds (default 60, after\n"
            "  a lease, at most 10 s, of warm-up), each issuing every statement a daemon issues at its pace:\n"
            "  claims for --slots (default 2), a partition proved in --prove-ms (default\n"
            "  1500, not proved: waited), jobs of --partitions submitted at --load (default\n"
            "  0.9) times the hosts' rate and awaited as AwaitProof does, heartbeats and\n"
            "  housekeeping per the lease and [cluster] retention, GetStatus --status-per-s\n"
            "  (default 1) a daemon; --payload-dir puts every payload there (as\n"
            "  payload_threshold 0). Prints each call's rate, statements and latency\n"
            "  status and job read the database and change nothing (no schema is made\n"
            "  or migrated: a daemon does that)\n");
}

/* The connection options from --conninfo or the configuration file. */
static int options(const char *config, const char *conninfo, cuzk_config *cfg, cuzk_cluster_opts *o, const char *host)
{
    cfg_defaults(cfg);
    char err[512];
    if (conninfo) {
        if (strlen(conninfo) >= sizeof cfg->cluster_conninfo) return cli_errorf("--conninfo: too long"), -1;
        strcpy(cfg->cluster_conninfo, conninfo);
    } else {
        const cfg_env env = {.param_cache = cli_param_cache_env()};
        if (cfg_apply_file(cfg, config, err, sizeof err) || cfg_finish(cfg, &env, err, sizeof err))
            return cli_errorf("cluster: %s", err), -1;
        if (!cfg->cluster_conninfo[0])
            return cli_errorf("cluster: %s has no [cluster] conninfo (or give --conninfo)", config), -1;
    }
    *o = (cuzk_cluster_opts){.conninfo = cfg->cluster_conninfo,
                             .password = cfg->cluster_password[0] ? cfg->cluster_password : NULL,
                             .host = host,
                             .lease_ms = (uint32_t)cfg->cluster_lease_ms,
                             .statement_timeout_ms = (uint32_t)cfg->cluster_statement_timeout_ms,
                             .retention_ms = cfg->cluster_retention_ms};
    return 0;
}

/* --payload: a size (cuzk/util/size.h), or digits and one of K, M, G as the
 * load generator's help writes them (50M, a C1), taken as KB, MB, GB: the
 * decimal units docs/scale.md measures in. */
static bool payload_size(const char *s, uint64_t *out)
{
    size_t n = strlen(s);
    if (n >= 2 && n < 32 && strchr("KMG", s[n - 1]) && s[n - 2] >= '0' && s[n - 2] <= '9') {
        char buf[32];
        snprintf(buf, sizeof buf, "%sB", s);
        return cuzk_size_parse(buf, out);
    }
    return cuzk_size_parse(s, out);
}

static int job_table(cuzk_cluster_db *db, const char *id)
{
    char err[512];
    cuzk_cluster_job_info in;
    if (cuzk_cluster_job_get(db, id, &in, err, sizeof err) != CUZK_OK) return cli_errorf("%s", err), 1;
    printf("job %s: %s, %s, %u of %u partitions done, %u held, %.1f s%s%s\n", id, in.kind,
           cuzk_job_state_name(in.state), in.partitions_done, in.num_partitions, in.partitions_claimed, in.total_s,
           in.message[0] ? ": " : "", in.message);
    cuzk_cluster_job_info_free(&in);
    cuzk_cluster_part_info *p = NULL;
    size_t n = 0;
    if (cuzk_cluster_job_parts(db, id, &p, &n, err, sizeof err) != CUZK_OK) return cli_errorf("%s", err), 1;
    printf("%-9s %-9s %7s %7s  %-20s %-20s %s\n", "partition", "state", "attempt", "expired", "held by", "proved by",
           "verified");
    for (size_t i = 0; i < n; i++)
        printf("%-9u %-9s %7u %7u  %-20s %-20s %s\n", p[i].partition, p[i].state, p[i].attempt, p[i].expirations,
               p[i].claimed_by[0] && !strcmp(p[i].state, "claimed") ? p[i].claimed_by : "-",
               p[i].proved_by[0] ? p[i].proved_by : "-", p[i].verified ? "yes" : "no");
    free(p);
    return 0;
}

/* ---- load ----------------------------------------------------------------- */

typedef struct loader {
    const cuzk_cluster_opts *o;
    char host[32];
    unsigned batch;
    bool fetch;
    int64_t last_seq;
    uint64_t claims, completions, claim_calls, errors, fetched;
    double fetch_s;
    double *lat; /* seconds per claim call */
    size_t n_lat, cap_lat;
} loader;

static atomic_bool load_go;

static void *load_main(void *arg)
{
    loader *l = arg;
    cuzk_cluster_opts o = *l->o;
    o.host = l->host;
    cuzk_cluster_db *db = NULL;
    char err[512];
    if (cuzk_cluster_db_open(&o, &db, err, sizeof err) || cuzk_cluster_host_join(db, l->batch, "cuzk-load", err, sizeof err)) {
        cli_errorf("%s: %s", l->host, err);
        l->errors++;
        cuzk_cluster_db_close(db);
        return NULL;
    }
    while (!atomic_load(&load_go)) usleep(1000);
    cuzk_cluster_lease *ls = calloc(l->batch, sizeof *ls);
    uint8_t proof[192];
    memset(proof, 0x5a, sizeof proof);
    for (int empty = 0; ls && empty < 3;) {
        size_t n = 0;
        double t0 = cuzk_now();
        if (cuzk_cluster_claim(db, "cuzk-load", l->batch, ls, &n, err, sizeof err)) {
            l->errors++;
            break;
        }
        double dt = cuzk_now() - t0;
        l->claim_calls++;
        if (l->n_lat == l->cap_lat) {
            size_t cap = l->cap_lat ? 2 * l->cap_lat : 1024;
            double *q = realloc(l->lat, cap * sizeof *q);
            if (q) l->lat = q, l->cap_lat = cap;
        }
        if (l->n_lat < l->cap_lat) l->lat[l->n_lat++] = dt;
        if (!n) {
            empty++; /* the queue may refill from a straggler's retry: look again briefly */
            usleep(20000);
            continue;
        }
        empty = 0;
        l->claims += n;
        for (size_t i = 0; i < n && l->fetch; i++) {
            if (ls[i].job_seq == l->last_seq) continue;
            uint8_t *pl = NULL;
            size_t pll = 0;
            double f0 = cuzk_now();
            if (cuzk_cluster_payload(db, ls[i].job_seq, &pl, &pll, err, sizeof err)) l->errors++;
            l->fetch_s += cuzk_now() - f0;
            l->fetched += pll;
            l->last_seq = ls[i].job_seq;
            free(pl);
        }
        for (size_t i = 0; i < n; i++) {
            bool acc, done;
            if (cuzk_cluster_complete(db, &ls[i], proof, 0, &acc, &done, err, sizeof err) || !acc) l->errors++;
            else l->completions++;
        }
    }
    free(ls);
    cuzk_cluster_host_leave(db, err, sizeof err);
    cuzk_cluster_db_close(db);
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* What the queue's frequent reads cost against the database as it is (a
 * long history shows here): one expiry pass and GetStatus's view of the
 * queue, each the median of 5, in ms. */
static void read_costs(cuzk_cluster_db *db, double *expire_ms, double *view_ms)
{
    double e[5], v[5];
    char err[512];
    for (int i = 0; i < 5; i++) {
        double t0 = cuzk_now();
        cuzk_cluster_expire(db, NULL, NULL, err, sizeof err);
        double t1 = cuzk_now();
        cuzk_cluster_view view;
        if (cuzk_cluster_view_get(db, &view, err, sizeof err) == CUZK_OK) cuzk_cluster_view_free(&view);
        e[i] = (t1 - t0) * 1e3, v[i] = (cuzk_now() - t1) * 1e3;
    }
    qsort(e, 5, sizeof e[0], cmp_double);
    qsort(v, 5, sizeof v[0], cmp_double);
    *expire_ms = e[2], *view_ms = v[2];
}

static int load(const cuzk_cluster_opts *o, unsigned hosts, unsigned jobs, unsigned parts, unsigned batch,
                uint64_t payload_len)
{
    char err[512];
    cuzk_cluster_opts so = *o;
    so.host = "cuzk-load-submitter";
    cuzk_cluster_db *db = NULL;
    if (cuzk_cluster_db_open(&so, &db, err, sizeof err)) return cli_errorf("%s", err), 1;
    uint64_t tag = (uint64_t)getpid() << 20 ^ (uint64_t)(cuzk_now() * 1e6);
    double t0 = cuzk_now();
    size_t plen = payload_len ? (size_t)payload_len : 256;
    uint8_t *payload = malloc(plen);
    if (!payload) return cli_errorf("out of memory for a %zu-byte payload", plen), 1;
    for (size_t i = 0; i < plen; i++) payload[i] = (uint8_t)(i * 7 + (i >> 12));
    for (unsigned j = 0; j < jobs; j++) {
        char id[64];
        snprintf(id, sizeof id, "load-%016llx-%u", (unsigned long long)tag, j);
        payload[0] = (uint8_t)j; /* each job its own digest */
        cuzk_cluster_job job = {.id = id, .kind = "cuzk-load", .priority = CUZK_PRIORITY_NORMAL,
                                .num_partitions = parts, .payload = payload, .payload_len = plen};
        bool dup;
        if (cuzk_cluster_submit(db, &job, &dup, NULL, err, sizeof err)) {
            free(payload);
            cuzk_cluster_db_close(db);
            return cli_errorf("submit: %s", err), 1;
        }
    }
    free(payload);
    double t_submit = cuzk_now() - t0;
    loader *ls = calloc(hosts, sizeof *ls);
    pthread_t *th = calloc(hosts, sizeof *th);
    if (!ls || !th) return cli_errorf("out of memory"), 1;
    for (unsigned i = 0; i < hosts; i++) {
        ls[i].o = o, ls[i].batch = batch, ls[i].fetch = payload_len > 0;
        snprintf(ls[i].host, sizeof ls[i].host, "load-%u-%u", (unsigned)getpid(), i);
        pthread_create(&th[i], NULL, load_main, &ls[i]);
    }
    usleep(200000); /* connected and joined */
    t0 = cuzk_now();
    atomic_store(&load_go, true);
    uint64_t claims = 0, done = 0, calls = 0, errors = 0, fetched = 0;
    double fetch_s = 0;
    size_t nl = 0;
    for (unsigned i = 0; i < hosts; i++) {
        pthread_join(th[i], NULL);
        claims += ls[i].claims, done += ls[i].completions, calls += ls[i].claim_calls, errors += ls[i].errors;
        fetched += ls[i].fetched, fetch_s += ls[i].fetch_s;
        nl += ls[i].n_lat;
    }
    double secs = cuzk_now() - t0;
    double *lat = malloc((nl ? nl : 1) * sizeof *lat);
    size_t k = 0;
    for (unsigned i = 0; i < hosts; i++) {
        if (lat) memcpy(lat + k, ls[i].lat, ls[i].n_lat * sizeof *lat);
        k += ls[i].n_lat;
        free(ls[i].lat);
    }
    if (lat && nl) qsort(lat, nl, sizeof *lat, cmp_double);
    cuzk_cluster_job_info in;
    char id[64];
    unsigned complete = 0;
    for (unsigned j = 0; j < jobs; j++) {
        snprintf(id, sizeof id, "load-%016llx-%u", (unsigned long long)tag, j);
        if (cuzk_cluster_job_get(db, id, &in, err, sizeof err) == CUZK_OK) {
            complete += in.state == CUZK_JOB_DONE && in.partitions_done == parts;
            cuzk_cluster_job_info_free(&in);
        }
    }
    printf("load: %s, %u hosts, %u jobs x %u partitions, claims of %u\n", cuzk_cluster_db_where(db), hosts, jobs,
           parts, batch);
    printf("  submit: %u jobs of %zu bytes in %.2f s (%.0f jobs/s)\n", jobs, plen, t_submit, jobs / t_submit);
    printf("  %llu claims, %llu completions in %.2f s: %.0f claims/s, %.0f completions/s (%llu errors)\n",
           (unsigned long long)claims, (unsigned long long)done, secs, claims / secs, done / secs,
           (unsigned long long)errors);
    if (lat && nl)
        printf("  claim latency over %zu calls: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms\n", nl,
               lat[nl / 2] * 1e3, lat[nl * 9 / 10] * 1e3, lat[nl * 99 / 100] * 1e3, lat[nl - 1] * 1e3);
    if (payload_len)
        printf("  payloads fetched: %.1f MB in %.2f s of the hosts' time (%.0f MB/s per host while fetching), "
               "%.0f MB/s over the run\n", fetched / 1e6, fetch_s, fetch_s > 0 ? fetched / 1e6 / fetch_s : 0,
               fetched / 1e6 / secs);
    printf("  jobs complete: %u of %u\n", complete, jobs);
    double exp_ms, view_ms;
    read_costs(db, &exp_ms, &view_ms);
    printf("  an expiry pass: %.1f ms; GetStatus's view of the queue: %.1f ms (medians of 5)\n", exp_ms, view_ms);
    (void)calls;
    free(lat);
    free(ls);
    free(th);
    cuzk_cluster_db_close(db);
    return complete == jobs && done == (uint64_t)jobs * parts && !errors ? 0 : 1;
}

/* A share or a rate: a positive decimal up to max. */
static bool parse_share(const char *s, double max, double *out)
{
    char *end;
    double v = s ? strtod(s, &end) : 0;
    if (!s || end == s || *end || !(v > 0 && v <= max)) return false;
    *out = v;
    return true;
}

/* The --mix options (cluster_mix_cfg) at i; false: not one of them. */
static bool mix_option(char **argv, int argc, int *i, cluster_mix_cfg *m, const char **payload_dir)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    uint64_t n = 0;
    bool ok = v != NULL;
    if (!strcmp(a, "--seconds")) ok = ok && cli_parse_u64(v, &n) && n >= 1 && n <= 3600, m->seconds = (unsigned)n;
    else if (!strcmp(a, "--slots")) ok = ok && cli_parse_u64(v, &n) && n >= 1 && n <= 16, m->slots = (unsigned)n;
    else if (!strcmp(a, "--prove-ms")) ok = ok && cli_parse_u64(v, &n) && n >= 1 && n <= 600000, m->prove_ms = (unsigned)n;
    else if (!strcmp(a, "--load")) ok = ok && parse_share(v, 10, &m->load);
    else if (!strcmp(a, "--status-per-s")) ok = ok && parse_share(v, 100, &m->status_per_s);
    else if (!strcmp(a, "--payload-dir")) ok = ok && v[0], *payload_dir = v;
    else return false;
    if (ok) ++*i;
    return ok;
}

int cmd_cluster(int argc, char **argv)
{
    const char *config = "/data/zk/cuzk.toml", *conninfo = NULL, *sub = argc > 1 ? argv[1] : NULL, *id = NULL;
    uint64_t hosts = 8, jobs = 200, parts = 10, batch = 1, payload = 0;
    cluster_mix_cfg mix = {.seconds = 60, .slots = 2, .prove_ms = 1500, .load = 0.9, .status_per_s = 1};
    const char *payload_dir = NULL;
    bool mixed = false;
    if (!sub || !strcmp(sub, "--help") || !strcmp(sub, "-h")) {
        usage(sub ? stdout : stderr);
        return sub ? 0 : 2;
    }
    int i = 2;
    if (!strcmp(sub, "job")) {
        if (argc < 3) return usage(stderr), 2;
        id = argv[2], i = 3;
    } else if (strcmp(sub, "status") && strcmp(sub, "load")) {
        cli_errorf("cluster: unknown subcommand '%s'", sub);
        usage(stderr);
        return 2;
    }
    for (; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t *num = !strcmp(a, "--hosts") ? &hosts : !strcmp(a, "--jobs") ? &jobs
                        : !strcmp(a, "--partitions") ? &parts : !strcmp(a, "--batch") ? &batch : NULL;
        if (!strcmp(a, "--config") && v) config = v, i++;
        else if (!strcmp(a, "--payload") && !strcmp(sub, "load") && v && payload_size(v, &payload) &&
                 payload <= (512ull << 20))
            i++;
        else if (!strcmp(a, "--conninfo") && v) conninfo = v, i++;
        else if (!strcmp(a, "--mix") && !strcmp(sub, "load")) mixed = true;
        else if (!strcmp(sub, "load") && mix_option(argv, argc, &i, &mix, &payload_dir)) continue;
        else if (num && !strcmp(sub, "load") && v && cli_parse_u64(v, num) && *num >= 1 && *num <= 100000) i++;
        else {
            cli_errorf("cluster %s: bad or incomplete option '%s'", sub, a);
            usage(stderr);
            return 2;
        }
    }
    cuzk_config cfg;
    cuzk_cluster_opts o;
    if (options(config, conninfo, &cfg, &o, "cuzk-cli")) return 2;
    if (!strcmp(sub, "load") && mixed) {
        mix.hosts = (unsigned)hosts, mix.partitions = (unsigned)parts;
        if (payload_dir) o.payload_dir = payload_dir, o.payload_threshold = 0;
        return cluster_mix_run(&o, &mix);
    }
    if (!strcmp(sub, "load"))
        return load(&o, (unsigned)hosts, (unsigned)jobs, (unsigned)parts, (unsigned)batch, payload);
    char err[512];
    cuzk_cluster_db *db = NULL;
    o.schema_check_only = true;
    if (cuzk_cluster_db_open(&o, &db, err, sizeof err)) return cli_errorf("%s", err), 1;
    int rc = 0;
    if (id) {
        rc = job_table(db, id);
    } else {
        char *js = NULL;
        if (cuzk_cluster_status_json(db, &js, err, sizeof err)) rc = 1, cli_errorf("%s", err);
        else printf("%s\n", js);
        free(js);
    }
    cuzk_cluster_db_close(db);
    return rc;
}

/*
 * The configuration table and its TOML binding (see config.h). Defaults are
 * TOML literals run through the same parser and checks as a user's file, so
 * a default can never bypass validation.
 */
#include "server/config.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/cluster/cluster.h"
#include "cuzk/util/error.h"
#include "cuzk/util/file.h"
#include "cuzk/filecoin/fil_params.h"
#include "cuzk/util/size.h"
#include "server/toml_adapter.h"

typedef enum cfg_type {
    T_STR,      /* any string */
    T_PATH,     /* non-empty string */
    T_LISTEN,   /* listener address */
    T_LISTEN0,  /* listener address or "" */
    T_SIZE,     /* "5GiB" or integer bytes */
    T_SIZE0,    /* as T_SIZE, or "auto" (stored as 0) */
    T_DURATION, /* "5m" / "300s" / "250ms" or integer seconds; stored in ms */
    T_U32,
    T_U64,
    T_BOOL,
    T_U32_LIST, /* devices */
    T_ID_LIST,  /* circuit ids */
    T_LEVEL,
    T_CHOICE    /* one of two strings, choice[0] or choice[1], stored as bool: choice[1] */
} cfg_type;

typedef struct cfg_entry {
    cfg_key_info info;
    cfg_type type;
    size_t off;
    uint64_t min, max; /* T_U32/T_U64 */
    bool no_effect;    /* accepted for curio's files; a value other than the default is warned about */
    const char *choice[2]; /* T_CHOICE */
} cfg_entry;

#define O(field) offsetof(cuzk_config, field)
#define E(sec, key, type, field, min, max, def, reload, doc) \
    {{sec, key, def, doc, reload}, type, O(field), min, max, false, {NULL, NULL}}
#define NOEFFECT(sec, key, type, field, min, max, def, reload, doc) \
    {{sec, key, def, doc, reload}, type, O(field), min, max, true, {NULL, NULL}}
#define CHOICE(sec, key, field, no, yes, def, reload, doc) \
    {{sec, key, def, doc, reload}, T_CHOICE, O(field), 0, 0, false, {no, yes}}

/* The single source of truth for keys and defaults. */
static const cfg_entry table[] = {
    E("daemon", "listen", T_LISTEN, listen, 0, 0, "\"unix:///run/cuzk/cuzk.sock\"", false,
      "gRPC listener: unix:///path (mode 0660) or host:port (auth_token, else loopback clients only)"),
    E("daemon", "status_listen", T_LISTEN0, status_listen, 0, 0, "\"\"", false,
      "HTTP listener host:port for /metrics and /status; empty = off"),
    E("daemon", "auth_token", T_STR, auth_token, 0, 0, "\"\"", true,
      "bearer token TCP clients send as `authorization: Bearer <token>`"),
    E("daemon", "auth_token_file", T_STR, auth_token_file, 0, 0, "\"\"", true,
      "file holding the token (first line); overrides auth_token"),
    E("daemon", "allow_unauthenticated_tcp", T_BOOL, allow_unauthenticated_tcp, 0, 0, "false", false,
      "without auth_token, serve remote TCP clients too (only behind a firewall); false: loopback clients only (protected mode)"),
    E("daemon", "tls_cert", T_STR, tls_cert, 0, 0, "\"\"", false,
      "PEM certificate chain: the TCP listener speaks TLS (with tls_key); empty = plaintext"),
    E("daemon", "tls_key", T_STR, tls_key, 0, 0, "\"\"", false,
      "PEM private key of tls_cert, without a passphrase"),
    E("daemon", "tls_client_ca", T_STR, tls_client_ca, 0, 0, "\"\"", false,
      "PEM CA certificates: mutual TLS, clients must present a certificate they signed; "
      "then remote clients are served without auth_token"),
    E("daemon", "max_message_size", T_SIZE, max_message_size, 0, 0, "\"128MiB\"", false,
      "largest request accepted; larger ones get RESOURCE_EXHAUSTED"),
    E("daemon", "shutdown_grace", T_DURATION, shutdown_grace_ms, 0, 0, "\"30s\"", true,
      "on SIGTERM, how long running jobs may finish before they are cancelled"),
    E("daemon", "max_concurrent_calls", T_U32, max_concurrent_calls, 1, 1000000, "1024", false,
      "calls served at once; more get RESOURCE_EXHAUSTED"),
    E("daemon", "max_queued_jobs", T_U32, max_queued_jobs, 1, 1000000, "128", false,
      "jobs accepted and not finished (queued or proving); a new one past it gets RESOURCE_EXHAUSTED"),
    E("daemon", "max_concurrent_parses", T_U32, max_concurrent_parses, 1, 1024, "2", false,
      "requests parsed at once at submit (a C1 output, vanilla proofs); more wait their turn"),
    CHOICE("daemon", "preload_failure", preload_fatal, "degrade", "fatal", "\"degrade\"", false,
      "a [srs] preload circuit whose parameters cannot be loaded: degrade = serve the other kinds (that one "
      "shown FAILED, its jobs fail at once), fatal = exit non-zero at start"),
    E("daemon", "state_dir", T_STR, state_dir, 0, 0, "\"\"", false,
      "directory for the job journal (ids of accepted jobs, so a restart can say which were lost); "
      "empty = $STATE_DIRECTORY (systemd's StateDirectory=; read by cuzk daemon at start), else param_cache"),
    E("memory", "total_budget", T_SIZE0, total_budget, 0, 0, "\"auto\"", false,
      "memory for parameters, PCE and working set; auto = RAM or the cgroup limit, less max(safety_margin, 10%)"),
    E("memory", "safety_margin", T_SIZE, safety_margin, 0, 0, "\"5GiB\"", false,
      "headroom for the system and page cache when total_budget is auto (at least 10% of the limit)"),
    E("memory", "pinned_limit", T_SIZE0, pinned_limit, 0, 0, "\"auto\"", false,
      "page-locked host memory for resident parameters (direct GPU uploads); auto = total_budget"),
    NOEFFECT("memory", "eviction_min_idle", T_DURATION, eviction_min_idle_ms, 0, 0, "\"5m\"", false,
      "idle time before resident parameters may be evicted under pressure"),
    E("gpus", "devices", T_U32_LIST, devices, 0, 0, "[]", false,
      "GPU ordinals to use; empty = all"),
    E("gpus", "gpu_workers_per_device", T_U32, gpu_workers_per_device, 1, 16, "2", false,
      "GPU workers per device (CPU work of one overlaps kernels of the other)"),
    E("gpus", "gpu_threads", T_U32, gpu_threads, 0, 4096, "0", false,
      "CPU threads for GPU-side host work; 0 = all"),
    E("gpus", "max_device_errors", T_U32, max_device_errors, 1, 1000, "3", false,
      "prover errors or invalid proofs in a row that mark a GPU failed (a CUDA device error does at once)"),
    E("gpus", "cpu_fallback", T_BOOL, cpu_fallback, 0, 0, "false", false,
      "prove on the CPU once every GPU has failed (slow); false = such jobs fail"),
    E("gpus", "keep_host_params", T_BOOL, keep_host_params, 0, 0, "false", false,
      "keep a parameter set's points in RAM once every GPU holds them; false = given back (44 GiB at 32 GiB PoRep)"),
    E("gpus", "memory_limit", T_SIZE0, gpu_memory_limit, 0, 0, "\"auto\"", false,
      "device memory each GPU may use; auto = what the card has free when the daemon opens it (other "
      "processes' use excluded). Parameter sets that do not fit are planned to stream their points from "
      "pinned host memory and to run H over two vectors (the plan is logged at preload)"),
    E("gpus", "pack_witness", T_BOOL, pack_witness, 0, 0, "true", true,
      "hold each synthesized partition's witness packed by value class (0, 1, other: 0.1 GB instead of 4.17 GB "
      "a 32 GiB PoRep partition; where a quarter or more of it is 0 or 1), expanded on the GPU"),
    E("gpus", "log_allocations", T_BOOL, gpu_log_allocations, 0, 0, "false", false,
      "log every device allocation (its name, bytes, the card's free memory after it): the ledger of what "
      "a card holds, for sizing memory_limit and gpu_workers_per_device"),
    E("scheduler", "max_batch_size", T_U32, max_batch_size, 1, 64, "1", false,
      "same-circuit proofs proved in one GPU pass; 1 = no batching"),
    E("scheduler", "max_batch_wait_ms", T_U64, max_batch_wait_ms, 0, 3600000, "10000", false,
      "how long a batch waits to fill"),
    NOEFFECT("scheduler", "sort_by_type", T_BOOL, sort_by_type, 0, 0, "true", false,
      "group NORMAL-priority work by circuit to limit parameter switches"),
    E("synthesis", "threads", T_U32, threads, 0, 4096, "0", false,
      "threads one partition's synthesis uses; 0 = a share of the CPUs when it starts"),
    E("synthesis", "partition_workers", T_U32, partition_workers, 0, 1024, "0", false,
      "partitions synthesized at once; 0 = from cores and memory budget"),
    E("synthesis", "nice", T_U32, synthesis_nice, 0, 19, "5", false,
      "added to the nice value of the CPU workers (synthesis, verification, parameter loads), so that with "
      "every core busy the GPU workers' host work (uploads) goes first; 0 = the daemon's own"),
    NOEFFECT("pipeline", "enabled", T_BOOL, pipeline_enabled, 0, 0, "true", false,
      "overlap synthesis of the next partitions with GPU proving"),
    NOEFFECT("pipeline", "synthesis_lookahead", T_U32, synthesis_lookahead, 0, 1024, "1", false,
      "synthesized partitions that may wait for a GPU worker"),
    NOEFFECT("pipeline", "synthesis_concurrency", T_U32, synthesis_concurrency, 1, 1024, "1", false,
      "jobs whose synthesis may run at once"),
    NOEFFECT("pipeline", "max_parallel_synthesis", T_U32, max_parallel_synthesis, 0, 1024, "18", false,
      "cap on partition syntheses running at once; 0 = no cap"),
    NOEFFECT("pipeline", "slot_size", T_U32, slot_size, 0, 1024, "0", false,
      "partitions queued for the GPU per job; 0 = all of the job"),
    E("pipeline", "max_gpu_queue_depth", T_U32, max_gpu_queue_depth, 0, 1024, "0", false,
      "partitions kept waiting for the GPUs; 0 = unlimited"),
    E("srs", "param_cache", T_PATH, param_cache, 0, 0, "\"/var/tmp/filecoin-proof-parameters\"", false,
      "directory with .params/.vk files (and PCE caches); when unset, $FIL_PROOFS_PARAMETER_CACHE if set "
      "(read by cuzk daemon at start), else the default shown (as lotus and curio)"),
    E("srs", "pce", T_BOOL, pce, 0, 0, "true", false,
      "pre-compiled circuits: extract each circuit's R1CS once (cached in pce_dir as <circuit id>.pce), "
      "then per proof only the witness and three sparse products"),
    E("srs", "pce_dir", T_STR, pce_dir, 0, 0, "\"\"", false,
      "directory of the PCE caches (<circuit id>.pce, ~7 GB for porep-32g); empty = param_cache. For a "
      "read-only or full parameter directory"),
    CHOICE("srs", "pce_verify", pce_verify_background, "sync", "background", "\"sync\"", false,
      "when a cached PCE file loaded after start is checksummed: sync = before it is used (load waits), "
      "background = on a thread started at load, the first proof through it waits for the result; "
      "files found at start: always in the background"),
    E("srs", "test_srs", T_BOOL, test_srs, 0, 0, "true", false,
      "NI-PoRep's aggregation SRS (param_cache/v28-fil-inner-product-v1.srs, its digest checked): when it is "
      "not Filecoin's, accept cuzk's TEST SRS (cuzk setup --aggregation; aggregates the chain rejects); "
      "false = NI-PoRep requests are refused unless the ceremony's file is there"),
    E("srs", "preload", T_ID_LIST, preload, 0, 0, "[]", true,
      "circuit ids made resident at start (e.g. \"porep-32g\")"),
    E("cluster", "conninfo", T_STR, cluster_conninfo, 0, 0, "\"\"", false,
      "libpq connection string of the cluster's PostgreSQL (or YugabyteDB); empty = no cluster, this daemon alone"),
    E("cluster", "password_file", T_STR, cluster_password_file, 0, 0, "\"\"", false,
      "file holding the database password (first line); else libpq's $PGPASSWORD or ~/.pgpass; never in conninfo"),
    E("cluster", "host", T_STR, cluster_host, 0, 0, "\"\"", false,
      "this daemon's name in the cluster (claims carry it); empty = the machine's host name"),
    E("cluster", "lease", T_DURATION, cluster_lease_ms, 0, 0, "\"30s\"", false,
      "how long a claimed partition stays this daemon's without a heartbeat; a dead host's partitions go to others after it"),
    E("cluster", "slots", T_U32, cluster_slots, 0, 1024, "0", false,
      "partitions this daemon holds at once; 0 = twice its prover workers"),
    E("cluster", "max_attempts", T_U32, cluster_max_attempts, 1, 100, "5", false,
      "claims of one partition (lost leases, host errors) before its job fails"),
    E("cluster", "payload_dir", T_STR, cluster_payload_dir, 0, 0, "\"\"", false,
      "a directory on storage every host mounts (NFS, ...): request payloads over payload_threshold go there "
      "under their SHA-256 instead of into the database; empty = every payload in the database"),
    E("cluster", "payload_threshold", T_SIZE, cluster_payload_threshold, 0, 0, "\"1MiB\"", false,
      "payloads larger than this go to payload_dir (a 32 GiB C1 is about 50 MB)"),
    E("cluster", "statement_timeout", T_DURATION, cluster_statement_timeout_ms, 0, 0, "\"10s\"", false,
      "the database's statement_timeout on every connection; a statement not answered 2s past it (a stopped "
      "server) is given up and the connection made again (at least 1s)"),
    E("cluster", "retention", T_DURATION, cluster_retention_ms, 0, 0, "\"24h\"", false,
      "finished jobs (their proofs, partitions, errors) are deleted this long after they finished; "
      "0 = kept for ever (at least 1m otherwise)"),
    E("cluster", "pool_size", T_U32, cluster_pool_size, 1, 1024, "8", false,
      "database connections the RPC handlers hold at most, in use and idle (the node has one more); a call "
      "finding all busy waits for one, up to its own deadline or statement_timeout"),
    E("cluster", "pool_idle", T_DURATION, cluster_pool_idle_ms, 0, 0, "\"60s\"", false,
      "a pooled connection unused this long is closed (at least 1s)"),
    E("logging", "level", T_LEVEL, log_level, 0, 0, "\"info\"", true,
      "trace, debug, info, warn or error"),
    CHOICE("logging", "format", log_json, "text", "json", "\"text\"", true,
      "text or json (one object per line)"),
};
#define NKEYS (sizeof table / sizeof table[0])

size_t cfg_key_count(void) { return NKEYS; }
const cfg_key_info *cfg_key_at(size_t i) { return i < NKEYS ? &table[i].info : NULL; }

static const char *level_names[] = {"trace", "debug", "info", "warn", "error"};
const char *cfg_log_level_name(cfg_log_level l)
{
    return (unsigned)l < 5 ? level_names[l] : "?";
}

bool cfg_parse_duration_ms(const char *s, uint64_t *out)
{
    static const struct {
        const char *suffix;
        uint64_t ms;
    } units[] = {{"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000}, {"", 1000}};
    if (!s || !isdigit((unsigned char)s[0])) return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) return false;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(end, units[i].suffix)) continue;
        if (v > UINT64_MAX / units[i].ms) return false;
        *out = v * units[i].ms;
        return true;
    }
    return false;
}

bool cfg_valid_listen(const char *s, char *why, size_t whylen)
{
    if (!strncmp(s, "unix:", 5)) {
        const char *p = s + 5;
        if (!strncmp(p, "//", 2)) p += 2;
        if (p[0] != '/') {
            snprintf(why, whylen, "a unix socket needs an absolute path (unix:///path)");
            return false;
        }
        if (strlen(p) >= 108) { /* sun_path */
            snprintf(why, whylen, "unix socket path longer than 107 bytes");
            return false;
        }
        return true;
    }
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s) {
        snprintf(why, whylen, "expected unix:///path or host:port");
        return false;
    }
    if (s[0] == '[' && colon[-1] != ']') {
        snprintf(why, whylen, "IPv6 addresses go in brackets: [::1]:9820");
        return false;
    }
    char *end;
    errno = 0;
    long port = strtol(colon + 1, &end, 10);
    if (errno || *end || colon[1] == '\0' || port < 0 || port > 65535) {
        snprintf(why, whylen, "port must be a number 0-65535");
        return false;
    }
    for (const char *p = s; p < colon; p++)
        if (isspace((unsigned char)*p) || *p == '/') {
            snprintf(why, whylen, "bad character in host");
            return false;
        }
    return true;
}

static const char *type_name(tomla_type t)
{
    switch (t) {
    case TOMLA_STRING: return "a string";
    case TOMLA_INT: return "an integer";
    case TOMLA_FLOAT: return "a float";
    case TOMLA_BOOL: return "a boolean";
    case TOMLA_ARRAY: return "an array";
    case TOMLA_TABLE: return "a table";
    default: return "a date/time";
    }
}

typedef struct apply_ctx {
    cuzk_config *c;
    char *err;
    size_t errlen;
    bool warn; /* collect warnings (a user's file; not the defaults) */
} apply_ctx;

static bool entry_equal(const cuzk_config *a, const cuzk_config *b, const cfg_entry *e);
static int apply_toml(cuzk_config *c, const char *text, size_t len, bool warn, char *err, size_t errlen);

static void add_warning(cuzk_config *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_warning(cuzk_config *c, const char *fmt, ...)
{
    if (c->n_warnings >= CFG_MAX_WARNINGS) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->warnings[c->n_warnings++], sizeof c->warnings[0], fmt, ap);
    va_end(ap);
}

/* Keys curio's daemon still reads and ignores (its config.rs marks them
 * deprecated): they load with a warning here too. */
static const struct {
    const char *section, *key, *why;
} deprecated[] = {
    {"memory", "pinned_budget", "[memory] total_budget is the one memory budget (pinned_limit caps page-locked memory)"},
    {"memory", "working_memory_budget", "[memory] total_budget is the one memory budget"},
};

#define FAIL(...) (snprintf(err, errlen, __VA_ARGS__), -1)

static int copy_str(char *dst, size_t cap, const char *s, const char *name, char *err,
                    size_t errlen)
{
    size_t n = strlen(s);
    if (n >= cap) return FAIL("%s: longer than %zu bytes", name, cap - 1);
    memcpy(dst, s, n + 1);
    return 0;
}

/* The setters, one per type of value: each checks v and stores it at p, the
 * entry's field; a refusal starts with name, the key's "section.key". */

static int set_level(void *p, const char *name, const tomla_value *v, char *err, size_t errlen)
{
    for (int l = 0; l < 5; l++)
        if (!strcmp(v->str, level_names[l])) {
            *(cfg_log_level *)p = (cfg_log_level)l;
            return 0;
        }
    return FAIL("%s: \"%s\" is not one of trace, debug, info, warn, error", name, v->str);
}

static int set_choice(void *p, const cfg_entry *e, const char *name, const tomla_value *v, char *err,
                      size_t errlen)
{
    if (strcmp(v->str, e->choice[0]) && strcmp(v->str, e->choice[1]))
        return FAIL("%s: \"%s\" is not %s or %s", name, v->str, e->choice[0], e->choice[1]);
    *(bool *)p = !strcmp(v->str, e->choice[1]);
    return 0;
}

/* T_STR, T_PATH, T_LISTEN, T_LISTEN0, T_LEVEL and T_CHOICE: a string. */
static int set_string(void *p, const cfg_entry *e, const char *name, const tomla_value *v, char *err,
                      size_t errlen)
{
    char why[128];
    if (v->type != TOMLA_STRING) return FAIL("%s: expected a string, got %s", name, type_name(v->type));
    if (e->type == T_PATH && !v->str[0]) return FAIL("%s: must not be empty", name);
    if ((e->type == T_LISTEN || (e->type == T_LISTEN0 && v->str[0])) && !cfg_valid_listen(v->str, why, sizeof why))
        return FAIL("%s: \"%s\": %s", name, v->str, why);
    if (e->type == T_LEVEL) return set_level(p, name, v, err, errlen);
    if (e->type == T_CHOICE) return set_choice(p, e, name, v, err, errlen);
    return copy_str(p, CFG_STR_MAX, v->str, name, err, errlen);
}

/* T_SIZE and T_SIZE0: "5GiB" or bytes; T_SIZE0 also "auto" (0). */
static int set_size(void *p, const cfg_entry *e, const char *name, const tomla_value *v, char *err, size_t errlen)
{
    uint64_t x;
    if (v->type == TOMLA_INT && v->i >= 0) x = (uint64_t)v->i;
    else if (v->type == TOMLA_STRING && e->type == T_SIZE0 && !strcmp(v->str, "auto")) x = 0;
    else if (v->type != TOMLA_STRING || !cuzk_size_parse(v->str, &x))
        return FAIL("%s: expected a size like \"5GiB\", \"512MiB\" or bytes%s", name,
                    e->type == T_SIZE0 ? ", or \"auto\"" : "");
    else if (e->type == T_SIZE0 && x == 0)
        return FAIL("%s: must be positive (or \"auto\")", name);
    *(uint64_t *)p = x;
    return 0;
}

/* T_DURATION: "30s" or integer seconds, stored in ms. */
static int set_duration(void *p, const char *name, const tomla_value *v, char *err, size_t errlen)
{
    uint64_t ms;
    if (v->type == TOMLA_INT && v->i >= 0 && v->i < (int64_t)(UINT64_MAX / 1000)) ms = (uint64_t)v->i * 1000;
    else if (v->type != TOMLA_STRING || !cfg_parse_duration_ms(v->str, &ms))
        return FAIL("%s: expected a duration like \"30s\", \"5m\", \"250ms\" or seconds", name);
    *(uint64_t *)p = ms;
    return 0;
}

/* T_U32 and T_U64: an integer within the entry's range. */
static int set_integer(void *p, const cfg_entry *e, const char *name, const tomla_value *v, char *err,
                       size_t errlen)
{
    if (v->type != TOMLA_INT) return FAIL("%s: expected an integer, got %s", name, type_name(v->type));
    if (v->i < 0 || (uint64_t)v->i < e->min || (uint64_t)v->i > e->max)
        return FAIL("%s: %lld is out of range %llu..%llu", name, (long long)v->i, (unsigned long long)e->min,
                    (unsigned long long)e->max);
    if (e->type == T_U32) *(uint32_t *)p = (uint32_t)v->i;
    else *(uint64_t *)p = (uint64_t)v->i;
    return 0;
}

static int set_bool(void *p, const char *name, const tomla_value *v, char *err, size_t errlen)
{
    if (v->type != TOMLA_BOOL) return FAIL("%s: expected true or false, got %s", name, type_name(v->type));
    *(bool *)p = v->b;
    return 0;
}

/* T_U32_LIST: [gpus] devices, distinct ordinals. */
static int set_devices(cuzk_config *c, const char *name, const tomla_value *v, char *err, size_t errlen)
{
    if (v->type != TOMLA_ARRAY) return FAIL("%s: expected an array of integers", name);
    if (v->n_items > CFG_MAX_DEVICES) return FAIL("%s: more than %d entries", name, CFG_MAX_DEVICES);
    for (size_t i = 0; i < v->n_items; i++) {
        const tomla_value *it = &v->items[i];
        if (it->type != TOMLA_INT || it->i < 0 || it->i > 1023)
            return FAIL("%s: entry %zu is not a device ordinal 0..1023", name, i);
        for (size_t j = 0; j < i; j++)
            if (v->items[j].i == it->i) return FAIL("%s: device %lld listed twice", name, (long long)it->i);
        c->devices[i] = (uint32_t)it->i;
    }
    c->n_devices = v->n_items;
    return 0;
}

/* T_ID_LIST: [srs] preload, circuit ids of letters, digits, '-' and '_'. */
static int set_circuit_ids(cuzk_config *c, const char *name, const tomla_value *v, char *err, size_t errlen)
{
    if (v->type != TOMLA_ARRAY) return FAIL("%s: expected an array of strings", name);
    if (v->n_items > CFG_MAX_PRELOAD) return FAIL("%s: more than %d entries", name, CFG_MAX_PRELOAD);
    for (size_t i = 0; i < v->n_items; i++) {
        const tomla_value *it = &v->items[i];
        if (it->type != TOMLA_STRING || !it->str[0] || strlen(it->str) >= sizeof c->preload[0])
            return FAIL("%s: entry %zu is not a circuit id (1-63 characters)", name, i);
        for (const char *q = it->str; *q; q++)
            if (!isalnum((unsigned char)*q) && *q != '-' && *q != '_')
                return FAIL("%s: entry %zu: bad character in circuit id", name, i);
        strcpy(c->preload[i], it->str);
    }
    c->n_preload = v->n_items;
    return 0;
}

static int set_entry(cuzk_config *c, const cfg_entry *e, const tomla_value *v, char *err,
                     size_t errlen)
{
    char name[64];
    snprintf(name, sizeof name, "%s.%s", e->info.section, e->info.key);
    void *p = (char *)c + e->off;
    switch (e->type) {
    case T_STR:
    case T_PATH:
    case T_LISTEN:
    case T_LISTEN0:
    case T_LEVEL:
    case T_CHOICE: return set_string(p, e, name, v, err, errlen);
    case T_SIZE:
    case T_SIZE0: return set_size(p, e, name, v, err, errlen);
    case T_DURATION: return set_duration(p, name, v, err, errlen);
    case T_U32:
    case T_U64: return set_integer(p, e, name, v, err, errlen);
    case T_BOOL: return set_bool(p, name, v, err, errlen);
    case T_U32_LIST: return set_devices(c, name, v, err, errlen);
    case T_ID_LIST: return set_circuit_ids(c, name, v, err, errlen);
    }
    return FAIL("%s: internal: unknown type", name);
}

static int apply_visit(void *ud, const char *section, const char *key, const tomla_value *v)
{
    apply_ctx *a = ud;
    char *err = a->err;
    size_t errlen = a->errlen;
    if (!section[0]) {
        if (v->type == TOMLA_TABLE || v->type == TOMLA_ARRAY)
            return FAIL("line %u: unknown section [%s]", v->line, key);
        return FAIL("line %u: key '%s' is outside any [section]", v->line, key);
    }
    for (size_t i = 0; i < sizeof deprecated / sizeof deprecated[0]; i++) {
        if (strcmp(deprecated[i].section, section) || strcmp(deprecated[i].key, key)) continue;
        uint64_t ignored;
        if (!(v->type == TOMLA_STRING && (cuzk_size_parse(v->str, &ignored) || !strcmp(v->str, "auto"))) &&
            !(v->type == TOMLA_INT && v->i >= 0))
            return FAIL("line %u: %s.%s: expected a size like \"64GiB\" (the key is deprecated and ignored)",
                        v->line, section, key);
        if (a->warn)
            add_warning(a->c, "line %u: %s.%s is deprecated and ignored (as in curio): %s", v->line, section, key,
                        deprecated[i].why);
        return 0;
    }
    bool known_section = false;
    for (size_t i = 0; i < NKEYS; i++) {
        if (strcmp(table[i].info.section, section)) continue;
        known_section = true;
        if (strcmp(table[i].info.key, key)) continue;
        if (set_entry(a->c, &table[i], v, a->err, a->errlen)) {
            /* prefix the line number */
            char tmp[384];
            snprintf(tmp, sizeof tmp, "line %u: %s", v->line, a->err);
            snprintf(a->err, a->errlen, "%s", tmp);
            return -1;
        }
        if (a->warn && table[i].no_effect) {
            cuzk_config def;
            char derr[128], doc[160];
            memset(&def, 0, sizeof def);
            int n = snprintf(doc, sizeof doc, "[%s]\n%s = %s\n", section, key, table[i].info.default_toml);
            if (n > 0 && (size_t)n < sizeof doc && !apply_toml(&def, doc, (size_t)n, false, derr, sizeof derr) &&
                !entry_equal(a->c, &def, &table[i]))
                add_warning(a->c, "line %u: %s.%s has no effect in this daemon (accepted for curio's files; "
                            "default %s)", v->line, section, key, table[i].info.default_toml);
        }
        if (!strcmp(section, "srs") && !strcmp(key, "param_cache")) a->c->param_cache_set = true;
        return 0;
    }
    if (!known_section) return FAIL("line %u: unknown section [%s]", v->line, section);
    return FAIL("line %u: unknown key %s.%s", v->line, section, key);
}

static int apply_toml(cuzk_config *c, const char *text, size_t len, bool warn, char *err, size_t errlen)
{
    apply_ctx a = {c, err, errlen, warn};
    if (memchr(text, '\0', len)) return FAIL("NUL byte in configuration");
    return tomla_walk(text, len, apply_visit, &a, err, errlen) ? -1 : 0;
}

int cfg_apply_toml(cuzk_config *c, const char *text, size_t len, char *err, size_t errlen)
{
    return apply_toml(c, text, len, true, err, errlen);
}

int cfg_set(cuzk_config *c, const char *section, const char *key, const char *toml_value,
            char *err, size_t errlen)
{
    char doc[CFG_STR_MAX + 128];
    int n = snprintf(doc, sizeof doc, "[%s]\n%s = %s\n", section, key, toml_value);
    if (n < 0 || (size_t)n >= sizeof doc) return FAIL("%s.%s: value too long", section, key);
    return apply_toml(c, doc, (size_t)n, false, err, errlen);
}

void cfg_defaults(cuzk_config *c)
{
    memset(c, 0, sizeof *c);
    char err[256];
    for (size_t i = 0; i < NKEYS; i++)
        if (cfg_set(c, table[i].info.section, table[i].info.key, table[i].info.default_toml, err,
                    sizeof err)) {
            fprintf(stderr, "cuzk: internal: bad default: %s\n", err);
            abort();
        }
    c->param_cache_set = false; /* the default stands in for the environment's until cfg_finish */
}

int cfg_apply_file(cuzk_config *c, const char *path, char *err, size_t errlen)
{
    uint8_t *b;
    size_t n;
    int frc = cuzk_file_read(path, (size_t)1 << 20, &b, &n);
    if (frc == CUZK_ERR_BAD_LENGTH) return FAIL("%s: larger than 1 MiB", path);
    if (frc) return FAIL("%s: %s", path, frc == CUZK_ERR_IO ? strerror(errno) : cuzk_strerror(frc));
    char *buf = (char *)b;
    char inner[384];
    int rc = cfg_apply_toml(c, buf, n, inner, sizeof inner);
    free(buf);
    if (rc) return FAIL("%s: %s", path, inner);
    return 0;
}

/* The first line of a file holding a secret (a token, a password) into out
 * (CFG_STR_MAX bytes), less the blanks around it (an editor's trailing
 * space, CR LF); path "" leaves out alone. Errors name key, never the secret. */
static int secret_file(const char *path, const char *key, char *out, char *err, size_t errlen)
{
    if (!path[0]) return 0;
    FILE *f = fopen(path, "r");
    if (!f) return FAIL("%s: %s: %s", key, path, strerror(errno));
    char line[CFG_STR_MAX];
    if (!fgets(line, sizeof line, f)) line[0] = '\0';
    fclose(f);
    char *t = line + strspn(line, " \t");
    size_t n = strcspn(t, "\r\n");
    while (n && (t[n - 1] == ' ' || t[n - 1] == '\t')) n--;
    t[n] = '\0';
    if (!t[0]) return FAIL("%s: %s: the first line is empty or blank: no secret in it", key, path);
    memmove(out, t, n + 1);
    memset(line, 0, sizeof line);
    return 0;
}

/* The keys whose default is the environment's: srs.param_cache, the Filecoin
 * stack's parameter cache (FIL_PROOFS_PARAMETER_CACHE, else the table's
 * /var/tmp/filecoin-proof-parameters, as rust-fil-proofs, lotus and curio);
 * daemon.state_dir, systemd's StateDirectory= (its first entry; systemd
 * passes absolute paths, so a relative value is not its and is ignored). */
static int env_defaults(cuzk_config *c, const cfg_env *env, char *err, size_t errlen)
{
    const char *dir = env && env->param_cache && env->param_cache[0] ? env->param_cache : NULL;
    if (!c->param_cache_set && dir) {
        if (dir[0] != '/')
            return FAIL("srs.param_cache: $%s = \"%s\" is not an absolute path (set srs.param_cache, or fix the "
                        "variable)", CUZK_FIL_PARAM_CACHE_ENV, dir);
        if (strlen(dir) >= CFG_STR_MAX)
            return FAIL("srs.param_cache: $%s is longer than %d bytes", CUZK_FIL_PARAM_CACHE_ENV, CFG_STR_MAX - 1);
        strcpy(c->param_cache, dir);
    }
    const char *state = env ? env->state_directory : NULL;
    if (!c->state_dir[0] && state && state[0] == '/') {
        size_t n = strcspn(state, ":");
        if (n >= CFG_STR_MAX)
            return FAIL("daemon.state_dir: $STATE_DIRECTORY's first entry is longer than %d bytes", CFG_STR_MAX - 1);
        memcpy(c->state_dir, state, n);
        c->state_dir[n] = '\0';
    }
    return 0;
}

int cfg_finish(cuzk_config *c, const cfg_env *env, char *err, size_t errlen)
{
    if (env_defaults(c, env, err, errlen)) return -1;
    /* the key the token came from is the one an error names */
    const char *token_key = c->auth_token_file[0] ? "daemon.auth_token_file" : "daemon.auth_token";
    if (secret_file(c->auth_token_file, "daemon.auth_token_file", c->auth_token, err, errlen) ||
        secret_file(c->cluster_password_file, "cluster.password_file", c->cluster_password, err, errlen))
        return -1;
    if (strlen(c->cluster_host) > 63 || strspn(c->cluster_host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                                "0123456789._-") != strlen(c->cluster_host))
        return FAIL("cluster.host: at most 63 letters, digits, '.', '_' or '-'");
    /* the connection string as the cluster layer will take it: a check of the
     * file refuses what the daemon's start would (a password in it, say) */
    if (c->cluster_conninfo[0] && cuzk_cluster_conninfo_check(c->cluster_conninfo, err, errlen)) return -1;
    if (c->cluster_conninfo[0] && c->cluster_lease_ms < 1000)
        return FAIL("cluster.lease: at least 1s (heartbeats come every third of it)");
    if (c->cluster_statement_timeout_ms < 1000 || c->cluster_statement_timeout_ms > INT32_MAX)
        return FAIL("cluster.statement_timeout: between 1s and 596h");
    if (c->cluster_retention_ms && c->cluster_retention_ms < 60000)
        return FAIL("cluster.retention: 0 (kept for ever) or at least 1m (a host's row goes with it too)");
    if (c->cluster_pool_idle_ms < 1000 || c->cluster_pool_idle_ms > INT32_MAX)
        return FAIL("cluster.pool_idle: between 1s and 596h");
    if (c->cluster_payload_dir[0] && c->cluster_payload_dir[0] != '/')
        return FAIL("cluster.payload_dir: \"%s\" is not an absolute path", c->cluster_payload_dir);
    for (const char *q = c->auth_token; *q; q++)
        if ((unsigned char)*q <= ' ' || (unsigned char)*q >= 0x7f)
            return FAIL("%s: the token must be printable ASCII without spaces", token_key);
    /* TLS: the files themselves are read and checked at start (server/tls.h) */
    bool tls = c->tls_cert[0] || c->tls_key[0];
    if (c->tls_client_ca[0] && !tls)
        return FAIL("daemon.tls_client_ca: mutual TLS needs daemon.tls_cert and daemon.tls_key too");
    if (tls && !strncmp(c->listen, "unix:", 5))
        return FAIL("daemon.tls_cert: daemon.listen is a unix socket; TLS is for a TCP listener (host:port)");
    if (c->status_listen[0] && !strncmp(c->status_listen, "unix:", 5))
        return FAIL("daemon.status_listen: must be host:port (HTTP)");
    return 0;
}

static bool entry_equal(const cuzk_config *a, const cuzk_config *b, const cfg_entry *e)
{
    switch (e->type) {
    case T_U32_LIST:
        return a->n_devices == b->n_devices &&
               !memcmp(a->devices, b->devices, a->n_devices * sizeof a->devices[0]);
    case T_ID_LIST:
        return a->n_preload == b->n_preload &&
               !memcmp(a->preload, b->preload, a->n_preload * sizeof a->preload[0]);
    case T_STR: case T_PATH: case T_LISTEN: case T_LISTEN0:
        return !strcmp((const char *)a + e->off, (const char *)b + e->off);
    case T_U32: return *(const uint32_t *)((const char *)a + e->off) == *(const uint32_t *)((const char *)b + e->off);
    case T_BOOL: case T_CHOICE: return *(const bool *)((const char *)a + e->off) == *(const bool *)((const char *)b + e->off);
    case T_LEVEL: return a->log_level == b->log_level;
    default: return *(const uint64_t *)((const char *)a + e->off) == *(const uint64_t *)((const char *)b + e->off);
    }
}

size_t cfg_unreloadable_changes(const cuzk_config *a, const cuzk_config *b, char *out,
                                size_t outlen)
{
    size_t n = 0, used = 0;
    if (outlen) out[0] = '\0';
    for (size_t i = 0; i < NKEYS; i++) {
        if (table[i].info.reloadable || entry_equal(a, b, &table[i])) continue;
        int w = snprintf(out + used, outlen > used ? outlen - used : 0, "%s%s.%s", n ? ", " : "",
                         table[i].info.section, table[i].info.key);
        if (w > 0 && used + (size_t)w < outlen) used += (size_t)w;
        n++;
    }
    return n;
}

void cfg_apply_reloadable(cuzk_config *dst, const cuzk_config *src)
{
    strcpy(dst->auth_token, src->auth_token);
    strcpy(dst->auth_token_file, src->auth_token_file);
    dst->shutdown_grace_ms = src->shutdown_grace_ms;
    memcpy(dst->preload, src->preload, sizeof dst->preload);
    dst->n_preload = src->n_preload;
    dst->log_level = src->log_level;
    dst->log_json = src->log_json;
}

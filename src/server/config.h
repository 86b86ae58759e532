/*
 * Daemon configuration: the TOML file's keys follow curio's cuzk.toml
 * ([daemon], [memory], [gpus], [scheduler], [synthesis], [pipeline], [srs],
 * [logging]) and [cluster] (docs/cluster.md). Every key, its type, default and whether SIGHUP reloads it
 * live in one table in config.c; docs/configuration.md documents them and a
 * test checks the two agree. Unknown keys and bad values are errors that
 * name the key.
 */
#ifndef CUZK_SERVER_CONFIG_H
#define CUZK_SERVER_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CFG_STR_MAX 512
#define CFG_MAX_DEVICES 64
#define CFG_MAX_PRELOAD 16
#define CFG_MAX_WARNINGS 16

typedef enum cfg_log_level {
    CFG_LOG_TRACE,
    CFG_LOG_DEBUG,
    CFG_LOG_INFO,
    CFG_LOG_WARN,
    CFG_LOG_ERROR
} cfg_log_level;

typedef struct cuzk_config {
    /* [daemon] */
    char listen[CFG_STR_MAX];        /* "unix:///path" or "host:port" */
    char status_listen[CFG_STR_MAX]; /* "" = no HTTP status listener */
    char auth_token[CFG_STR_MAX];    /* bearer token for TCP listeners */
    char auth_token_file[CFG_STR_MAX];
    bool allow_unauthenticated_tcp;
    char tls_cert[CFG_STR_MAX];      /* PEM files; "" = plaintext */
    char tls_key[CFG_STR_MAX];
    char tls_client_ca[CFG_STR_MAX]; /* "" = no client certificates (mutual TLS off) */
    uint64_t max_message_size;       /* bytes */
    uint64_t shutdown_grace_ms;
    uint32_t max_concurrent_calls;
    uint32_t max_queued_jobs;        /* jobs accepted and not finished; one more: RESOURCE_EXHAUSTED */
    uint32_t max_concurrent_parses;  /* requests parsed at submit at once; more wait */
    bool preload_fatal;              /* preload_failure = "fatal" */
    char state_dir[CFG_STR_MAX];     /* "" after cfg_finish: none (the journal goes to param_cache) */
    /* [memory] */
    uint64_t total_budget;           /* 0 = auto */
    uint64_t safety_margin;
    uint64_t eviction_min_idle_ms;
    uint64_t pinned_limit;           /* 0 = auto (the budget) */
    /* [gpus] */
    uint32_t devices[CFG_MAX_DEVICES];
    size_t n_devices;                /* 0 = all */
    uint32_t gpu_workers_per_device;
    uint32_t gpu_threads;            /* 0 = auto */
    uint32_t max_device_errors;
    bool cpu_fallback;
    bool keep_host_params;
    bool pack_witness;
    uint64_t gpu_memory_limit;       /* 0 = auto (the card's free memory at start) */
    bool gpu_log_allocations;        /* every device allocation on stderr (the GPU layer's trace) */
    /* [scheduler] */
    uint32_t max_batch_size;
    uint64_t max_batch_wait_ms;
    bool sort_by_type;
    /* [synthesis] */
    uint32_t threads;                /* 0 = auto */
    uint32_t partition_workers;      /* 0 = auto */
    uint32_t synthesis_nice;         /* added to the CPU workers' nice value */
    /* [pipeline] */
    bool pipeline_enabled;
    uint32_t synthesis_lookahead;
    uint32_t synthesis_concurrency;
    uint32_t max_parallel_synthesis;
    uint32_t slot_size;
    uint32_t max_gpu_queue_depth;
    /* [srs] */
    char param_cache[CFG_STR_MAX];
    char pce_dir[CFG_STR_MAX];       /* "" = param_cache */
    bool param_cache_set;            /* named by the file; else cfg_finish takes cfg_env's */
    bool pce;                        /* srs.pce: pre-compiled circuits in pce_dir (default param_cache) */
    bool pce_verify_background;      /* srs.pce_verify = "background" */
    bool test_srs;                   /* srs.test_srs: a TEST aggregation SRS accepted for NI-PoRep */
    char preload[CFG_MAX_PRELOAD][64];
    size_t n_preload;
    /* [cluster] */
    char cluster_conninfo[CFG_STR_MAX];  /* "" = no cluster */
    char cluster_password_file[CFG_STR_MAX];
    char cluster_password[CFG_STR_MAX];  /* read from the file by cfg_finish; never logged */
    char cluster_host[CFG_STR_MAX];      /* "" = gethostname() */
    uint64_t cluster_lease_ms;
    uint32_t cluster_slots;              /* 0 = twice the prover workers */
    uint32_t cluster_max_attempts;
    char cluster_payload_dir[CFG_STR_MAX]; /* "" = payloads in the database */
    uint64_t cluster_payload_threshold;
    uint64_t cluster_statement_timeout_ms;
    uint64_t cluster_retention_ms;       /* 0 = finished jobs kept for ever */
    uint32_t cluster_pool_size;          /* RPC handlers' database connections at most */
    uint64_t cluster_pool_idle_ms;       /* a pooled connection unused this long is closed */
    /* [logging] */
    cfg_log_level log_level;
    bool log_json;
    /* what loaded but deserves a word in the log: keys curio deprecated,
     * curio's keys set to values this daemon does not act on */
    char warnings[CFG_MAX_WARNINGS][256];
    size_t n_warnings;
} cuzk_config;

/* One key of the table, for documentation checks and `cuzk daemon --help`. */
typedef struct cfg_key_info {
    const char *section, *key, *default_toml, *summary;
    bool reloadable;
} cfg_key_info;

size_t cfg_key_count(void);
const cfg_key_info *cfg_key_at(size_t i);

/* Fills c with every default. */
void cfg_defaults(cuzk_config *c);
/* Applies a TOML document on top of c. On error returns -1, leaves c
 * partly updated, and writes "section.key: reason" (or the syntax error)
 * to err. */
int cfg_apply_toml(cuzk_config *c, const char *text, size_t len, char *err, size_t errlen);
/* Reads and applies a file (max 1 MiB); errors start with the path. */
int cfg_apply_file(cuzk_config *c, const char *path, char *err, size_t errlen);
/* Sets one key from a TOML value literal ("\"unix:///x\"", "4", "true"). */
int cfg_set(cuzk_config *c, const char *section, const char *key, const char *toml_value,
            char *err, size_t errlen);
/* What the daemon's environment says, each the default of a key the file
 * leaves unset. The command line reads the variables (the daemon's code
 * reads none) and passes them here; NULL or "" = unset. */
typedef struct cfg_env {
    const char *param_cache;     /* $FIL_PROOFS_PARAMETER_CACHE: srs.param_cache */
    const char *state_directory; /* $STATE_DIRECTORY (systemd's StateDirectory=, ':'-separated):
                                  * daemon.state_dir, its first entry */
} cfg_env;

/* Final checks across keys (reads auth_token_file). An unset
 * srs.param_cache becomes env's (an absolute path) or stays
 * /var/tmp/filecoin-proof-parameters; an empty daemon.state_dir becomes
 * env's state directory's first entry when that is absolute (env NULL: no
 * environment). A TCP listener without a token is allowed: the service then
 * serves loopback peers only (protected mode) unless allow_unauthenticated_tcp. */
int cfg_finish(cuzk_config *c, const cfg_env *env, char *err, size_t errlen);
/* Writes to out (comma-separated) the keys that differ between a and b and
 * that SIGHUP cannot change; returns their number. */
size_t cfg_unreloadable_changes(const cuzk_config *a, const cuzk_config *b, char *out,
                                size_t outlen);
/* Copies the reloadable keys of src into dst. */
void cfg_apply_reloadable(cuzk_config *dst, const cuzk_config *src);

/* Durations: "5m", "300s", "250ms", "1h", "60" (seconds). False on bad
 * input. (Sizes: cuzk_size_parse, include/cuzk/util/size.h.) */
bool cfg_parse_duration_ms(const char *s, uint64_t *out);
/* Listener syntax check: "unix:///abs/path" (or "unix:/abs/path") or
 * "host:port" / "[v6]:port". */
bool cfg_valid_listen(const char *s, char *why, size_t whylen);
const char *cfg_log_level_name(cfg_log_level l);

#endif

/*
 * Where the daemon's jobs go: the proving engine, or with [cluster] the
 * cluster's queue (dispatch_cluster.h), seen through one narrow interface.
 * service.c speaks only this; dispatch_engine.c is the one file that binds
 * it to cuzk/engine/engine.h.
 * Every function returns a gRPC status code (RPC_*) and, when not RPC_OK, a
 * message a person can act on in err.
 */
#ifndef CUZK_SERVER_DISPATCH_H
#define CUZK_SERVER_DISPATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/cluster/cluster.h"
#include "server/config.h"
#include "server/log.h"

typedef struct srv_dispatch srv_dispatch;

typedef struct srv_options {
    const cuzk_config *cfg;
    bool test_kinds;                /* register the built-in synthetic kinds */
    uint64_t test_porep_constraints; /* per partition of test-porep */
    uint64_t test_post_constraints;  /* test-window-post / test-winning-post */
    void (*log)(int level, const char *msg); /* level as cfg_log_level */
    /* optional: a line with typed fields (job submitted and end lines, the
     * memory budget), for the JSON log; else such lines go to log */
    void (*log_fields)(int level, const char *msg, const log_field *f, size_t n);
} srv_options;

srv_dispatch *srv_dispatch_open(const srv_options *o, char *err, size_t errlen);
/* Cancels what is left and frees everything. */
void srv_dispatch_close(srv_dispatch *b);

typedef struct srv_submit_req {
    const char *request_id; /* non-empty */
    const char *kind;       /* registered kind name, e.g. "test-porep", "porep-32g" */
    const uint8_t *inputs;
    size_t inputs_len;
    int priority;           /* the proto's values: 0 the kind's default, 1 LOW .. 4 CRITICAL */
    uint32_t timeout_ms;    /* job deadline; 0: none */
    const char *origin;     /* the caller, for the job's "submitted" line (may be NULL) */
    /* whether the caller left (may be NULL): a request waiting for a parse
     * slot ([daemon] max_concurrent_parses) is then dropped */
    bool (*gone)(void *ud);
    void *gone_ud;
} srv_submit_req;

/* Submits (or, with [cluster], checks and stores) a request: RPC_OK or a
 * status with err. Past [daemon] max_queued_jobs (jobs accepted and not
 * finished) a new job is RESOURCE_EXHAUSTED naming the limit; a request
 * waits for one of max_concurrent_parses slots before it is parsed. */
int srv_submit(srv_dispatch *b, const srv_submit_req *r, uint32_t *queue_position,
               bool *duplicate, char *err, size_t errlen);
bool srv_has_kind(srv_dispatch *b, const char *kind);

typedef enum srv_outcome {
    SRV_COMPLETED = 1,
    SRV_FAILED = 2,
    SRV_CANCELLED = 3,
    SRV_TIMEOUT = 4,  /* the job ran past its deadline, or the wait ran out */
} srv_outcome;

typedef struct srv_result {
    srv_outcome outcome;
    bool still_running;     /* SRV_TIMEOUT from the wait, the job goes on */
    uint8_t *proof;         /* malloc'd; free() it */
    size_t proof_len;
    char *message;          /* malloc'd, whole (free() it); NULL: none */
    uint64_t queue_ms, srs_ms, synthesis_ms, prove_ms, verify_ms, total_ms;
} srv_result;

/* Waits for job `job_id` at most timeout_ms (< 0: no limit), returning early
 * with RPC_CANCELLED when stop(stop_ud) turns true (checked every 50 ms).
 * RPC_NOT_FOUND for an unknown job. */
int srv_await(srv_dispatch *b, const char *job_id, int64_t timeout_ms, bool (*stop)(void *),
              void *stop_ud, srv_result *out, char *err, size_t errlen);
/* why: who or what cancels it, for the job's message and log line ("cancelled: <why>"). */
int srv_cancel(srv_dispatch *b, const char *job_id, const char *why, bool *was_running, char *err, size_t errlen);

typedef struct srv_queue {
    char kind[64];
    uint32_t pending, in_progress;
} srv_queue;
typedef struct srv_srs {
    char circuit_id[64];
    int tier;               /* 0 hot, 1 warm, 2 cold, 3 failed (the proto's Tier) */
    uint64_t size_bytes;
    uint32_t ref_count;
    char *error;            /* tier 3: "failed to load at <UTC time>: <reason>", malloc'd */
    int keys;               /* whose verifying key (the proto's Keys: 1 the ceremony's, 2 not, ...) */
    char *keys_note;        /* what the last load compared, malloc'd, or NULL */
} srv_srs;
/* A prover worker, as curio's daemon lists them in GetStatus: a GPU with
 * two workers appears twice. */
typedef struct srv_gpu {
    uint32_t ordinal;            /* the GPU's (the CPU prover's workers: 0) */
    char name[128];
    uint64_t vram_total, vram_free; /* 0 where there is no device memory (the CPU prover) */
    uint64_t vram_budget, vram_held; /* the daemon's budget on the card and what it holds */
    char plan[400];              /* the last parameter set's device-memory plan */
    char job_id[260], kind[64];  /* the job being proved, "" when none */
} srv_gpu;
typedef struct srv_status {
    srv_gpu gpus[64]; /* the prover's workers (the CPU fallback's are not listed) */
    size_t n_gpus;
    srv_queue queues[32];
    size_t n_queues;
    srv_srs srs[32];
    size_t n_srs;
    uint64_t proofs_completed, proofs_failed;
    uint64_t memory_reserved, memory_budget;
    uint64_t memory_pinned, memory_pinned_limit; /* page-locked parameters and their limit */
    /* [cluster]: the cluster's queue and hosts from its database (queues
     * above then count its jobs); in_cluster false when the database did
     * not answer or there is no cluster. cluster_error: why the cluster's
     * queue is unknown (its database did not answer); "" otherwise */
    bool in_cluster;
    cuzk_cluster_view cluster;
    char cluster_error[320];
} srv_status;
int srv_get_status(srv_dispatch *b, srv_status *out);
/* Frees what srv_get_status allocated (the srs errors, the cluster's view). */
void srv_status_free(srv_status *st);
/* Appends Prometheus text for the engine's counters to a malloc'd buffer
 * (*buf may be NULL); returns the new buffer or NULL on no memory. */
char *srv_metrics_text(srv_dispatch *b, char *buf);
/* The engine's JSON snapshot (malloc'd) or NULL. */
char *srv_status_json(srv_dispatch *b);
/* The cluster's JSON snapshot (malloc'd); NULL without [cluster] (or when
 * the database does not answer). */
char *srv_cluster_json(srv_dispatch *b);

/* Makes a circuit's parameters resident. Parameters that cannot be loaded:
 * RPC_FAILED_PRECONDITION; *err (malloc'd, free it) is then the whole reason. */
int srv_preload(srv_dispatch *b, const char *circuit_id, bool *already, uint64_t *load_ms, char **err);
int srv_evict(srv_dispatch *b, const char *circuit_id, bool *was_loaded, uint64_t *freed,
              char *err, size_t errlen);
/* Waits up to timeout_ms for running jobs to finish; true when idle. */
bool srv_drain(srv_dispatch *b, uint64_t timeout_ms);
/* Cancels every job not finished. */
void srv_cancel_all(srv_dispatch *b);
/* The grace deadline: every job cancelled with "cancelled: <why>", no new
 * work (loads, extractions) starts; returns at once (srv_drain: until the
 * work in hand is over). */
void srv_shutdown(srv_dispatch *b, const char *why);

#endif

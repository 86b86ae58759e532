/*
 * A cluster of daemons sharing one PostgreSQL queue (docs/cluster.md): a
 * request stored once, its partitions claimed by every host with a free
 * prover slot, proved and verified there, the 192-byte results written back;
 * leases renewed by heartbeats, so a host that dies loses its claims to the
 * others after one lease. Only what PostgreSQL 15 and YugabyteDB both serve:
 * FOR UPDATE SKIP LOCKED, INSERT ... ON CONFLICT, sequences; no LISTEN/NOTIFY
 * (callers poll with back-off). Every time is the database's clock.
 *
 * Two levels. cuzk_cluster_db is one connection and the queue's operations
 * (the SQL lives in src/cluster/db.c only). cuzk_cluster_node is a host's
 * share of the work: a thread that claims partitions while the engine has
 * free slots, proves each as a one-partition engine job, writes it back,
 * heart-beats and expires dead hosts' leases. The engine knows nothing of
 * this layer; the daemon (src/server) calls it when [cluster] is configured.
 *
 * A db handle is not thread-safe (one libpq connection): one per thread.
 * Functions return CUZK_OK or an error with a message in err:
 * CUZK_ERR_IO (the database: unreachable, or an SQL error, quoted),
 * CUZK_ERR_INVALID_ARG (the caller's input), CUZK_ERR_UNSUPPORTED (a schema
 * newer than this build).
 */
#ifndef CUZK_CLUSTER_H
#define CUZK_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/engine/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_CLUSTER_SCHEMA 5        /* the schema version this build creates and reads */
#define CUZK_CLUSTER_ID_MAX 256      /* job ids, as the daemon's request ids */
#define CUZK_CLUSTER_NAME_MAX 63     /* host and kind names */
#define CUZK_CLUSTER_PROOF_BYTES 192 /* one partition's result */

typedef struct cuzk_cluster_db cuzk_cluster_db;

typedef struct cuzk_cluster_opts {
    const char *conninfo; /* libpq: "host=/run/postgresql dbname=cuzk sslmode=require" or a URI */
    const char *password; /* NULL: libpq's own (PGPASSWORD, ~/.pgpass); never logged */
    const char *host;     /* this host's name: claims carry it */
    uint32_t lease_ms;    /* a claim lasts this long unless renewed (0: 30000) */
    uint32_t max_attempts; /* claims of one partition before its job fails (0: 5) */
    /* Shared storage for large payloads (NFS or the like, mounted on every
     * host; NULL or "": none, every payload in the database). A payload
     * of more than payload_threshold bytes (0: every payload) is written
     * there under its SHA-256 (hex) and the job row holds the name and
     * digest; the host claiming a partition reads it back and checks the
     * digest. The daemon's default threshold is 1 MiB. */
    const char *payload_dir;
    size_t payload_threshold;
    /* The server's statement_timeout on every connection (0: 10000 ms);
     * a statement not answered 2 s after it (a stopped
     * server) is given up and its connection made again. */
    uint32_t statement_timeout_ms;
    /* Finished jobs (done, failed, cancelled, timed out) are deleted this
     * long after they finished, their partitions with them, by
     * cuzk_cluster_prune (0: kept for ever). */
    uint64_t retention_ms;
    /* The schema's version is read (one statement, no lock), never
     * created or migrated; another version is CUZK_ERR_UNSUPPORTED. For a
     * reader (`cuzk cluster status`) and for a daemon's pooled connections
     * (its start migrated the schema): a migration is DDL and takes the
     * version row's lock, which every connection opened would otherwise
     * queue on. */
    bool schema_check_only;
    /* Opening (connecting, the connection's settings, the schema's check
     * or migration) ends within this many ms when that is sooner than the
     * conninfo's connect_timeout: a caller's own deadline, such as the
     * gRPC call a pooled connection is opened for. 0: connect_timeout. */
    uint32_t open_within_ms;
} cuzk_cluster_opts;

/* Whether a conninfo can be used: libpq parses it, and it carries no
 * password (which would show wherever the configuration does). 0, or
 * CUZK_ERR_INVALID_ARG with err saying why (the message cuzk_cluster_db_open
 * gives; a configuration check gives it too, before any connection). */
int cuzk_cluster_conninfo_check(const char *conninfo, char *err, size_t errlen);

/* Connects and creates or migrates the schema (versioned; concurrent
 * daemons serialize on the version row), unless o->schema_check_only. A conninfo
 * that carries a password is refused: it would show wherever the
 * configuration does. Connecting gives up after the conninfo's
 * connect_timeout (default 10 s), or o->open_within_ms if sooner, however
 * the server behaves; so does every reconnection a later call makes. */
int cuzk_cluster_db_open(const cuzk_cluster_opts *o, cuzk_cluster_db **out, char *err, size_t errlen);
void cuzk_cluster_db_close(cuzk_cluster_db *db); /* NULL-safe */
/* "host:port/dbname" (or the socket directory) of the connection, for logs. */
const char *cuzk_cluster_db_where(cuzk_cluster_db *db);
/* Round trips to the database this handle made (statements, BEGIN and
 * COMMIT included): what an operation costs (tests, the load generator). */
uint64_t cuzk_cluster_db_statements(const cuzk_cluster_db *db);
/* The calls that follow give up (CUZK_ERR_IO, "no answer within the
 * deadline") once ms have passed from now, sooner than the statement
 * bound: a caller's own deadline. 0: none but the statement bound. */
void cuzk_cluster_db_deadline(cuzk_cluster_db *db, uint32_t ms);

/* ---- hosts ------------------------------------------------------------- */

/*
 * Registers this host under o->host with a new incarnation. A name whose
 * previous holder still heart-beats (within a lease, not stopped) is
 * refused (CUZK_ERR_INVALID_ARG, saying how long ago it was seen): two
 * daemons must not share a name. Claims left by a previous incarnation go
 * back to the queue. kinds: the kinds this host can prove, comma-separated.
 */
int cuzk_cluster_host_join(cuzk_cluster_db *db, unsigned slots, const char *kinds, char *err, size_t errlen);

typedef struct cuzk_cluster_lease {
    char job_id[CUZK_CLUSTER_ID_MAX + 1];
    char kind[CUZK_CLUSTER_NAME_MAX + 1];
    int64_t job_seq;    /* the job's incarnation: a retried id gets a new one */
    uint32_t partition;
    uint32_t attempt;   /* 1 for the first claim of a partition */
    int priority;       /* cuzk_priority */
} cuzk_cluster_lease;

/* The host's liveness and its claims' leases: renews the lease of each of
 * held[0..n) this host still holds (lease not run out; a claim left out of
 * the list runs out), and says which of them it no longer holds (lost[i] true: expired, or its job was
 * cancelled or failed). CUZK_ERR_INVALID_ARG when another daemon has taken
 * this host's name (stop claiming). Counters are this host's totals. */
typedef struct cuzk_cluster_host_stats {
    unsigned slots, busy;
    uint64_t claims, completed, discarded, expired;
} cuzk_cluster_host_stats;
int cuzk_cluster_heartbeat(cuzk_cluster_db *db, const cuzk_cluster_host_stats *st, const cuzk_cluster_lease *held,
                           size_t n, bool *lost, char *err, size_t errlen);
/* A clean stop: this host's claims back to the queue, the host marked stopped. */
int cuzk_cluster_host_leave(cuzk_cluster_db *db, char *err, size_t errlen);

/* ---- the queue ---------------------------------------------------------- */

typedef struct cuzk_cluster_job {
    const char *id;          /* 1..CUZK_CLUSTER_ID_MAX bytes */
    const char *kind;
    int priority;            /* cuzk_priority, resolved (not DEFAULT) */
    uint32_t num_partitions;
    const uint8_t *payload;  /* the engine's inputs for the kind, stored once */
    size_t payload_len;
    uint32_t timeout_ms;     /* 0: none */
} cuzk_cluster_job;

/* Stores a job and its partitions (pending). The same id again: *duplicate,
 * nothing stored, when kind and payload are the same; CUZK_ERR_INVALID_ARG
 * when they differ, unless the job under that id failed, was cancelled or
 * timed out: then it is replaced (a retry). *queue_position: the active
 * jobs of its kind that hosts take before it (higher priority, or the same
 * and submitted earlier); may be NULL. */
int cuzk_cluster_submit(cuzk_cluster_db *db, const cuzk_cluster_job *job, bool *duplicate, uint32_t *queue_position,
                        char *err, size_t errlen);

/* Claims up to max pending partitions of the given kinds (comma-separated),
 * highest priority first, then oldest job, then lowest partition, each
 * leased to this host for lease_ms; out[] is in that order. *n: how many.
 * Concurrent claimers never get the same partition (FOR UPDATE SKIP LOCKED). */
int cuzk_cluster_claim(cuzk_cluster_db *db, const char *kinds, size_t max, cuzk_cluster_lease *out, size_t *n,
                       char *err, size_t errlen);

/* The payload of a job incarnation (malloc'd; free it). CUZK_ERR_INVALID_ARG
 * when it is gone (the job was replaced). A payload in payload_dir is read
 * from there and checked against the digest stored with the job: a file
 * that is missing, unreadable or not the job's (or a host without
 * payload_dir) is CUZK_ERR_IO with the path and what is wrong. */
int cuzk_cluster_payload(cuzk_cluster_db *db, int64_t job_seq, uint8_t **payload, size_t *len, char *err,
                         size_t errlen);

/* A verified partition result. *accepted false: the claim is no longer
 * this host's (its lease ran out, another host claimed it, its job ended):
 * the result is discarded. *job_done: this result completed the job (true
 * for exactly one result per job). */
int cuzk_cluster_complete(cuzk_cluster_db *db, const cuzk_cluster_lease *c, const uint8_t proof[192],
                          uint64_t prove_ms, bool *accepted, bool *job_done, char *err, size_t errlen);

/* A partition that could not be proved here. retry: back to the queue for
 * any host (a device or memory problem of this host), unless it was claimed
 * max_attempts times; else the job fails with message (bad inputs fail
 * everywhere). Ignored when the claim is no longer this host's. */
int cuzk_cluster_fail(cuzk_cluster_db *db, const cuzk_cluster_lease *c, bool retry, const char *message, char *err,
                      size_t errlen);

/* Removes payload files no active job needs any more (their jobs finished,
 * failed, were cancelled or timed out; a file already gone is fine) and
 * their records. Called by the host that completes a job and by every
 * host's housekeeping; a host without payload_dir does nothing. *removed
 * (may be NULL): files removed. */
int cuzk_cluster_payload_gc(cuzk_cluster_db *db, unsigned *removed, char *err, size_t errlen);

/* A random 64-bit value stored once in the database under name (the first
 * host to ask makes it, every host gets the same): what hosts must agree
 * on, such as the seed of the test kinds' parameters. */
int cuzk_cluster_shared_seed(cuzk_cluster_db *db, const char *name, uint64_t *seed, char *err, size_t errlen);

/* Any host's housekeeping: claims whose lease ran out go back to the queue
 * (a partition claimed max_attempts times fails its job instead), active
 * jobs past their deadline time out. Counts into the outputs (may be NULL). */
int cuzk_cluster_expire(cuzk_cluster_db *db, unsigned *leases_expired, unsigned *jobs_timed_out, char *err,
                        size_t errlen);

/* Retention (o->retention_ms): finished jobs older than it are deleted with
 * their partitions, the oldest first, in a few short statements (a pass
 * deletes up to 16000 in about a second at most; the next pass goes on),
 * and hosts not heard of within it. *jobs_deleted may be NULL. Any host's
 * housekeeping. */
int cuzk_cluster_prune(cuzk_cluster_db *db, unsigned *jobs_deleted, char *err, size_t errlen);

/* ---- jobs, as the daemon's RPCs see them -------------------------------- */

typedef struct cuzk_cluster_job_info {
    cuzk_job_state state; /* QUEUED: nothing claimed yet; RUNNING: some claimed or done */
    int error;            /* CUZK_OK, CUZK_ERR_CANCELLED, CUZK_ERR_TIMEOUT or CUZK_ERR_INTERNAL (failed) */
    char *message;        /* malloc'd ("" when none); free it */
    char kind[CUZK_CLUSTER_NAME_MAX + 1];
    int priority;
    uint32_t num_partitions, partitions_done, partitions_claimed;
    double total_s;       /* submit to finish (or now) */
    uint8_t *proof;       /* DONE: num_partitions * 192 bytes in partition order, malloc'd; else NULL */
    size_t proof_len;
} cuzk_cluster_job_info;
/* CUZK_ERR_INVALID_ARG with "no job" in err for an unknown id. */
int cuzk_cluster_job_get(cuzk_cluster_db *db, const char *id, cuzk_cluster_job_info *out, char *err, size_t errlen);
void cuzk_cluster_job_info_free(cuzk_cluster_job_info *info);
/* Cancels an active job: its pending partitions are dropped, hosts holding
 * the others see it at their next heartbeat and stop. CUZK_ERR_INVALID_ARG
 * when it already finished (err says how) or is unknown. */
int cuzk_cluster_cancel(cuzk_cluster_db *db, const char *id, bool *was_running, char *err, size_t errlen);

/* One partition's record (tests, `cuzk cluster status`). */
typedef struct cuzk_cluster_part_info {
    uint32_t partition, attempt, expirations;
    char state[16];     /* pending, claimed, done, failed, cancelled */
    char claimed_by[CUZK_CLUSTER_NAME_MAX + 1], proved_by[CUZK_CLUSTER_NAME_MAX + 1];
    bool verified;
} cuzk_cluster_part_info;
/* The partitions of the job under id (malloc'd array in partition order). */
int cuzk_cluster_job_parts(cuzk_cluster_db *db, const char *id, cuzk_cluster_part_info **out, size_t *n, char *err,
                           size_t errlen);

/* The cluster's queue and hosts as a daemon's GetStatus reports them. */
typedef struct cuzk_cluster_queue {
    char kind[CUZK_CLUSTER_NAME_MAX + 1];
    int priority;                        /* the jobs' (cuzk_priority) */
    uint32_t jobs_pending, jobs_running; /* active jobs: nothing claimed or done yet / some */
    uint32_t parts_pending, parts_claimed;
} cuzk_cluster_queue;
typedef struct cuzk_cluster_host {
    char name[CUZK_CLUSTER_NAME_MAX + 1];
    uint32_t slots, busy, held;   /* held: claims in the database */
    bool alive;                   /* heart-beating within a lease, not stopped */
    uint64_t heartbeat_age_ms;
    uint64_t completed;
} cuzk_cluster_host;
typedef struct cuzk_cluster_view {
    cuzk_cluster_queue *queues; /* by kind, then priority, highest first */
    size_t n_queues;
    cuzk_cluster_host *hosts;   /* by name */
    size_t n_hosts;
} cuzk_cluster_view;
int cuzk_cluster_view_get(cuzk_cluster_db *db, cuzk_cluster_view *out, char *err, size_t errlen);
void cuzk_cluster_view_free(cuzk_cluster_view *v);

/* A JSON snapshot of the cluster (the fields: docs/cluster.md, "Operating
 * it"): hosts (slots, busy, claims held, last heartbeat, counters), the
 * waiting partitions (pending, claimed, their lease expirations), active
 * jobs and the last hour's finished ones by state, payload files, pending
 * partitions per kind. Every key is always present; no count reads the
 * finished history beyond the last hour. malloc'd; free it. */
int cuzk_cluster_status_json(cuzk_cluster_db *db, char **json, char *err, size_t errlen);

/* ---- a host's share of the work ---------------------------------------- */

typedef struct cuzk_cluster_node cuzk_cluster_node;

typedef struct cuzk_cluster_node_opts {
    cuzk_cluster_opts db;
    cuzk_engine *engine;  /* kinds registered; outlives the node */
    unsigned slots;       /* partitions held at once (0: 2) */
    const char *kinds;    /* comma-separated kinds this host proves */
    /* level 0 error, 1 warning, 2 info, 3 debug; NULL: errors to stderr */
    void (*log)(void *ctx, int level, const char *msg);
    void *log_ctx;
} cuzk_cluster_node_opts;

/* Connects, joins (waiting up to one lease for a previous daemon of the
 * same name to be seen dead) and starts the node's thread. */
int cuzk_cluster_node_start(const cuzk_cluster_node_opts *o, cuzk_cluster_node **out, char *err, size_t errlen);
/* Stops claiming; the partitions in hand are still proved and written back
 * (a daemon's drain: cuzk_engine_wait_idle says when they are). */
void cuzk_cluster_node_drain(cuzk_cluster_node *n);
/* Stops claiming, cancels the engine jobs in hand, gives their partitions
 * back to the queue, leaves, joins the thread. NULL-safe. */
void cuzk_cluster_node_stop(cuzk_cluster_node *n);
void cuzk_cluster_node_stats(cuzk_cluster_node *n, cuzk_cluster_host_stats *out);

#ifdef __cplusplus
}
#endif
#endif

/*
 * The daemon's dispatch when [cluster] is configured: jobs go to the
 * cluster's PostgreSQL queue (cuzk/cluster/cluster.h) instead of this engine alone,
 * and this daemon's node proves partitions of any host's jobs. dispatch_engine.c
 * calls these from the srv_* functions of dispatch.h; the results and
 * errors are dispatch.h's (RPC_* codes, messages a person can act on).
 */
#ifndef CUZK_SERVER_DISPATCH_CLUSTER_H
#define CUZK_SERVER_DISPATCH_CLUSTER_H

#include "server/dispatch.h"

typedef struct srv_cluster srv_cluster;
typedef struct cuzk_engine cuzk_engine;

/* Joins the cluster (kinds: the comma-separated kinds this daemon proves;
 * prover_workers sizes the default slots). NULL with a message in err. */
srv_cluster *srv_cluster_open(const cuzk_config *c, cuzk_engine *e, const char *kinds, unsigned prover_workers,
                              void (*log)(int level, const char *msg), char *err, size_t errlen);
/* Leaves: partitions in hand go back to the queue. NULL-safe. */
void srv_cluster_close(srv_cluster *cl);

/* r already checked by the engine (cuzk_engine_check_request): stored for
 * the cluster with the kind's partitions and resolved priority. */
int srv_cluster_submit(srv_cluster *cl, const srv_submit_req *r, uint32_t num_partitions, int priority,
                       uint32_t *queue_position, bool *duplicate, char *err, size_t errlen);
int srv_cluster_await(srv_cluster *cl, const char *job_id, int64_t timeout_ms, bool (*stop)(void *), void *stop_ud,
                      srv_result *out, char *err, size_t errlen);
int srv_cluster_cancel(srv_cluster *cl, const char *job_id, bool *was_running, char *err, size_t errlen);
/* No new claims; the partitions in hand finish. */
void srv_cluster_drain(srv_cluster *cl);
/* The node's counters (cuzk_cluster_host_stats, through dispatch.h's types). */
typedef struct srv_cluster_stats {
    uint64_t slots, busy, claims, completed, discarded, expired;
} srv_cluster_stats;
void srv_cluster_get_stats(srv_cluster *cl, srv_cluster_stats *out);
/* The cluster's JSON snapshot (cuzk_cluster_status_json), malloc'd, or NULL. */
char *srv_cluster_status_json(srv_cluster *cl);
/* Its queue and hosts for GetStatus; -1 with the reason in err when the
 * database does not answer within a few seconds. */
int srv_cluster_view(srv_cluster *cl, cuzk_cluster_view *v, char *err, size_t errlen);
/* The seed every host of c's cluster makes the test kinds' parameters from
 * (stored in the database by the first to ask): an assembled proof of a
 * test kind then verifies against one parameter set. */
int srv_cluster_test_seed(const cuzk_config *c, uint64_t *seed, char *err, size_t errlen);

#endif

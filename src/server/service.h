/*
 * The cuzk.v1.ProvingEngine service: decodes requests (protobuf-c), checks
 * the caller, validates, calls the dispatch, and encodes replies with gRPC
 * status codes. Transport-free: grpc_adapter.c calls service_handle.
 */
#ifndef CUZK_SERVER_SERVICE_H
#define CUZK_SERVER_SERVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/filecoin/fil_request.h"
#include "server/dispatch.h"
#include "server/grpc_adapter.h"

typedef struct Cuzk__V1__SubmitProofRequest Cuzk__V1__SubmitProofRequest; /* cuzk/v1/proving.pb-c.h */

typedef struct srv_service srv_service;

srv_service *service_create(srv_dispatch *b);
void service_destroy(srv_service *s);
/* Bearer token required from non-local callers ("" = none required). */
void service_set_token(srv_service *s, const char *token);
/* allow_unauthenticated_tcp: without a token, serve every TCP peer (else
 * loopback peers only: protected mode). */
void service_set_open_tcp(srv_service *s, bool on);
/* The listener is mutual TLS (tls_client_ca): without a token, every TCP
 * peer is served, since each has a verified client certificate. */
void service_set_mutual_tls(srv_service *s, bool on);
/* The server whose calls in progress the metrics show (NULL: none); it
 * must outlive the metrics' callers (the HTTP status listener). */
void service_set_server(srv_service *s, const rpc_server *srv);
/* While draining, SubmitProof and Prove get UNAVAILABLE. */
void service_set_draining(srv_service *s, bool on);
bool service_draining(const srv_service *s);
/* An rpc_handler_fn (ud = the service). */
void service_handle(void *ud, rpc_call *call, const char *method, const uint8_t *req,
                    size_t req_len);
/* A call the transport refused before service_handle (an rpc_refused_fn):
 * counted and logged as rejected calls are. */
void service_refused(void *ud, const char *method, int code, const char *peer, const char *msg);
/* Says how many rejected calls the rate limit kept out of the log, once its
 * window is over (force: now). The daemon calls it now and then and at exit. */
void service_flush_log(srv_service *s, bool force);
/* Prometheus text: engine counters plus RPC counters (malloc'd). */
char *service_metrics(srv_service *s);
/* JSON for the HTTP /status page (malloc'd). */
char *service_status_json(srv_service *s);

/* A SubmitProofRequest's Filecoin fields as the kinds take them (cuzk/kinds/fil_kinds.h): fr points
 * into q, its blobs into blobs (q->n_vanilla_proofs entries, or 1 for vanilla_proof); the
 * randomness where it is 32 bytes. */
void service_fil_request(const Cuzk__V1__SubmitProofRequest *q, cuzk_fil_request *fr, cuzk_fil_blob *blobs);
/* q's commitments into fr: 32 raw bytes or the CID bytes of their kind; false with why. */
bool service_fil_comms(const Cuzk__V1__SubmitProofRequest *q, cuzk_fil_request *fr, char *why, size_t whylen);
/* The registered kind name q asks for: "test-porep" and the other test kinds
 * by proof_kind, a Filecoin kind ("porep-32g") as the kinds layer names fr
 * (which may take fr->sector_size from the registered proof); false with a
 * reason for unknown values. */
bool service_kind_name(const Cuzk__V1__SubmitProofRequest *q, cuzk_fil_request *fr, char *out, size_t outlen,
                       char *why, size_t whylen);

/* An AGGREGATE_SEAL request's fields as the aggregate-seal kind's inputs (cuzk_fil_agg_request's
 * encoding, malloc'd into *inputs, *len bytes): RPC_OK, or RPC_INVALID_ARGUMENT with why naming
 * the field (service_aggregate.c). */
int service_aggregate_inputs(const Cuzk__V1__SubmitProofRequest *q, uint8_t **inputs, size_t *len, char *why,
                             size_t whylen);

/* Request ids are opaque to clients (curio's WindowPoSt ids hold spaces
 * and brackets): 1 to SERVICE_MAX_ID bytes of valid UTF-8 (shortest forms,
 * no surrogates). False with a reason otherwise. Logs escape them. */
#define SERVICE_MAX_ID 256
bool service_valid_request_id(const char *id, char *why, size_t whylen);

#endif

/*
 * The only module that talks to the gRPC C core. It turns gRPC calls into
 * "method + request bytes in, status + reply bytes out" for the server, and
 * offers the same shape to clients, so the service and the CLI never see a
 * completion queue. Messages stay opaque bytes here (protobuf is elsewhere).
 */
#ifndef CUZK_SERVER_GRPC_ADAPTER_H
#define CUZK_SERVER_GRPC_ADAPTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/peer.h"

/* gRPC status codes (the subset cuzk uses; values are the wire values). */
enum {
    RPC_OK = 0,
    RPC_CANCELLED = 1,
    RPC_UNKNOWN = 2,
    RPC_INVALID_ARGUMENT = 3,
    RPC_DEADLINE_EXCEEDED = 4,
    RPC_NOT_FOUND = 5,
    RPC_ALREADY_EXISTS = 6,
    RPC_PERMISSION_DENIED = 7,
    RPC_RESOURCE_EXHAUSTED = 8,
    RPC_FAILED_PRECONDITION = 9,
    RPC_ABORTED = 10,
    RPC_UNIMPLEMENTED = 12,
    RPC_INTERNAL = 13,
    RPC_UNAVAILABLE = 14,
    RPC_UNAUTHENTICATED = 16
};
const char *rpc_status_name(int code);

/* ---- server -------------------------------------------------------------- */

typedef struct rpc_server rpc_server;
typedef struct rpc_call rpc_call;

/* Runs on a thread of its own per call; may block. Must call rpc_call_reply
 * exactly once (the adapter answers INTERNAL if it does not). */
typedef void (*rpc_handler_fn)(void *ud, rpc_call *call, const char *method,
                               const uint8_t *req, size_t req_len);

/* A call the adapter answers itself, before any handler (over
 * max_concurrent_calls), or the core refused (a request message over
 * max_message_size), for the server's log and counters; ud as the handler's. */
typedef void (*rpc_refused_fn)(void *ud, const char *method, int code, const char *peer, const char *message);

/* TLS for a listener or a channel: PEM text (server/tls.h reads and checks
 * the files). Server: cert and key required, ca set = mutual TLS (clients
 * must present a certificate ca signed, verified in the handshake). Client:
 * ca verifies the server (NULL: the system's roots), cert and key are the
 * client's own for mutual TLS (NULL: none); server_name overrides the name
 * checked against the server's certificate (NULL: the address's host). */
typedef struct rpc_tls {
    const char *cert, *key, *ca;
    const char *server_name;
} rpc_tls;

typedef struct rpc_server_opts {
    const char *listen;       /* "unix:///path" or "host:port" */
    const rpc_tls *tls;       /* NULL: plaintext */
    uint64_t max_message_size;
    uint32_t max_concurrent_calls;
    rpc_handler_fn handler;
    rpc_refused_fn refused;   /* may be NULL */
    void *ud;
} rpc_server_opts;

/* Binds and starts serving. A unix socket is created with mode 0660; the
 * caller holds the path's claim (server/listen_claim.h), which replaced a
 * stale socket file and removes the socket after rpc_server_stop. A TCP
 * port is bound without SO_REUSEPORT: it fails when another process
 * listens there. NULL with a reason in err on failure. */
rpc_server *rpc_server_start(const rpc_server_opts *o, char *err, size_t errlen);
/* Calls in progress, each holding a slot of max_concurrent_calls from its
 * arrival until it is over (its status sent, or cancelled by the client or
 * its deadline); and that limit. */
uint32_t rpc_server_active_calls(const rpc_server *s);
uint32_t rpc_server_max_calls(const rpc_server *s);
/* Request messages the core refused for being over max_message_size. */
uint64_t rpc_server_oversize_refused(const rpc_server *s);
/* Stops accepting, cancels calls still open after wait_ms, waits for every
 * handler to return, and frees the server. */
void rpc_server_stop(rpc_server *s, uint64_t wait_ms);

/* Unix socket, loopback TCP or remote TCP (server/peer.h), and the peer
 * address as the gRPC core reports it ("ipv4:10.0.0.2:41234"), followed
 * over mutual TLS by its certificate's name (" cn=curio-1"). */
srv_peer_kind rpc_call_peer_kind(const rpc_call *c);
const char *rpc_call_peer(const rpc_call *c);
/* Copies the first value of request metadata `key` (lower case) into out;
 * false when absent or too long. */
bool rpc_call_metadata(const rpc_call *c, const char *key, char *out, size_t outlen);
/* Milliseconds until the call's deadline (INT64_MAX if none, <= 0 if past). */
int64_t rpc_call_deadline_ms(const rpc_call *c);
/* True once the client cancelled, went away, or the deadline passed. */
bool rpc_call_cancelled(const rpc_call *c);
/* Sends the reply: the message (only when code is RPC_OK and resp is not
 * NULL) and the status. A stream ends with rpc_call_reply(c, code, msg, NULL, 0). */
void rpc_call_reply(rpc_call *c, int code, const char *message, const uint8_t *resp,
                    size_t resp_len);

/* Streams (gRPC server reflection is a bidirectional stream). The handler
 * gets the first request as for a unary call; these block its thread.
 * rpc_call_read: the next request, 1 with *msg (malloc'd) and *len; 0 when
 * the client has sent its last (the core may report a client's cancel after
 * its last message so too); -1 when the call is gone (cancelled, past its
 * deadline, server stopping). rpc_call_write: one response message,
 * false when the call is gone. */
int rpc_call_read(rpc_call *c, uint8_t **msg, size_t *len);
bool rpc_call_write(rpc_call *c, const uint8_t *msg, size_t len);

/* ---- client -------------------------------------------------------------- */

typedef struct rpc_client rpc_client;

/* addr: "unix:///path", "host:port" or "http://host:port". token may be
 * NULL; when set it is sent as `authorization: Bearer <token>`. tls NULL:
 * plaintext. */
rpc_client *rpc_client_open(const char *addr, const char *token, const rpc_tls *tls, char *err, size_t errlen);
void rpc_client_close(rpc_client *cl);
/* One unary call (thread-safe: calls may run concurrently). timeout_ms 0 =
 * none. Returns the gRPC status; on RPC_OK *resp (malloc'd, caller frees)
 * holds the reply. The status message goes to msg. */
int rpc_client_call(rpc_client *cl, const char *method, const uint8_t *req, size_t req_len,
                    uint64_t timeout_ms, uint8_t **resp, size_t *resp_len, char *msg,
                    size_t msglen);

#endif

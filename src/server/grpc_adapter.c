/*
 * gRPC C core binding (see grpc_adapter.h).
 *
 * Server: one completion queue and one poller thread. Every accepted call
 * gets two batches at once: RECV_MESSAGE, and RECV_CLOSE_ON_SERVER whose
 * completion before our reply means the client cancelled or the deadline
 * passed. The request then goes to a detached handler thread, which may
 * block in the engine; its reply is started from that thread (the C core
 * allows batches from any thread) and completes on the poller. A call is
 * freed when its last batch and its handler are done (reference count).
 * A streaming handler reads and writes one message at a time: it starts the
 * batch and waits on the call's condition variable until the poller sees
 * it complete.
 *
 * A call holds a slot of max_concurrent_calls from its arrival until it is
 * over on the wire: our status is going out, or the client cancelled, or
 * its deadline passed. Not until its handler thread ends: a handler may
 * still be freeing memory, logging, or finishing work no client waits for
 * (a parameter load), and a client that has its answer must be able to
 * call again at once.
 */
#define _GNU_SOURCE
#include "server/grpc_adapter.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>

#include "server/listen_claim.h"
#include "server/peer.h"

const char *rpc_status_name(int code)
{
    static const char *names[] = {"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT",
                                  "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
                                  "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
                                  "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
                                  "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
                                  "UNAUTHENTICATED"};
    return code >= 0 && code <= 16 ? names[code] : "?";
}

/* grpc_init/grpc_shutdown are reference counted by the core itself. */

enum tag_kind { TAG_NEW, TAG_RECV, TAG_CLOSE, TAG_SEND, TAG_STREAM, TAG_SHUTDOWN };
enum handler_state { H_NONE, H_RUNNING, H_ABANDONED, H_DONE };

typedef struct tag {
    enum tag_kind kind;
    struct rpc_call *call;
} tag;

struct rpc_call {
    rpc_server *srv;
    grpc_call *call;
    grpc_call_details details;
    grpc_metadata_array md;
    grpc_byte_buffer *recv;
    int cancelled_flag; /* written by the core for RECV_CLOSE_ON_SERVER */
    atomic_bool closed, replied;
    atomic_bool has_slot; /* holds a slot of max_concurrent_calls */
    /* its handler thread: H_NONE, H_RUNNING, H_ABANDONED (the call ended
     * before the handler replied: counted in srv->abandoned), H_DONE */
    atomic_int hstate;
    atomic_int refs;
    int peer_kind;       /* srv_peer_kind */
    char peer[192];      /* as the core reports it, and a client certificate's name, for messages */
    tag t_new, t_recv, t_close, t_send, t_stream;
    grpc_byte_buffer *send_buf;
    grpc_slice status_details;
    bool have_status_details;
    bool md_sent;         /* initial metadata went out with a stream message */
    pthread_mutex_t smu;  /* a stream batch's completion, for the handler */
    pthread_cond_t scv;
    bool s_done, s_ok;
};

struct rpc_server {
    grpc_server *server;
    grpc_completion_queue *cq;
    pthread_t poller;
    rpc_handler_fn handler;
    rpc_refused_fn refused;
    void *ud;
    uint32_t max_calls;
    bool mutual_tls;
    atomic_uint active;   /* slots taken: calls admitted and not yet over */
    atomic_uint handlers;  /* handler threads running (they outlive their calls' slots) */
    atomic_uint abandoned; /* of those, the ones whose calls ended before they replied */
    uint64_t max_message;
    atomic_uint_fast64_t oversize; /* request messages the core refused over max_message */
    atomic_bool stopping;
    atomic_bool shutdown_done;
    tag t_shutdown;
};

static void call_unref(rpc_call *c)
{
    if (atomic_fetch_sub(&c->refs, 1) != 1) return;
    if (c->call) grpc_call_unref(c->call);
    grpc_call_details_destroy(&c->details);
    grpc_metadata_array_destroy(&c->md);
    if (c->recv) grpc_byte_buffer_destroy(c->recv);
    if (c->send_buf) grpc_byte_buffer_destroy(c->send_buf);
    if (c->have_status_details) grpc_slice_unref(c->status_details);
    pthread_mutex_destroy(&c->smu);
    pthread_cond_destroy(&c->scv);
    free(c);
}

static void request_next(rpc_server *s)
{
    if (atomic_load(&s->stopping)) return;
    rpc_call *c = calloc(1, sizeof *c);
    if (!c) abort(); /* cannot serve anything without memory */
    c->srv = s;
    atomic_init(&c->refs, 1);
    grpc_call_details_init(&c->details);
    grpc_metadata_array_init(&c->md);
    c->t_new = (tag){TAG_NEW, c};
    c->t_recv = (tag){TAG_RECV, c};
    c->t_close = (tag){TAG_CLOSE, c};
    c->t_send = (tag){TAG_SEND, c};
    c->t_stream = (tag){TAG_STREAM, c};
    pthread_mutex_init(&c->smu, NULL);
    pthread_cond_init(&c->scv, NULL);
    if (grpc_server_request_call(s->server, &c->call, &c->details, &c->md, s->cq, s->cq,
                                 &c->t_new) != GRPC_CALL_OK)
        call_unref(c);
}

static bool start_batch(rpc_call *c, const grpc_op *ops, size_t n, tag *t)
{
    atomic_fetch_add(&c->refs, 1);
    if (grpc_call_start_batch(c->call, ops, n, t, NULL) == GRPC_CALL_OK) return true;
    call_unref(c);
    return false;
}

/* A slot of max_concurrent_calls, taken the moment a call arrives (before
 * its message, which may be slow to come), so that no more than the limit
 * are ever admitted; false when all are taken. */
static bool slot_take(rpc_server *s)
{
    unsigned n = atomic_load(&s->active);
    do {
        if (n >= s->max_calls) return false;
    } while (!atomic_compare_exchange_weak(&s->active, &n, n + 1));
    return true;
}

/* The call is over for its client: its slot is free for the next one. Once,
 * from whichever thread sees the end first. */
static void slot_give(rpc_call *c)
{
    if (atomic_exchange(&c->has_slot, false)) atomic_fetch_sub(&c->srv->active, 1);
}

/* The (empty) initial metadata, once per call: with its first message or
 * its status. 1 when *op was filled. */
static size_t initial_md_op(const rpc_call *c, grpc_op *op)
{
    if (c->md_sent) return 0;
    op->op = GRPC_OP_SEND_INITIAL_METADATA;
    op->data.send_initial_metadata.count = 0;
    return 1;
}

void rpc_call_reply(rpc_call *c, int code, const char *message, const uint8_t *resp,
                    size_t resp_len)
{
    if (atomic_exchange(&c->replied, true)) return;
    slot_give(c); /* before the status goes: the client never sees it with the slot still held */
    grpc_op ops[3];
    memset(ops, 0, sizeof ops);
    size_t n = initial_md_op(c, &ops[0]);
    if (code == RPC_OK && resp) {
        grpc_slice sl = grpc_slice_from_copied_buffer((const char *)resp, resp_len);
        c->send_buf = grpc_raw_byte_buffer_create(&sl, 1);
        grpc_slice_unref(sl);
        ops[n].op = GRPC_OP_SEND_MESSAGE;
        ops[n].data.send_message.send_message = c->send_buf;
        n++;
    }
    c->status_details = grpc_slice_from_copied_string(message ? message : "");
    c->have_status_details = true;
    ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
    ops[n].data.send_status_from_server.trailing_metadata_count = 0;
    ops[n].data.send_status_from_server.status = (grpc_status_code)code;
    ops[n].data.send_status_from_server.status_details = &c->status_details;
    n++;
    start_batch(c, ops, n, &c->t_send);
}

/* Runs one batch of a stream and waits for the poller to see it complete. */
static bool stream_batch(rpc_call *c, const grpc_op *ops, size_t n)
{
    pthread_mutex_lock(&c->smu);
    c->s_done = false;
    pthread_mutex_unlock(&c->smu);
    if (!start_batch(c, ops, n, &c->t_stream)) return false;
    pthread_mutex_lock(&c->smu);
    while (!c->s_done) pthread_cond_wait(&c->scv, &c->smu);
    bool ok = c->s_ok;
    pthread_mutex_unlock(&c->smu);
    return ok;
}

/* The whole message of a byte buffer, malloc'd (NULL on no memory). */
static uint8_t *buffer_bytes(grpc_byte_buffer *bb, size_t *len)
{
    grpc_byte_buffer_reader rd;
    *len = 0;
    if (!bb || !grpc_byte_buffer_reader_init(&rd, bb)) return NULL;
    grpc_slice all = grpc_byte_buffer_reader_readall(&rd);
    grpc_byte_buffer_reader_destroy(&rd);
    *len = GRPC_SLICE_LENGTH(all);
    uint8_t *out = malloc(*len ? *len : 1);
    if (out) memcpy(out, GRPC_SLICE_START_PTR(all), *len);
    grpc_slice_unref(all);
    return out;
}

int rpc_call_read(rpc_call *c, uint8_t **msg, size_t *len)
{
    *msg = NULL;
    *len = 0;
    if (atomic_load(&c->replied)) return -1;
    grpc_byte_buffer *bb = NULL;
    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_MESSAGE;
    op.data.recv_message.recv_message = &bb;
    if (!stream_batch(c, &op, 1)) {
        if (bb) grpc_byte_buffer_destroy(bb);
        return -1;
    }
    if (!bb) return 0; /* the client half-closed */
    *msg = buffer_bytes(bb, len);
    grpc_byte_buffer_destroy(bb);
    return *msg ? 1 : -1;
}

bool rpc_call_write(rpc_call *c, const uint8_t *msg, size_t len)
{
    if (atomic_load(&c->replied)) return false;
    grpc_slice sl = grpc_slice_from_copied_buffer((const char *)msg, len);
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&sl, 1);
    grpc_slice_unref(sl);
    grpc_op ops[2];
    memset(ops, 0, sizeof ops);
    size_t n = initial_md_op(c, &ops[0]);
    ops[n].op = GRPC_OP_SEND_MESSAGE;
    ops[n].data.send_message.send_message = bb;
    n++;
    bool ok = stream_batch(c, ops, n);
    c->md_sent = true; /* sent or failed, never again: the core refuses a second */
    grpc_byte_buffer_destroy(bb);
    return ok;
}

srv_peer_kind rpc_call_peer_kind(const rpc_call *c) { return (srv_peer_kind)c->peer_kind; }
const char *rpc_call_peer(const rpc_call *c) { return c->peer; }

bool rpc_call_cancelled(const rpc_call *c)
{
    return atomic_load(&c->closed) && !atomic_load(&c->replied);
}

int64_t rpc_call_deadline_ms(const rpc_call *c)
{
    gpr_timespec d = c->details.deadline;
    if (gpr_time_cmp(d, gpr_inf_future(d.clock_type)) == 0) return INT64_MAX;
    gpr_timespec now = gpr_now(d.clock_type);
    gpr_timespec left = gpr_time_sub(d, now);
    return (int64_t)left.tv_sec * 1000 + left.tv_nsec / 1000000;
}

bool rpc_call_metadata(const rpc_call *c, const char *key, char *out, size_t outlen)
{
    size_t klen = strlen(key);
    for (size_t i = 0; i < c->md.count; i++) {
        const grpc_metadata *m = &c->md.metadata[i];
        if (GRPC_SLICE_LENGTH(m->key) != klen || memcmp(GRPC_SLICE_START_PTR(m->key), key, klen))
            continue;
        size_t vlen = GRPC_SLICE_LENGTH(m->value);
        if (vlen >= outlen) return false;
        memcpy(out, GRPC_SLICE_START_PTR(m->value), vlen);
        out[vlen] = '\0';
        return true;
    }
    return false;
}

/* The call's method path ("/cuzk.v1.ProvingEngine/Prove"), cut to fit. */
static void call_method(const rpc_call *c, char *out, size_t cap)
{
    size_t n = GRPC_SLICE_LENGTH(c->details.method);
    if (n >= cap) n = cap - 1;
    memcpy(out, GRPC_SLICE_START_PTR(c->details.method), n);
    out[n] = '\0';
}

static void *handler_thread(void *arg)
{
    rpc_call *c = arg;
    rpc_server *s = c->srv;
    size_t len = 0;
    uint8_t *req = buffer_bytes(c->recv, &len);
    grpc_byte_buffer_destroy(c->recv);
    c->recv = NULL;
    char method[128];
    call_method(c, method, sizeof method);
    if (!req) rpc_call_reply(c, RPC_RESOURCE_EXHAUSTED, "out of memory for the request", NULL, 0);
    else s->handler(s->ud, c, method, req, len);
    free(req);
    if (!atomic_load(&c->replied)) rpc_call_reply(c, RPC_INTERNAL, "handler gave no reply", NULL, 0);
    if (atomic_exchange(&c->hstate, H_DONE) == H_ABANDONED) atomic_fetch_sub(&s->abandoned, 1);
    call_unref(c);
    atomic_fetch_sub(&s->handlers, 1);
    return NULL;
}

/* Over mutual TLS, the client certificate's common name after the address:
 * the log then says which client called, not only from where. */
static void append_cert_name(rpc_call *c)
{
    grpc_auth_context *ac = grpc_call_auth_context(c->call);
    if (!ac) return;
    grpc_auth_property_iterator it = grpc_auth_context_find_properties_by_name(ac, GRPC_X509_CN_PROPERTY_NAME);
    const grpc_auth_property *p = grpc_auth_property_iterator_next(&it);
    size_t n = strlen(c->peer);
    if (p && n + 5 < sizeof c->peer)
        snprintf(c->peer + n, sizeof c->peer - n, " cn=%.*s", (int)p->value_length, p->value);
    grpc_auth_context_release(ac);
}

static void on_new_call(rpc_server *s, rpc_call *c)
{
    char *peer = grpc_call_get_peer(c->call);
    c->peer_kind = (int)srv_peer_classify(peer);
    /* a unix-socket client's address has no path: say what it is */
    snprintf(c->peer, sizeof c->peer, "%s", !peer ? "?" : !strcmp(peer, "unix:") ? "unix socket" : peer);
    gpr_free(peer);
    if (s->mutual_tls) append_cert_name(c);

    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    op.data.recv_close_on_server.cancelled = &c->cancelled_flag;
    start_batch(c, &op, 1, &c->t_close);

    /* Handlers of calls their clients abandoned may run on for a while (a
     * parameter load). While as many of them as the limit run, new calls are
     * refused, so that a client cancelling in a loop cannot pile up threads:
     * a call is admitted only with fewer than the limit left behind and a
     * slot free, and this thread alone admits and abandons, so handlers with
     * a slot and handlers left behind stay below twice the limit together.
     * Handlers that answered and are only returning do not count: they hold
     * nothing and end at once. */
    unsigned lingering = atomic_load(&s->abandoned);
    if (lingering >= s->max_calls || !slot_take(s)) {
        char m[160];
        if (lingering >= s->max_calls)
            snprintf(m, sizeof m, "too many calls in progress (daemon.max_concurrent_calls = %u; %u handlers still "
                     "finishing calls their clients left)", s->max_calls, lingering);
        else
            snprintf(m, sizeof m, "too many calls in progress (daemon.max_concurrent_calls = %u)", s->max_calls);
        if (s->refused) { /* logged before the status goes out (causal order) */
            char method[128];
            call_method(c, method, sizeof method);
            s->refused(s->ud, method, RPC_RESOURCE_EXHAUSTED, c->peer, m);
        }
        rpc_call_reply(c, RPC_RESOURCE_EXHAUSTED, m, NULL, 0);
        call_unref(c);
        return;
    }
    atomic_store(&c->has_slot, true); /* given back when the call is over (slot_give) */
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_MESSAGE;
    op.data.recv_message.recv_message = &c->recv;
    if (!start_batch(c, &op, 1, &c->t_recv)) slot_give(c);
    call_unref(c); /* the reference held since request_call */
}

/*
 * The core checks a request message against GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH
 * itself: over it, it fails our RECV_MESSAGE op (ev.success 0) and answers
 * RESOURCE_EXHAUSTED without the bytes ever reaching us. A client that left
 * before its message came completes the op instead, without a message and
 * with the call failed before the receive (grpc_call_failed_before_recv_message).
 * The first case is reported as a refused call (log line, counters) and counted.
 */
static void oversize_refused(rpc_server *s, rpc_call *c)
{
    atomic_fetch_add(&s->oversize, 1);
    if (!s->refused) return;
    char method[128], m[192];
    call_method(c, method, sizeof method);
    snprintf(m, sizeof m, "request message larger than daemon.max_message_size = %llu bytes (refused by gRPC before "
             "it was read)", (unsigned long long)s->max_message);
    s->refused(s->ud, method, RPC_RESOURCE_EXHAUSTED, c->peer, m);
}

/* The request message arrived: its handler gets a detached thread of its
 * own. Without a message (oversize, or the client gone) the call is answered
 * here. */
static void on_request(rpc_server *s, rpc_call *c, bool success)
{
    if (!success || !c->recv) {
        if (!success && !grpc_call_failed_before_recv_message(c->call)) oversize_refused(s, c);
        /* The client went away or half-closed without a message. */
        rpc_call_reply(c, RPC_INVALID_ARGUMENT, "no request message", NULL, 0);
        call_unref(c);
        return;
    }
    pthread_t th;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    atomic_fetch_add(&s->handlers, 1);
    /* the poller alone sees TAG_CLOSE: a call already over starts abandoned */
    if (atomic_load(&c->closed)) {
        atomic_store(&c->hstate, H_ABANDONED);
        atomic_fetch_add(&s->abandoned, 1);
    } else {
        atomic_store(&c->hstate, H_RUNNING);
    }
    if (pthread_create(&th, &at, handler_thread, c)) {
        if (atomic_exchange(&c->hstate, H_DONE) == H_ABANDONED) atomic_fetch_sub(&s->abandoned, 1);
        atomic_fetch_sub(&s->handlers, 1);
        rpc_call_reply(c, RPC_RESOURCE_EXHAUSTED, "cannot start a handler thread", NULL, 0);
        call_unref(c);
    }
    pthread_attr_destroy(&at);
}

/* The call is over: after our status, or the client cancelled, or the
 * deadline passed. Its slot goes back; a handler still working on it is
 * counted as abandoned. */
static void on_close(rpc_server *s, rpc_call *c)
{
    atomic_store(&c->closed, true);
    slot_give(c);
    if (!atomic_load(&c->replied)) {
        int running = H_RUNNING;
        if (atomic_compare_exchange_strong(&c->hstate, &running, H_ABANDONED)) atomic_fetch_add(&s->abandoned, 1);
    }
    call_unref(c);
}

/* A batch of a stream (stream_batch) completed: wake the handler waiting on it. */
static void on_stream_batch(rpc_call *c, bool ok)
{
    pthread_mutex_lock(&c->smu);
    c->s_done = true;
    c->s_ok = ok;
    pthread_cond_signal(&c->scv);
    pthread_mutex_unlock(&c->smu);
    call_unref(c);
}

static void *poller(void *arg)
{
    rpc_server *s = arg;
    for (;;) {
        grpc_event ev = grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        if (ev.type == GRPC_QUEUE_SHUTDOWN) break;
        if (ev.type != GRPC_OP_COMPLETE) continue;
        tag *t = ev.tag;
        rpc_call *c = t->call;
        switch (t->kind) {
        case TAG_NEW:
            if (!ev.success) { /* the server is shutting down */
                call_unref(c);
                break;
            }
            request_next(s);
            on_new_call(s, c);
            break;
        case TAG_RECV: on_request(s, c, ev.success); break;
        case TAG_CLOSE: on_close(s, c); break;
        case TAG_SEND: call_unref(c); break;
        case TAG_STREAM: on_stream_batch(c, ev.success); break;
        case TAG_SHUTDOWN: atomic_store(&s->shutdown_done, true); break;
        }
    }
    return NULL;
}

static void set_err(char *err, size_t errlen, const char *fmt, const char *a)
{
    if (err && errlen) snprintf(err, errlen, fmt, a);
}

/* gRPC core's own TLS (its OpenSSL/BoringSSL binding): the certificate and
 * key, and with a client CA, every client must present a certificate it
 * signed, verified before any call is seen. */
static grpc_server_credentials *server_credentials(const rpc_tls *tls)
{
    if (!tls) return grpc_insecure_server_credentials_create();
    grpc_ssl_pem_key_cert_pair pair = {tls->key, tls->cert};
    grpc_ssl_server_certificate_config *cc = grpc_ssl_server_certificate_config_create(tls->ca, &pair, 1);
    grpc_ssl_server_credentials_options *opt = grpc_ssl_server_credentials_create_options_using_config(
        tls->ca ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE,
        cc); /* takes cc */
    return grpc_ssl_server_credentials_create_with_options(opt); /* takes opt */
}

/* The core says only that the bind failed: for TCP, a bind of our own
 * finds why (another daemon on the port, most often). */
static void listen_failed(const rpc_server_opts *o, char *err, size_t errlen)
{
    char why[128];
    if (strncmp(o->listen, "unix:", 5) && listen_tcp_why(o->listen, why, sizeof why) == 0) {
        snprintf(err, errlen, "listen tcp %s: %s", o->listen, why);
        return;
    }
    set_err(err, errlen, o->tls ? "cannot listen on %s (address in use, bad address, no permission, or the TLS "
                                  "certificate and key were refused by the gRPC core)"
                                : "cannot listen on %s (address in use, bad address or no permission)",
            o->listen);
}

/* The core's server with our channel arguments. */
static grpc_server *server_create(const rpc_server_opts *o)
{
    grpc_arg args[4];
    memset(args, 0, sizeof args);
    args[0].type = GRPC_ARG_INTEGER;
    args[0].key = (char *)GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
    args[0].value.integer = o->max_message_size > INT_MAX ? INT_MAX : (int)o->max_message_size;
    args[1].type = GRPC_ARG_INTEGER;
    args[1].key = (char *)GRPC_ARG_MAX_SEND_MESSAGE_LENGTH;
    args[1].value.integer = -1;
    /* Requests are tens of MB: a larger stream window than the default
     * 64 KiB saves the sender most of its waits for window updates. */
    args[2].type = GRPC_ARG_INTEGER;
    args[2].key = (char *)GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES;
    args[2].value.integer = 8 << 20;
    /* The core sets SO_REUSEPORT by default: a second daemon could bind the
     * same port and the kernel would split new connections between the two
     * (a job's AwaitProof NOT_FOUND on the other one). Without it the
     * second bind fails. */
    args[3].type = GRPC_ARG_INTEGER;
    args[3].key = (char *)GRPC_ARG_ALLOW_REUSEPORT;
    args[3].value.integer = 0;
    grpc_channel_args ch = {4, args};
    return grpc_server_create(&ch, NULL);
}

/* The listener's socket (0660) or port, with TLS when configured; false
 * when the core cannot bind it. A stale socket file was removed by the
 * caller's claim on the path (listen_claim.h), which removes ours after
 * rpc_server_stop. */
static bool server_listen(rpc_server *s, const rpc_server_opts *o)
{
    const char *path = NULL;
    if (!strncmp(o->listen, "unix:", 5)) {
        path = o->listen + 5;
        if (!strncmp(path, "//", 2)) path += 2;
    }
    /* The socket is created by bind(): the umask makes it 0660 from the start. */
    mode_t old = umask(0117);
    grpc_server_credentials *creds = server_credentials(o->tls);
    s->mutual_tls = o->tls && o->tls->ca;
    int port = grpc_server_add_http2_port(s->server, o->listen, creds);
    grpc_server_credentials_release(creds);
    umask(old);
    if (port == 0) return false;
    grpc_server_start(s->server);
    if (path) chmod(path, 0660);
    return true;
}

/* A started server whose poller did not start: shut down, its queue
 * drained here. */
static void server_stop_unpolled(rpc_server *s)
{
    atomic_store(&s->stopping, true);
    grpc_server_shutdown_and_notify(s->server, s->cq, &s->t_shutdown);
    grpc_server_cancel_all_calls(s->server);
    for (;;) {
        grpc_event ev = grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        if (ev.type != GRPC_OP_COMPLETE) break;
        tag *t = ev.tag;
        if (t->kind == TAG_SHUTDOWN) break;
        call_unref(t->call);
    }
}

static void server_free(rpc_server *s)
{
    grpc_server_destroy(s->server);
    grpc_completion_queue_shutdown(s->cq);
    while (grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type != GRPC_QUEUE_SHUTDOWN) {}
    grpc_completion_queue_destroy(s->cq);
    grpc_shutdown();
    free(s);
}

rpc_server *rpc_server_start(const rpc_server_opts *o, char *err, size_t errlen)
{
    rpc_server *s = calloc(1, sizeof *s);
    if (!s) return set_err(err, errlen, "%s", "out of memory"), NULL;
    s->handler = o->handler;
    s->refused = o->refused;
    s->ud = o->ud;
    s->max_calls = o->max_concurrent_calls ? o->max_concurrent_calls : 1024;
    s->max_message = o->max_message_size > INT_MAX ? INT_MAX : o->max_message_size;
    s->t_shutdown = (tag){TAG_SHUTDOWN, NULL};
    grpc_init();
    s->server = server_create(o);
    s->cq = grpc_completion_queue_create_for_next(NULL);
    grpc_server_register_completion_queue(s->server, s->cq, NULL);
    if (!server_listen(s, o)) {
        listen_failed(o, err, errlen);
        server_free(s);
        return NULL;
    }
    for (int i = 0; i < 8; i++) request_next(s);
    if (pthread_create(&s->poller, NULL, poller, s)) {
        set_err(err, errlen, "%s", "cannot start the poller thread");
        server_stop_unpolled(s);
        server_free(s);
        return NULL;
    }
    return s;
}

uint32_t rpc_server_active_calls(const rpc_server *s) { return atomic_load(&s->active); }
uint32_t rpc_server_max_calls(const rpc_server *s) { return s->max_calls; }
uint64_t rpc_server_oversize_refused(const rpc_server *s) { return atomic_load(&s->oversize); }

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

void rpc_server_stop(rpc_server *s, uint64_t wait_ms)
{
    if (!s) return;
    atomic_store(&s->stopping, true);
    grpc_server_shutdown_and_notify(s->server, s->cq, &s->t_shutdown);
    for (uint64_t t = 0; t < wait_ms && !atomic_load(&s->shutdown_done); t += 10) sleep_ms(10);
    grpc_server_cancel_all_calls(s->server);
    /* Handlers see their calls cancelled; wait for them all to return. */
    while (!atomic_load(&s->shutdown_done) || atomic_load(&s->active) || atomic_load(&s->handlers)) sleep_ms(5);
    grpc_server_destroy(s->server);
    grpc_completion_queue_shutdown(s->cq);
    pthread_join(s->poller, NULL);
    grpc_completion_queue_destroy(s->cq);
    grpc_shutdown();
    free(s);
}

/* ---- client -------------------------------------------------------------- */

struct rpc_client {
    grpc_channel *ch;
    char auth[512];
    bool has_auth;
};

rpc_client *rpc_client_open(const char *addr, const char *token, const rpc_tls *tls, char *err, size_t errlen)
{
    if (!strncmp(addr, "http://", 7)) addr += 7;
    if (token && strlen(token) > 400) return set_err(err, errlen, "%s", "token too long"), NULL;
    rpc_client *cl = calloc(1, sizeof *cl);
    if (!cl) return set_err(err, errlen, "%s", "out of memory"), NULL;
    grpc_init();
    grpc_arg args[3];
    memset(args, 0, sizeof args);
    args[0].type = GRPC_ARG_INTEGER;
    args[0].key = (char *)GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
    args[0].value.integer = -1;
    args[1].type = GRPC_ARG_INTEGER;
    args[1].key = (char *)GRPC_ARG_MAX_SEND_MESSAGE_LENGTH;
    args[1].value.integer = -1;
    args[2].type = GRPC_ARG_STRING;
    args[2].key = (char *)GRPC_SSL_TARGET_NAME_OVERRIDE_ARG;
    args[2].value.string = tls && tls->server_name ? (char *)tls->server_name : NULL;
    grpc_channel_args ca = {args[2].value.string ? 3 : 2, args};
    grpc_channel_credentials *creds;
    if (tls) {
        grpc_ssl_pem_key_cert_pair pair = {tls->key, tls->cert};
        creds = grpc_ssl_credentials_create_ex(tls->ca, tls->cert ? &pair : NULL, NULL, NULL);
    } else {
        creds = grpc_insecure_credentials_create();
    }
    cl->ch = grpc_channel_create(addr, creds, &ca);
    grpc_channel_credentials_release(creds);
    if (!cl->ch) {
        set_err(err, errlen, "cannot create a channel to %s", addr);
        free(cl);
        grpc_shutdown();
        return NULL;
    }
    if (token && *token) {
        snprintf(cl->auth, sizeof cl->auth, "Bearer %s", token);
        cl->has_auth = true;
    }
    return cl;
}

void rpc_client_close(rpc_client *cl)
{
    if (!cl) return;
    grpc_channel_destroy(cl->ch);
    free(cl);
    grpc_shutdown();
}

/* One unary exchange's buffers: what goes out (the bearer token, the
 * request) and what comes back (metadata, the reply, the status). */
typedef struct {
    grpc_metadata md;
    grpc_byte_buffer *send, *recv;
    grpc_metadata_array init_md, trail_md;
    grpc_status_code status;
    grpc_slice details;
} client_exchange;

static void client_exchange_init(client_exchange *x, const rpc_client *cl, const uint8_t *req, size_t req_len)
{
    memset(x, 0, sizeof *x);
    x->md.key = grpc_slice_from_static_string("authorization");
    x->md.value = grpc_slice_from_copied_string(cl->auth);
    grpc_slice sl = grpc_slice_from_copied_buffer((const char *)req, req_len);
    x->send = grpc_raw_byte_buffer_create(&sl, 1);
    grpc_slice_unref(sl);
    grpc_metadata_array_init(&x->init_md);
    grpc_metadata_array_init(&x->trail_md);
    x->status = GRPC_STATUS_UNKNOWN;
    x->details = grpc_empty_slice();
}

/* The six ops of a unary call, in one batch. */
static void client_exchange_ops(client_exchange *x, bool has_auth, grpc_op ops[6])
{
    memset(ops, 0, 6 * sizeof *ops);
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[0].data.send_initial_metadata.count = has_auth ? 1 : 0;
    ops[0].data.send_initial_metadata.metadata = has_auth ? &x->md : NULL;
    ops[1].op = GRPC_OP_SEND_MESSAGE;
    ops[1].data.send_message.send_message = x->send;
    ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[3].data.recv_initial_metadata.recv_initial_metadata = &x->init_md;
    ops[4].op = GRPC_OP_RECV_MESSAGE;
    ops[4].data.recv_message.recv_message = &x->recv;
    ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    ops[5].data.recv_status_on_client.trailing_metadata = &x->trail_md;
    ops[5].data.recv_status_on_client.status = &x->status;
    ops[5].data.recv_status_on_client.status_details = &x->details;
}

/* The completed exchange's status; its details in msg, the reply in *resp
 * (an OK status must come with a reply message). */
static grpc_status_code client_exchange_result(client_exchange *x, uint8_t **resp, size_t *resp_len, char *msg,
                                               size_t msglen)
{
    if (msglen)
        snprintf(msg, msglen, "%.*s", (int)GRPC_SLICE_LENGTH(x->details),
                 (const char *)GRPC_SLICE_START_PTR(x->details));
    if (x->status != GRPC_STATUS_OK) return x->status;
    if (!x->recv) {
        snprintf(msg, msglen, "OK status without a reply message");
        return GRPC_STATUS_INTERNAL;
    }
    return (*resp = buffer_bytes(x->recv, resp_len)) ? GRPC_STATUS_OK : GRPC_STATUS_RESOURCE_EXHAUSTED;
}

static void client_exchange_free(client_exchange *x)
{
    if (x->recv) grpc_byte_buffer_destroy(x->recv);
    grpc_byte_buffer_destroy(x->send);
    grpc_slice_unref(x->details);
    grpc_slice_unref(x->md.value);
    grpc_metadata_array_destroy(&x->init_md);
    grpc_metadata_array_destroy(&x->trail_md);
}

int rpc_client_call(rpc_client *cl, const char *method, const uint8_t *req, size_t req_len,
                    uint64_t timeout_ms, uint8_t **resp, size_t *resp_len, char *msg,
                    size_t msglen)
{
    *resp = NULL;
    *resp_len = 0;
    if (msglen) msg[0] = '\0';
    grpc_completion_queue *cq = grpc_completion_queue_create_for_pluck(NULL);
    gpr_timespec deadline = timeout_ms
        ? gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis((int64_t)timeout_ms, GPR_TIMESPAN))
        : gpr_inf_future(GPR_CLOCK_MONOTONIC);
    grpc_slice msl = grpc_slice_from_static_string(method);
    grpc_call *call = grpc_channel_create_call(cl->ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq, msl, NULL, deadline, NULL);
    client_exchange x;
    client_exchange_init(&x, cl, req, req_len);
    grpc_op ops[6];
    client_exchange_ops(&x, cl->has_auth, ops);
    int t;
    grpc_status_code status;
    if (grpc_call_start_batch(call, ops, 6, &t, NULL) != GRPC_CALL_OK) {
        status = GRPC_STATUS_INTERNAL;
        snprintf(msg, msglen, "cannot start the call");
    } else {
        grpc_completion_queue_pluck(cq, &t, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        status = client_exchange_result(&x, resp, resp_len, msg, msglen);
    }
    client_exchange_free(&x);
    grpc_call_unref(call);
    grpc_completion_queue_shutdown(cq);
    grpc_completion_queue_destroy(cq);
    return (int)status;
}

/*
 * One daemon per listening address. The daemon claims its gRPC address
 * before it opens the engine, so that a second daemon started on the same
 * address stops at once, naming the first, having loaded no parameters and
 * touched nothing of the first one's:
 *
 *   unix:///path  a write lock (fcntl) on PATH.lock, which holds the pid
 *                 of its holder, kept for the daemon's life. Only the
 *                 holder removes a socket file at the path: a stale one
 *                 when it takes the lock (its daemon is gone: the lock went
 *                 with it), its own when it releases the claim.
 *   host:port     a bind without SO_REUSEPORT (nothing listens there); the
 *                 gRPC listener binds without it too (grpc_adapter.c), and
 *                 that bind is what keeps a later daemon off the port.
 */
#ifndef CUZK_SERVER_LISTEN_CLAIM_H
#define CUZK_SERVER_LISTEN_CLAIM_H

#include <stddef.h>

typedef struct listen_claim listen_claim;

/* listen as [daemon] listen has it (config.c checked its form). NULL with
 * the reason in err: "listen unix:///p: another daemon (pid N) holds
 * /p.lock ...", "listen tcp h:p: address in use (another daemon?)", a path
 * that is not a socket, a lock file that cannot be made. */
listen_claim *listen_claim_take(const char *listen, char *err, size_t errlen);
/* Removes the unix socket (the claim's own) and releases the lock; NULL-safe.
 * After the gRPC listener has stopped. */
void listen_claim_release(listen_claim *c);

/* A failed bind's errno as an operator reads it: EADDRINUSE "address in
 * use (another daemon?)", EACCES, EADDRNOTAVAIL; else strerror's text. */
const char *listen_bind_error(int errnum);

/* Why host:port cannot be listened on, when a bind there fails now with
 * EADDRINUSE, EACCES or EADDRNOTAVAIL: "address in use (another daemon?)",
 * "permission denied (a port below 1024 needs CAP_NET_BIND_SERVICE)",
 * "no such local address"; 0. -1 when such a bind succeeds or the host
 * does not resolve (why untouched). For messages after a listener's own
 * bind failed. */
int listen_tcp_why(const char *hostport, char *why, size_t whylen);

#endif

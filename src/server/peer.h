/*
 * Who is calling: the decision the daemon's protected mode rests on (a TCP
 * listener without auth_token serves loopback callers and refuses the rest).
 * Pure string work on the peer address the gRPC core reports, so it is
 * tested on its own.
 */
#ifndef CUZK_SERVER_PEER_H
#define CUZK_SERVER_PEER_H

#include <stddef.h>

typedef enum srv_peer_kind {
    SRV_PEER_UNIX,     /* a unix socket: file permissions decide */
    SRV_PEER_LOOPBACK, /* TCP from 127.0.0.0/8, ::1 or ::ffff:127.0.0.0/104 */
    SRV_PEER_REMOTE    /* any other TCP peer, and anything that does not parse */
} srv_peer_kind;

/* Classifies a gRPC peer string: "unix:/path", "ipv4:127.0.0.1:5000",
 * "ipv6:[::1]:5000", "ipv6:[::ffff:127.0.0.1]:5000"; the bracket may be
 * percent-encoded ("ipv6:%5B::1%5D:5000"), as newer gRPC cores write it.
 * Fails closed: what it cannot read is SRV_PEER_REMOTE. */
srv_peer_kind srv_peer_classify(const char *peer);
const char *srv_peer_kind_name(srv_peer_kind k);

#endif

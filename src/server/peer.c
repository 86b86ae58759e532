/* The peer-address decision (see peer.h). */
#include "server/peer.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

const char *srv_peer_kind_name(srv_peer_kind k)
{
    switch (k) {
    case SRV_PEER_UNIX: return "unix socket";
    case SRV_PEER_LOOPBACK: return "loopback";
    default: return "remote";
    }
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Percent-decodes s into out; false on a bad escape, a NUL, or no room. */
static bool pct_decode(const char *s, char *out, size_t cap)
{
    size_t o = 0;
    for (; *s; s++) {
        int c = (unsigned char)*s;
        if (c == '%') {
            int h = hexval((unsigned char)s[1]), l = h < 0 ? -1 : hexval((unsigned char)s[2]);
            if (h < 0 || l < 0 || (h == 0 && l == 0)) return false;
            c = h * 16 + l;
            s += 2;
        }
        if (o + 1 >= cap) return false;
        out[o++] = (char)c;
    }
    out[o] = '\0';
    return true;
}

/* "host:port": the host part copied out, the port checked to be digits. */
static bool split_port(const char *hp, char *host, size_t cap)
{
    const char *colon = strrchr(hp, ':');
    if (!colon || colon == hp || !colon[1] || strlen(colon + 1) > 5) return false;
    for (const char *p = colon + 1; *p; p++)
        if (!isdigit((unsigned char)*p)) return false;
    size_t n = (size_t)(colon - hp);
    if (n >= cap) return false;
    memcpy(host, hp, n);
    host[n] = '\0';
    return true;
}

srv_peer_kind srv_peer_classify(const char *peer)
{
    if (!peer) return SRV_PEER_REMOTE;
    if (!strncmp(peer, "unix:", 5)) return SRV_PEER_UNIX;
    char dec[128], host[80];
    if (!pct_decode(peer, dec, sizeof dec)) return SRV_PEER_REMOTE;
    if (!strncmp(dec, "ipv4:", 5)) {
        struct in_addr a;
        if (!split_port(dec + 5, host, sizeof host) || inet_pton(AF_INET, host, &a) != 1) return SRV_PEER_REMOTE;
        return ((const uint8_t *)&a)[0] == 127 ? SRV_PEER_LOOPBACK : SRV_PEER_REMOTE;
    }
    if (!strncmp(dec, "ipv6:", 5)) {
        if (!split_port(dec + 5, host, sizeof host)) return SRV_PEER_REMOTE;
        size_t n = strlen(host);
        if (n < 3 || host[0] != '[' || host[n - 1] != ']') return SRV_PEER_REMOTE;
        host[n - 1] = '\0';
        char *addr = host + 1;
        char *zone = strchr(addr, '%'); /* a zone index (fe80::1%eth0) is never loopback */
        if (zone) return SRV_PEER_REMOTE;
        struct in6_addr a;
        if (inet_pton(AF_INET6, addr, &a) != 1) return SRV_PEER_REMOTE;
        static const uint8_t lo[16] = {[15] = 1};
        static const uint8_t mapped[12] = {[10] = 0xff, [11] = 0xff};
        if (!memcmp(a.s6_addr, lo, 16)) return SRV_PEER_LOOPBACK;
        if (!memcmp(a.s6_addr, mapped, 12) && a.s6_addr[12] == 127) return SRV_PEER_LOOPBACK;
        return SRV_PEER_REMOTE;
    }
    return SRV_PEER_REMOTE;
}

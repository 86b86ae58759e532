/*
 * The daemon's decisions on what a client sends, without a network:
 * - the peer address (protected mode serves loopback, refuses the rest):
 *   IPv4, IPv6, v4-mapped IPv6, percent-encoded brackets, unix sockets,
 *   and what does not parse (refused); random addresses from a fresh seed
 *   are checked against an independent rule computed from their bytes;
 * - request ids: any valid UTF-8 of 1-256 bytes (curio's WindowPoSt ids hold
 *   spaces and brackets), nothing else: random valid strings are accepted,
 *   random corruptions of them are refused exactly when they stop being
 *   UTF-8 (checked against a decoder written differently, below).
 * A request's kind and sector size: test_fil_kinds.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/v1/proving.pb-c.h"
#include "server/peer.h"
#include "server/service.h"
#include "testutil.h"

static cuzk_rng rng;

static void expect_peer(const char *peer, srv_peer_kind want)
{
    srv_peer_kind got = srv_peer_classify(peer);
    CHECK_MSG(got == want, "%s: %s, wanted %s", peer, srv_peer_kind_name(got), srv_peer_kind_name(want));
}

static void test_fixed_peers(void)
{
    expect_peer("unix:/run/cuzk/cuzk.sock", SRV_PEER_UNIX);
    expect_peer("unix:", SRV_PEER_UNIX);
    expect_peer("ipv4:127.0.0.1:40000", SRV_PEER_LOOPBACK);
    expect_peer("ipv4:127.255.3.4:1", SRV_PEER_LOOPBACK);
    expect_peer("ipv4:128.0.0.1:40000", SRV_PEER_REMOTE);
    expect_peer("ipv4:10.0.0.2:40000", SRV_PEER_REMOTE);
    expect_peer("ipv4:0.0.0.0:40000", SRV_PEER_REMOTE);
    expect_peer("ipv6:[::1]:40000", SRV_PEER_LOOPBACK);
    expect_peer("ipv6:%5B::1%5D:40000", SRV_PEER_LOOPBACK);
    expect_peer("ipv6:%5b::1%5d:40000", SRV_PEER_LOOPBACK);
    expect_peer("ipv6:[0:0:0:0:0:0:0:1]:5", SRV_PEER_LOOPBACK);
    expect_peer("ipv6:[::ffff:127.0.0.1]:40000", SRV_PEER_LOOPBACK);
    expect_peer("ipv6:%5B::ffff:127.9.8.7%5D:40000", SRV_PEER_LOOPBACK);
    expect_peer("ipv6:[::ffff:7f00:1]:40000", SRV_PEER_LOOPBACK);
    expect_peer("ipv6:[::ffff:10.0.0.1]:40000", SRV_PEER_REMOTE);
    expect_peer("ipv6:[::127.0.0.1]:40000", SRV_PEER_REMOTE); /* v4-compatible, not mapped */
    expect_peer("ipv6:[::2]:40000", SRV_PEER_REMOTE);
    expect_peer("ipv6:[::]:40000", SRV_PEER_REMOTE);
    expect_peer("ipv6:[fe80::1%25eth0]:40000", SRV_PEER_REMOTE);
    expect_peer("ipv6:[2001:db8::1]:40000", SRV_PEER_REMOTE);
    /* what does not parse is remote: the decision fails closed */
    const char *bad[] = {NULL, "", "127.0.0.1:5", "ipv4:127.0.0.1", "ipv4:127.0.0.1:", "ipv4:127.0.0.1:x",
                         "ipv4:127.0.0.1:123456", "ipv4:127.0.0.1.5:1", "ipv4:localhost:1", "ipv6:::1:40000",
                         "ipv6:[::1:40000", "ipv6:::1]:40000", "ipv6:[::1]", "ipv6:%5B::1%5:1", "ipv6:%00::1:1",
                         "ipv6:[::1]x:1", "ipv6:[127.0.0.1]:1", "ipv4:[::1]:1", "unix-abstract:x", "vsock:1:2",
                         "ipv4:%31%32%37.0.0.1:1x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) expect_peer(bad[i], SRV_PEER_REMOTE);
    /* percent-encoding of the address itself decodes like gRPC's URI form */
    expect_peer("ipv4:%31%32%37.0.0.1:1", SRV_PEER_LOOPBACK);
}

/* Random addresses, formatted the ways the core writes them; the expected
 * answer comes from the address bytes. */
static void test_random_peers(void)
{
    unsigned lo = 0, remote = 0;
    for (int i = 0; i < 20000; i++) {
        uint8_t a[16];
        uint64_t r0 = cuzk_rng_u64(&rng), r1 = cuzk_rng_u64(&rng);
        memcpy(a, &r0, 8);
        memcpy(a + 8, &r1, 8);
        unsigned port = (unsigned)(cuzk_rng_u64(&rng) % 65536);
        int form = (int)(cuzk_rng_u64(&rng) % 4);
        if (cuzk_rng_u64(&rng) % 4 == 0) a[form == 0 ? 0 : 12] = 127; /* loopback often enough */
        char text[INET6_ADDRSTRLEN], peer[128];
        bool want;
        if (form == 0) { /* ipv4 */
            inet_ntop(AF_INET, a, text, sizeof text);
            snprintf(peer, sizeof peer, "ipv4:%s:%u", text, port);
            want = a[0] == 127;
        } else {
            if (form >= 2) { /* v4-mapped */
                memset(a, 0, 10);
                a[10] = a[11] = 0xff;
            }
            if (cuzk_rng_u64(&rng) % 8 == 0) { /* ::1 */
                memset(a, 0, 16);
                a[15] = 1;
            }
            inet_ntop(AF_INET6, a, text, sizeof text);
            static const uint8_t one[16] = {[15] = 1};
            want = !memcmp(a, one, 16) ||
                   (a[10] == 0xff && a[11] == 0xff && !memcmp(a, (uint8_t[10]){0}, 10) && a[12] == 127);
            if (form == 3) snprintf(peer, sizeof peer, "ipv6:%%5B%s%%5D:%u", text, port);
            else snprintf(peer, sizeof peer, "ipv6:[%s]:%u", text, port);
        }
        srv_peer_kind got = srv_peer_classify(peer);
        CHECK_MSG(got == (want ? SRV_PEER_LOOPBACK : SRV_PEER_REMOTE), "%s: %s", peer, srv_peer_kind_name(got));
        lo += want, remote += !want;
    }
    fprintf(stderr, "test_peer: 20000 random peers, %u loopback, %u remote\n", lo, remote);
    CHECK(lo > 1000 && remote > 1000);
}

/* An independent UTF-8 check: decode code points with explicit ranges per
 * lead byte (the Unicode table "well-formed byte sequences"). */
static bool utf8_oracle(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        unsigned lo2 = 0x80, hi2 = 0xbf;
        size_t len;
        if (c <= 0x7f) len = 1;
        else if (c >= 0xc2 && c <= 0xdf) len = 2;
        else if (c == 0xe0) len = 3, lo2 = 0xa0;
        else if (c >= 0xe1 && c <= 0xec) len = 3;
        else if (c == 0xed) len = 3, hi2 = 0x9f;
        else if (c >= 0xee && c <= 0xef) len = 3;
        else if (c == 0xf0) len = 4, lo2 = 0x90;
        else if (c >= 0xf1 && c <= 0xf3) len = 4;
        else if (c == 0xf4) len = 4, hi2 = 0x8f;
        else return false;
        if (i + len > n) return false;
        for (size_t k = 1; k < len; k++) {
            unsigned b = s[i + k];
            unsigned lo = k == 1 ? lo2 : 0x80, hi = k == 1 ? hi2 : 0xbf;
            if (b < lo || b > hi) return false;
        }
        i += len;
    }
    return true;
}

static size_t put_cp(unsigned char *o, uint32_t cp)
{
    if (cp < 0x80) return o[0] = (unsigned char)cp, 1;
    if (cp < 0x800) return o[0] = (unsigned char)(0xc0 | cp >> 6), o[1] = (unsigned char)(0x80 | (cp & 0x3f)), 2;
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xe0 | cp >> 12), o[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
        o[2] = (unsigned char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (unsigned char)(0xf0 | cp >> 18), o[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
    o[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f)), o[3] = (unsigned char)(0x80 | (cp & 0x3f));
    return 4;
}

static void test_ids(void)
{
    char why[256];
    /* curio's ids, built as its Go code builds them (fmt %d of a byte slice) */
    const char *curio[] = {"porep-1000-7", "snap-1000-9", "ps-porep-1000-7-123", "ps-snap-1000-9-456",
                           "wdpost-1000-0-[12 34 56 78 90 123 200 255]", "winpost-1000-0c22384e5a7bc8ff"};
    for (size_t i = 0; i < sizeof curio / sizeof curio[0]; i++)
        CHECK_MSG(service_valid_request_id(curio[i], why, sizeof why), "%s: %s", curio[i], why);
    CHECK(service_valid_request_id("proof ünïcødé ✓ 𝄞", why, sizeof why));
    CHECK(service_valid_request_id("tab\there\nnewline", why, sizeof why)); /* escaped in logs */
    CHECK(!service_valid_request_id("", why, sizeof why) && strstr(why, "1-256"));
    char big[300];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    big[256] = 0;
    CHECK(service_valid_request_id(big, why, sizeof why));
    big[256] = 'x';
    big[257] = 0;
    CHECK(!service_valid_request_id(big, why, sizeof why) && strstr(why, "257 bytes"));
    const char *bad[] = {"\xff", "a\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "ab\xe2\x82",
                         "\x80", "\xf8\x88\x80\x80\x80"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_MSG(!service_valid_request_id(bad[i], why, sizeof why) && strstr(why, "UTF-8"), "bad[%zu] accepted", i);
    /* random strings of random code points; then random byte corruptions */
    unsigned ok = 0, refused = 0;
    for (int t = 0; t < 5000; t++) {
        unsigned char s[257];
        size_t n = 0;
        while (n < 200) {
            uint32_t cp;
            do {
                int r = (int)(cuzk_rng_u64(&rng) % 4);
                cp = r == 0 ? 1 + (uint32_t)(cuzk_rng_u64(&rng) % 0x7f)
                   : r == 1 ? 0x80 + (uint32_t)(cuzk_rng_u64(&rng) % 0x780)
                   : r == 2 ? 0x800 + (uint32_t)(cuzk_rng_u64(&rng) % 0xf800)
                            : 0x10000 + (uint32_t)(cuzk_rng_u64(&rng) % 0x100000);
            } while (cp >= 0xd800 && cp <= 0xdfff);
            n += put_cp(s + n, cp);
            if (cuzk_rng_u64(&rng) % 16 == 0) break;
        }
        s[n] = 0;
        CHECK_MSG(service_valid_request_id((char *)s, why, sizeof why), "valid string refused: %s", why);
        int flips = 1 + (int)(cuzk_rng_u64(&rng) % 3);
        for (int f = 0; f < flips; f++) {
            size_t at = (size_t)(cuzk_rng_u64(&rng) % n);
            s[at] = (unsigned char)(1 + cuzk_rng_u64(&rng) % 255);
        }
        bool want = utf8_oracle(s, n), got = service_valid_request_id((char *)s, why, sizeof why);
        CHECK_MSG(got == want, "corrupted id: validator %d, oracle %d", got, want);
        ok += got, refused += !got;
    }
    fprintf(stderr, "test_peer: 5000 corrupted ids, %u still UTF-8, %u refused\n", ok, refused);
    CHECK(refused > 1000);
}

int main(void)
{
    tu_init(&rng, "test_peer");
    test_fixed_peers();
    test_random_peers();
    test_ids();
    return tu_finish("test_peer");
}

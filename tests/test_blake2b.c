/*
 * BLAKE2b: RFC 7693 Appendix A and the reference implementation's keyed
 * known answers; then random lengths (block boundaries included), keys,
 * digest sizes and streaming splits against an independent oracle
 * (python3's hashlib.blake2b), and the Feistel 16-byte wrapper against the
 * general function.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/util/blake2b.h"
#include "cuzk/filecoin/filecoin.h"
#include "testutil.h"

static void hex_of(char *out, const uint8_t *in, size_t n) { tu_hex(out, in, n); }

static void test_known(void)
{
    static const struct { const char *msg; size_t keylen, msglen; const char *want; } kat[] = {
        /* RFC 7693 Appendix A: BLAKE2b-512("abc") */
        {"abc", 0, 3,
         "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923"},
        /* the empty message */
        {"", 0, 0,
         "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce"},
        /* blake2b-kat.txt: key 00..3f, message empty and 00..fe */
        {NULL, 64, 0,
         "10ebb67700b1868efb4417987acf4690ae9d972fb7a590c2f02871799aaa4786b5e996e8f0f4eb981fc214b005f42d2ff4233499391653df7aefcbc13fc51568"},
        {NULL, 64, 255,
         "142709d62e28fcccd0af97fad0f8465b971e82201dc51070faa0372aa43e92484be1c1e73ba10906d5d1853db6a4106e0a7bf9800d373d6dee2d46d62ef2a461"},
    };
    uint8_t key[64], seq[255], out[64];
    for (int i = 0; i < 64; i++) key[i] = (uint8_t)i;
    for (int i = 0; i < 255; i++) seq[i] = (uint8_t)i;
    for (size_t k = 0; k < sizeof kat / sizeof kat[0]; k++) {
        const uint8_t *m = kat[k].msg ? (const uint8_t *)kat[k].msg : seq;
        char hx[129];
        CHECK(cuzk_blake2b(out, 64, m, kat[k].msglen, key, kat[k].keylen) == 0);
        hex_of(hx, out, 64);
        CHECK_MSG(!strcmp(hx, kat[k].want), "vector %zu: %s", k, hx);
        /* streamed one byte at a time: the same */
        cuzk_blake2b_state s;
        CHECK(cuzk_blake2b_init(&s, 64, key, kat[k].keylen) == 0);
        for (size_t i = 0; i < kat[k].msglen; i++) cuzk_blake2b_update(&s, m + i, 1);
        cuzk_blake2b_final(&s, out);
        hex_of(hx, out, 64);
        CHECK_MSG(!strcmp(hx, kat[k].want), "vector %zu streamed: %s", k, hx);
    }
    /* bad lengths are refused */
    CHECK(cuzk_blake2b(out, 0, "a", 1, NULL, 0) == -1 && cuzk_blake2b(out, 65, "a", 1, NULL, 0) == -1);
    CHECK(cuzk_blake2b(out, 64, "a", 1, key, 65) == -1);
    /* the Feistel wrapper is the general function */
    uint8_t a[64], b[64];
    cuzk_fil_blake2b512_16(a, seq);
    cuzk_blake2b(b, 64, seq, 16, NULL, 0);
    CHECK(!memcmp(a, b, 64));
}

#define NCASE 200

static void test_oracle(cuzk_rng *rng)
{
    if (system("python3 -c 'import hashlib' 2>/dev/null") != 0) {
        printf("test_blake2b: python3 not available: oracle comparison skipped\n");
        return;
    }
    char in_path[] = "/tmp/cuzk_b2b_inXXXXXX";
    int fd = mkstemp(in_path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    static uint8_t msg[NCASE][1100], key[NCASE][64];
    static size_t mlen[NCASE], klen[NCASE], olen[NCASE];
    static const size_t edges[] = {0, 1, 111, 112, 127, 128, 129, 255, 256, 257, 1024};
    for (int i = 0; i < NCASE; i++) {
        mlen[i] = i < 11 ? edges[i] : (size_t)(cuzk_rng_u64(rng) % 1100);
        klen[i] = (i % 3 == 0) ? 0 : (size_t)(cuzk_rng_u64(rng) % 65);
        olen[i] = 1 + (size_t)(cuzk_rng_u64(rng) % 64);
        cuzk_rng_bytes(rng, msg[i], mlen[i]);
        cuzk_rng_bytes(rng, key[i], klen[i]);
        char hm[2201], hk[129];
        hex_of(hm, msg[i], mlen[i]);
        hex_of(hk, key[i], klen[i]);
        fprintf(f, "%zu %s %s\n", olen[i], klen[i] ? hk : "-", mlen[i] ? hm : "-");
    }
    fclose(f);
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import sys,hashlib\n"
             "for l in open(sys.argv[1]):\n"
             " o,k,m=l.split()\n"
             " k=b\"\" if k==\"-\" else bytes.fromhex(k)\n"
             " m=b\"\" if m==\"-\" else bytes.fromhex(m)\n"
             " print(hashlib.blake2b(m,digest_size=int(o),key=k).hexdigest())' %s",
             in_path);
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL);
    int n = 0;
    char line[256];
    while (p && n < NCASE && fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = 0;
        uint8_t out[64];
        char hx[129];
        cuzk_blake2b(out, olen[n], msg[n], mlen[n], key[n], klen[n]);
        hex_of(hx, out, olen[n]);
        CHECK_MSG(!strcmp(hx, line), "case %d (out %zu, key %zu, msg %zu): %s, python %s", n, olen[n], klen[n],
                  mlen[n], hx, line);
        /* streamed in random pieces */
        cuzk_blake2b_state s;
        cuzk_blake2b_init(&s, olen[n], key[n], klen[n]);
        for (size_t off = 0; off < mlen[n];) {
            size_t piece = 1 + (size_t)(cuzk_rng_u64(rng) % 300);
            if (piece > mlen[n] - off) piece = mlen[n] - off;
            cuzk_blake2b_update(&s, msg[n] + off, piece);
            off += piece;
        }
        cuzk_blake2b_final(&s, out);
        hex_of(hx, out, olen[n]);
        CHECK_MSG(!strcmp(hx, line), "case %d streamed: %s", n, hx);
        n++;
    }
    if (p) CHECK(pclose(p) == 0);
    CHECK_MSG(n == NCASE, "python gave %d of %d digests", n, NCASE);
    unlink(in_path);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_blake2b");
    test_known();
    test_oracle(&rng);
    return tu_finish("test_blake2b");
}

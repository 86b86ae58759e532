/*
 * Base64: random byte strings against OpenSSL's EVP_EncodeBlock (the
 * oracle), round trips, and strings that must be refused (a bad character
 * at a random place, a length not a multiple of 4, padding in the middle or
 * three '=', whitespace).
 */
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/base64.h"
#include "testutil.h"

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_base64");
    for (int round = 0; round < 3000; round++) {
        uint8_t in[200];
        size_t n = (size_t)(cuzk_rng_u64(&rng) % (sizeof in + 1));
        cuzk_rng_bytes(&rng, in, n);
        char got[280], want[280];
        CHECK(cuzk_base64_len(n) < sizeof got);
        cuzk_base64_encode(got, in, n);
        int wn = EVP_EncodeBlock((unsigned char *)want, in, (int)n);
        CHECK_MSG(wn >= 0 && (size_t)wn == cuzk_base64_len(n) && !strcmp(got, want),
                  "encode of %zu bytes: %s, OpenSSL %s", n, got, want);
        size_t len = 0;
        uint8_t *back = cuzk_base64_decode(want, strlen(want), &len);
        CHECK_MSG(back && len == n && !memcmp(back, in, n), "decode of %zu bytes", n);
        free(back);
        size_t sl = strlen(want);
        if (!sl) continue;
        char t[280];
        static const char bad[] = " \n\t-_.:!*\"";
        memcpy(t, want, sl + 1);
        t[cuzk_rng_u64(&rng) % sl] = bad[cuzk_rng_u64(&rng) % (sizeof bad - 1)];
        back = cuzk_base64_decode(t, sl, &len);
        CHECK_MSG(!back, "accepted \"%s\"", t);
        free(back);
        /* one character cut: no longer a multiple of 4 */
        back = cuzk_base64_decode(want, sl - 1, &len);
        CHECK(!back);
        free(back);
        /* padding anywhere but the end of the last block */
        if (sl > 4) {
            memcpy(t, want, sl + 1);
            t[cuzk_rng_u64(&rng) % (sl - 4)] = '=';
            back = cuzk_base64_decode(t, sl, &len);
            CHECK_MSG(!back, "accepted padding inside \"%s\"", t);
            free(back);
        }
    }
    size_t len;
    uint8_t *p = cuzk_base64_decode("A===", 4, &len);
    CHECK(!p);
    free(p);
    p = cuzk_base64_decode("=AAA", 4, &len);
    CHECK(!p);
    free(p);
    p = cuzk_base64_decode("AA=A", 4, &len);
    CHECK(!p);
    free(p);
    p = cuzk_base64_decode("", 0, &len);
    CHECK(p && len == 0);
    free(p);
    return tu_finish("test_base64");
}

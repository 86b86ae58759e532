/*
 * Hex strings: random byte arrays against libc's printf ("%02x" / "%02X"),
 * round trips, and every way a string can be wrong (length, a non-hex
 * character at a random place: sign, space, prefix, letters past f, NUL).
 */
#include <stdio.h>
#include <string.h>

#include "cuzk/util/hex.h"
#include "testutil.h"

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_hex");
    for (int round = 0; round < 2000; round++) {
        uint8_t in[64], back[64];
        size_t n = (size_t)(cuzk_rng_u64(&rng) % 65);
        cuzk_rng_bytes(&rng, in, n);
        char got[129], want[129] = "", upper[129] = "";
        cuzk_hex_encode(got, in, n);
        for (size_t i = 0; i < n; i++) {
            snprintf(want + 2 * i, 3, "%02x", in[i]);
            snprintf(upper + 2 * i, 3, "%02X", in[i]);
        }
        CHECK_MSG(!strcmp(got, want), "encode of %zu bytes: %s, printf %s", n, got, want);
        CHECK(cuzk_hex_decode(back, n, got) == 0 && !memcmp(back, in, n));
        CHECK(cuzk_hex_decode(back, n, upper) == 0 && !memcmp(back, in, n));
        /* one character too many or too few */
        char longer[131];
        snprintf(longer, sizeof longer, "%s0", want);
        CHECK(cuzk_hex_decode(back, n, longer) == -1);
        if (n) {
            char shorter[129];
            memcpy(shorter, want, 2 * n - 1);
            shorter[2 * n - 1] = 0;
            CHECK(cuzk_hex_decode(back, n, shorter) == -1);
            /* a bad character anywhere */
            static const char bad[] = " +-xXgGzZ:/@`\t\n";
            char t[129];
            memcpy(t, want, 2 * n + 1);
            size_t at = (size_t)(cuzk_rng_u64(&rng) % (2 * n));
            t[at] = bad[cuzk_rng_u64(&rng) % (sizeof bad - 1)];
            CHECK_MSG(cuzk_hex_decode(back, n, t) == -1, "accepted \"%s\"", t);
            char p[131];
            snprintf(p, sizeof p, "0x%s", want);
            p[2 * n] = 0; /* the right length, with a prefix */
            CHECK_MSG(cuzk_hex_decode(back, n, p) == -1, "accepted \"%s\"", p);
        }
    }
    uint8_t b[2];
    CHECK(cuzk_hex_decode(b, 2, "") == -1 && cuzk_hex_decode(b, 0, "") == 0);
    return tu_finish("test_hex");
}

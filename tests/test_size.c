/*
 * cuzk_size_parse: random values under every unit, written as people write
 * them (with and without a space), against the multiplier computed here in
 * 128 bits (so overflow is judged independently); then bad input: signs,
 * one-letter units, lower-case IEC units, decimals, hex, trailing text,
 * leading space, values one past 2^64 - 1, random bytes.
 */
#include <stdio.h>
#include <string.h>

#include "cuzk/util/size.h"
#include "testutil.h"

static const struct {
    const char *unit;
    unsigned base, power; /* the multiplier base^power */
} units[] = {
    {"", 10, 0},   {"B", 10, 0},  {"KiB", 2, 10}, {"MiB", 2, 20}, {"GiB", 2, 30}, {"TiB", 2, 40},
    {"KB", 10, 3}, {"kB", 10, 3}, {"MB", 10, 6},  {"GB", 10, 9},  {"TB", 10, 12},
};
#define NUNITS (sizeof units / sizeof units[0])

static unsigned __int128 mul_of(size_t u)
{
    unsigned __int128 m = 1;
    for (unsigned i = 0; i < units[u].power; i++) m *= units[u].base;
    return m;
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_size");
    char s[96];
    uint64_t v;
    for (int round = 0; round < 20000; round++) {
        size_t u = (size_t)(cuzk_rng_u64(&rng) % NUNITS);
        /* numbers of every length: near the overflow edge of this unit too */
        uint64_t n = cuzk_rng_u64(&rng) >> (cuzk_rng_u64(&rng) % 64);
        if (round % 7 == 0) n = (uint64_t)((unsigned __int128)UINT64_MAX / mul_of(u)) + (cuzk_rng_u64(&rng) % 3) - 1;
        bool space = units[u].unit[0] && (cuzk_rng_u64(&rng) & 1);
        snprintf(s, sizeof s, "%llu%s%s", (unsigned long long)n, space ? " " : "", units[u].unit);
        unsigned __int128 want = (unsigned __int128)n * mul_of(u);
        v = 12345;
        bool ok = cuzk_size_parse(s, &v);
        if (want > UINT64_MAX) {
            CHECK_MSG(!ok && v == 12345, "\"%s\" overflows, accepted as %llu", s, (unsigned long long)v);
        } else {
            CHECK_MSG(ok && v == (uint64_t)want, "\"%s\": %s %llu, want %llu", s, ok ? "got" : "refused",
                      (unsigned long long)v, (unsigned long long)want);
        }
        /* leading zeros change nothing */
        snprintf(s, sizeof s, "000%llu%s", (unsigned long long)n, units[u].unit);
        if (want <= UINT64_MAX) CHECK_MSG(cuzk_size_parse(s, &v) && v == (uint64_t)want, "\"%s\"", s);
    }
    /* the overflow edge of the number itself */
    CHECK(cuzk_size_parse("18446744073709551615", &v) && v == UINT64_MAX);
    CHECK(!cuzk_size_parse("18446744073709551616", &v));
    CHECK(cuzk_size_parse("16777215TiB", &v) && v == 16777215ull << 40);
    CHECK(!cuzk_size_parse("16777216TiB", &v));
    /* bad input, each refused and *out left alone */
    static const char *bad[] = {
        "", " ", "B", "KiB", "-1", "+1", "-1KiB", " 2KiB", "2KiB ", "2 ", "2\tKiB", "2K", "32G", "8M", "1T",
        "2k", "2kib", "2KIB", "2Kib", "2kiB", "2Ki", "2iB", "2KBi", "2KiBB", "2 KiB B", "1.5GiB", "1e3",
        "0x10", "0x10B", "2KiB\n", "2KiB,", "2,048", "2_048", "2 048", "GiB2", "2GiBx", "2EiB", "2PiB",
        "2PB", "2b", "2bytes", "２KiB", "2KiB\x01",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        v = 777;
        CHECK_MSG(!cuzk_size_parse(bad[i], &v) && v == 777, "accepted \"%s\" as %llu", bad[i],
                  (unsigned long long)v);
    }
    CHECK(!cuzk_size_parse(NULL, &v));
    /* random strings: whatever is accepted is digits, optional spaces, a unit */
    static const char alphabet[] = "0123456789 KMGTikBbx-+.";
    for (int round = 0; round < 20000; round++) {
        size_t len = (size_t)(cuzk_rng_u64(&rng) % 10);
        for (size_t i = 0; i < len; i++) s[i] = alphabet[cuzk_rng_u64(&rng) % (sizeof alphabet - 1)];
        s[len] = 0;
        if (!cuzk_size_parse(s, &v)) continue;
        size_t d = strspn(s, "0123456789"), sp = strspn(s + d, " ");
        bool unit_ok = false;
        for (size_t u = 0; u < NUNITS; u++)
            if (!strcmp(s + d + sp, units[u].unit) && (units[u].unit[0] || !sp)) unit_ok = true;
        CHECK_MSG(d > 0 && unit_ok, "accepted \"%s\"", s);
    }
    return tu_finish("test_size");
}

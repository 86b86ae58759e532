/* Byte sizes with units (include/cuzk/util/size.h). */
#include "cuzk/util/size.h"

#include <string.h>

bool cuzk_size_parse(const char *s, uint64_t *out)
{
    static const struct {
        const char *unit;
        uint64_t mul;
    } units[] = {
        {"", 1},
        {"B", 1},
        {"KiB", 1ull << 10},
        {"MiB", 1ull << 20},
        {"GiB", 1ull << 30},
        {"TiB", 1ull << 40},
        {"KB", 1000ull},
        {"kB", 1000ull},
        {"MB", 1000000ull},
        {"GB", 1000000000ull},
        {"TB", 1000000000000ull},
    };
    if (!s || *s < '0' || *s > '9') return false;
    uint64_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    const char *digits_end = s;
    while (*s == ' ') s++;
    if (s != digits_end && !*s) return false; /* spaces, then nothing */
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(s, units[i].unit)) continue;
        if (v > UINT64_MAX / units[i].mul) return false;
        *out = v * units[i].mul;
        return true;
    }
    return false;
}

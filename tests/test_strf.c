/*
 * Formatted strings of any length (cuzk/util/strf.h) against libc's snprintf into
 * a buffer large enough: random strings from empty to 1 MiB (past any fixed
 * buffer a log line or an error message had), mixed with integers, and the
 * va_list form used twice over one argument list through va_copy.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/strf.h"
#include "testutil.h"

static char *twice(char **second, const char *fmt, ...)
{
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    char *first = cuzk_vstrf(fmt, ap);
    *second = cuzk_vstrf(fmt, aq);
    va_end(aq);
    va_end(ap);
    return first;
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_strf");
    enum { MAX = 1 << 20 };
    char *word = malloc(MAX + 1), *want = malloc(MAX + 64);
    for (int round = 0; round < 60 && word && want; round++) {
        size_t n = round < 4 ? (size_t)round : (size_t)(cuzk_rng_u64(&rng) % (MAX + 1));
        for (size_t i = 0; i < n; i++) word[i] = (char)(' ' + cuzk_rng_u64(&rng) % 95);
        word[n] = '\0';
        long long k = (long long)cuzk_rng_u64(&rng);
        snprintf(want, MAX + 64, "%lld:[%s]:%zu", k, word, n);
        char *got = cuzk_strf("%lld:[%s]:%zu", k, word, n);
        CHECK_MSG(got && !strcmp(got, want), "%zu bytes: %s", n, got ? "differs from snprintf" : "NULL");
        char *again = NULL, *first = twice(&again, "%s|%lld", word, k);
        snprintf(want, MAX + 64, "%s|%lld", word, k);
        CHECK_MSG(first && again && !strcmp(first, want) && !strcmp(again, want), "va_list form, %zu bytes", n);
        free(got), free(first), free(again);
    }
    CHECK(word && want);
    char *empty = cuzk_strf("%s", "");
    CHECK(empty && empty[0] == '\0');
    free(empty), free(word), free(want);
    return tu_finish("test_strf");
}

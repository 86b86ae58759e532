#include "cuzk/util/strf.h"

#include <stdio.h>
#include <stdlib.h>

char *cuzk_vstrf(const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap); /* the first pass only measures; ap stays for the second */
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    char *s = n < 0 ? NULL : malloc((size_t)n + 1);
    if (s) vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *cuzk_strf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = cuzk_vstrf(fmt, ap);
    va_end(ap);
    return s;
}

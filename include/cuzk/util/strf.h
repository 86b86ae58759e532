/*
 * Formatted strings of any length: printf's formatting into a buffer sized
 * from the output, so that a message naming a long path and a parser's
 * reason is never cut. The caller frees the result; NULL when the format is
 * invalid for vsnprintf or memory runs out.
 */
#ifndef CUZK_STRF_H
#define CUZK_STRF_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

char *cuzk_strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same over a va_list, which it consumes (va_end stays the caller's). */
char *cuzk_vstrf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#ifdef __cplusplus
}
#endif
#endif

/*
 * Byte sizes as people write them, with one meaning everywhere (the
 * command line, the daemon's configuration, request files): the IEC units
 * KiB, MiB, GiB, TiB are powers of 1024 (Filecoin's sector sizes: 2KiB,
 * 32GiB); the SI units KB (or kB), MB, GB, TB are powers of 1000; B or no
 * unit is bytes. A unit of one letter ("32G") is refused: it would have to
 * mean one of the two.
 */
#ifndef CUZK_SIZE_H
#define CUZK_SIZE_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "<digits>[spaces]<unit>" -> *out (untouched on failure). False for an
 * empty string, a sign, a number that is not decimal digits, an unknown or
 * one-letter unit, trailing characters, or a value past 2^64 - 1. */
bool cuzk_size_parse(const char *s, uint64_t *out);

#ifdef __cplusplus
}
#endif

#endif

/* Shared by the circom readers: iden3's binary container, errors, files. */
#ifndef CUZK_CIRCOM_INTERNAL_H
#define CUZK_CIRCOM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/circom/circom.h"

/* Fills err (may be NULL) and returns code. */
int circom_fail(cuzk_circom_error *err, int code, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*
 * iden3 binary container (binfileutils): magic[4], u32 version, u32 number
 * of sections, then per section u32 type, u64 size, size bytes. Sections are
 * found by type. Types 1..max_type are "known": each may appear at most once
 * (a second copy is an error) and is located in sec[type]; others are
 * skipped. Every section must lie inside the input.
 */
typedef struct circom_section {
    bool present;
    uint64_t off, size; /* content offset and length */
} circom_section;

int circom_container(const uint8_t *buf, size_t len, const char *what, const char magic[4],
                     uint32_t version, circom_section *sec, unsigned max_type,
                     cuzk_circom_error *err);

/* Little-endian readers. */
static inline uint32_t circom_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t circom_u64(const uint8_t *p)
{
    return (uint64_t)circom_u32(p) | (uint64_t)circom_u32(p + 4) << 32;
}
/* n little-endian 64-bit limbs from 8·n bytes. */
void circom_limbs(uint64_t *out, const uint8_t *p, size_t n);

/*
 * The field header shared by .r1cs and .wtns (and .zkey's twice): u32 n8 then
 * an n8-byte prime, which must be 32 and r (want_q false) or 48 and p. what
 * names the part for messages. On success *pos is advanced past it.
 */
int circom_field_header(const uint8_t *buf, uint64_t end, uint64_t *pos, bool want_q, const char *what,
                        cuzk_circom_error *err);

/* A plain 32-byte little-endian integer < r into out (plain limbs). */
bool circom_fr_plain_ok(const uint8_t *p, uint64_t out[4]);

/* Read-only mapping of a whole file (empty files map to a 1-byte dummy). */
typedef struct circom_map { uint8_t *p; size_t len; bool mapped; } circom_map;
int circom_map_file(circom_map *m, const char *path, const char *what, cuzk_circom_error *err);
void circom_unmap(circom_map *m);

#endif

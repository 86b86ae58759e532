/*
 * cuzk_file_read: a whole file into memory, the library's one reader of
 * small and mid-sized inputs (request files, C1 JSON, proofs, configuration).
 * Large inputs (parameters, PCE files, zkeys) are mapped by their own layers.
 */
#ifndef CUZK_FILE_H
#define CUZK_FILE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Reads path to its end into a malloc'd buffer (*out, free() it) of *len
 * bytes followed by a NUL, so text can be parsed in place; reads until EOF,
 * so pipes and /proc files work too. max > 0 bounds the size: a longer file
 * is CUZK_ERR_BAD_LENGTH (*len is then max + 1, "more than max"). Other
 * failures: CUZK_ERR_IO with errno saying why (ENOENT, EISDIR, ...),
 * CUZK_ERR_NO_MEMORY, CUZK_ERR_INVALID_ARG. On failure *out is NULL. */
int cuzk_file_read(const char *path, size_t max, uint8_t **out, size_t *len);

#ifdef __cplusplus
}
#endif

#endif

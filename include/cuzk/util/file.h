/*
 * cuzk_file_read: a whole file into memory, the library's one reader of
 * small and mid-sized inputs (request files, C1 JSON, proofs, configuration).
 * cuzk_file_pread_full: a byte range of an open file, the reader of the
 * large inputs a daemon keeps using (parameters, PCE files): read, never
 * mapped, so that a file cut or rewritten on disk meanwhile is a short read
 * or bytes that fail their checks, not a SIGBUS or SIGSEGV in whichever
 * thread touches the mapping next.
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

/* Reads len bytes at offset off of fd into buf (pread, retried on EINTR and
 * partial reads; safe to call from several threads on one fd). *got (may be
 * NULL) receives the bytes read. CUZK_OK when all len were read;
 * CUZK_ERR_BAD_LENGTH when the file ends first (it is shorter than the
 * caller was told: cut since its size was taken); CUZK_ERR_IO with errno
 * saying why; CUZK_ERR_INVALID_ARG for a NULL buf with len > 0. */
int cuzk_file_pread_full(int fd, void *buf, size_t len, uint64_t off, size_t *got);

#ifdef __cplusplus
}
#endif

#endif

/* Whole-file and byte-range reads (include/cuzk/util/file.h). */
#include "cuzk/util/file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/util/error.h"

int cuzk_file_read(const char *path, size_t max, uint8_t **out, size_t *len)
{
    if (!out || !len) return CUZK_ERR_INVALID_ARG;
    *out = NULL;
    *len = 0;
    if (!path) return CUZK_ERR_INVALID_ARG;
    FILE *f = fopen(path, "rb");
    if (!f) return CUZK_ERR_IO;
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || S_ISDIR(st.st_mode)) {
        fclose(f);
        errno = EISDIR;
        return CUZK_ERR_IO;
    }
    /* the size a regular file reports is the first guess; EOF decides */
    size_t cap = S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size + 1 : 65536, n = 0;
    if (max && cap > max + 2) cap = max + 2;
    uint8_t *b = malloc(cap);
    int rc = b ? CUZK_OK : CUZK_ERR_NO_MEMORY;
    while (rc == CUZK_OK) {
        if (n + 1 == cap) { /* keep a byte for the NUL */
            uint8_t *nb = cap > SIZE_MAX / 2 ? NULL : realloc(b, cap * 2);
            if (!nb) {
                rc = CUZK_ERR_NO_MEMORY;
                break;
            }
            b = nb, cap *= 2;
        }
        size_t r = fread(b + n, 1, cap - 1 - n, f);
        n += r;
        if (max && n > max) {
            rc = CUZK_ERR_BAD_LENGTH;
            n = max + 1;
        } else if (r == 0) {
            if (ferror(f)) rc = CUZK_ERR_IO;
            break;
        }
    }
    int e = errno;
    fclose(f);
    if (rc) {
        free(b);
        *len = rc == CUZK_ERR_BAD_LENGTH ? n : 0;
        errno = e;
        return rc;
    }
    b[n] = 0;
    *out = b;
    *len = n;
    return CUZK_OK;
}

int cuzk_file_pread_full(int fd, void *buf, size_t len, uint64_t off, size_t *got)
{
    size_t done = 0;
    int rc = buf || !len ? CUZK_OK : CUZK_ERR_INVALID_ARG;
    while (rc == CUZK_OK && done < len) {
        size_t want = len - done;
        if (want > ((size_t)1 << 30)) want = (size_t)1 << 30; /* one call's bound on some kernels */
        ssize_t r = pread(fd, (uint8_t *)buf + done, want, (off_t)(off + done));
        if (r > 0) done += (size_t)r;
        else if (r == 0) rc = CUZK_ERR_BAD_LENGTH;
        else if (errno != EINTR) rc = CUZK_ERR_IO;
    }
    if (got) *got = done;
    return rc;
}

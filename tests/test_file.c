/*
 * cuzk_file_read: files of random sizes (empty, around the first guess and
 * the doubling steps, up to a few MiB) with random bytes read back exactly
 * with a NUL after them; the size bound (a file of max bytes is read, max + 1
 * is CUZK_ERR_BAD_LENGTH); a FIFO and a /proc file (no size up front); a
 * missing path (ENOENT), a directory (EISDIR), NULL arguments.
 * cuzk_file_pread_full: random ranges of a random file read back exactly;
 * a range past the end (the file cut) is CUZK_ERR_BAD_LENGTH with the bytes
 * that were there; a write-only fd is CUZK_ERR_IO.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuzk/util/error.h"
#include "cuzk/util/file.h"
#include "testutil.h"

static void write_file(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(b, 1, n, f) == n);
    if (f) fclose(f);
}

/* cuzk_file_pread_full over a file of n random bytes at path. */
static void pread_ranges(cuzk_rng *rng, const char *path, uint8_t *src, size_t cap)
{
    const size_t n = 1 + cuzk_rng_u64(rng) % cap;
    cuzk_rng_bytes(rng, src, n);
    write_file(path, src, n);
    uint8_t *buf = malloc(cap + 4096);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    CHECK(fd >= 0 && buf);
    for (int round = 0; fd >= 0 && buf && round < 40; round++) {
        const size_t off = cuzk_rng_u64(rng) % n, len = cuzk_rng_u64(rng) % (n - off + 1);
        size_t got = SIZE_MAX;
        CHECK_MSG(cuzk_file_pread_full(fd, buf, len, off, &got) == CUZK_OK && got == len && !memcmp(buf, src + off, len),
                  "%zu bytes at %zu of %zu", len, off, n);
        /* past the end: what there was, and the shortfall said */
        const size_t over = 1 + cuzk_rng_u64(rng) % 4096;
        CHECK_MSG(cuzk_file_pread_full(fd, buf, n - off + over, off, &got) == CUZK_ERR_BAD_LENGTH && got == n - off &&
                      !memcmp(buf, src + off, got),
                  "%zu bytes at %zu of %zu: got %zu", n - off + over, off, n, got);
    }
    /* cut while open: the same fd now reads short */
    const size_t cut = cuzk_rng_u64(rng) % n;
    CHECK(truncate(path, (off_t)cut) == 0);
    size_t got = SIZE_MAX;
    CHECK_MSG(fd >= 0 && cuzk_file_pread_full(fd, buf, n, 0, &got) == CUZK_ERR_BAD_LENGTH && got == cut,
              "cut to %zu of %zu: got %zu", cut, n, got);
    if (fd >= 0) close(fd);
    fd = open(path, O_WRONLY | O_CLOEXEC);
    errno = 0;
    CHECK(fd >= 0 && cuzk_file_pread_full(fd, buf, 1, 0, NULL) == CUZK_ERR_IO && errno == EBADF);
    CHECK(cuzk_file_pread_full(fd, NULL, 1, 0, NULL) == CUZK_ERR_INVALID_ARG);
    if (fd >= 0) close(fd);
    free(buf);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_file");
    char dir[] = "/tmp/cuzk_test_file.XXXXXX", path[64], fifo[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/f", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    const size_t cap = (size_t)4 << 20;
    uint8_t *src = malloc(cap), *got;
    size_t len;
    for (int round = 0; round < 60; round++) {
        static const size_t edges[] = {0, 1, 65535, 65536, 65537, 131071, 131072, 131073};
        size_t n = round < 8 ? edges[round] : (size_t)(cuzk_rng_u64(&rng) % (cuzk_rng_u64(&rng) & 1 ? 70000 : cap));
        cuzk_rng_bytes(&rng, src, n);
        write_file(path, src, n);
        int rc = cuzk_file_read(path, 0, &got, &len);
        CHECK_MSG(rc == CUZK_OK && len == n && !memcmp(got, src, n) && got[n] == 0, "%zu bytes: rc %d, len %zu", n,
                  rc, len);
        if (!rc) free(got);
        /* the bound: exactly max is fine, one byte more is not */
        size_t max = n ? n : 1;
        rc = cuzk_file_read(path, max, &got, &len);
        CHECK_MSG(rc == CUZK_OK && len == n, "%zu bytes with max %zu: rc %d", n, max, rc);
        if (!rc) free(got);
        if (n > 1) {
            size_t below = 1 + (size_t)(cuzk_rng_u64(&rng) % (n - 1));
            rc = cuzk_file_read(path, below, &got, &len);
            CHECK_MSG(rc == CUZK_ERR_BAD_LENGTH && got == NULL && len == below + 1, "%zu bytes with max %zu: rc %d",
                      n, below, rc);
        }
    }
    /* a FIFO: no size up front, read to EOF */
    CHECK(mkfifo(fifo, 0600) == 0);
    size_t n = 100000 + (size_t)(cuzk_rng_u64(&rng) % 200000);
    cuzk_rng_bytes(&rng, src, n);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(fifo, O_WRONLY);
        size_t off = 0;
        while (fd >= 0 && off < n) {
            ssize_t w = write(fd, src + off, n - off);
            if (w <= 0) break;
            off += (size_t)w;
        }
        _exit(off == n ? 0 : 1);
    }
    int rc = cuzk_file_read(fifo, 0, &got, &len);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK_MSG(rc == CUZK_OK && len == n && !memcmp(got, src, n), "FIFO of %zu bytes: rc %d, len %zu", n, rc, len);
    if (!rc) free(got);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    rc = cuzk_file_read("/proc/self/status", 0, &got, &len);
    CHECK(rc == CUZK_OK && len > 0 && strstr((char *)got, "Pid:"));
    if (!rc) free(got);
    /* failures */
    char missing[80];
    snprintf(missing, sizeof missing, "%s/missing", dir);
    got = (uint8_t *)1;
    errno = 0;
    CHECK(cuzk_file_read(missing, 0, &got, &len) == CUZK_ERR_IO && errno == ENOENT && got == NULL);
    errno = 0;
    CHECK(cuzk_file_read(dir, 0, &got, &len) == CUZK_ERR_IO && errno == EISDIR && got == NULL);
    CHECK(cuzk_file_read(NULL, 0, &got, &len) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_file_read(path, 0, NULL, &len) == CUZK_ERR_INVALID_ARG);
    pread_ranges(&rng, path, src, cap);
    unlink(path), unlink(fifo), rmdir(dir);
    free(src);
    return tu_finish("test_file");
}

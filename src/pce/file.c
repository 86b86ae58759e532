/* PCE files: atomic save (temporary, fsync, rename, fsync of the directory)
 * and checked loads (a file read into private memory, or memory). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/util/error.h"
#include "cuzk/util/file.h"
#include "cuzk/util/parallel.h"
#include "pce_internal.h"

void (*pce_save_chunk_hook)(size_t written, size_t total);

#define SAVE_CHUNK ((size_t)8 << 20)

static void fsync_dir_of(const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir) slash[1] = 0;
    else if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
}

int cuzk_pce_save(const cuzk_pce *pce, const char *path, cuzk_pce_error *err)
{
    if (!pce || !path || !pce->image)
        return pce_set_err(err, CUZK_ERR_INVALID_ARG, CUZK_PCE_FAIL_ARG, path, 0, NULL, "nothing to save");
    int vrc = cuzk_pce_ready(pce, err); /* never copy an unverified image */
    if (vrc) return vrc;
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path) >= (int)sizeof tmp)
        return pce_set_err(err, CUZK_ERR_INVALID_ARG, CUZK_PCE_FAIL_ARG, path, 0, NULL, "path too long");
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return pce_set_err(err, CUZK_ERR_IO, CUZK_PCE_FAIL_IO, path, 0, NULL, "creating a temporary: %s",
                           strerror(errno));
    const uint8_t *p = pce->image;
    size_t left = pce->image_len, done = 0;
    const char *what = "write";
    while (left) {
        size_t n = left < SAVE_CHUNK ? left : SAVE_CHUNK;
        ssize_t w = write(fd, p + done, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) goto fail;
        done += (size_t)w, left -= (size_t)w;
        if (pce_save_chunk_hook) pce_save_chunk_hook(done, pce->image_len);
    }
    what = "fsync";
    if (fchmod(fd, 0644) != 0 || fsync(fd) != 0) goto fail;
    what = "close";
    if (close(fd) != 0) {
        fd = -1;
        goto fail;
    }
    fd = -1;
    what = "rename";
    if (rename(tmp, path) != 0) goto fail;
    fsync_dir_of(path);
    PCE_COUNT(saves, 1);
    return CUZK_OK;
fail:;
    int e = errno;
    if (fd >= 0) close(fd);
    unlink(tmp);
    return pce_set_err(err, CUZK_ERR_IO, CUZK_PCE_FAIL_IO, path, done, NULL, "%s: %s", what, strerror(e));
}

/* Reading a file: chunks of READ_CHUNK bytes, on at most READ_THREADS
 * threads (past a few, reads of one file only queue on the device). */
#define READ_CHUNK ((size_t)64 << 20)
#define READ_THREADS 8u

typedef struct read_bad {
    uint64_t at; /* the byte where the read stopped (UINT64_MAX: none) */
    int rc, eno;
} read_bad;

typedef struct image_read {
    int fd;
    uint8_t *img;
    size_t len;
    read_bad bad[READ_THREADS]; /* per worker: the lowest it met */
} image_read;

static void read_task(void *arg, unsigned worker, size_t lo, size_t hi)
{
    image_read *r = arg;
    for (size_t c = lo; c < hi; c++) {
        const uint64_t off = (uint64_t)c * READ_CHUNK;
        const size_t n = r->len - off < READ_CHUNK ? (size_t)(r->len - off) : READ_CHUNK;
        size_t got = 0;
        int rc = cuzk_file_pread_full(r->fd, r->img + off, n, off, &got);
        if (rc) {
            if (off + got < r->bad[worker].at) r->bad[worker] = (read_bad){off + got, rc, errno};
            return;
        }
    }
}

/* The len bytes of fd, read into anonymous memory of this process's own
 * (huge pages where the kernel has them) and then made read-only: *img.
 * Read, not mapped: once this returns, the file may be cut, rewritten in
 * place or replaced and the PCE is unchanged; a MAP_PRIVATE mapping would
 * fault (SIGBUS) on pages cut from the file and show bytes rewritten in
 * place after the checks passed. A file that changes while it is read
 * ends early (a clear error here) or fails the checks that follow. The
 * image costs what the mapping's page cache did, counted as before in
 * cuzk_pce_memory_bytes, and the eval and the GPU upload read it alike. */
static int read_image(int fd, size_t len, unsigned nthreads, const char *path, void **img, cuzk_pce_error *err)
{
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return pce_set_err(err, CUZK_ERR_NO_MEMORY, CUZK_PCE_FAIL_NONE, path, 0, NULL,
                           "out of memory for the %zu-byte image", len);
    madvise(m, len, MADV_HUGEPAGE);
    posix_fadvise(fd, 0, (off_t)len, POSIX_FADV_SEQUENTIAL);
    image_read r = {.fd = fd, .img = m, .len = len};
    for (unsigned t = 0; t < READ_THREADS; t++) r.bad[t] = (read_bad){UINT64_MAX, 0, 0};
    const size_t chunks = (len + READ_CHUNK - 1) / READ_CHUNK;
    cuzk_parallel_for(chunks, 1, nthreads < READ_THREADS ? (nthreads ? nthreads : 1) : READ_THREADS, read_task, &r);
    const read_bad *bad = NULL;
    for (unsigned t = 0; t < READ_THREADS; t++)
        if (r.bad[t].at != UINT64_MAX && (!bad || r.bad[t].at < bad->at)) bad = &r.bad[t];
    if (bad) {
        munmap(m, len);
        if (bad->rc == CUZK_ERR_BAD_LENGTH)
            return pce_set_err(err, CUZK_ERR_IO, CUZK_PCE_FAIL_IO, path, bad->at, NULL,
                               "the file ends at byte %llu, not at %zu as when it was opened: cut or rewritten "
                               "while it was read",
                               (unsigned long long)bad->at, len);
        return pce_set_err(err, CUZK_ERR_IO, CUZK_PCE_FAIL_IO, path, bad->at, NULL, "read at byte offset %llu: %s",
                           (unsigned long long)bad->at, strerror(bad->eno));
    }
    mprotect(m, len, PROT_READ);
    *img = m;
    return CUZK_OK;
}

static int finish_load(cuzk_pce **out, cuzk_pce *p, int rc)
{
    if (rc) {
        free(p);
        PCE_COUNT(load_failures, 1);
        return rc;
    }
    PCE_COUNT(loads, 1);
    *out = p;
    return CUZK_OK;
}

int cuzk_pce_load_file(cuzk_pce **out, const char *path, const cuzk_pce_expect *expect, unsigned flags,
                       unsigned nthreads, cuzk_pce_error *err)
{
    if (!out || !path) return pce_set_err(err, CUZK_ERR_INVALID_ARG, CUZK_PCE_FAIL_ARG, path, 0, NULL, "no path");
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        PCE_COUNT(load_failures, 1);
        return pce_set_err(err, CUZK_ERR_IO, CUZK_PCE_FAIL_IO, path, 0, NULL, "open: %s", strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int e = errno;
        close(fd);
        PCE_COUNT(load_failures, 1);
        return pce_set_err(err, CUZK_ERR_IO, CUZK_PCE_FAIL_IO, path, 0, NULL, "not a regular file (%s)",
                           strerror(e));
    }
    size_t len = (size_t)st.st_size;
    if (len < PCE_HEADER_BYTES) {
        /* shorter than a header: read on the stack so the checks report what is wrong */
        uint8_t buf[PCE_HEADER_BYTES];
        ssize_t n = pread(fd, buf, len, 0);
        close(fd);
        if (n != (ssize_t)len) {
            PCE_COUNT(load_failures, 1);
            return pce_set_err(err, CUZK_ERR_IO, CUZK_PCE_FAIL_IO, path, 0, NULL, "read failed");
        }
        cuzk_pce tmp;
        int rc = pce_view(&tmp, buf, len, expect, flags, false, nthreads, path, err);
        if (!rc) pce_release(&tmp); /* unreachable: a header alone is never a valid file */
        PCE_COUNT(load_failures, 1);
        return rc ? rc : CUZK_ERR_INTERNAL;
    }
    void *m = NULL;
    int rrc = read_image(fd, len, nthreads, path, &m, err);
    close(fd);
    if (rrc) {
        PCE_COUNT(load_failures, 1);
        return rrc;
    }
    cuzk_pce *p = malloc(sizeof *p);
    if (!p) {
        munmap(m, len);
        PCE_COUNT(load_failures, 1);
        return pce_set_err(err, CUZK_ERR_NO_MEMORY, CUZK_PCE_FAIL_NONE, path, 0, NULL, "out of memory");
    }
    int rc = pce_view(p, m, len, expect, flags, false, nthreads, path, err);
    if (rc) {
        munmap(m, len);
    } else {
        p->mapped = true;
        if ((flags & CUZK_PCE_LOAD_VERIFY_BACKGROUND) && !(flags & CUZK_PCE_LOAD_NO_CHECKSUMS) &&
            (rc = pce_verify_start(p, path, (uint64_t)st.st_dev, (uint64_t)st.st_ino, nthreads, err)))
            pce_release(p); /* no thread: verified now, and it failed */
    }
    return finish_load(out, p, rc);
}

int cuzk_pce_load_mem(cuzk_pce **out, const void *buf, size_t len, const cuzk_pce_expect *expect, unsigned flags,
                      unsigned nthreads, cuzk_pce_error *err)
{
    if (!out || (!buf && len)) return pce_set_err(err, CUZK_ERR_INVALID_ARG, CUZK_PCE_FAIL_ARG, NULL, 0, NULL, "no input");
    *out = NULL;
    /* sections are read in place: copy to an aligned buffer */
    uint8_t *img = aligned_alloc(PCE_ALIGN, (len + PCE_ALIGN) / PCE_ALIGN * PCE_ALIGN);
    cuzk_pce *p = malloc(sizeof *p);
    if (!img || !p) {
        free(img), free(p);
        return pce_set_err(err, CUZK_ERR_NO_MEMORY, CUZK_PCE_FAIL_NONE, NULL, 0, NULL, "out of memory");
    }
    if (len) memcpy(img, buf, len);
    /* no file to set aside: the checksums are always verified here */
    int rc = pce_view(p, img, len, expect, flags & ~(unsigned)CUZK_PCE_LOAD_VERIFY_BACKGROUND, false, nthreads,
                      NULL, err);
    if (rc) free(img);
    else p->mapped = false;
    return finish_load(out, p, rc);
}

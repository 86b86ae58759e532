/*
 * Payload files on storage every host mounts (cuzk_cluster_opts.payload_dir):
 * a 32 GiB C1 (about 50 MB) goes there once instead of through the
 * database to every host. Files are named by their SHA-256, so the same
 * payload submitted twice is one file, and a reader checks what it read
 * against the digest the job row holds: a missing, torn or replaced file is
 * an error, never a wrong proof.
 */
#define _GNU_SOURCE
#include "cluster/cluster_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/util/error.h"
#include "cuzk/util/file.h"
#include "cuzk/util/sha256.h"

void payload_name(const uint8_t sha[32], char name[PAYLOAD_NAME_LEN + 1])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) name[2 * i] = hex[sha[i] >> 4], name[2 * i + 1] = hex[sha[i] & 15];
    name[PAYLOAD_NAME_LEN] = '\0';
}

/* dir/name when it is len bytes with digest sha. */
static bool present(const char *path, size_t len, const uint8_t sha[32])
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != len) return false;
    uint8_t *buf = NULL, got[32];
    size_t n = 0;
    bool same = cuzk_file_read(path, len + 1, &buf, &n) == CUZK_OK && n == len && cuzk_sha256_hash(got, buf, n) == CUZK_OK &&
                !memcmp(got, sha, 32);
    free(buf);
    return same;
}

static bool write_all(int fd, const uint8_t *p, size_t len)
{
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w, len -= (size_t)w;
    }
    return true;
}

int payload_write(const char *dir, const char *name, const uint8_t *data, size_t len, const uint8_t sha[32],
                  char *err, size_t errlen)
{
    char *path = NULL, *tmp = NULL;
    if (asprintf(&path, "%s/%s", dir, name) < 0) return cuzk_errf(err, errlen, CUZK_ERR_NO_MEMORY, "out of memory");
    if (present(path, len, sha)) {
        free(path);
        return CUZK_OK;
    }
    /* a name of this writer's own: two hosts writing the same payload at
     * once each rename a whole file over the other's */
    if (asprintf(&tmp, "%s/.%s.%ld.%lx.tmp", dir, name, (long)getpid(), (unsigned long)random()) < 0) {
        free(path);
        return cuzk_errf(err, errlen, CUZK_ERR_NO_MEMORY, "out of memory");
    }
    const char *step = "create";
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    bool ok = fd >= 0;
    if (ok && !(step = "write", write_all(fd, data ? data : (const uint8_t *)"", len))) ok = false;
    if (ok && !(step = "fsync", fsync(fd) == 0)) ok = false;
    int e = errno;
    if (fd >= 0 && close(fd) != 0 && ok) ok = false, step = "close", e = errno;
    if (ok && !(step = "rename", rename(tmp, path) == 0)) ok = false, e = errno;
    if (!ok) {
        unlink(tmp);
        cuzk_errf(err, errlen, CUZK_ERR_IO, "cluster.payload_dir: %s %s: %s", step, tmp, strerror(e));
        free(path);
        free(tmp);
        return CUZK_ERR_IO;
    }
    /* the rename durable before the job naming the file commits */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) fsync(dfd), close(dfd);
    free(path);
    free(tmp);
    return CUZK_OK;
}

int payload_read(const char *dir, const char *name, const uint8_t sha[32], size_t len, uint8_t **out, char *err,
                 size_t errlen)
{
    *out = NULL;
    char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, name) < 0) return cuzk_errf(err, errlen, CUZK_ERR_NO_MEMORY, "out of memory");
    uint8_t *buf = NULL, got[32];
    size_t n = 0;
    int rc = cuzk_file_read(path, len + 1, &buf, &n);
    if (rc == CUZK_ERR_NO_MEMORY) {
        rc = cuzk_errf(err, errlen, rc, "out of memory for payload file %s (%zu bytes)", path, len);
    } else if (rc == CUZK_ERR_IO) {
        rc = cuzk_errf(err, errlen, CUZK_ERR_IO, "payload file %s: %s (is cluster.payload_dir the same shared "
                                                 "directory on every host?)", path, strerror(errno));
    } else if (rc == CUZK_ERR_BAD_LENGTH || (rc == CUZK_OK && n != len)) {
        rc = cuzk_errf(err, errlen, CUZK_ERR_IO, "payload file %s: %s%zu bytes where the job's payload has %zu (the "
                       "file is truncated or was replaced)", path, rc == CUZK_OK ? "" : "more than ",
                       rc == CUZK_OK ? n : len, len);
    } else if (rc != CUZK_OK) {
        rc = cuzk_errf(err, errlen, CUZK_ERR_IO, "payload file %s: %s", path, cuzk_strerror(rc));
    } else if (!cuzk_sha256_hash(got, buf, n) == CUZK_OK) {
        rc = cuzk_errf(err, errlen, CUZK_ERR_NO_MEMORY, "out of memory hashing payload file %s", path);
    } else if (memcmp(got, sha, 32)) {
        rc = cuzk_errf(err, errlen, CUZK_ERR_IO, "payload file %s: its SHA-256 is not the job's (the file is "
                                                 "corrupt or was replaced)", path);
    }
    if (rc == CUZK_OK) *out = buf;
    else free(buf);
    free(path);
    return rc;
}

int payload_remove(const char *dir, const char *name, char *err, size_t errlen)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, name) < 0) return cuzk_errf(err, errlen, CUZK_ERR_NO_MEMORY, "out of memory");
    int rc = CUZK_OK;
    if (unlink(path) != 0 && errno != ENOENT)
        rc = cuzk_errf(err, errlen, CUZK_ERR_IO, "removing payload file %s: %s", path, strerror(errno));
    free(path);
    return rc;
}

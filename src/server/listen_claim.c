/*
 * One daemon per listening address (see listen_claim.h).
 *
 * The unix lock is fcntl's, not flock's: F_GETLK tells who holds it, so
 * the refusal names a pid even when the holder has not yet written its own
 * into the file. A POSIX lock goes when its process closes any descriptor
 * of the file: only this module opens it, once.
 */
#define _GNU_SOURCE
#include "server/listen_claim.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

struct listen_claim {
    int lock_fd;    /* PATH.lock, locked; -1 for TCP */
    char path[128]; /* the unix socket; "" for TCP (config.c: under 108 bytes) */
};

#define FAIL(...) (snprintf(err, errlen, __VA_ARGS__), -1)

const char *listen_bind_error(int errnum)
{
    switch (errnum) {
    case EADDRINUSE: return "address in use (another daemon?)";
    case EACCES: return "permission denied (a port below 1024 needs CAP_NET_BIND_SERVICE)";
    case EADDRNOTAVAIL: return "no such local address";
    default: return strerror(errnum);
    }
}

/* ---- unix sockets ---------------------------------------------------------- */

/* The lock's holder: the kernel's answer, else the pid the file holds (a
 * holder in another pid namespace reads as 0); 0 when unknown, -1 when no
 * one holds it now (it went between our try and this question). */
static long lock_holder(int fd)
{
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(fd, F_GETLK, &fl) != 0) return 0;
    if (fl.l_type == F_UNLCK) return -1;
    if (fl.l_pid > 0) return fl.l_pid;
    char buf[24] = {0};
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    long pid = n > 0 ? strtol(buf, NULL, 10) : 0;
    return pid > 0 ? pid : 0;
}

/* Locks the open lock file: 0, or -1 with err naming the holder. */
static int lock_or_name_holder(int fd, const char *listen, const char *lock, char *err, size_t errlen)
{
    for (int tries = 0; tries < 3; tries++) {
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
        if (fcntl(fd, F_SETLK, &fl) == 0) return 0;
        if (errno != EACCES && errno != EAGAIN) return FAIL("listen %s: cannot lock %s: %s", listen, lock, strerror(errno));
        long pid = lock_holder(fd);
        if (pid < 0) continue; /* its holder just went: try again */
        char who[32] = "pid unknown";
        if (pid > 0) snprintf(who, sizeof who, "pid %ld", pid);
        return FAIL("listen %s: another daemon (%s) holds %s; stop it, or give this daemon another listen path",
                    listen, who, lock);
    }
    return FAIL("listen %s: %s is locked and unlocked by turns: another daemon is starting and stopping there",
                listen, lock);
}

/* Our pid into the lock file, for the operator (cat PATH.lock) and for a
 * refused daemon that cannot see us in its pid namespace. */
static int write_pid(int fd, const char *listen, const char *lock, char *err, size_t errlen)
{
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, buf, (size_t)n, 0) != n)
        return FAIL("listen %s: cannot write %s: %s", listen, lock, strerror(errno));
    return 0;
}

/* A socket file at the path is a dead daemon's (we hold the lock): removed.
 * Any other file is left alone and stops the start. */
static int remove_stale_socket(const char *path, const char *listen, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : FAIL("listen %s: %s: %s", listen, path, strerror(errno));
    if (!S_ISSOCK(st.st_mode)) return FAIL("listen %s: %s exists and is not a socket", listen, path);
    if (unlink(path) != 0 && errno != ENOENT)
        return FAIL("listen %s: cannot remove the stale socket %s: %s", listen, path, strerror(errno));
    return 0;
}

static int claim_unix(listen_claim *c, const char *listen, char *err, size_t errlen)
{
    const char *path = listen + 5;
    if (!strncmp(path, "//", 2)) path += 2;
    snprintf(c->path, sizeof c->path, "%s", path);
    char lock[sizeof c->path + 8];
    snprintf(lock, sizeof lock, "%s.lock", path);
    /* O_NOFOLLOW, O_NONBLOCK: a symlink or a FIFO planted at the name is
     * refused (fstat below), never followed or waited on. */
    c->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
    if (c->lock_fd < 0) return FAIL("listen %s: cannot open %s: %s", listen, lock, strerror(errno));
    struct stat st;
    if (fstat(c->lock_fd, &st) != 0 || !S_ISREG(st.st_mode))
        return FAIL("listen %s: %s is not a regular file", listen, lock);
    if (lock_or_name_holder(c->lock_fd, listen, lock, err, errlen)) return -1;
    if (write_pid(c->lock_fd, listen, lock, err, errlen)) return -1;
    return remove_stale_socket(path, listen, err, errlen);
}

/* ---- TCP ------------------------------------------------------------------- */

/* "host:port" or "[v6]:port" into host (brackets off) and port. */
static int split_hostport(const char *hp, char *host, size_t hostlen, const char **port)
{
    const char *colon = strrchr(hp, ':');
    if (!colon) return -1;
    const char *h = hp;
    size_t n = (size_t)(colon - hp);
    if (n >= 2 && h[0] == '[' && h[n - 1] == ']') h++, n -= 2;
    if (n >= hostlen) return -1;
    memcpy(host, h, n);
    host[n] = '\0';
    *port = colon + 1;
    return 0;
}

/* Binds every address of host:port as the gRPC core does (SO_REUSEADDR: a
 * port an earlier run left in TIME_WAIT is free; no SO_REUSEPORT) and lets
 * go: EADDRINUSE when any address is in use, else the errno of the first
 * bind that failed, 0 when all bind, -1 when the host does not resolve.
 * An address family this host lacks is skipped, as the core skips it. */
static int bind_errno(const char *hostport)
{
    char host[256];
    const char *port;
    if (split_hostport(hostport, host, sizeof host, &port)) return -1;
    struct addrinfo hints = {.ai_flags = AI_PASSIVE, .ai_socktype = SOCK_STREAM}, *ai;
    if (getaddrinfo(host[0] ? host : NULL, port, &hints, &ai)) return -1;
    int e = 0;
    for (struct addrinfo *a = ai; a && e != EADDRINUSE; a = a->ai_next) {
        int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, 0);
        if (fd < 0) continue;
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 && (!e || errno == EADDRINUSE)) e = errno;
        close(fd);
    }
    freeaddrinfo(ai);
    return e;
}

int listen_tcp_why(const char *hostport, char *why, size_t whylen)
{
    int e = bind_errno(hostport);
    if (e != EADDRINUSE && e != EACCES && e != EADDRNOTAVAIL) return -1;
    snprintf(why, whylen, "%s", listen_bind_error(e));
    return 0;
}

/* ---- the claim ------------------------------------------------------------- */

listen_claim *listen_claim_take(const char *listen, char *err, size_t errlen)
{
    listen_claim *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->lock_fd = -1;
    if (!strncmp(listen, "unix:", 5)) {
        if (claim_unix(c, listen, err, errlen) == 0) return c;
        if (c->lock_fd >= 0) close(c->lock_fd);
        free(c);
        return NULL;
    }
    /* Only a port in use stops the start here: any other failure is the
     * gRPC core's bind to report, it may bind where this probe cannot. */
    if (bind_errno(listen) == EADDRINUSE) {
        snprintf(err, errlen, "listen tcp %s: %s", listen, listen_bind_error(EADDRINUSE));
        free(c);
        return NULL;
    }
    return c;
}

void listen_claim_release(listen_claim *c)
{
    if (!c) return;
    if (c->lock_fd >= 0) {
        unlink(c->path); /* ours: the lock is still held; the core may have removed it already */
        close(c->lock_fd);
    }
    free(c);
}

#define _GNU_SOURCE
#include "server/http_status.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "server/listen_claim.h"
#include "server/log.h"

struct http_status {
    int fd, stop_pipe[2];
    pthread_t th;
    srv_service *svc;
};

int http_parse_request(const char *buf, size_t len, char *path, size_t pathcap, int *is_head)
{
    const char *eol = memchr(buf, '\n', len);
    if (!eol) return len > 8192 ? 414 : 1;
    size_t n = (size_t)(eol - buf);
    if (n && buf[n - 1] == '\r') n--;
    const char *sp1 = memchr(buf, ' ', n);
    if (!sp1) return 400;
    size_t mlen = (size_t)(sp1 - buf);
    if (mlen == 3 && !memcmp(buf, "GET", 3)) *is_head = 0;
    else if (mlen == 4 && !memcmp(buf, "HEAD", 4)) *is_head = 1;
    else {
        for (size_t i = 0; i < mlen; i++)
            if (buf[i] < 'A' || buf[i] > 'Z') return 400;
        return mlen ? 405 : 400;
    }
    const char *target = sp1 + 1, *end = buf + n;
    const char *sp2 = memchr(target, ' ', (size_t)(end - target));
    if (!sp2 || sp2 == target || target[0] != '/') return 400;
    if ((size_t)(end - sp2 - 1) < 8 || memcmp(sp2 + 1, "HTTP/1.", 7)) return 400;
    size_t plen = (size_t)(sp2 - target);
    const char *q = memchr(target, '?', plen);
    if (q) plen = (size_t)(q - target);
    if (plen >= pathcap) return 414;
    for (size_t i = 0; i < plen; i++)
        if ((unsigned char)target[i] <= ' ' || (unsigned char)target[i] >= 0x7f) return 400;
    memcpy(path, target, plen);
    path[plen] = '\0';
    return 0;
}

static void respond(int fd, int status, const char *ctype, const char *body, int head)
{
    const char *reason = status == 200 ? "OK" : status == 404 ? "Not Found" : status == 405 ? "Method Not Allowed"
                       : status == 414 ? "URI Too Long" : status == 500 ? "Internal Server Error" : "Bad Request";
    size_t blen = body ? strlen(body) : 0;
    char hdr[256];
    int n = snprintf(hdr, sizeof hdr, "HTTP/1.0 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
                     status, reason, ctype, blen);
    if (write(fd, hdr, (size_t)n) != n) return;
    for (size_t off = 0; !head && off < blen;) {
        ssize_t w = write(fd, body + off, blen - off);
        if (w <= 0) return;
        off += (size_t)w;
    }
}

static void serve(http_status *h, int fd)
{
    struct timeval tv = {2, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    char buf[8200], path[256];
    size_t len = 0;
    int head = 0, rc = 1;
    while (rc == 1 && len < sizeof buf) {
        ssize_t r = read(fd, buf + len, sizeof buf - len);
        if (r <= 0) return;
        len += (size_t)r;
        rc = http_parse_request(buf, len, path, sizeof path, &head);
    }
    if (rc == 1) rc = 414;
    if (rc) {
        respond(fd, rc, "text/plain", "bad request\n", 0);
        return;
    }
    char *body = NULL;
    const char *ctype = "text/plain";
    if (!strcmp(path, "/metrics")) {
        body = service_metrics(h->svc);
        ctype = "text/plain; version=0.0.4";
    } else if (!strcmp(path, "/status")) {
        body = service_status_json(h->svc);
        ctype = "application/json";
    } else {
        respond(fd, 404, "text/plain", "not found: try /metrics or /status\n", head);
        return;
    }
    if (body) respond(fd, 200, ctype, body, head);
    else respond(fd, 500, "text/plain", "out of memory\n", head);
    free(body);
}

static void *loop(void *arg)
{
    http_status *h = arg;
    struct pollfd p[2] = {{h->fd, POLLIN, 0}, {h->stop_pipe[0], POLLIN, 0}};
    for (;;) {
        if (poll(p, 2, -1) < 0 && errno != EINTR) break;
        if (p[1].revents) break;
        if (!(p[0].revents & POLLIN)) continue;
        int c = accept4(h->fd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0) continue;
        serve(h, c);
        close(c);
    }
    return NULL;
}

http_status *http_status_start(const char *hostport, srv_service *svc, char *err, size_t errlen)
{
    char host[256];
    const char *colon = strrchr(hostport, ':');
    if (!colon || (size_t)(colon - hostport) >= sizeof host) {
        snprintf(err, errlen, "status_listen %s: expected host:port", hostport);
        return NULL;
    }
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = '\0';
    char *h0 = host;
    if (h0[0] == '[') { /* [v6]:port */
        h0++;
        h0[strlen(h0) - 1] = '\0';
    }
    struct addrinfo hints = {.ai_flags = AI_PASSIVE, .ai_socktype = SOCK_STREAM}, *ai;
    int gai = getaddrinfo(h0[0] ? h0 : NULL, colon + 1, &hints, &ai);
    if (gai) {
        snprintf(err, errlen, "status_listen %s: %s", hostport, gai_strerror(gai));
        return NULL;
    }
    /* SO_REUSEADDR only (a port left in TIME_WAIT by an earlier run is
     * free); never SO_REUSEPORT: another daemon's status port stays its own. */
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 16)) {
        snprintf(err, errlen, "status_listen %s: %s", hostport, listen_bind_error(errno));
        if (fd >= 0) close(fd);
        freeaddrinfo(ai);
        return NULL;
    }
    freeaddrinfo(ai);
    http_status *h = calloc(1, sizeof *h);
    if (!h || pipe2(h->stop_pipe, O_CLOEXEC)) {
        snprintf(err, errlen, "status_listen: out of resources");
        close(fd);
        free(h);
        return NULL;
    }
    h->fd = fd;
    h->svc = svc;
    if (pthread_create(&h->th, NULL, loop, h)) {
        snprintf(err, errlen, "status_listen: cannot start a thread");
        close(fd), close(h->stop_pipe[0]), close(h->stop_pipe[1]);
        free(h);
        return NULL;
    }
    return h;
}

void http_status_stop(http_status *h)
{
    if (!h) return;
    if (write(h->stop_pipe[1], "x", 1) != 1) LOG_WARN("status listener: cannot signal stop");
    pthread_join(h->th, NULL);
    close(h->fd), close(h->stop_pipe[0]), close(h->stop_pipe[1]);
    free(h);
}

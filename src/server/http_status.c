/*
 * The status listener: one thread, poll() over the listening socket and up
 * to HTTP_MAX_CONNS connections at once, so that no client holds up another.
 * A connection has HTTP_READ_MS from its accept to send its request line,
 * then HTTP_WRITE_MS to take its answer: deadlines for the whole phase, not
 * per byte, so a client trickling a byte now and then is cut off (408) all
 * the same. When every slot is taken, the connection accepted longest ago
 * is closed (503) to make room for the new one. Answers are built on this
 * thread, one at a time, and sent as fast as each client takes them.
 */
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
#include <unistd.h>

#include "cuzk/util/clock.h"
#include "server/listen_claim.h"
#include "server/log.h"

enum {
    HTTP_MAX_CONNS = 64,   /* connections served at once */
    HTTP_READ_MS = 5000,   /* from the accept to the whole request line */
    HTTP_WRITE_MS = 10000, /* from the request line to the answer's last byte taken */
    HTTP_REQ_CAP = 8200,   /* request bytes kept: more without a line end is 414 */
    HTTP_BACKLOG = 128,    /* a burst of connects waits in the kernel, not refused */
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

/* One connection's state: reading its request line, then (out set) writing
 * its answer; a deadline for each phase, counted from its start. */
typedef struct {
    int fd;          /* -1: a free slot */
    double since;    /* accepted at (cuzk_now): the oldest gives way when every slot is taken */
    double deadline; /* the phase under way must be over by then */
    size_t len;      /* request bytes in req */
    char *out;       /* the whole answer once the request is in; NULL while reading */
    size_t out_len, out_off;
    char req[HTTP_REQ_CAP];
} http_conn;

struct http_status {
    int fd, stop_pipe[2];
    pthread_t th;
    srv_service *svc;
    http_conn conns[HTTP_MAX_CONNS];
};

static const char *reason_of(int status)
{
    switch (status) {
    case 200: return "OK";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 414: return "URI Too Long";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Bad Request";
    }
}

/* Header and body in one buffer, so that a send cut short by a slow client
 * resumes where it stopped; NULL when out of memory. */
static char *answer_text(int status, const char *ctype, const char *body, int head, size_t *len)
{
    size_t blen = body ? strlen(body) : 0;
    char hdr[256];
    int n = snprintf(hdr, sizeof hdr, "HTTP/1.0 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
                     status, reason_of(status), ctype, blen);
    size_t total = (size_t)n + (head ? 0 : blen);
    char *out = malloc(total);
    if (!out) return NULL;
    memcpy(out, hdr, (size_t)n);
    if (!head && blen) memcpy(out + n, body, blen);
    *len = total;
    return out;
}

/* The answer to a request that parsed (rc 0) or did not (rc its status). */
static char *route(http_status *h, int rc, const char *path, int head, size_t *len)
{
    if (rc) return answer_text(rc, "text/plain", "bad request\n", 0, len);
    char *body = NULL;
    const char *ctype = "text/plain";
    if (!strcmp(path, "/metrics")) {
        body = service_metrics(h->svc);
        ctype = "text/plain; version=0.0.4";
    } else if (!strcmp(path, "/status")) {
        body = service_status_json(h->svc);
        ctype = "application/json";
    } else {
        return answer_text(404, "text/plain", "not found: try /metrics or /status\n", head, len);
    }
    char *out = body ? answer_text(200, ctype, body, head, len)
                     : answer_text(500, "text/plain", "out of memory\n", head, len);
    free(body);
    return out;
}

static void conn_close(http_conn *c)
{
    close(c->fd);
    free(c->out);
    c->fd = -1;
    c->out = NULL;
}

/* Ends a connection that is still reading with a short answer saying why
 * (408: its time is up; 503: it made room for a newer one), sent only if
 * the socket takes it at once: a client that reads nothing gets nothing. */
static void conn_refuse(http_conn *c, int status)
{
    if (!c->out) {
        char msg[160];
        int n = snprintf(msg, sizeof msg, "HTTP/1.0 %d %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                         status, reason_of(status));
        (void)send(c->fd, msg, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL); /* a failure changes nothing */
    }
    conn_close(c);
}

/* Sends what the socket takes now; closes once all is sent or the client
 * is gone. */
static void conn_write(http_conn *c)
{
    while (c->out_off < c->out_len) {
        ssize_t w = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        c->out_off += (size_t)w;
    }
    conn_close(c);
}

/* Takes what the client sent; once the request line is in (or cannot be),
 * makes the answer and starts sending it, against a fresh deadline. */
static void conn_read(http_status *h, http_conn *c)
{
    ssize_t r = recv(c->fd, c->req + c->len, sizeof c->req - c->len, MSG_DONTWAIT);
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (r <= 0) { /* the client left before its request was in */
        conn_close(c);
        return;
    }
    c->len += (size_t)r;
    char path[256];
    int head = 0, rc = http_parse_request(c->req, c->len, path, sizeof path, &head);
    if (rc == 1 && c->len < sizeof c->req) return;
    if (rc == 1) rc = 414;
    c->out = route(h, rc, path, head, &c->out_len);
    if (!c->out) {
        conn_close(c);
        return;
    }
    c->out_off = 0;
    c->deadline = cuzk_now() + HTTP_WRITE_MS / 1000.0;
    conn_write(c);
}

/* A slot for a new connection: a free one, else the oldest connection's,
 * closed. A scrape's connection lives milliseconds, so the oldest is a slow
 * or idle client, and a flood of them cannot keep a scraper out. */
static http_conn *slot_for_new(http_status *h)
{
    http_conn *oldest = NULL;
    for (int i = 0; i < HTTP_MAX_CONNS; i++) {
        http_conn *c = &h->conns[i];
        if (c->fd < 0) return c;
        if (!oldest || c->since < oldest->since) oldest = c;
    }
    conn_refuse(oldest, 503);
    return oldest;
}

static void accept_all(http_status *h)
{
    for (;;) {
        int fd = accept4(h->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            return; /* EAGAIN: none left; EMFILE and the like: the next poll tries again */
        }
        http_conn *c = slot_for_new(h);
        c->fd = fd;
        c->since = cuzk_now();
        c->deadline = c->since + HTTP_READ_MS / 1000.0;
        c->len = 0;
    }
}

/* Milliseconds until the nearest deadline (-1: no connection). */
static int poll_timeout(const http_status *h, double now)
{
    double first = -1;
    for (int i = 0; i < HTTP_MAX_CONNS; i++)
        if (h->conns[i].fd >= 0 && (first < 0 || h->conns[i].deadline < first)) first = h->conns[i].deadline;
    if (first < 0) return -1;
    return first <= now ? 0 : (int)((first - now) * 1000) + 1;
}

static void *loop(void *arg)
{
    http_status *h = arg;
    struct pollfd p[2 + HTTP_MAX_CONNS];
    int who[2 + HTTP_MAX_CONNS];
    for (;;) {
        nfds_t n = 0;
        p[n++] = (struct pollfd){h->fd, POLLIN, 0};
        p[n++] = (struct pollfd){h->stop_pipe[0], POLLIN, 0};
        for (int i = 0; i < HTTP_MAX_CONNS; i++)
            if (h->conns[i].fd >= 0) {
                who[n] = i;
                p[n++] = (struct pollfd){h->conns[i].fd, h->conns[i].out ? POLLOUT : POLLIN, 0};
            }
        if (poll(p, n, poll_timeout(h, cuzk_now())) < 0 && errno != EINTR) break;
        if (p[1].revents) break;
        for (nfds_t k = 2; k < n; k++) {
            http_conn *c = &h->conns[who[k]];
            if (!p[k].revents || c->fd < 0) continue;
            if (c->out) conn_write(c);
            else conn_read(h, c);
        }
        double now = cuzk_now();
        for (int i = 0; i < HTTP_MAX_CONNS; i++)
            if (h->conns[i].fd >= 0 && h->conns[i].deadline <= now) conn_refuse(&h->conns[i], 408);
        if (p[0].revents & POLLIN) accept_all(h);
    }
    for (int i = 0; i < HTTP_MAX_CONNS; i++)
        if (h->conns[i].fd >= 0) conn_close(&h->conns[i]);
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
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0); /* accept_all drains it */
    int one = 1;
    if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, HTTP_BACKLOG)) {
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
    for (int i = 0; i < HTTP_MAX_CONNS; i++) h->conns[i].fd = -1;
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

/* The job journal (see journal.h). */
#define _GNU_SOURCE
#include "server/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/util/hex.h"
#include "server/config.h"

#define HEADER "cuzk-journal 1\n"
#define MAX_ID 256
#define MAX_FILE (64u << 20) /* larger is not a journal this daemon wrote: read no further */
#define MIN_COMPACT (1u << 20)

typedef enum { E_OPEN = 1, E_LOST = 2 } entry_state;

typedef struct entry {
    char *id;
    uint32_t hash;
    entry_state state;
    int64_t accepted_ms, lost_ms;
} entry;

struct srv_journal {
    pthread_mutex_t mu;
    int fd;
    char *path, *dir;
    void (*log)(int level, const char *msg);
    entry *e; /* ids open in this run and ids lost in a restart: a few thousand at most */
    size_t n, cap;
    uint64_t size, compact_at; /* bytes in the file; compaction past compact_at */
    bool dirty, broken;        /* appended since the last fsync; a write failed (logged once) */
};

static void jlog(srv_journal *j, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void jlog(srv_journal *j, int level, const char *fmt, ...)
{
    char *m = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&m, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (j->log) j->log(level, m);
    else fprintf(stderr, "cuzk: %s\n", m);
    free(m);
}

static uint32_t fnv1a(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void fmt_time(char out[32], int64_t ms)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
}

/* ---- the id table --------------------------------------------------------- */

static entry *find(srv_journal *j, const char *id)
{
    uint32_t h = fnv1a(id, strlen(id));
    for (size_t i = 0; i < j->n; i++)
        if (j->e[i].hash == h && !strcmp(j->e[i].id, id)) return &j->e[i];
    return NULL;
}

static void drop(srv_journal *j, entry *x)
{
    free(x->id);
    *x = j->e[--j->n];
}

/* The entry for id, added when absent (NULL: no memory). */
static entry *upsert(srv_journal *j, const char *id)
{
    entry *x = find(j, id);
    if (x) return x;
    if (j->n == j->cap) {
        size_t cap = j->cap ? 2 * j->cap : 64;
        entry *a = realloc(j->e, cap * sizeof *a);
        if (!a) return NULL;
        j->e = a, j->cap = cap;
    }
    char *d = strdup(id);
    if (!d) return NULL;
    x = &j->e[j->n++];
    *x = (entry){.id = d, .hash = fnv1a(id, strlen(id))};
    return x;
}

/* ---- records -------------------------------------------------------------- */

/* One record: its fields, then " <fnv of what precedes>\n". malloc'd. */
static char *record(char type, int64_t a_ms, int64_t l_ms, const char *id, size_t *len)
{
    size_t n = strlen(id);
    char hex[2 * MAX_ID + 1];
    if (n > MAX_ID) return NULL;
    cuzk_hex_encode(hex, (const uint8_t *)id, n);
    char *body = NULL;
    int b = type == 'A'   ? asprintf(&body, "A %" PRId64 " %s", a_ms, hex)
            : type == 'L' ? asprintf(&body, "L %" PRId64 " %" PRId64 " %s", a_ms, l_ms, hex)
                          : asprintf(&body, "D %s", hex);
    if (b < 0) return NULL;
    char *line = NULL;
    int w = asprintf(&line, "%s %08" PRIx32 "\n", body, fnv1a(body, (size_t)b));
    free(body);
    if (w < 0) return NULL;
    *len = (size_t)w;
    return line;
}

static bool parse_ms(const char *s, int64_t *out)
{
    if (!*s || strlen(s) > 15) return false; /* milliseconds to year 33658 */
    int64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return false;
        v = v * 10 + (*s - '0');
    }
    *out = v;
    return true;
}

/* Parses one line (no newline). false with why for anything else. */
static bool parse(char *line, char *type, int64_t *a_ms, int64_t *l_ms, char *id, const char **why)
{
    char *sp = strrchr(line, ' ');
    uint8_t sum[4];
    if (!sp || strlen(sp + 1) != 8 || cuzk_hex_decode(sum, 4, sp + 1)) return *why = "no checksum", false;
    uint32_t want = (uint32_t)sum[0] << 24 | (uint32_t)sum[1] << 16 | (uint32_t)sum[2] << 8 | sum[3];
    if (fnv1a(line, (size_t)(sp - line)) != want) return *why = "checksum mismatch", false;
    *sp = '\0';
    char *f[5];
    size_t nf = 0;
    for (char *save = NULL, *t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        if (nf == 5) return *why = "too many fields", false;
        f[nf++] = t;
    }
    if (nf < 2 || strlen(f[0]) != 1) return *why = "unknown record", false;
    *type = f[0][0];
    size_t want_f = *type == 'A' ? 3 : *type == 'L' ? 4 : *type == 'D' ? 2 : 0;
    if (nf != want_f) return *why = "unknown record or wrong field count", false;
    const char *hex = f[nf - 1];
    size_t hl = strlen(hex);
    if (!hl || hl % 2 || hl > 2 * MAX_ID || cuzk_hex_decode((uint8_t *)id, hl / 2, hex))
        return *why = "bad id", false;
    id[hl / 2] = '\0';
    if (strlen(id) != hl / 2) return *why = "NUL in id", false;
    if ((*type == 'A' || *type == 'L') && !parse_ms(f[1], a_ms)) return *why = "bad time", false;
    if (*type == 'L' && !parse_ms(f[2], l_ms)) return *why = "bad time", false;
    return true;
}

/* Replays the file's records into the table; logs what it skipped. */
static void replay(srv_journal *j, char *buf, size_t len)
{
    size_t bad = 0, first_bad = 0, lineno = 0;
    const char *first_why = "";
    char *p = buf, *end = buf + len;
    if ((size_t)(end - p) >= sizeof HEADER - 1 && !memcmp(p, HEADER, sizeof HEADER - 1)) {
        p += sizeof HEADER - 1;
        lineno++;
    } else if (len) {
        jlog(j, CFG_LOG_WARN, "journal %s: no \"cuzk-journal 1\" header; reading what records it has", j->path);
    }
    char id[MAX_ID + 1];
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        lineno++;
        if (!nl) { /* the last record, cut by a crash in its write */
            jlog(j, CFG_LOG_WARN, "journal %s: line %zu is torn (%zu bytes without a newline, a write cut by a "
                 "crash); ignored", j->path, lineno, (size_t)(end - p));
            break;
        }
        *nl = '\0';
        char type = 0;
        int64_t a = 0, l = 0;
        const char *why = "";
        if (memchr(p, '\0', (size_t)(nl - p)) || !parse(p, &type, &a, &l, id, &why)) {
            if (!bad++) first_bad = lineno, first_why = why[0] ? why : "NUL byte";
        } else if (type == 'D') {
            entry *x = find(j, id);
            if (x) drop(j, x);
        } else {
            entry *x = upsert(j, id);
            if (x) x->state = type == 'A' ? E_OPEN : E_LOST, x->accepted_ms = a, x->lost_ms = l;
        }
        p = nl + 1;
    }
    if (bad)
        jlog(j, CFG_LOG_WARN, "journal %s: %zu unreadable lines ignored (the first, line %zu: %s)", j->path, bad,
             first_bad, first_why);
}

/* ---- the file ------------------------------------------------------------- */

static bool write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w, n -= (size_t)w;
    }
    return true;
}

static int cmp_lost(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    /* newest first: open ids (this run) before lost ones, then by time */
    if (x->state != y->state) return x->state == E_OPEN ? -1 : 1;
    int64_t tx = x->state == E_LOST ? x->lost_ms : x->accepted_ms, ty = y->state == E_LOST ? y->lost_ms : y->accepted_ms;
    if (tx != ty) return tx > ty ? -1 : 1;
    return x->accepted_ms > y->accepted_ms ? -1 : x->accepted_ms < y->accepted_ms;
}

/* Rewrites the file from the table (open and lost ids; the oldest lost ones
 * beyond JOURNAL_MAX_LOST dropped) through a temporary and a rename, then
 * appends to the new file. Caller holds mu (or is journal_open). */
static bool compact(srv_journal *j, char *err, size_t errlen)
{
    if (j->n > 1) qsort(j->e, j->n, sizeof *j->e, cmp_lost); /* qsort(NULL, 0, ...) is undefined */
    size_t lost = 0;
    for (size_t i = 0; i < j->n;) {
        if (j->e[i].state == E_LOST && ++lost > JOURNAL_MAX_LOST) {
            free(j->e[i].id);
            j->e[i] = j->e[--j->n];
            continue;
        }
        i++;
    }
    char *tmp = NULL;
    if (asprintf(&tmp, "%s.tmp", j->path) < 0) return snprintf(err, errlen, "out of memory"), false;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
    bool ok = fd >= 0 && write_all(fd, HEADER, sizeof HEADER - 1);
    uint64_t size = sizeof HEADER - 1;
    for (size_t i = 0; ok && i < j->n; i++) {
        size_t len = 0;
        char *r = record(j->e[i].state == E_OPEN ? 'A' : 'L', j->e[i].accepted_ms, j->e[i].lost_ms, j->e[i].id, &len);
        ok = r && write_all(fd, r, len);
        size += len;
        free(r);
    }
    ok = ok && fsync(fd) == 0;
    int e = errno;
    if (fd >= 0) close(fd);
    if (ok && rename(tmp, j->path) != 0) ok = false, e = errno;
    if (!ok) {
        snprintf(err, errlen, "writing %s: %s", tmp, strerror(e));
        unlink(tmp);
        free(tmp);
        return false;
    }
    free(tmp);
    int dfd = open(j->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* the rename itself durable */
    if (dfd >= 0) fsync(dfd), close(dfd);
    int nfd = open(j->path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (nfd < 0) return snprintf(err, errlen, "%s: %s", j->path, strerror(errno)), false;
    if (flock(nfd, LOCK_EX | LOCK_NB) != 0) { /* a new inode: lock it before the old lock goes */
        snprintf(err, errlen, "%s: another process holds the journal", j->path);
        close(nfd);
        return false;
    }
    if (j->fd >= 0) close(j->fd);
    j->fd = nfd;
    j->size = size;
    j->compact_at = size * 2 > MIN_COMPACT ? size * 2 : MIN_COMPACT;
    j->dirty = false;
    return true;
}

srv_journal *journal_open(const char *dir, void (*log)(int level, const char *msg), char *err, size_t errlen)
{
    srv_journal *j = calloc(1, sizeof *j);
    if (!j) return snprintf(err, errlen, "out of memory"), NULL;
    j->fd = -1;
    j->log = log;
    pthread_mutex_init(&j->mu, NULL);
    if (!(j->dir = strdup(dir)) || asprintf(&j->path, "%s/cuzk-journal", dir) < 0) {
        j->path = NULL;
        journal_close(j);
        return snprintf(err, errlen, "out of memory"), NULL;
    }
    /* the lock first: another daemon on the same directory must not
     * rewrite the file under this one (nor this one under it) */
    int fd = open(j->path, O_RDWR | O_CREAT | O_CLOEXEC, 0640);
    if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
        snprintf(err, errlen, "%s: %s", j->path,
                 fd < 0 ? strerror(errno) : "another cuzk daemon uses this journal (set [daemon] state_dir)");
        if (fd >= 0) close(fd);
        journal_close(j);
        return NULL;
    }
    j->fd = fd;
    struct stat st;
    size_t len = fstat(fd, &st) == 0 && st.st_size > 0 ? (size_t)st.st_size : 0;
    if (len > MAX_FILE) {
        jlog(j, CFG_LOG_WARN, "journal %s: %zu bytes, larger than any this daemon writes; only its first %u read",
             j->path, len, MAX_FILE);
        len = MAX_FILE;
    }
    char *buf = malloc(len + 1);
    size_t got = 0;
    while (buf && got < len) {
        ssize_t r = pread(fd, buf + got, len - got, (off_t)got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    if (buf) replay(j, buf, got);
    free(buf);
    /* whatever an earlier run accepted and did not finish is lost now */
    int64_t now = now_ms();
    size_t lost = 0;
    for (size_t i = 0; i < j->n; i++)
        if (j->e[i].state == E_OPEN) j->e[i].state = E_LOST, j->e[i].lost_ms = now, lost++;
    if (!compact(j, err, errlen)) {
        journal_close(j);
        return NULL;
    }
    if (lost)
        jlog(j, CFG_LOG_WARN, "journal %s: %zu jobs accepted before this restart never finished; AwaitProof "
             "answers them FAILED \"lost in a restart\" (clients resubmit)", j->path, lost);
    return j;
}

void journal_close(srv_journal *j)
{
    if (!j) return;
    if (j->fd >= 0) {
        if (j->dirty) fsync(j->fd);
        close(j->fd);
    }
    for (size_t i = 0; i < j->n; i++) free(j->e[i].id);
    free(j->e);
    free(j->path);
    free(j->dir);
    pthread_mutex_destroy(&j->mu);
    free(j);
}

/* Appends one record; a failing disk is logged once, the daemon goes on
 * (the journal only improves an answer after a crash). */
static void append(srv_journal *j, char type, int64_t a_ms, const char *id)
{
    size_t len = 0;
    char *r = record(type, a_ms, 0, id, &len);
    if (!r) return;
    if (write_all(j->fd, r, len)) {
        j->size += len;
        j->dirty = true;
    } else if (!j->broken) {
        j->broken = true;
        jlog(j, CFG_LOG_ERROR, "journal %s: write failed (%s); jobs lost in a crash may be reported as unknown",
             j->path, strerror(errno));
    }
    free(r);
}

void journal_accepted(srv_journal *j, const char *id)
{
    if (!j || strlen(id) > MAX_ID) return;
    pthread_mutex_lock(&j->mu);
    int64_t now = now_ms();
    entry *x = upsert(j, id);
    if (x) x->state = E_OPEN, x->accepted_ms = now, x->lost_ms = 0;
    append(j, 'A', now, id);
    pthread_mutex_unlock(&j->mu);
}

void journal_finished(srv_journal *j, const char *id)
{
    if (!j || strlen(id) > MAX_ID) return;
    pthread_mutex_lock(&j->mu);
    entry *x = find(j, id);
    if (x && x->state == E_OPEN) {
        drop(j, x);
        append(j, 'D', 0, id);
    }
    pthread_mutex_unlock(&j->mu);
}

void journal_sync(srv_journal *j)
{
    if (!j) return;
    pthread_mutex_lock(&j->mu);
    if (j->size > j->compact_at) {
        char err[256];
        if (!compact(j, err, sizeof err)) {
            jlog(j, CFG_LOG_ERROR, "journal: compaction failed (%s); appending to the old file", err);
            j->compact_at = j->size * 2; /* not again at once */
        }
    }
    if (j->dirty) {
        fsync(j->fd);
        j->dirty = false;
    }
    pthread_mutex_unlock(&j->mu);
}

char *journal_lost(srv_journal *j, const char *id)
{
    if (!j) return NULL;
    char *msg = NULL;
    pthread_mutex_lock(&j->mu);
    entry *x = find(j, id);
    if (x && x->state == E_LOST) {
        char a[32], l[32];
        fmt_time(a, x->accepted_ms);
        fmt_time(l, x->lost_ms);
        if (asprintf(&msg, "job %s was accepted at %s and lost in a restart at %s (the daemon stopped before it "
                     "finished): resubmit it", id, a, l) < 0)
            msg = NULL;
    }
    pthread_mutex_unlock(&j->mu);
    return msg;
}

size_t journal_lost_count(srv_journal *j)
{
    if (!j) return 0;
    pthread_mutex_lock(&j->mu);
    size_t n = 0;
    for (size_t i = 0; i < j->n; i++) n += j->e[i].state == E_LOST;
    pthread_mutex_unlock(&j->mu);
    return n;
}

const char *journal_path(const srv_journal *j) { return j ? j->path : ""; }

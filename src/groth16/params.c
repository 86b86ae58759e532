/* Groth16 parameter files in bellperson's layout; see groth16_params.h for
 * the format facts and where they come from. */
#define _GNU_SOURCE
#include "cuzk/groth16/groth16_params.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/util/error.h"
#include "cuzk/util/file.h"
#include "cuzk/util/parallel.h"

#define G1B CUZK_G1_UNCOMPRESSED_BYTES
#define G2B CUZK_G2_UNCOMPRESSED_BYTES
#define VK_FIXED_BYTES (3 * G1B + 3 * G2B)

static int set_err(cuzk_groth16_error *e, const char *src, int code, cuzk_groth16_fail fail, uint64_t off,
                   const char *section, const char *fmt, ...)
{
    if (!e) return code;
    e->code = code;
    e->fail = fail;
    e->offset = off;
    snprintf(e->section, sizeof e->section, "%s", section ? section : "");
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    snprintf(e->msg, sizeof e->msg, "%s: %s%sbyte offset %llu: %s", src ? src : "<memory>", section ? section : "",
             section && *section ? " at " : "", (unsigned long long)off, why);
    return code;
}

/* ---- sizes and writing ---------------------------------------------------- */

size_t cuzk_groth16_vk_serialized_size(const cuzk_groth16_vk *vk)
{
    return VK_FIXED_BYTES + 4 + vk->n_ic * G1B;
}

size_t cuzk_groth16_params_serialized_size(const cuzk_groth16_params *p)
{
    return cuzk_groth16_vk_serialized_size(&p->vk) + 5 * 4 + (p->n_h + p->n_l + p->n_a + p->n_b_g1) * G1B +
           p->n_b_g2 * G2B;
}

static uint8_t *put_u32be(uint8_t *o, size_t v)
{
    o[0] = (uint8_t)(v >> 24), o[1] = (uint8_t)(v >> 16), o[2] = (uint8_t)(v >> 8), o[3] = (uint8_t)v;
    return o + 4;
}

static uint8_t *put_g1s(uint8_t *o, const cuzk_g1_affine *p, size_t n)
{
    o = put_u32be(o, n);
    for (size_t i = 0; i < n; i++, o += G1B) cuzk_g1_serialize(o, &p[i]);
    return o;
}

static uint8_t *put_vk(uint8_t *o, const cuzk_groth16_vk *vk)
{
    cuzk_g1_serialize(o, &vk->alpha_g1), o += G1B;
    cuzk_g1_serialize(o, &vk->beta_g1), o += G1B;
    cuzk_g2_serialize(o, &vk->beta_g2), o += G2B;
    cuzk_g2_serialize(o, &vk->gamma_g2), o += G2B;
    cuzk_g1_serialize(o, &vk->delta_g1), o += G1B;
    cuzk_g2_serialize(o, &vk->delta_g2), o += G2B;
    return put_g1s(o, vk->ic, vk->n_ic);
}

int cuzk_groth16_vk_write_mem(const cuzk_groth16_vk *vk, uint8_t *buf, size_t len, cuzk_groth16_error *err)
{
    if (vk->n_ic > UINT32_MAX)
        return set_err(err, NULL, CUZK_ERR_INVALID_ARG, CUZK_GROTH16_FAIL_ARG, 0, "vk.ic", "count > 2^32-1");
    if (len < cuzk_groth16_vk_serialized_size(vk))
        return set_err(err, NULL, CUZK_ERR_BAD_LENGTH, CUZK_GROTH16_FAIL_ARG, 0, "", "output buffer too short");
    put_vk(buf, vk);
    return CUZK_OK;
}

int cuzk_groth16_params_write_mem(const cuzk_groth16_params *p, uint8_t *buf, size_t len, cuzk_groth16_error *err)
{
    const size_t n[6] = {p->vk.n_ic, p->n_h, p->n_l, p->n_a, p->n_b_g1, p->n_b_g2};
    static const char *names[6] = {"vk.ic", "h", "l", "a", "b_g1", "b_g2"};
    for (int i = 0; i < 6; i++)
        if (n[i] > UINT32_MAX)
            return set_err(err, NULL, CUZK_ERR_INVALID_ARG, CUZK_GROTH16_FAIL_ARG, 0, names[i], "count > 2^32-1");
    if (len < cuzk_groth16_params_serialized_size(p))
        return set_err(err, NULL, CUZK_ERR_BAD_LENGTH, CUZK_GROTH16_FAIL_ARG, 0, "", "output buffer too short");
    uint8_t *o = put_vk(buf, &p->vk);
    o = put_g1s(o, p->h, p->n_h);
    o = put_g1s(o, p->l, p->n_l);
    o = put_g1s(o, p->a, p->n_a);
    o = put_g1s(o, p->b_g1, p->n_b_g1);
    o = put_u32be(o, p->n_b_g2);
    for (size_t i = 0; i < p->n_b_g2; i++, o += G2B) cuzk_g2_serialize(o, &p->b_g2[i]);
    return CUZK_OK;
}

static int pwrite_all(int fd, const uint8_t *d, size_t len, uint64_t off)
{
    while (len) {
        ssize_t w = pwrite(fd, d, len > (1u << 30) ? (1u << 30) : len, (off_t)off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        d += w, len -= (size_t)w, off += (uint64_t)w;
    }
    return 0;
}

#define CHUNK_POINTS 8192 /* points serialized per write: 1.5 MiB of G2 */
#define EMIT_MAX_THREADS 64

/* One list section of the file: its points and where their bytes go. */
typedef struct emit_sec {
    const void *arr;
    size_t n;
    bool g2;
    uint64_t off;    /* file offset of the first point */
    size_t chunk0;   /* index of its first chunk over all sections */
} emit_sec;

typedef struct emit_job {
    int fd;
    const emit_sec *sec;
    int nsec;
    uint8_t **buf;   /* per worker, made by its first chunk */
    int failed;      /* errno of the first failed write (atomic), 0 if none */
} emit_job;

static void emit_fail(emit_job *j, int e)
{
    int zero = 0;
    __atomic_compare_exchange_n(&j->failed, &zero, e, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* Chunks [lo, hi) until a write failed. Every chunk lands at its own offset,
 * so the order the threads finish in does not matter. */
static void emit_chunks(void *arg, unsigned worker, size_t lo, size_t hi)
{
    emit_job *j = arg;
    uint8_t *buf = j->buf[worker] ? j->buf[worker] : (j->buf[worker] = malloc(CHUNK_POINTS * G2B));
    if (!buf) {
        emit_fail(j, ENOMEM);
        return;
    }
    for (size_t c = lo; c < hi && !__atomic_load_n(&j->failed, __ATOMIC_RELAXED); c++) {
        int k = 0;
        while (k + 1 < j->nsec && c >= j->sec[k + 1].chunk0) k++;
        const emit_sec *s = &j->sec[k];
        size_t i = (c - s->chunk0) * CHUNK_POINTS, m = s->n - i < CHUNK_POINTS ? s->n - i : CHUNK_POINTS, o = 0;
        for (size_t t = 0; t < m; t++)
            if (s->g2) cuzk_g2_serialize(buf + o, (const cuzk_g2_affine *)s->arr + i + t), o += G2B;
            else cuzk_g1_serialize(buf + o, (const cuzk_g1_affine *)s->arr + i + t), o += G1B;
        if (pwrite_all(j->fd, buf, o, s->off + (uint64_t)i * (s->g2 ? G2B : G1B))) {
            emit_fail(j, errno ? errno : EIO);
            return;
        }
    }
}

/* Writes the vk head and the counts, then (when p is set) the lists, each
 * chunk serialized by one of up to EMIT_MAX_THREADS threads into its own
 * bounded buffer: tens of GiB go out at the disk's pace (one thread spends
 * over a minute per 47 GB file just converting coordinates out of
 * Montgomery form), and no second copy of the file is ever in memory. */
static int emit(int fd, const cuzk_groth16_vk *vk, const cuzk_groth16_params *p)
{
    uint8_t head[VK_FIXED_BYTES + 4];
    cuzk_groth16_vk fixed = *vk;
    fixed.n_ic = 0;
    put_vk(head, &fixed);
    put_u32be(head + VK_FIXED_BYTES, vk->n_ic);
    if (pwrite_all(fd, head, sizeof head, 0)) return -1;
    emit_sec sec[6] = {{vk->ic, vk->n_ic, false, 0, 0}};
    int nsec = 1;
    if (p) {
        sec[1] = (emit_sec){p->h, p->n_h, false, 0, 0};
        sec[2] = (emit_sec){p->l, p->n_l, false, 0, 0};
        sec[3] = (emit_sec){p->a, p->n_a, false, 0, 0};
        sec[4] = (emit_sec){p->b_g1, p->n_b_g1, false, 0, 0};
        sec[5] = (emit_sec){p->b_g2, p->n_b_g2, true, 0, 0};
        nsec = 6;
    }
    uint64_t pos = sizeof head;
    size_t nchunks = 0;
    for (int k = 0; k < nsec; k++) {
        if (k > 0) { /* vk.ic's count went out with the vk head */
            uint8_t cnt[4];
            put_u32be(cnt, sec[k].n);
            if (pwrite_all(fd, cnt, 4, pos)) return -1;
            pos += 4;
        }
        sec[k].off = pos;
        sec[k].chunk0 = nchunks;
        pos += (uint64_t)sec[k].n * (sec[k].g2 ? G2B : G1B);
        nchunks += (sec[k].n + CHUNK_POINTS - 1) / CHUNK_POINTS;
    }
    unsigned nthreads = cuzk_parallel_cpus();
    if (nthreads > EMIT_MAX_THREADS) nthreads = EMIT_MAX_THREADS;
    uint8_t *bufs[EMIT_MAX_THREADS] = {0};
    emit_job job = {fd, sec, nsec, bufs, 0};
    cuzk_parallel_for(nchunks, 1, nthreads, emit_chunks, &job);
    for (unsigned t = 0; t < EMIT_MAX_THREADS; t++) free(bufs[t]);
    if (job.failed) {
        errno = job.failed;
        return -1;
    }
    return 0;
}

/* Serialize to a temporary file next to path, fsync it, rename it over path
 * and fsync the directory, so readers see the old or the new file whole. */
static int write_atomic(const char *path, const cuzk_groth16_vk *vk, const cuzk_groth16_params *p,
                        cuzk_groth16_error *err)
{
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 16);
    if (!tmp) {
        return set_err(err, path, CUZK_ERR_NO_MEMORY, CUZK_GROTH16_FAIL_IO, 0, "", "out of memory");
    }
    memcpy(tmp, path, pl);
    memcpy(tmp + pl, ".tmp.XXXXXX", 12);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return set_err(err, path, CUZK_ERR_IO, CUZK_GROTH16_FAIL_IO, 0, "", "create temp file: %s", strerror(e));
    }
    if (emit(fd, vk, p) != 0) goto fail;
    if (fchmod(fd, 0644) != 0 || fsync(fd) != 0) goto fail;
    if (close(fd) != 0) {
        fd = -1;
        goto fail;
    }
    fd = -1;
    if (rename(tmp, path) != 0) goto fail;
    /* Make the rename durable: fsync the directory holding path. */
    {
        const char *slash = strrchr(path, '/');
        char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
        if (dir) {
            int dfd = open(dir, O_RDONLY | O_DIRECTORY);
            if (dfd >= 0) fsync(dfd), close(dfd);
            free(dir);
        }
    }
    free(tmp);
    return CUZK_OK;
fail : {
    int e = errno;
    if (fd >= 0) close(fd);
    unlink(tmp);
    free(tmp);
    return set_err(err, path, CUZK_ERR_IO, CUZK_GROTH16_FAIL_IO, 0, "", "write: %s", strerror(e));
}
}

static int check_counts(const cuzk_groth16_vk *vk, const cuzk_groth16_params *p, const char *path,
                        cuzk_groth16_error *err)
{
    const size_t n[6] = {vk->n_ic, p ? p->n_h : 0, p ? p->n_l : 0, p ? p->n_a : 0, p ? p->n_b_g1 : 0,
                         p ? p->n_b_g2 : 0};
    static const char *names[6] = {"vk.ic", "h", "l", "a", "b_g1", "b_g2"};
    for (int i = 0; i < 6; i++)
        if (n[i] > UINT32_MAX)
            return set_err(err, path, CUZK_ERR_INVALID_ARG, CUZK_GROTH16_FAIL_ARG, 0, names[i], "count > 2^32-1");
    return CUZK_OK;
}

int cuzk_groth16_vk_write_file(const cuzk_groth16_vk *vk, const char *path, cuzk_groth16_error *err)
{
    int r = check_counts(vk, NULL, path, err);
    return r ? r : write_atomic(path, vk, NULL, err);
}

int cuzk_groth16_params_write_file(const cuzk_groth16_params *p, const char *path, cuzk_groth16_error *err)
{
    int r = check_counts(&p->vk, p, path, err);
    return r ? r : write_atomic(path, &p->vk, p, err);
}

/* ---- reading ---------------------------------------------------------------- */

void cuzk_groth16_vk_free(cuzk_groth16_vk *vk)
{
    if (!vk) return;
    free(vk->ic);
    memset(vk, 0, sizeof *vk);
}

void cuzk_groth16_params_free(cuzk_groth16_params *p)
{
    if (!p) return;
    cuzk_groth16_vk_free(&p->vk);
    free(p->h), free(p->l), free(p->a), free(p->b_g1), free(p->b_g2);
    memset(p, 0, sizeof *p);
}

enum { SEC_IC, SEC_H, SEC_L, SEC_A, SEC_BG1, SEC_BG2, NSEC };
static const char *const sec_names[NSEC] = {"vk.ic", "h", "l", "a", "b_g1", "b_g2"};

/* One list section located in the input. */
typedef struct section {
    uint64_t off;   /* offset of entry 0 */
    size_t n;       /* entries */
    size_t g0;      /* global index of entry 0 across all sections */
    bool g2;
    void *dst;
} section;

/* The bytes being parsed: memory (buf), or an open file (fd) read piece by
 * piece with pread. A file is read, never mapped: one cut while it is read
 * is a short read, reported, where a mapping would fault (SIGBUS, the
 * process dead) in whichever decoder touched a cut page; one rewritten in
 * place gives bytes that fail the point checks. len is the size the file
 * had when opened; every count is checked against it. */
typedef struct input {
    const uint8_t *buf;
    int fd;
    uint64_t len;
    const char *src; /* the path, or NULL: "<memory>" */
} input;

/* A read that came up short: where it stopped and why (the rc of
 * cuzk_file_pread_full, errno). */
typedef struct input_short {
    uint64_t at;
    int rc, eno;
} input_short;

/* n bytes at off (off + n <= in->len): into memory, or read into tmp. NULL
 * when the file ended early or could not be read (*why says where). */
static const uint8_t *input_at(const input *in, uint64_t off, size_t n, uint8_t *tmp, input_short *why)
{
    if (in->buf) return in->buf + off;
    size_t got = 0;
    int rc = cuzk_file_pread_full(in->fd, tmp, n, off, &got);
    if (rc == CUZK_OK) return tmp;
    *why = (input_short){off + got, rc, errno};
    return NULL;
}

/* The error of a short read: the file changed since it was opened. */
static int input_err(const input *in, const input_short *why, const char *section, cuzk_groth16_error *err)
{
    if (why->rc == CUZK_ERR_BAD_LENGTH)
        return set_err(err, in->src, CUZK_ERR_IO, CUZK_GROTH16_FAIL_IO, why->at, section,
                       "the file ends here, not at %llu bytes as when it was opened: cut or rewritten while it "
                       "was read",
                       (unsigned long long)in->len);
    return set_err(err, in->src, CUZK_ERR_IO, CUZK_GROTH16_FAIL_IO, why->at, section, "read: %s",
                   strerror(why->eno));
}

/* The first bad entry a worker met: its global index (SIZE_MAX: none);
 * for a read that came up short, the entry it stopped in and why. */
typedef struct decode_bad {
    size_t at;
    int code;
    bool infinity;
    bool io;
    input_short why;
} decode_bad;

/* A file is decoded from pieces of at most PIECE_BYTES, read by each worker
 * into its own scratch (a few hundred KiB per thread instead of a second
 * copy of a 47 GB file). */
#define PIECE_BYTES ((size_t)1 << 20)

typedef struct decode_job {
    const input *in;
    section *sec;
    int nsec;
    bool checked;
    decode_bad *bad;  /* per worker */
    uint8_t *scratch; /* per worker: PIECE_BYTES each (file input only) */
} decode_job;

/* Entries [i, i + n) of section sc (global index g of entry i) from
 * their bytes at in; false at the first bad one, which b keeps when it is
 * the lowest this worker met. */
static bool decode_piece(const section *sc, size_t i, size_t n, const uint8_t *in, bool checked, size_t g,
                         decode_bad *b)
{
    for (size_t k = 0; k < n; k++) {
        int r;
        bool inf;
        if (sc->g2) {
            cuzk_g2_affine *d = (cuzk_g2_affine *)sc->dst + i + k;
            r = checked ? cuzk_g2_deserialize(d, in + k * G2B) : cuzk_g2_deserialize_unchecked(d, in + k * G2B);
            inf = r == CUZK_OK && cuzk_g2_affine_is_infinity(d);
        } else {
            cuzk_g1_affine *d = (cuzk_g1_affine *)sc->dst + i + k;
            r = checked ? cuzk_g1_deserialize(d, in + k * G1B) : cuzk_g1_deserialize_unchecked(d, in + k * G1B);
            inf = r == CUZK_OK && cuzk_g1_affine_is_infinity(d);
        }
        if (r != CUZK_OK || inf) {
            if (g + k < b->at) *b = (decode_bad){.at = g + k, .code = r, .infinity = inf};
            return false;
        }
    }
    return true;
}

/* Entries [lo, hi) (global indexes over the sections), in pieces within
 * one section each, stopping at the range's first bad one or short read; a
 * worker keeps the lowest it met. */
static void decode_range(void *arg, unsigned worker, size_t lo, size_t hi)
{
    decode_job *j = arg;
    decode_bad *b = &j->bad[worker];
    if (lo > b->at) return; /* an earlier entry of this worker's is already bad */
    uint8_t *tmp = j->scratch ? j->scratch + (size_t)worker * PIECE_BYTES : NULL;
    int s = 0;
    for (size_t g = lo; g < hi;) {
        while (g >= j->sec[s].g0 + j->sec[s].n) s++;
        const section *sc = &j->sec[s];
        const size_t esz = sc->g2 ? G2B : G1B, i = g - sc->g0;
        size_t n = hi - g < sc->g0 + sc->n - g ? hi - g : sc->g0 + sc->n - g;
        if (n > PIECE_BYTES / esz) n = PIECE_BYTES / esz;
        input_short why;
        const uint8_t *in = input_at(j->in, sc->off + (uint64_t)i * esz, n * esz, tmp, &why);
        if (!in) {
            size_t stop = g + (size_t)((why.at - sc->off) / esz - i);
            if (stop < b->at) *b = (decode_bad){.at = stop, .io = true, .why = why};
            return;
        }
        if (!decode_piece(sc, i, n, in, j->checked, g, b)) return;
        g += n;
    }
}

/* Reads a BE u32 count at *pos and checks that count entries of size esz
 * fit before the input's end; advances *pos past the count. */
static int read_count(const input *in, uint64_t *pos, size_t esz, size_t *n, const char *name,
                      cuzk_groth16_error *err)
{
    const char *src = in->src;
    const uint64_t len = in->len;
    char sec[32];
    snprintf(sec, sizeof sec, "%s count", name);
    if (len - *pos < 4)
        return set_err(err, src, CUZK_ERR_FORMAT, CUZK_GROTH16_FAIL_TRUNCATED, *pos, sec,
                       "truncated (%llu bytes left, need 4)", (unsigned long long)(len - *pos));
    uint8_t tmp[4];
    input_short why;
    const uint8_t *p = input_at(in, *pos, 4, tmp, &why);
    if (!p) return input_err(in, &why, sec, err);
    uint64_t c = (uint64_t)p[0] << 24 | (uint64_t)p[1] << 16 | (uint64_t)p[2] << 8 | p[3];
    uint64_t left = len - *pos - 4;
    if (c * esz > left) {
        /* Name the entry where the input ends, since that is what a short
         * file looks like. */
        char at[32];
        snprintf(at, sizeof at, "%s[%llu]", name, (unsigned long long)(left / esz));
        return set_err(err, src, CUZK_ERR_FORMAT, CUZK_GROTH16_FAIL_COUNT, *pos + 4 + left / esz * esz, at,
                       "truncated: %s count %llu needs %llu bytes, %llu left", name, (unsigned long long)c,
                       (unsigned long long)(c * esz), (unsigned long long)left);
    }
    *pos += 4;
    *n = (size_t)c;
    return CUZK_OK;
}

static const char *const vk_fixed_names[6] = {"vk.alpha_g1", "vk.beta_g1", "vk.beta_g2",
                                              "vk.gamma_g2", "vk.delta_g1", "vk.delta_g2"};

static bool differs(char *what, size_t what_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool differs(char *what, size_t what_len, const char *fmt, ...)
{
    if (what && what_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, what_len, fmt, ap);
        va_end(ap);
    }
    return false;
}

bool cuzk_groth16_vk_equal(const cuzk_groth16_vk *a, const cuzk_groth16_vk *b, char *what, size_t what_len)
{
    /* the fixed points in file order, as read_vk_fixed decodes them */
    const void *pa[6] = {&a->alpha_g1, &a->beta_g1, &a->beta_g2, &a->gamma_g2, &a->delta_g1, &a->delta_g2};
    const void *pb[6] = {&b->alpha_g1, &b->beta_g1, &b->beta_g2, &b->gamma_g2, &b->delta_g1, &b->delta_g2};
    static const bool isg2[6] = {false, false, true, true, false, true};
    for (int k = 0; k < 6; k++) {
        bool same = isg2[k] ? cuzk_g2_affine_eq(pa[k], pb[k]) : cuzk_g1_affine_eq(pa[k], pb[k]);
        if (!same) return differs(what, what_len, "%s", vk_fixed_names[k]);
    }
    if (a->n_ic != b->n_ic) return differs(what, what_len, "vk.ic count (%zu, %zu)", a->n_ic, b->n_ic);
    for (size_t i = 0; i < a->n_ic; i++)
        if (!cuzk_g1_affine_eq(&a->ic[i], &b->ic[i])) return differs(what, what_len, "vk.ic[%zu]", i);
    return true;
}

/* The six fixed vk points, always fully checked (as bellperson). */
static int read_vk_fixed(cuzk_groth16_vk *vk, const input *in, cuzk_groth16_error *err)
{
    void *dst[6] = {&vk->alpha_g1, &vk->beta_g1, &vk->beta_g2, &vk->gamma_g2, &vk->delta_g1, &vk->delta_g2};
    static const bool isg2[6] = {false, false, true, true, false, true};
    const char *src = in->src;
    const uint64_t len = in->len;
    uint64_t pos = 0;
    for (int k = 0; k < 6; k++) {
        size_t sz = isg2[k] ? G2B : G1B;
        if (len - pos < sz)
            return set_err(err, src, CUZK_ERR_FORMAT, CUZK_GROTH16_FAIL_TRUNCATED, pos, vk_fixed_names[k],
                           "truncated (%llu bytes left, need %zu)", (unsigned long long)(len - pos), sz);
        uint8_t tmp[G2B];
        input_short why;
        const uint8_t *p = input_at(in, pos, sz, tmp, &why);
        if (!p) return input_err(in, &why, vk_fixed_names[k], err);
        int r = isg2[k] ? cuzk_g2_deserialize(dst[k], p) : cuzk_g1_deserialize(dst[k], p);
        if (r != CUZK_OK)
            return set_err(err, src, r, CUZK_GROTH16_FAIL_POINT, pos, vk_fixed_names[k], "%s", cuzk_strerror(r));
        pos += sz;
    }
    return CUZK_OK;
}

/* Locates nsec list sections after the fixed vk; allocates and decodes
 * (with nthreads threads) those from index skip on. dsts[k] receives the
 * array pointer (unused for k < skip). */
static int read_lists(const input *in, int skip, int nsec, void **dsts[], size_t *counts[], bool checked,
                      unsigned nthreads, size_t *consumed, cuzk_groth16_error *err)
{
    const char *src = in->src;
    section sec[NSEC];
    uint64_t pos = VK_FIXED_BYTES;
    size_t total = 0;
    int r;
    for (int k = 0; k < nsec; k++) {
        size_t esz = k == SEC_BG2 ? G2B : G1B;
        r = read_count(in, &pos, esz, &sec[k].n, sec_names[k], err);
        if (r) return r;
        sec[k].off = pos;
        sec[k].g2 = k == SEC_BG2;
        pos += (uint64_t)sec[k].n * esz;
        if (k < skip) sec[k].n = 0; /* located only */
        sec[k].g0 = total;
        total += sec[k].n;
    }
    /* All counts are backed by input bytes, so these sizes are bounded. */
    for (int k = skip; k < nsec; k++) {
        size_t esz = k == SEC_BG2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
        sec[k].dst = sec[k].n ? malloc(sec[k].n * esz) : NULL;
        *dsts[k] = sec[k].dst;
        *counts[k] = sec[k].n;
        if (sec[k].n && !sec[k].dst)
            return set_err(err, src, CUZK_ERR_NO_MEMORY, CUZK_GROTH16_FAIL_IO, sec[k].off, sec_names[k],
                           "out of memory");
    }
    if (nthreads == 0) nthreads = 1;
    if (nthreads > 256) nthreads = 256;
    if (total < (size_t)nthreads * 64) nthreads = total / 64 ? (unsigned)(total / 64) : 1;
    decode_bad bads[256];
    for (unsigned t = 0; t < nthreads; t++) bads[t] = (decode_bad){.at = SIZE_MAX};
    decode_job job = {in, sec, nsec, checked, bads, NULL};
    if (!in->buf && total && !(job.scratch = malloc((size_t)nthreads * PIECE_BYTES)))
        return set_err(err, src, CUZK_ERR_NO_MEMORY, CUZK_GROTH16_FAIL_IO, sec[skip].off, sec_names[skip],
                       "out of memory");
    cuzk_parallel_for(total, 0, nthreads, decode_range, &job);
    free(job.scratch);
    /* Each range stops at its own first failure, so the lowest over all
     * workers is the first failure in file order, whatever nthreads is. */
    const decode_bad *bad = NULL;
    for (unsigned t = 0; t < nthreads; t++)
        if (bads[t].at != SIZE_MAX && (!bad || bads[t].at < bad->at)) bad = &bads[t];
    if (bad) {
        int k = 0;
        while (bad->at >= sec[k].g0 + sec[k].n) k++;
        size_t i = bad->at - sec[k].g0;
        uint64_t off = sec[k].off + (uint64_t)i * (sec[k].g2 ? G2B : G1B);
        char name[32];
        snprintf(name, sizeof name, "%s[%zu]", sec_names[k], i);
        if (bad->io) return input_err(in, &bad->why, name, err);
        if (bad->infinity)
            return set_err(err, src, CUZK_ERR_FORMAT, CUZK_GROTH16_FAIL_INFINITY, off, name, "point at infinity");
        return set_err(err, src, bad->code, CUZK_GROTH16_FAIL_POINT, off, name, "%s", cuzk_strerror(bad->code));
    }
    if (consumed) *consumed = (size_t)pos;
    return CUZK_OK;
}

static int vk_read(cuzk_groth16_vk *out, const input *in, size_t *consumed, cuzk_groth16_error *err)
{
    memset(out, 0, sizeof *out);
    int r = read_vk_fixed(out, in, err);
    if (r == CUZK_OK) {
        void **d[1] = {(void **)&out->ic};
        size_t *c[1] = {&out->n_ic};
        r = read_lists(in, 0, 1, d, c, true, 1, consumed, err);
    }
    if (r != CUZK_OK) cuzk_groth16_vk_free(out);
    return r;
}

static int params_read(cuzk_groth16_params *out, const input *in, cuzk_groth16_read_mode mode, unsigned nthreads,
                       size_t *consumed, cuzk_groth16_error *err)
{
    memset(out, 0, sizeof *out);
    if (mode != CUZK_GROTH16_VALIDATE && mode != CUZK_GROTH16_TRUSTED)
        return set_err(err, in->src, CUZK_ERR_INVALID_ARG, CUZK_GROTH16_FAIL_ARG, 0, "", "bad mode %d", (int)mode);
    int r = read_vk_fixed(&out->vk, in, err);
    if (r == CUZK_OK) {
        /* bellperson: vk.ic is read by VerifyingKey::read, always checked;
         * the lists follow the mode. Decode ic first, then the rest. */
        void **d1[1] = {(void **)&out->vk.ic};
        size_t *c1[1] = {&out->vk.n_ic};
        r = read_lists(in, 0, 1, d1, c1, true, nthreads, NULL, err);
        if (r == CUZK_OK) {
            /* Locate all sections again, decode the lists after ic. */
            void *ic_again = NULL;
            size_t n_ic_again = 0;
            void **d[NSEC] = {&ic_again, (void **)&out->h, (void **)&out->l, (void **)&out->a,
                              (void **)&out->b_g1, (void **)&out->b_g2};
            size_t *c[NSEC] = {&n_ic_again, &out->n_h, &out->n_l, &out->n_a, &out->n_b_g1, &out->n_b_g2};
            r = read_lists(in, 1, NSEC, d, c, mode == CUZK_GROTH16_VALIDATE, nthreads, consumed, err);
        }
    }
    if (r != CUZK_OK) cuzk_groth16_params_free(out);
    return r;
}

int cuzk_groth16_vk_read_mem(cuzk_groth16_vk *out, const uint8_t *buf, size_t len, size_t *consumed,
                             cuzk_groth16_error *err)
{
    static const uint8_t empty[1];
    const input in = {buf && len ? buf : empty, -1, len, NULL};
    return vk_read(out, &in, consumed, err);
}

int cuzk_groth16_params_read_mem(cuzk_groth16_params *out, const uint8_t *buf, size_t len,
                                 cuzk_groth16_read_mode mode, unsigned nthreads, size_t *consumed,
                                 cuzk_groth16_error *err)
{
    static const uint8_t empty[1];
    const input in = {buf && len ? buf : empty, -1, len, NULL};
    return params_read(out, &in, mode, nthreads, consumed, err);
}

/* path opened for reading: in (fd and the size it has now). */
static int open_input(const char *path, input *in, cuzk_groth16_error *err)
{
    *in = (input){NULL, -1, 0, path};
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return set_err(err, path, CUZK_ERR_IO, CUZK_GROTH16_FAIL_IO, 0, "", "open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return set_err(err, path, CUZK_ERR_IO, CUZK_GROTH16_FAIL_IO, 0, "", "stat: %s", strerror(e));
    }
    posix_fadvise(fd, 0, st.st_size, POSIX_FADV_SEQUENTIAL);
    in->fd = fd;
    in->len = (uint64_t)st.st_size;
    return CUZK_OK;
}

int cuzk_groth16_vk_read_file(cuzk_groth16_vk *out, const char *path, cuzk_groth16_error *err)
{
    memset(out, 0, sizeof *out);
    input in;
    int r = open_input(path, &in, err);
    if (r) return r;
    r = vk_read(out, &in, NULL, err);
    close(in.fd);
    return r;
}

int cuzk_groth16_params_read_file(cuzk_groth16_params *out, const char *path, cuzk_groth16_read_mode mode,
                                  unsigned nthreads, cuzk_groth16_error *err)
{
    memset(out, 0, sizeof *out);
    input in;
    int r = open_input(path, &in, err);
    if (r) return r;
    r = params_read(out, &in, mode, nthreads, NULL, err);
    close(in.fd);
    return r;
}

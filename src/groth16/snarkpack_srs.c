/* SnarkPack's SRS: bellperson's GenericSRS file (cuzk/groth16/snarkpack.h), its TEST setup and the
 * verifier key for n proofs. */
#define _GNU_SOURCE /* O_CLOEXEC */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/util/error.h"
#include "cuzk/util/file.h"
#include "cuzk/util/mem.h"
#include "cuzk/util/parallel.h"
#include "snarkpack_internal.h"

static const char test_trailer[] = "\ncuzk TEST SRS: alpha and beta drawn at random on one machine and wiped; "
                                   "never a ceremony, never for the chain.\n";
static const char *const vec_name[4] = {"g_alpha_powers", "g_beta_powers", "h_alpha_powers", "h_beta_powers"};

/* Where the bytes come from: memory, or a file read with pread (never mapped). */
typedef struct {
    const uint8_t *mem;
    int fd;
    uint64_t size;
} srs_src;

static int src_read(const srs_src *s, uint64_t off, void *buf, size_t len)
{
    if (off > s->size || len > s->size - off) return CUZK_ERR_FORMAT;
    if (s->mem) return memcpy(buf, s->mem + off, len), CUZK_OK;
    return cuzk_file_pread_full(s->fd, buf, len, off, NULL) ? CUZK_ERR_IO : CUZK_OK;
}

typedef struct {
    const uint8_t *raw;
    void *out;
    size_t psize;
    size_t *bad; /* first bad index per chunk start, SIZE_MAX if none */
    int *code;
} dec_ctx;

static void dec_chunk(void *vctx, unsigned worker, size_t lo, size_t hi)
{
    (void)worker;
    dec_ctx *c = vctx;
    for (size_t i = lo; i < hi; i++) {
        int rc = c->psize == 48 ? cuzk_g1_uncompress((cuzk_g1_affine *)c->out + i, c->raw + 48 * i)
                                : cuzk_g2_uncompress((cuzk_g2_affine *)c->out + i, c->raw + 96 * i);
        if (rc && i < c->bad[worker]) c->bad[worker] = i, c->code[worker] = rc;
        if (rc) return;
    }
}

/* Decodes take points; the first bad one (in order) into *bad_i. */
static int decode_points(void *out, const uint8_t *raw, size_t take, size_t psize, unsigned nthreads, size_t *bad_i)
{
    unsigned t = nthreads ? nthreads : 1;
    size_t bad[256];
    int code[256] = {0};
    if (t > 256) t = 256;
    for (unsigned i = 0; i < t; i++) bad[i] = SIZE_MAX;
    dec_ctx c = {raw, out, psize, bad, code};
    cuzk_parallel_for(take, 0, t, dec_chunk, &c);
    int rc = CUZK_OK;
    *bad_i = SIZE_MAX;
    for (unsigned i = 0; i < t; i++)
        if (bad[i] < *bad_i) *bad_i = bad[i], rc = code[i];
    return rc;
}

/* One vector at *off: count, then its first `take` points decoded; *off moves past all. */
static int read_vector(cuzk_snarkpack_srs *srs, int v, const srs_src *s, uint64_t *off, size_t max_len,
                       unsigned nthreads, char *err, size_t err_len)
{
    uint8_t c[4];
    size_t psize = v < 2 ? 48 : 96;
    if (src_read(s, *off, c, 4))
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "SRS: %s count at byte %llu: the input ends there",
                         vec_name[v], (unsigned long long)*off);
    uint32_t n = (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 | (uint32_t)c[2] << 8 | c[3];
    if (n > CUZK_SNARKPACK_SRS_MAX_LEN)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "SRS: %s count %u at byte %llu is over the limit 2^20 + 1",
                         vec_name[v], n, (unsigned long long)*off);
    *off += 4;
    if ((uint64_t)n * psize > s->size - *off)
        return cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "SRS: %s: %u points of %zu bytes from byte %llu run past "
                         "the end (%llu bytes)", vec_name[v], n, psize, (unsigned long long)*off,
                         (unsigned long long)s->size);
    size_t take = max_len && max_len < n ? max_len : n, bad;
    uint8_t *raw = malloc(take * psize + 1);
    void *pts = malloc(take * (v < 2 ? sizeof(cuzk_g1_affine) : sizeof(cuzk_g2_affine)) + 1);
    int rc = raw && pts ? src_read(s, *off, raw, take * psize) : CUZK_ERR_NO_MEMORY;
    if (rc) cuzk_errf(err, err_len, rc, "SRS: %s: %s", vec_name[v], cuzk_strerror(rc));
    else if ((rc = decode_points(pts, raw, take, psize, nthreads, &bad)))
        cuzk_errf(err, err_len, rc, "SRS: %s[%zu] at byte %llu: %s", vec_name[v], bad,
                  (unsigned long long)(*off + bad * psize), cuzk_strerror(rc));
    free(raw);
    if (rc) return free(pts), rc;
    void **slot[4] = {(void **)&srs->g_alpha, (void **)&srs->g_beta, (void **)&srs->h_alpha, (void **)&srs->h_beta};
    *slot[v] = pts;
    srs->len[v] = take, srs->file_len[v] = n;
    *off += (uint64_t)n * psize;
    return CUZK_OK;
}

static int read_src(cuzk_snarkpack_srs *srs, const srs_src *s, size_t max_len, unsigned nthreads, char *err,
                    size_t err_len)
{
    memset(srs, 0, sizeof *srs);
    uint64_t off = 0;
    for (int v = 0; v < 4; v++) {
        int rc = read_vector(srs, v, s, &off, max_len, nthreads, err, err_len);
        if (rc) return cuzk_snarkpack_srs_free(srs), rc;
    }
    size_t tl = sizeof test_trailer - 1;
    char tail[sizeof test_trailer];
    srs->test = s->size - off >= tl && !src_read(s, off, tail, tl) && !memcmp(tail, test_trailer, tl);
    return CUZK_OK;
}

int cuzk_snarkpack_srs_read_mem(cuzk_snarkpack_srs *srs, const uint8_t *buf, size_t len, size_t max_len,
                                unsigned nthreads, char *err, size_t err_len)
{
    srs_src s = {buf ? buf : (const uint8_t *)"", -1, buf ? len : 0};
    return read_src(srs, &s, max_len, nthreads, err, err_len);
}

int cuzk_snarkpack_srs_read_file(cuzk_snarkpack_srs *srs, const char *path, size_t max_len, unsigned nthreads,
                                 char *err, size_t err_len)
{
    memset(srs, 0, sizeof *srs);
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st)) {
        if (fd >= 0) close(fd);
        return cuzk_errf(err, err_len, CUZK_ERR_IO, "SRS %s: cannot open it", path);
    }
    srs_src s = {NULL, fd, (uint64_t)st.st_size};
    char e[512];
    int rc = read_src(srs, &s, max_len, nthreads, e, sizeof e);
    close(fd);
    if (rc) cuzk_errf(err, err_len, rc, "%s: %s", path, e);
    return rc;
}

typedef struct {
    const cuzk_fr *pow;
    cuzk_snarkpack_srs *srs;
    size_t m;
} powers_ctx;

/* Index i < 4m: vector i / m, power i % m (alpha's powers for vectors 0 and 2, beta's for 1, 3). */
static void powers_chunk(void *vctx, unsigned worker, size_t lo, size_t hi)
{
    (void)worker;
    powers_ctx *c = vctx;
    for (size_t i = lo; i < hi; i++) {
        size_t v = i / c->m, k = i % c->m;
        const cuzk_fr *s = &c->pow[(v % 2) * c->m + k];
        if (v < 2) {
            cuzk_g1_jac j;
            cuzk_g1_jac_from_affine(&j, &cuzk_g1_generator);
            cuzk_g1_jac_mul_fr(&j, &j, s);
            cuzk_g1_jac_to_affine(v ? &c->srs->g_beta[k] : &c->srs->g_alpha[k], &j);
        } else {
            cuzk_g2_jac j;
            cuzk_g2_jac_from_affine(&j, &cuzk_g2_generator);
            cuzk_g2_jac_mul_fr(&j, &j, s);
            cuzk_g2_jac_to_affine(v == 3 ? &c->srs->h_beta[k] : &c->srs->h_alpha[k], &j);
        }
    }
}

int cuzk_snarkpack_srs_setup_test(cuzk_snarkpack_srs *srs, size_t max_n, cuzk_rng *rng, unsigned nthreads)
{
    memset(srs, 0, sizeof *srs);
    if (max_n < 2 || max_n > (CUZK_SNARKPACK_SRS_MAX_LEN - 1) / 2 || !rng) return CUZK_ERR_INVALID_ARG;
    size_t m = 2 * max_n;
    cuzk_fr *pow = malloc(2 * m * sizeof *pow), ab[2];
    srs->g_alpha = malloc(m * sizeof *srs->g_alpha), srs->g_beta = malloc(m * sizeof *srs->g_beta);
    srs->h_alpha = malloc(m * sizeof *srs->h_alpha), srs->h_beta = malloc(m * sizeof *srs->h_beta);
    if (!pow || !srs->g_alpha || !srs->g_beta || !srs->h_alpha || !srs->h_beta)
        return free(pow), cuzk_snarkpack_srs_free(srs), CUZK_ERR_NO_MEMORY;
    cuzk_fr_random(&ab[0], rng);
    cuzk_fr_random(&ab[1], rng);
    for (size_t t = 0; t < 2; t++) {
        pow[t * m] = cuzk_fr_one;
        for (size_t k = 1; k < m; k++) cuzk_fr_mul(&pow[t * m + k], &pow[t * m + k - 1], &ab[t]);
    }
    powers_ctx c = {pow, srs, m};
    cuzk_parallel_for(4 * m, 0, nthreads, powers_chunk, &c);
    cuzk_mem_wipe(ab, sizeof ab);
    cuzk_mem_wipe(pow, 2 * m * sizeof *pow);
    free(pow);
    for (int v = 0; v < 4; v++) srs->len[v] = m, srs->file_len[v] = (uint32_t)m;
    srs->test = 1;
    return CUZK_OK;
}

uint8_t *cuzk_snarkpack_srs_serialize(const cuzk_snarkpack_srs *srs, int test_trailer_on, size_t *len)
{
    size_t total = 16 + (srs->len[0] + srs->len[1]) * 48 + (srs->len[2] + srs->len[3]) * 96;
    if (test_trailer_on) total += sizeof test_trailer - 1;
    uint8_t *out = malloc(total), *p = out;
    if (!out) return NULL;
    for (int v = 0; v < 4; v++) {
        uint32_t n = (uint32_t)srs->len[v];
        *p++ = (uint8_t)(n >> 24), *p++ = (uint8_t)(n >> 16), *p++ = (uint8_t)(n >> 8), *p++ = (uint8_t)n;
        for (size_t i = 0; i < n; i++, p += v < 2 ? 48 : 96) {
            if (v < 2) cuzk_g1_compress(p, v ? &srs->g_beta[i] : &srs->g_alpha[i]);
            else cuzk_g2_compress(p, v == 3 ? &srs->h_beta[i] : &srs->h_alpha[i]);
        }
    }
    if (test_trailer_on) memcpy(p, test_trailer, sizeof test_trailer - 1);
    *len = total;
    return out;
}

void cuzk_snarkpack_srs_free(cuzk_snarkpack_srs *srs)
{
    if (!srs) return;
    free(srs->g_alpha), free(srs->g_beta), free(srs->h_alpha), free(srs->h_beta);
    memset(srs, 0, sizeof *srs);
}

uint32_t cuzk_snarkpack_srs_max_proofs(const cuzk_snarkpack_srs *srs)
{
    size_t g = srs->len[0] < srs->len[1] ? srs->len[0] : srs->len[1];
    size_t h = srs->len[2] < srs->len[3] ? srs->len[2] : srs->len[3];
    uint32_t n = 0;
    for (uint32_t k = 2; k <= (1u << CUZK_SNARKPACK_MAX_LOG) && 2 * (size_t)k <= g && k <= h; k *= 2) n = k;
    return n;
}

int cuzk_snarkpack_vk_for(cuzk_snarkpack_vk *vk, const cuzk_snarkpack_srs *srs, uint32_t n, char *err,
                          size_t err_len)
{
    memset(vk, 0, sizeof *vk);
    if (n < 2 || (n & (n - 1)) || n > cuzk_snarkpack_srs_max_proofs(srs))
        return cuzk_errf(err, err_len, CUZK_ERR_INVALID_ARG, "SRS: %u proofs: not a power of two >= 2 the SRS "
                         "serves (it holds powers for up to %u)", n, cuzk_snarkpack_srs_max_proofs(srs));
    vk->n = n;
    vk->g = srs->g_alpha[0], vk->g_alpha = srs->g_alpha[1], vk->g_beta = srs->g_beta[1];
    vk->h = srs->h_alpha[0], vk->h_alpha = srs->h_alpha[1], vk->h_beta = srs->h_beta[1];
    return CUZK_OK;
}

/*
 * snarkjs Groth16 .zkey reader (facts from snarkjs src/zkey_utils.js,
 * zkey_new.js, groth16_prove.js; layout in docs/circom.md).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "circom/circom_internal.h"
#include "cuzk/util/error.h"
#include "cuzk/util/handle.h"
#include "cuzk/ff/fp.h"
#include "cuzk/poly/ntt.h"
#include "cuzk/util/parallel.h"

#define G1_BYTES 96
#define G2_BYTES 192
#define COEF_BYTES 44

void cuzk_circom_zkey_free(cuzk_circom_zkey *z)
{
    if (!z) return;
    free(z->ic), free(z->coefs), free(z->c), free(z->h);
    free(z->a.idx), free(z->a.p), free(z->b_g1.idx), free(z->b_g1.p);
    free(z->b_g2.idx), free(z->b_g2.p);
    memset(z, 0, sizeof *z);
}

/* One Fp coordinate in Montgomery form: the bytes are cuzk_fp's limbs. */
static bool fp_mont(cuzk_fp *x, const uint8_t *p)
{
    circom_limbs(x->l, p, CUZK_FP_LIMBS);
    for (int i = CUZK_FP_LIMBS - 1; i >= 0; i--)
        if (x->l[i] != cuzk_fp_modulus[i]) return x->l[i] < cuzk_fp_modulus[i];
    return false;
}

/* A point, all-zero bytes being infinity: CUZK_OK or the cuzk_err. */
static int g1_point(cuzk_g1_affine *q, const uint8_t *p, bool subgroup)
{
    if (!fp_mont(&q->x, p) || !fp_mont(&q->y, p + 48)) return CUZK_ERR_NONCANONICAL;
    if (cuzk_g1_affine_is_infinity(q)) return CUZK_OK;
    if (!cuzk_g1_affine_is_on_curve(q)) return CUZK_ERR_NOT_ON_CURVE;
    if (subgroup && !cuzk_g1_affine_in_subgroup(q)) return CUZK_ERR_NOT_IN_SUBGROUP;
    return CUZK_OK;
}

static int g2_point(cuzk_g2_affine *q, const uint8_t *p, bool subgroup)
{
    if (!fp_mont(&q->x.c0, p) || !fp_mont(&q->x.c1, p + 48) || !fp_mont(&q->y.c0, p + 96) ||
        !fp_mont(&q->y.c1, p + 144))
        return CUZK_ERR_NONCANONICAL;
    if (cuzk_g2_affine_is_infinity(q)) return CUZK_OK;
    if (!cuzk_g2_affine_is_on_curve(q)) return CUZK_ERR_NOT_ON_CURVE;
    if (subgroup && !cuzk_g2_affine_in_subgroup(q)) return CUZK_ERR_NOT_IN_SUBGROUP;
    return CUZK_OK;
}

static const char *point_problem(int code)
{
    switch (code) {
    case CUZK_ERR_NONCANONICAL: return "coordinate >= p";
    case CUZK_ERR_NOT_ON_CURVE: return "not on the curve";
    case CUZK_ERR_NOT_IN_SUBGROUP: return "not in the prime-order subgroup";
    default: return cuzk_strerror(code);
    }
}

/* Parallel decoding of n points; the first bad index (file order) wins. */
typedef struct {
    const uint8_t *src;
    void *dst;
    bool g2, subgroup;
    pthread_mutex_t mu;
    size_t first_bad; /* n when none */
} pts_job;

static void pts_chunk(void *p, unsigned worker, size_t lo, size_t hi)
{
    pts_job *j = p;
    const size_t sz = j->g2 ? G2_BYTES : G1_BYTES;
    for (size_t i = lo; i < hi; i++) {
        int rc = j->g2 ? g2_point((cuzk_g2_affine *)j->dst + i, j->src + i * sz, j->subgroup)
                       : g1_point((cuzk_g1_affine *)j->dst + i, j->src + i * sz, j->subgroup);
        if (rc) {
            pthread_mutex_lock(&j->mu);
            if (i < j->first_bad) j->first_bad = i;
            pthread_mutex_unlock(&j->mu);
            return;
        }
    }
}

static int read_points(void *dst, const uint8_t *buf, uint64_t off, size_t n, bool g2, bool subgroup,
                       unsigned nthreads, const char *name, cuzk_circom_error *err)
{
    pts_job j = {.src = buf + off, .dst = dst, .g2 = g2, .subgroup = subgroup, .first_bad = n};
    pthread_mutex_init(&j.mu, NULL);
    cuzk_parallel_for(n, 0, nthreads, pts_chunk, &j);
    pthread_mutex_destroy(&j.mu);
    if (j.first_bad == n) return CUZK_OK;
    const size_t i = j.first_bad, sz = g2 ? G2_BYTES : G1_BYTES;
    cuzk_g2_affine tmp;
    int rc = g2 ? g2_point(&tmp, buf + off + i * sz, subgroup)
                : g1_point((cuzk_g1_affine *)&tmp, buf + off + i * sz, subgroup);
    return circom_fail(err, rc, off + i * sz, "zkey: %s point %zu at offset %llu: %s", name, i,
                       (unsigned long long)(off + i * sz), point_problem(rc));
}

/* Sections 5-7: decode all n_vars points, keep those not at infinity. */
static int read_query(void *q_, const uint8_t *buf, uint64_t off, size_t n, bool g2, bool subgroup,
                      unsigned nthreads, const char *name, cuzk_circom_error *err)
{
    const size_t psz = g2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
    uint8_t *all = malloc((n ? n : 1) * psz);
    if (!all) return circom_fail(err, CUZK_ERR_NO_MEMORY, 0, "zkey: out of memory");
    int rc = read_points(all, buf, off, n, g2, subgroup, nthreads, name, err);
    if (rc) {
        free(all);
        return rc;
    }
    uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
    if (!idx) {
        free(all);
        return circom_fail(err, CUZK_ERR_NO_MEMORY, 0, "zkey: out of memory");
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        bool inf = g2 ? cuzk_g2_affine_is_infinity((cuzk_g2_affine *)(all + i * psz))
                      : cuzk_g1_affine_is_infinity((cuzk_g1_affine *)(all + i * psz));
        if (inf) continue;
        if (k != i) memcpy(all + k * psz, all + i * psz, psz);
        idx[k++] = (uint32_t)i;
    }
    uint32_t *idx2 = realloc(idx, (k ? k : 1) * sizeof *idx);
    if (idx2) idx = idx2;
    void *p = realloc(all, (k ? k : 1) * psz);
    if (!p) p = all;
    if (g2) *(cuzk_circom_g2_query *)q_ = (cuzk_circom_g2_query){k, idx, p};
    else *(cuzk_circom_g1_query *)q_ = (cuzk_circom_g1_query){k, idx, p};
    return CUZK_OK;
}

static int want_size(const circom_section *s, uint64_t want, const char *name, cuzk_circom_error *err)
{
    if (s->size == want) return CUZK_OK;
    return circom_fail(err, CUZK_ERR_FORMAT, s->off, "zkey: section %s has %llu bytes, want %llu%s", name,
                       (unsigned long long)s->size, (unsigned long long)want,
                       s->size < want ? " (truncated)" : "");
}

static int parse(cuzk_circom_zkey *z, const uint8_t *buf, size_t len, cuzk_circom_mode mode,
                 unsigned nthreads, cuzk_circom_error *err)
{
    circom_section sec[11];
    int rc = circom_container(buf, len, "zkey", "zkey", 1, sec, 10, err);
    if (rc) return rc;
    static const char *names[11] = {"", "1 (protocol)", "2 (Groth16 header)", "3 (IC)", "4 (coefficients)",
                                    "5 (A)", "6 (B1)", "7 (B2)", "8 (C)", "9 (H)", "10 (contributions)"};
    for (int t = 1; t <= 9; t++)
        if (!sec[t].present)
            return circom_fail(err, CUZK_ERR_FORMAT, 0, "zkey: section %s missing", names[t]);

    /* 1: protocol */
    if ((rc = want_size(&sec[1], 4, names[1], err))) return rc;
    uint32_t proto = circom_u32(buf + sec[1].off);
    if (proto != 1)
        return circom_fail(err, CUZK_ERR_UNSUPPORTED, sec[1].off,
                           "zkey: protocol %u is not Groth16 (1)%s", proto,
                           proto == 2 ? ": a PLONK key" : proto == 10 ? ": an FFLONK key" : "");

    /* 2: header */
    uint64_t pos = sec[2].off, end = pos + sec[2].size;
    if ((rc = circom_field_header(buf, end, &pos, true, "zkey header", err))) return rc;
    if ((rc = circom_field_header(buf, end, &pos, false, "zkey header", err))) return rc;
    if (end - pos != 12 + 3 * G1_BYTES + 3 * G2_BYTES)
        return circom_fail(err, CUZK_ERR_FORMAT, pos, "zkey: section %s has %llu bytes after the primes, want %d",
                           names[2], (unsigned long long)(end - pos), 12 + 3 * G1_BYTES + 3 * G2_BYTES);
    z->n_vars = circom_u32(buf + pos);
    z->n_public = circom_u32(buf + pos + 4);
    z->domain_size = circom_u32(buf + pos + 8);
    if ((uint64_t)z->n_public + 1 > z->n_vars)
        return circom_fail(err, CUZK_ERR_FORMAT, pos, "zkey: %u public signals need more than %u variables",
                           z->n_public, z->n_vars);
    const uint32_t d = z->domain_size;
    if (d < 2 || (d & (d - 1)))
        return circom_fail(err, CUZK_ERR_FORMAT, pos + 8, "zkey: domain size %u is not a power of two >= 2", d);
    while ((1u << z->log_n) < d) z->log_n++;
    if (z->log_n > CUZK_NTT_MAX_LOG)
        return circom_fail(err, CUZK_ERR_UNSUPPORTED, pos + 8, "zkey: domain 2^%u is above cuzk's 2^%d", z->log_n,
                           CUZK_NTT_MAX_LOG);
    if ((uint64_t)z->n_public + 1 > d)
        return circom_fail(err, CUZK_ERR_FORMAT, pos + 8, "zkey: domain %u too small for %u public inputs", d,
                           z->n_public);
    pos += 12;
    struct { void *dst; bool g2; const char *name; } hdr[6] = {
        {&z->alpha_g1, false, "alpha_1"}, {&z->beta_g1, false, "beta_1"}, {&z->beta_g2, true, "beta_2"},
        {&z->gamma_g2, true, "gamma_2"},  {&z->delta_g1, false, "delta_1"}, {&z->delta_g2, true, "delta_2"}};
    for (int i = 0; i < 6; i++) {
        if ((rc = read_points(hdr[i].dst, buf, pos, 1, hdr[i].g2, true, 1, hdr[i].name, err))) return rc;
        pos += hdr[i].g2 ? G2_BYTES : G1_BYTES;
    }

    /* 3: IC, always fully checked (the verifying key) */
    const uint64_t nv = z->n_vars, np1 = (uint64_t)z->n_public + 1;
    if ((rc = want_size(&sec[3], np1 * G1_BYTES, names[3], err))) return rc;
    if (!(z->ic = malloc(np1 * sizeof *z->ic))) return CUZK_ERR_NO_MEMORY;
    if ((rc = read_points(z->ic, buf, sec[3].off, np1, false, true, nthreads, "IC", err))) return rc;

    /* 4: coefficients of A and B, value stored as c·R^2 mod r */
    if (sec[4].size < 4) return want_size(&sec[4], 4, names[4], err);
    const uint64_t nc = circom_u32(buf + sec[4].off);
    if ((rc = want_size(&sec[4], 4 + nc * COEF_BYTES, names[4], err))) return rc;
    if (!(z->coefs = malloc((nc ? nc : 1) * sizeof *z->coefs))) return CUZK_ERR_NO_MEMORY;
    z->n_coefs = nc;
    /* The raw c·R^2 read as a Montgomery limb vector is the element c·R;
     * a Montgomery product with the limb vector 1 (the element R^-1) gives c. */
    const cuzk_fr mont_one = {{1, 0, 0, 0}};
    for (uint64_t i = 0; i < nc; i++) {
        const uint64_t off = sec[4].off + 4 + i * COEF_BYTES;
        cuzk_circom_coef *c = &z->coefs[i];
        c->matrix = circom_u32(buf + off);
        c->constraint = circom_u32(buf + off + 4);
        c->signal = circom_u32(buf + off + 8);
        if (c->matrix > 1 || c->constraint >= d || c->signal >= nv)
            return circom_fail(err, CUZK_ERR_FORMAT, off,
                               "zkey: coefficient %llu: matrix %u / row %u / signal %u out of range "
                               "(2 matrices, %u rows, %u signals)",
                               (unsigned long long)i, c->matrix, c->constraint, c->signal, d, z->n_vars);
        if (!circom_fr_plain_ok(buf + off + 12, c->value.l))
            return circom_fail(err, CUZK_ERR_NONCANONICAL, off + 12, "zkey: coefficient %llu: value >= r",
                               (unsigned long long)i);
        cuzk_fr_mul(&c->value, &c->value, &mont_one);
    }

    /* 5-9: query points */
    const bool sub = mode == CUZK_CIRCOM_VALIDATE;
    if ((rc = want_size(&sec[5], nv * G1_BYTES, names[5], err))) return rc;
    if ((rc = want_size(&sec[6], nv * G1_BYTES, names[6], err))) return rc;
    if ((rc = want_size(&sec[7], nv * G2_BYTES, names[7], err))) return rc;
    if ((rc = want_size(&sec[8], (nv - np1) * G1_BYTES, names[8], err))) return rc;
    if ((rc = want_size(&sec[9], (uint64_t)d * G1_BYTES, names[9], err))) return rc;
    if ((rc = read_query(&z->a, buf, sec[5].off, nv, false, sub, nthreads, "A", err))) return rc;
    if ((rc = read_query(&z->b_g1, buf, sec[6].off, nv, false, sub, nthreads, "B1", err))) return rc;
    if ((rc = read_query(&z->b_g2, buf, sec[7].off, nv, true, sub, nthreads, "B2", err))) return rc;
    if (!(z->c = malloc((nv - np1 ? nv - np1 : 1) * sizeof *z->c))) return CUZK_ERR_NO_MEMORY;
    if ((rc = read_points(z->c, buf, sec[8].off, nv - np1, false, sub, nthreads, "C", err))) return rc;
    if (!(z->h = malloc((uint64_t)d * sizeof *z->h))) return CUZK_ERR_NO_MEMORY;
    if ((rc = read_points(z->h, buf, sec[9].off, d, false, sub, nthreads, "H", err))) return rc;

    /* 10: the contributions' header (64-byte circuit hash, u32 count) */
    if (sec[10].present) {
        if (sec[10].size < 68)
            return circom_fail(err, CUZK_ERR_FORMAT, sec[10].off,
                               "zkey: section %s has %llu bytes, less than its 68-byte header", names[10],
                               (unsigned long long)sec[10].size);
        z->n_contributions = circom_u32(buf + sec[10].off + 64);
    }
    return CUZK_OK;
}

int cuzk_circom_zkey_read_mem(cuzk_circom_zkey *out, const uint8_t *buf, size_t len,
                              cuzk_circom_mode mode, unsigned nthreads, cuzk_circom_error *err)
{
    if (!out) return circom_fail(err, CUZK_ERR_INVALID_ARG, 0, "zkey: no output");
    memset(out, 0, sizeof *out);
    int rc = parse(out, buf, len, mode, nthreads, err);
    if (!rc) out->key = cuzk_handle_new();
    if (rc) {
        if (rc == CUZK_ERR_NO_MEMORY) circom_fail(err, rc, 0, "zkey: out of memory");
        cuzk_circom_zkey_free(out);
    }
    return rc;
}

int cuzk_circom_zkey_read_file(cuzk_circom_zkey *out, const char *path, cuzk_circom_mode mode,
                               unsigned nthreads, cuzk_circom_error *err)
{
    circom_map m;
    if (out) memset(out, 0, sizeof *out);
    int rc = circom_map_file(&m, path, "zkey", err);
    if (rc) return rc;
    rc = cuzk_circom_zkey_read_mem(out, m.p, m.len, mode, nthreads, err);
    circom_unmap(&m);
    return rc;
}

int cuzk_circom_zkey_vk(cuzk_groth16_vk *out, const cuzk_circom_zkey *z)
{
    if (!out || !z || !z->ic) return CUZK_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->ic = malloc(((size_t)z->n_public + 1) * sizeof *out->ic);
    if (!out->ic) return CUZK_ERR_NO_MEMORY;
    memcpy(out->ic, z->ic, ((size_t)z->n_public + 1) * sizeof *out->ic);
    out->n_ic = (size_t)z->n_public + 1;
    out->alpha_g1 = z->alpha_g1, out->beta_g1 = z->beta_g1, out->delta_g1 = z->delta_g1;
    out->beta_g2 = z->beta_g2, out->gamma_g2 = z->gamma_g2, out->delta_g2 = z->delta_g2;
    return CUZK_OK;
}

/* PCE extraction: a RecordingCS's three matrices into a PCE image (coefficients
 * classified into codes, rows in CSR order, section checksums), then the same
 * checked view a loaded file gets. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/util/parallel.h"
#include "cuzk/util/sha256.h"
#include "pce_internal.h"

/* Code of one coefficient, or CUZK_PCE_GENERAL << 30 with no index yet. */
static uint32_t classify(const cuzk_fr *v)
{
    uint64_t x[4], y[4];
    cuzk_fr n;
    cuzk_fr_to_limbs(x, v);
    cuzk_fr_neg(&n, v);
    cuzk_fr_to_limbs(y, &n);
    const uint32_t small = (uint32_t)CUZK_PCE_SMALL << CUZK_PCE_CLASS_SHIFT;
    if (!x[1] && !x[2] && !x[3] && x[0] <= CUZK_PCE_SMALL_MAX)
        return x[0] == 1 ? (uint32_t)CUZK_PCE_ONE << CUZK_PCE_CLASS_SHIFT : small | (uint32_t)x[0];
    if (!y[1] && !y[2] && !y[3] && y[0] <= CUZK_PCE_SMALL_MAX)
        return y[0] == 1 ? (uint32_t)CUZK_PCE_NEG_ONE << CUZK_PCE_CLASS_SHIFT
                         : small | CUZK_PCE_SMALL_NEG | (uint32_t)y[0];
    return (uint32_t)CUZK_PCE_GENERAL << CUZK_PCE_CLASS_SHIFT;
}

typedef struct fill_ctx {
    const cuzk_recording_cs *cs;
    const uint32_t *tcode; /* code per RecordingCS table index */
    uint8_t *img;
    const uint64_t *off;
    const uint8_t *esz;
    uint8_t (*sha)[32];
    size_t chunks; /* per matrix */
} fill_ctx;

#define FILL_CHUNK ((size_t)1 << 22)

static void fill_task(void *arg, unsigned worker, size_t lo, size_t hi)
{
    for (size_t t = lo; t < hi; t++) {
        fill_ctx *f = arg;
        const size_t k = t / f->chunks, ch = t % f->chunks;
        const cuzk_csr *m = &f->cs->m[k];
        const size_t rows = f->cs->base.num_constraints + 1;
        /* row pointers */
        size_t lo = ch * FILL_CHUNK, hi = lo + FILL_CHUNK;
        if (lo < rows) {
            if (hi > rows) hi = rows;
            if (f->esz[3 * k] == 4) {
                uint32_t *rp = (uint32_t *)(f->img + f->off[3 * k]);
                for (size_t r = lo; r < hi; r++) rp[r] = (uint32_t)m->row_ptr[r];
            } else {
                memcpy(f->img + f->off[3 * k] + lo * 8, m->row_ptr + lo, (hi - lo) * 8);
            }
        }
        lo = ch * FILL_CHUNK, hi = lo + FILL_CHUNK;
        if (lo < m->nnz) {
            if (hi > m->nnz) hi = m->nnz;
            memcpy(f->img + f->off[3 * k + 1] + lo * 4, m->col + lo, (hi - lo) * 4);
            uint32_t *code = (uint32_t *)(f->img + f->off[3 * k + 2]);
            for (size_t i = lo; i < hi; i++) code[i] = f->tcode[m->coeff[i]];
        }
    }
}

static void hash_task(void *arg, unsigned worker, size_t lo, size_t hi)
{
    for (size_t s = lo; s < hi; s++) {
        fill_ctx *f = arg;
        cuzk_sha256_hash(f->sha[s], f->img + f->off[s], pce_rd64(f->img + PCE_OFF_SECTIONS + s * PCE_SECTION_ENTRY_BYTES + 16));
    }
}

static bool id_ok(const char *id)
{
    size_t n = strlen(id);
    if (n == 0 || n >= CUZK_PCE_ID_MAX || id[0] == '.') return false;
    for (size_t i = 0; i < n; i++)
        if (id[i] <= ' ' || id[i] > '~' || id[i] == '/') return false;
    return true;
}

int cuzk_pce_from_recording(cuzk_pce **out, const cuzk_recording_cs *cs, const char *circuit_id,
                            const uint8_t *fingerprint, unsigned flags, unsigned nthreads, cuzk_pce_error *err)
{
    const char *src = "<extraction>";
    if (!out || !cs || !circuit_id || !id_ok(circuit_id))
        return pce_set_err(err, CUZK_ERR_INVALID_ARG, CUZK_PCE_FAIL_ARG, src, 0, NULL,
                           "circuit id must be 1-63 printable characters without '/' or spaces");
    *out = NULL;
    if (cs->base.vt->kind != CUZK_CS_RECORDING || !cs->base.finalized || cs->base.err || cs->base.num_inputs < 1)
        return pce_set_err(err, CUZK_ERR_INVALID_ARG, CUZK_PCE_FAIL_ARG, src, 0, NULL,
                           "need a finalized RecordingCS without errors, with ONE allocated");
    if (nthreads == 0) nthreads = 1;
    const size_t nc = cs->base.num_constraints;
    if (cs->base.num_aux > cs->m[0].nnz + cs->m[1].nnz + cs->m[2].nnz) /* the loader's bound */
        return pce_set_err(err, CUZK_ERR_UNSUPPORTED, CUZK_PCE_FAIL_ARG, src, 0, NULL,
                           "%zu aux variables but only %zu matrix entries (unconstrained variables)",
                           cs->base.num_aux, cs->m[0].nnz + cs->m[1].nnz + cs->m[2].nnz);

    /* classify the coefficient table; general values keep table order */
    const cuzk_coeff_table *ct = &cs->coeffs;
    uint32_t *tcode = malloc((ct->len ? ct->len : 1) * sizeof *tcode);
    if (!tcode) return pce_set_err(err, CUZK_ERR_NO_MEMORY, CUZK_PCE_FAIL_NONE, src, 0, NULL, "out of memory");
    uint64_t ngen = 0;
    for (size_t i = 0; i < ct->len; i++) {
        tcode[i] = classify(&ct->v[i]);
        if (cuzk_pce_code_class(tcode[i]) == CUZK_PCE_GENERAL) {
            if (ngen > CUZK_PCE_PAYLOAD_MASK) {
                free(tcode);
                return pce_set_err(err, CUZK_ERR_UNSUPPORTED, CUZK_PCE_FAIL_ARG, src, 0, NULL,
                                   "more than 2^30 distinct coefficients");
            }
            tcode[i] |= (uint32_t)ngen++;
        }
    }

    /* layout */
    uint64_t off[PCE_NUM_SECTIONS], len[PCE_NUM_SECTIONS];
    uint8_t esz[PCE_NUM_SECTIONS];
    uint64_t pos = PCE_HEADER_BYTES;
    for (unsigned s = 0; s < PCE_NUM_SECTIONS; s++) {
        unsigned k = s / 3, kind = s < 9 ? s % 3 : 3;
        uint64_t nnz = s < 9 ? cs->m[k].nnz : 0;
        if (kind == 0) {
            esz[s] = (flags & CUZK_PCE_WIDE_ROWPTR) || nnz > UINT32_MAX ? 8 : 4;
            len[s] = (uint64_t)(nc + 1) * esz[s];
        } else if (kind < 3) {
            esz[s] = 4, len[s] = nnz * 4;
        } else {
            esz[s] = 32, len[s] = ngen * 32;
        }
        pos = (pos + PCE_ALIGN - 1) / PCE_ALIGN * PCE_ALIGN;
        off[s] = pos;
        pos += len[s];
    }
    const size_t total = (size_t)pos;
    uint8_t *img = aligned_alloc(PCE_ALIGN, (total + PCE_ALIGN - 1) / PCE_ALIGN * PCE_ALIGN);
    if (!img) {
        free(tcode);
        return pce_set_err(err, CUZK_ERR_NO_MEMORY, CUZK_PCE_FAIL_NONE, src, 0, NULL,
                           "out of memory (%zu-byte image)", total);
    }
    memset(img, 0, PCE_HEADER_BYTES);
    for (unsigned s = 0; s + 1 < PCE_NUM_SECTIONS; s++) /* zero padding */
        memset(img + off[s] + len[s], 0, off[s + 1] - off[s] - len[s]);

    /* header */
    memcpy(img, PCE_MAGIC, 8);
    pce_wr32(img + PCE_OFF_VERSION, CUZK_PCE_FORMAT_VERSION);
    pce_wr32(img + PCE_OFF_HEADER_BYTES, PCE_HEADER_BYTES);
    snprintf((char *)img + PCE_OFF_LIBVER, PCE_LIBVER_BYTES, "%s", CUZK_LIB_VERSION);
    memcpy(img + PCE_OFF_ID, circuit_id, strlen(circuit_id));
    if (fingerprint) memcpy(img + PCE_OFF_FINGERPRINT, fingerprint, 32);
    pce_wr64(img + PCE_OFF_NUM_INPUTS, cs->base.num_inputs);
    pce_wr64(img + PCE_OFF_NUM_AUX, cs->base.num_aux);
    pce_wr64(img + PCE_OFF_NUM_CONSTRAINTS, nc);
    pce_wr64(img + PCE_OFF_FILE_BYTES, total);
    pce_wr32(img + PCE_OFF_NUM_SECTIONS, PCE_NUM_SECTIONS);
    for (unsigned s = 0; s < PCE_NUM_SECTIONS; s++) {
        uint8_t *e = img + PCE_OFF_SECTIONS + s * PCE_SECTION_ENTRY_BYTES;
        pce_wr32(e, s + 1);
        pce_wr32(e + 4, esz[s]);
        pce_wr64(e + 8, off[s]);
        pce_wr64(e + 16, len[s]);
    }

    /* sections */
    size_t maxn = nc + 1;
    for (int k = 0; k < 3; k++)
        if (cs->m[k].nnz > maxn) maxn = cs->m[k].nnz;
    uint8_t sha[PCE_NUM_SECTIONS][32];
    fill_ctx f = {.cs = cs, .tcode = tcode, .img = img, .off = off, .esz = esz, .sha = sha,
                  .chunks = (maxn + FILL_CHUNK - 1) / FILL_CHUNK};
    cuzk_parallel_for(3 * f.chunks, 1, nthreads, fill_task, &f);
    cuzk_fr *gen = (cuzk_fr *)(img + off[PCE_SEC_COEFFS - 1]);
    for (size_t i = 0; i < ct->len; i++)
        if (cuzk_pce_code_class(tcode[i]) == CUZK_PCE_GENERAL) gen[tcode[i] & CUZK_PCE_PAYLOAD_MASK] = ct->v[i];
    free(tcode);

    /* checksums */
    cuzk_parallel_for(PCE_NUM_SECTIONS, 1, nthreads, hash_task, &f);
    for (unsigned s = 0; s < PCE_NUM_SECTIONS; s++)
        memcpy(img + PCE_OFF_SECTIONS + s * PCE_SECTION_ENTRY_BYTES + 24, sha[s], 32);
    pce_content_hash(img + PCE_OFF_CONTENT, img);
    cuzk_sha256_hash(img + PCE_OFF_HEADER_SHA, img, PCE_OFF_HEADER_SHA);

    cuzk_pce *p = malloc(sizeof *p);
    if (!p) {
        free(img);
        return pce_set_err(err, CUZK_ERR_NO_MEMORY, CUZK_PCE_FAIL_NONE, src, 0, NULL, "out of memory");
    }
    int rc = pce_view(p, img, total, NULL, 0, true, nthreads, src, err);
    if (rc) { /* our own image failed its structure checks: a bug */
        free(img);
        free(p);
        return rc == CUZK_ERR_NO_MEMORY ? rc : CUZK_ERR_INTERNAL;
    }
    p->mapped = false;
    PCE_COUNT(extractions, 1);
    *out = p;
    return CUZK_OK;
}

/* The checked view of a PCE image (docs/pce.md): header, section table and
 * checksums (pce_check_sections, pce.c), then the sections' contents scanned
 * for the densities, so that
 * nothing that evaluates a PCE reads out of bounds or meets a value it does
 * not expect. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cuzk/util/error.h"
#include "cuzk/util/parallel.h"
#include "cuzk/util/sha256.h"
#include "pce_internal.h"

#define FMT_ERR(fail, off, sec, ...) pce_set_err(err, CUZK_ERR_FORMAT, fail, src, off, sec, __VA_ARGS__)

/* One structure pass over a row block of one matrix: row pointers
 * monotone, columns in range, codes canonical; histogram and density. */
#define SCAN_BLOCK_ROWS 65536u
typedef struct scan_ctx {
    cuzk_pce *p;
    size_t nblocks;
    uint64_t (*hist)[3][CUZK_PCE_HIST_N]; /* per block */
    int *bad;                             /* per block: 0 ok, else 1 + section offset id */
    uint64_t *bad_at;                     /* per block: entry or row index */
} scan_ctx;

static inline void dens_set(cuzk_density *d, uint64_t i)
{
    uint64_t m = 1ull << (i & 63), *w = &d->bits[i >> 6];
    if (!(__atomic_load_n(w, __ATOMIC_RELAXED) & m)) __atomic_fetch_or(w, m, __ATOMIC_RELAXED);
}

static void scan_one(size_t t, void *arg)
{
    scan_ctx *c = arg;
    cuzk_pce *p = c->p;
    const size_t k = t / c->nblocks, blk = t % c->nblocks;
    const cuzk_pce_matrix *m = &p->m[k];
    const uint64_t r0 = (uint64_t)blk * SCAN_BLOCK_ROWS;
    uint64_t r1 = r0 + SCAN_BLOCK_ROWS;
    if (r1 > p->num_constraints) r1 = p->num_constraints;
    const uint64_t nvars = p->num_inputs + p->num_aux, ni = p->num_inputs;
    uint64_t *hist = c->hist[blk][k];
    uint64_t prev = cuzk_pce_row_start(m, r0);
    for (uint64_t r = r0; r < r1; r++) {
        uint64_t nx = cuzk_pce_row_start(m, r + 1);
        if (nx < prev || nx > m->nnz) {
            c->bad[t] = 1, c->bad_at[t] = r + 1;
            return;
        }
        prev = nx;
    }
    const uint64_t e0 = cuzk_pce_row_start(m, r0), e1 = prev;
    const uint32_t *colv = m->col, *codev = m->code;
    const uint64_t ncoef = p->num_coeffs;
    /* Branch-free checks and counts in registers; the first bad entry is
     * located by a second pass only when there is one. */
    uint64_t h0 = 0, h1 = 0, h2 = 0, h3 = 0, hz = 0;
    bool bad = false;
    for (uint64_t i = e0; i < e1; i++) {
        const uint32_t col = colv[i], code = codev[i];
        const unsigned cls = code >> CUZK_PCE_CLASS_SHIFT;
        const uint32_t pay = code & CUZK_PCE_PAYLOAD_MASK;
        const bool zero = code == ((uint32_t)CUZK_PCE_SMALL << CUZK_PCE_CLASS_SHIFT);
        bad |= col >= nvars;
        bad |= (cls < 2) & (pay != 0);
        bad |= code == ((uint32_t)CUZK_PCE_SMALL << CUZK_PCE_CLASS_SHIFT | CUZK_PCE_SMALL_NEG); /* "-0" */
        bad |= (cls == 3) & (pay >= ncoef);
        h0 += cls == 0, h1 += cls == 1, h2 += (cls == 2) & !zero, h3 += cls == 3, hz += zero;
    }
    if (bad) {
        for (uint64_t i = e0; i < e1; i++) {
            const uint32_t code = codev[i], pay = code & CUZK_PCE_PAYLOAD_MASK, cls = code >> CUZK_PCE_CLASS_SHIFT;
            if (colv[i] >= nvars) {
                c->bad[t] = 2, c->bad_at[t] = i;
                return;
            }
            if ((cls < 2 && pay) || (cls == 3 && pay >= ncoef) ||
                code == ((uint32_t)CUZK_PCE_SMALL << CUZK_PCE_CLASS_SHIFT | CUZK_PCE_SMALL_NEG)) {
                c->bad[t] = 3, c->bad_at[t] = i;
                return;
            }
        }
    }
    hist[CUZK_PCE_ONE] = h0, hist[CUZK_PCE_NEG_ONE] = h1, hist[CUZK_PCE_SMALL] = h2;
    hist[CUZK_PCE_GENERAL] = h3, hist[CUZK_PCE_HIST_ZERO] = hz;
    /* density: columns with a non-zero coefficient (C has none) */
    const uint32_t zcode = (uint32_t)CUZK_PCE_SMALL << CUZK_PCE_CLASS_SHIFT;
    if (k == 0) {
        for (uint64_t i = e0; i < e1; i++)
            if (colv[i] >= ni && codev[i] != zcode) dens_set(&p->a_aux, colv[i] - ni);
    } else if (k == 1) {
        for (uint64_t i = e0; i < e1; i++) {
            if (codev[i] == zcode) continue;
            if (colv[i] < ni) dens_set(&p->b_input, colv[i]);
            else dens_set(&p->b_aux, colv[i] - ni);
        }
    }
}

static void scan_task(void *arg, unsigned worker, size_t lo, size_t hi)
{
    for (size_t t = lo; t < hi; t++) scan_one(t, arg);
}

static bool dens_alloc(cuzk_density *d, uint64_t n)
{
    size_t words = (size_t)((n + 63) / 64);
    d->bits = calloc(words ? words : 1, sizeof *d->bits);
    d->len = (size_t)n;
    d->cap_words = words;
    d->total = 0;
    return d->bits != NULL;
}

static void dens_count(cuzk_density *d)
{
    size_t t = 0;
    for (size_t w = 0; w < d->cap_words; w++) t += (size_t)__builtin_popcountll(d->bits[w]);
    d->total = t;
}

void pce_release(cuzk_pce *p)
{
    pce_verify_free(p->verify); /* joins the verifier: it reads the image */
    free(p->a_aux.bits), free(p->b_input.bits), free(p->b_aux.bits);
    if (p->image) {
        if (p->mapped) munmap((void *)p->image, p->image_len);
        else free((void *)p->image);
    }
    memset(p, 0, sizeof *p);
}

void cuzk_pce_free(cuzk_pce *p)
{
    if (!p) return;
    pce_release(p);
    free(p);
}

size_t cuzk_pce_memory_bytes(const cuzk_pce *p)
{
    return p->image_len + 8 * (p->a_aux.cap_words + p->b_input.cap_words + p->b_aux.cap_words);
}

static bool is_zero(const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b[i]) return false;
    return true;
}

static bool fr_canonical(const cuzk_fr *x)
{
    for (int i = 3; i >= 0; i--) {
        if (x->l[i] < cuzk_fr_modulus[i]) return true;
        if (x->l[i] > cuzk_fr_modulus[i]) return false;
    }
    return false;
}

int pce_view(cuzk_pce *p, const uint8_t *img, size_t len, const cuzk_pce_expect *ex, unsigned flags,
             bool trusted, unsigned nthreads, const char *src, cuzk_pce_error *err)
{
    memset(p, 0, sizeof *p);
    if (nthreads == 0) nthreads = 1;
    /* fixed header */
    if (len < 16) return FMT_ERR(CUZK_PCE_FAIL_TRUNCATED, 0, "header", "%zu bytes, less than a header", len);
    if (memcmp(img, PCE_MAGIC, 8)) return FMT_ERR(CUZK_PCE_FAIL_MAGIC, 0, "header", "not a cuzk PCE file");
    uint32_t ver = pce_rd32(img + PCE_OFF_VERSION);
    if (ver != CUZK_PCE_FORMAT_VERSION)
        return FMT_ERR(CUZK_PCE_FAIL_VERSION, PCE_OFF_VERSION, "header", "format version %u, this build reads %u",
                       ver, CUZK_PCE_FORMAT_VERSION);
    if (len < PCE_HEADER_BYTES)
        return FMT_ERR(CUZK_PCE_FAIL_TRUNCATED, len, "header", "%zu bytes, less than the %u-byte header", len,
                       PCE_HEADER_BYTES);
    if (pce_rd32(img + PCE_OFF_HEADER_BYTES) != PCE_HEADER_BYTES)
        return FMT_ERR(CUZK_PCE_FAIL_STRUCTURE, PCE_OFF_HEADER_BYTES, "header", "header size %u",
                       pce_rd32(img + PCE_OFF_HEADER_BYTES));
    uint8_t h[32];
    const bool verify = !trusted && !(flags & CUZK_PCE_LOAD_NO_CHECKSUMS);
    if (verify) {
        cuzk_sha256_hash(h, img, PCE_OFF_HEADER_SHA);
        if (memcmp(h, img + PCE_OFF_HEADER_SHA, 32))
            return FMT_ERR(CUZK_PCE_FAIL_HEADER_CHECKSUM, PCE_OFF_HEADER_SHA, "header", "header checksum mismatch");
    }
    const char *lv = (const char *)img + PCE_OFF_LIBVER, *id = (const char *)img + PCE_OFF_ID;
    if (!memchr(lv, 0, PCE_LIBVER_BYTES) || !memchr(id, 0, CUZK_PCE_ID_MAX))
        return FMT_ERR(CUZK_PCE_FAIL_STRUCTURE, PCE_OFF_LIBVER, "header", "unterminated string");
    if (!(flags & CUZK_PCE_LOAD_ANY_LIBRARY) && strcmp(lv, CUZK_LIB_VERSION))
        return FMT_ERR(CUZK_PCE_FAIL_LIBRARY_VERSION, PCE_OFF_LIBVER, "header",
                       "written by library %s, this is %s", lv, CUZK_LIB_VERSION);
    if (ex && ex->circuit_id && strcmp(id, ex->circuit_id))
        return FMT_ERR(CUZK_PCE_FAIL_CIRCUIT_ID, PCE_OFF_ID, "header", "circuit '%s', expected '%s'", id,
                       ex->circuit_id);
    if (ex && ex->fingerprint && memcmp(ex->fingerprint, img + PCE_OFF_FINGERPRINT, 32))
        return FMT_ERR(CUZK_PCE_FAIL_FINGERPRINT, PCE_OFF_FINGERPRINT, "header",
                       "circuit fingerprint differs (circuit changed since the file was written)");
    const uint64_t ni = pce_rd64(img + PCE_OFF_NUM_INPUTS), na = pce_rd64(img + PCE_OFF_NUM_AUX);
    const uint64_t nc = pce_rd64(img + PCE_OFF_NUM_CONSTRAINTS), fb = pce_rd64(img + PCE_OFF_FILE_BYTES);
    if (fb != len)
        return FMT_ERR(fb > len ? CUZK_PCE_FAIL_TRUNCATED : CUZK_PCE_FAIL_STRUCTURE, PCE_OFF_FILE_BYTES, "header",
                       "file is %zu bytes, header says %llu", len, (unsigned long long)fb);
    if (pce_rd32(img + PCE_OFF_NUM_SECTIONS) != PCE_NUM_SECTIONS || pce_rd32(img + PCE_OFF_FLAGS) != 0 ||
        !is_zero(img + 216, PCE_OFF_SECTIONS - 216) ||
        !is_zero(img + PCE_OFF_SECTIONS + PCE_NUM_SECTIONS * PCE_SECTION_ENTRY_BYTES,
                 PCE_OFF_HEADER_SHA - PCE_OFF_SECTIONS - PCE_NUM_SECTIONS * PCE_SECTION_ENTRY_BYTES))
        return FMT_ERR(CUZK_PCE_FAIL_STRUCTURE, PCE_OFF_NUM_SECTIONS, "header", "section count, flags or reserved bytes");
    if (ni + na > (uint64_t)UINT32_MAX + 1 || ni < 1 || nc >= ((uint64_t)1 << 40))
        return FMT_ERR(CUZK_PCE_FAIL_STRUCTURE, PCE_OFF_NUM_INPUTS, "header",
                       "counts out of range (inputs %llu, aux %llu, constraints %llu)", (unsigned long long)ni,
                       (unsigned long long)na, (unsigned long long)nc);

    /* section table: fixed order, aligned, in bounds, zero padding between */
    uint64_t pos = PCE_HEADER_BYTES;
    const void *sec[PCE_NUM_SECTIONS];
    uint64_t nnz[3] = {0, 0, 0};
    for (unsigned s = 0; s < PCE_NUM_SECTIONS; s++) {
        const uint8_t *e = img + PCE_OFF_SECTIONS + s * PCE_SECTION_ENTRY_BYTES;
        const char *nm = pce_section_names[s + 1];
        uint32_t sid = pce_rd32(e), esz = pce_rd32(e + 4);
        uint64_t off = pce_rd64(e + 8), sl = pce_rd64(e + 16);
        uint64_t eoff = PCE_OFF_SECTIONS + s * PCE_SECTION_ENTRY_BYTES;
        if (sid != s + 1) return FMT_ERR(CUZK_PCE_FAIL_STRUCTURE, eoff, nm, "section id %u, expected %u", sid, s + 1);
        if (off % PCE_ALIGN || off < pos || off > len || sl > len - off || off - pos >= PCE_ALIGN)
            return FMT_ERR(off > len || sl > len - off ? CUZK_PCE_FAIL_TRUNCATED : CUZK_PCE_FAIL_STRUCTURE, eoff, nm,
                           "section [%llu, +%llu) misplaced in a %zu-byte file", (unsigned long long)off,
                           (unsigned long long)sl, len);
        if (!is_zero(img + pos, off - pos)) return FMT_ERR(CUZK_PCE_FAIL_STRUCTURE, pos, nm, "non-zero padding");
        unsigned kind = s < 9 ? s % 3 : 3; /* 0 row_ptr, 1 col, 2 code, 3 coeffs */
        uint64_t want_esz = kind == 0 ? esz : kind == 3 ? 32 : 4;
        if ((kind == 0 && esz != 4 && esz != 8) || esz != want_esz || sl % esz)
            return FMT_ERR(CUZK_PCE_FAIL_STRUCTURE, eoff, nm, "element size %u, length %llu", esz,
                           (unsigned long long)sl);
        uint64_t count = sl / esz;
        if (kind == 0 && count != nc + 1)
            return FMT_ERR(CUZK_PCE_FAIL_STRUCTURE, eoff, nm, "%llu row pointers for %llu constraints",
                           (unsigned long long)count, (unsigned long long)nc);
        if (kind == 1) nnz[s / 3] = count;
        if (kind == 2 && count != nnz[s / 3])
            return FMT_ERR(CUZK_PCE_FAIL_STRUCTURE, eoff, nm, "%llu codes for %llu columns", (unsigned long long)count,
                           (unsigned long long)nnz[s / 3]);
        sec[s] = img + off;
        pos = off + sl;
    }
    if (pos != len) return FMT_ERR(CUZK_PCE_FAIL_STRUCTURE, pos, "trailer", "%llu bytes after the last section",
                                   (unsigned long long)(len - pos));

    /* checksums: every section (unless deferred to a background thread, see
     * verify.c), then the content hash over the table */
    if (verify && !(flags & CUZK_PCE_LOAD_VERIFY_BACKGROUND)) {
        int rc = pce_check_sections(img, nthreads, NULL, src, err);
        if (rc) return rc;
    }
    if (verify) {
        pce_content_hash(h, img);
        if (memcmp(h, img + PCE_OFF_CONTENT, 32))
            return FMT_ERR(CUZK_PCE_FAIL_CONTENT_HASH, PCE_OFF_CONTENT, "header", "content hash mismatch");
    }

    /* fill the struct */
    p->num_inputs = ni, p->num_aux = na, p->num_constraints = nc;
    p->format_version = ver;
    memcpy(p->circuit_id, id, CUZK_PCE_ID_MAX);
    memcpy(p->library_version, lv, PCE_LIBVER_BYTES);
    memcpy(p->fingerprint, img + PCE_OFF_FINGERPRINT, 32);
    memcpy(p->content_hash, img + PCE_OFF_CONTENT, 32);
    for (int k = 0; k < 3; k++) {
        cuzk_pce_matrix *m = &p->m[k];
        m->nnz = nnz[k];
        if (pce_rd32(img + PCE_OFF_SECTIONS + 3 * k * PCE_SECTION_ENTRY_BYTES + 4) == 4)
            m->row_ptr32 = sec[3 * k];
        else
            m->row_ptr64 = sec[3 * k];
        m->col = sec[3 * k + 1];
        m->code = sec[3 * k + 2];
        if (cuzk_pce_row_start(m, 0) != 0 || cuzk_pce_row_start(m, nc) != m->nnz)
            return FMT_ERR(CUZK_PCE_FAIL_STRUCTURE, (uint64_t)((const uint8_t *)sec[3 * k] - img),
                           pce_section_names[3 * k + 1], "row pointers do not span [0, nnz]");
    }
    /* Work and memory derived from the counts stay proportional to the file:
     * each input has its input constraint (an entry in A) and each aux
     * occurs somewhere (Groth16 setup refuses unconstrained variables). */
    if (ni > nnz[0] || na > nnz[0] + nnz[1] + nnz[2])
        return FMT_ERR(CUZK_PCE_FAIL_STRUCTURE, PCE_OFF_NUM_INPUTS, "header",
                       "%llu inputs and %llu aux for %llu matrix entries", (unsigned long long)ni,
                       (unsigned long long)na, (unsigned long long)(nnz[0] + nnz[1] + nnz[2]));
    p->coeffs = sec[9];
    p->num_coeffs = pce_rd64(img + PCE_OFF_SECTIONS + 9 * PCE_SECTION_ENTRY_BYTES + 16) / 32;
    for (uint64_t i = 0; i < p->num_coeffs; i++)
        if (!fr_canonical(&p->coeffs[i]))
            return FMT_ERR(CUZK_PCE_FAIL_STRUCTURE, (uint64_t)((const uint8_t *)&p->coeffs[i] - img), "coeffs",
                           "coefficient %llu not canonical", (unsigned long long)i);

    /* structure pass, histograms and density */
    if (!dens_alloc(&p->a_aux, na) || !dens_alloc(&p->b_input, ni) || !dens_alloc(&p->b_aux, na)) {
        pce_release(p);
        return pce_set_err(err, CUZK_ERR_NO_MEMORY, CUZK_PCE_FAIL_NONE, src, 0, NULL, "out of memory");
    }
    scan_ctx sc = {.p = p, .nblocks = (size_t)((nc + SCAN_BLOCK_ROWS - 1) / SCAN_BLOCK_ROWS)};
    if (sc.nblocks == 0) sc.nblocks = 1;
    sc.hist = calloc(sc.nblocks, sizeof *sc.hist);
    sc.bad = calloc(3 * sc.nblocks, sizeof *sc.bad);
    sc.bad_at = calloc(3 * sc.nblocks, sizeof *sc.bad_at);
    int rc = CUZK_OK;
    if (!sc.hist || !sc.bad || !sc.bad_at) {
        rc = pce_set_err(err, CUZK_ERR_NO_MEMORY, CUZK_PCE_FAIL_NONE, src, 0, NULL, "out of memory");
    } else {
        cuzk_parallel_for(3 * sc.nblocks, 1, nthreads, scan_task, &sc);
        for (size_t t = 0; t < 3 * sc.nblocks && !rc; t++) {
            if (!sc.bad[t]) continue;
            unsigned k = (unsigned)(t / sc.nblocks), s = 3 * k + (unsigned)sc.bad[t] - 1;
            const cuzk_pce_matrix *m = &p->m[k];
            const uint8_t *at = sc.bad[t] == 1 ? (m->row_ptr32 ? (const uint8_t *)&m->row_ptr32[sc.bad_at[t]]
                                                               : (const uint8_t *)&m->row_ptr64[sc.bad_at[t]])
                              : sc.bad[t] == 2 ? (const uint8_t *)&m->col[sc.bad_at[t]]
                                               : (const uint8_t *)&m->code[sc.bad_at[t]];
            rc = FMT_ERR(CUZK_PCE_FAIL_STRUCTURE, (uint64_t)(at - img), pce_section_names[s + 1], "%s at index %llu",
                         sc.bad[t] == 1 ? "row pointer decreases or exceeds nnz"
                         : sc.bad[t] == 2 ? "column out of range" : "invalid coefficient code",
                         (unsigned long long)sc.bad_at[t]);
        }
        for (size_t b = 0; b < sc.nblocks && !rc; b++)
            for (int k = 0; k < 3; k++)
                for (int c = 0; c < CUZK_PCE_HIST_N; c++) p->m[k].hist[c] += sc.hist[b][k][c];
    }
    free(sc.hist), free(sc.bad), free(sc.bad_at);
    if (rc) {
        pce_release(p);
        return rc;
    }
    dens_count(&p->a_aux), dens_count(&p->b_input), dens_count(&p->b_aux);
    p->image = img;
    p->image_len = len;
    return CUZK_OK;
}

/* libFuzzer: the PCE file loader. Raw bytes, and (first byte 0xa5) a valid
 * image of a small circuit built from the input, then xor edits and a cut.
 * Each is loaded with checksums and without (so the structure checks are
 * reached past the SHA-256s). Whatever is accepted must be self-consistent
 * and evaluate without touching memory out of bounds (ASan); rejected input
 * must come with a message and leave nothing allocated. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/util/error.h"
#include "cuzk/pce/pce.h"

static void exercise(const uint8_t *d, size_t n, unsigned flags)
{
    cuzk_pce *p = NULL;
    cuzk_pce_error err;
    memset(&err, 0, sizeof err);
    if (cuzk_pce_load_mem(&p, d, n, NULL, flags | CUZK_PCE_LOAD_ANY_LIBRARY, 1 + (n & 1), &err) != CUZK_OK) {
        if (p || err.msg[0] == 0 || err.fail == CUZK_PCE_FAIL_NONE) abort();
        return;
    }
    for (int k = 0; k < 3; k++) {
        uint64_t s = 0;
        for (int c = 0; c < CUZK_PCE_HIST_N; c++) s += p->m[k].hist[c];
        if (s != p->m[k].nnz || cuzk_pce_row_start(&p->m[k], p->num_constraints) != p->m[k].nnz) abort();
    }
    if (p->num_inputs + p->num_aux <= (1u << 16) && p->num_constraints <= (1u << 16)) {
        size_t nv = (size_t)(p->num_inputs + p->num_aux);
        cuzk_fr *w = malloc(nv * sizeof *w);
        for (size_t i = 0; i < nv; i++) cuzk_fr_set_u64(&w[i], i * 0x9e3779b97f4a7c15ull);
        cuzk_pce_eval_buf buf;
        if (cuzk_pce_eval_buf_alloc(&buf, p) == CUZK_OK) {
            if (cuzk_pce_eval_raw(p, w, w + p->num_inputs, &buf, 2) != CUZK_OK) abort();
            cuzk_pce_eval_buf_free(&buf);
        }
        free(w);
    }
    cuzk_pce_free(p);
}

/* A small circuit whose shape and coefficients come from the input. */
static cuzk_pce *build(const uint8_t *d, size_t n)
{
    cuzk_recording_cs *r = cuzk_recording_cs_new();
    cuzk_cs *cs = &r->base;
    cuzk_cs_alloc_one(cs);
    size_t ni = 1 + (n > 1 ? d[1] % 3 : 0), na = 1 + (n > 2 ? d[2] % 6 : 0), rows = n > 3 ? d[3] % 8 : 2;
    cuzk_var v[10];
    size_t nv = 0;
    v[nv++] = CUZK_CS_ONE;
    for (size_t i = 1; i < ni; i++) v[nv++] = cuzk_cs_alloc_input(cs, NULL, NULL);
    for (size_t i = 0; i < na; i++) v[nv++] = cuzk_cs_alloc(cs, NULL, NULL);
    cuzk_lc lc[3];
    for (int k = 0; k < 3; k++) cuzk_lc_init(&lc[k]);
    size_t pos = 4;
    for (size_t row = 0; row < rows; row++) {
        for (int k = 0; k < 3; k++) {
            cuzk_lc_clear(&lc[k]);
            uint8_t b = pos < n ? d[pos++] : (uint8_t)row;
            for (int t = 0; t < (b & 3); t++) {
                cuzk_fr c;
                uint8_t s = pos < n ? d[pos++] : 1;
                cuzk_fr_set_u64(&c, s & 0x40 ? (uint64_t)s << 40 : s & 7); /* 0, ±1, small, general */
                if (s & 0x80) cuzk_fr_neg(&c, &c);
                cuzk_lc_add(&lc[k], v[(b >> 2) % nv], &c);
                b = (uint8_t)(b * 37 + 11);
            }
        }
        cuzk_cs_enforce(cs, NULL, &lc[0], &lc[1], &lc[2]);
    }
    for (int k = 0; k < 3; k++) cuzk_lc_free(&lc[k]);
    cuzk_pce *p = NULL;
    if (cuzk_cs_finalize(cs) == CUZK_OK)
        cuzk_pce_from_recording(&p, r, "fuzz", NULL, n > 4 && (d[4] & 1) ? CUZK_PCE_WIDE_ROWPTR : 0, 1, NULL);
    cuzk_cs_free(cs);
    return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 0 && data[0] == 0xa5) {
        cuzk_pce *p = build(data, size);
        if (!p) return 0;
        size_t len = p->image_len;
        uint8_t *b = malloc(len);
        memcpy(b, p->image, len);
        cuzk_pce_free(p);
        /* edits: (2-byte position, xor mask) triples after the circuit bytes */
        for (size_t i = 24; i + 2 < size; i += 3) b[((size_t)data[i] << 8 | data[i + 1]) % len] ^= data[i + 2];
        size_t cut = size > 5 && (data[5] & 1) ? len - (size_t)data[5] % len : len;
        exercise(b, cut, 0);
        exercise(b, cut, CUZK_PCE_LOAD_NO_CHECKSUMS);
        free(b);
        return 0;
    }
    exercise(data, size, 0);
    exercise(data, size, CUZK_PCE_LOAD_NO_CHECKSUMS);
    return 0;
}

/*
 * circom .r1cs (version 1; facts from iden3/r1csfile doc/r1cs_bin_format.md
 * and src/r1csfile.js) and .wtns (version 2; snarkjs src/wtns_utils.js)
 * readers, and the witness check.
 */
#include <stdlib.h>
#include <string.h>

#include "circom/circom_internal.h"
#include "cuzk/util/error.h"

void cuzk_circom_r1cs_free(cuzk_circom_r1cs *r)
{
    if (!r) return;
    free(r->start), free(r->wire), free(r->coef);
    memset(r, 0, sizeof *r);
}

static int read_terms(cuzk_circom_r1cs *r, const uint8_t *buf, uint64_t pos, uint64_t end, uint32_t *tmp,
                      cuzk_circom_error *err);

/* Section 2: per constraint three combinations, each u32 count then count
 * (u32 wire, 32-byte coefficient) terms, wires each wire at most once per combination. Counts
 * are checked against the bytes left before anything is allocated: a
 * combination needs at least 4 bytes, a term 36. */
static int read_constraints(cuzk_circom_r1cs *r, const uint8_t *buf, uint64_t pos, uint64_t end,
                            cuzk_circom_error *err)
{
    const uint64_t m = r->n_constraints;
    if ((end - pos) / 12 < m)
        return circom_fail(err, CUZK_ERR_FORMAT, pos,
                           "r1cs: constraints section (%llu bytes) too short for %llu constraints",
                           (unsigned long long)(end - pos), (unsigned long long)m);
    /* Total terms are bounded by the section size. */
    const size_t max_terms = (size_t)((end - pos) / 36) + 1;
    r->start = malloc((3 * m + 1) * sizeof *r->start);
    r->wire = malloc(max_terms * sizeof *r->wire);
    r->coef = malloc(max_terms * sizeof *r->coef);
    /* scratch for the duplicate check of unsorted combinations */
    uint32_t *tmp = malloc(max_terms * sizeof *tmp);
    if (!r->start || !r->wire || !r->coef || !tmp) {
        free(tmp);
        return CUZK_ERR_NO_MEMORY;
    }
    int rc = read_terms(r, buf, pos, end, tmp, err);
    free(tmp);
    return rc;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int read_terms(cuzk_circom_r1cs *r, const uint8_t *buf, uint64_t pos, uint64_t end, uint32_t *tmp,
                      cuzk_circom_error *err)
{
    const uint64_t m = r->n_constraints;
    static const char mat[3] = {'A', 'B', 'C'};
    size_t t = 0;
    for (uint64_t k = 0; k < 3 * m; k++) {
        r->start[k] = t;
        if (end - pos < 4)
            return circom_fail(err, CUZK_ERR_FORMAT, pos, "r1cs: truncated at constraint %llu (%c)",
                               (unsigned long long)(k / 3), mat[k % 3]);
        uint32_t nt = circom_u32(buf + pos);
        pos += 4;
        if ((end - pos) / 36 < nt)
            return circom_fail(err, CUZK_ERR_FORMAT, pos - 4,
                               "r1cs: constraint %llu (%c) claims %u terms, past the section end",
                               (unsigned long long)(k / 3), mat[k % 3], nt);
        for (uint32_t j = 0; j < nt; j++, pos += 36, t++) {
            uint32_t w = circom_u32(buf + pos);
            if (w >= r->n_wires)
                return circom_fail(err, CUZK_ERR_FORMAT, pos,
                                   "r1cs: constraint %llu (%c) term %u: wire %u >= %u wires",
                                   (unsigned long long)(k / 3), mat[k % 3], j, w, r->n_wires);
            uint64_t v[4];
            if (!circom_fr_plain_ok(buf + pos + 4, v))
                return circom_fail(err, CUZK_ERR_NONCANONICAL, pos + 4,
                                   "r1cs: constraint %llu (%c) term %u: coefficient >= r",
                                   (unsigned long long)(k / 3), mat[k % 3], j);
            r->wire[t] = w;
            cuzk_fr_from_limbs(&r->coef[t], v);
        }
        /* The format asks for ascending wires, but circom 2 writes some
         * combinations unsorted; a repeated wire is ambiguous (r1csfile keeps
         * the last term, snarkjs's setup adds them), so it is rejected. */
        const size_t s0 = r->start[k];
        bool sorted = true;
        for (size_t i = s0 + 1; i < t && sorted; i++) sorted = r->wire[i] > r->wire[i - 1];
        if (!sorted) {
            memcpy(tmp, r->wire + s0, (t - s0) * sizeof *tmp);
            qsort(tmp, t - s0, sizeof *tmp, cmp_u32);
            for (size_t i = 1; i < t - s0; i++)
                if (tmp[i] == tmp[i - 1])
                    return circom_fail(err, CUZK_ERR_FORMAT, pos - 36 * (t - s0),
                                       "r1cs: constraint %llu (%c): wire %u appears twice",
                                       (unsigned long long)(k / 3), mat[k % 3], tmp[i]);
        }
    }
    r->start[3 * m] = t;
    r->n_terms = t;
    if (pos != end)
        return circom_fail(err, CUZK_ERR_FORMAT, pos, "r1cs: %llu stray bytes after the constraints",
                           (unsigned long long)(end - pos));
    return CUZK_OK;
}

int cuzk_circom_r1cs_read_mem(cuzk_circom_r1cs *out, const uint8_t *buf, size_t len,
                              cuzk_circom_error *err)
{
    if (!out) return circom_fail(err, CUZK_ERR_INVALID_ARG, 0, "r1cs: no output");
    memset(out, 0, sizeof *out);
    circom_section sec[6];
    int rc = circom_container(buf, len, "r1cs", "r1cs", 1, sec, 5, err);
    if (rc) return rc;
    if (sec[4].present || sec[5].present)
        return circom_fail(err, CUZK_ERR_UNSUPPORTED, sec[4].present ? sec[4].off : sec[5].off,
                           "r1cs: custom gates (PLONK-only sections 4/5) are not supported");
    if (!sec[1].present) return circom_fail(err, CUZK_ERR_FORMAT, 0, "r1cs: header section (1) missing");
    if (!sec[2].present) return circom_fail(err, CUZK_ERR_FORMAT, 0, "r1cs: constraints section (2) missing");

    uint64_t pos = sec[1].off, end = pos + sec[1].size;
    if ((rc = circom_field_header(buf, end, &pos, false, "r1cs header", err))) return rc;
    if (end - pos != 28)
        return circom_fail(err, CUZK_ERR_FORMAT, pos, "r1cs: header section has %llu bytes after the prime, want 28",
                           (unsigned long long)(end - pos));
    cuzk_circom_r1cs r = {0};
    r.n_wires = circom_u32(buf + pos);
    r.n_pub_out = circom_u32(buf + pos + 4);
    r.n_pub_in = circom_u32(buf + pos + 8);
    r.n_prv_in = circom_u32(buf + pos + 12);
    r.n_labels = circom_u64(buf + pos + 16);
    r.n_constraints = circom_u32(buf + pos + 24);
    if (r.n_wires == 0 || (uint64_t)r.n_pub_out + r.n_pub_in + r.n_prv_in >= r.n_wires)
        return circom_fail(err, CUZK_ERR_FORMAT, pos,
                           "r1cs: %u wires cannot hold ONE, %u outputs, %u public and %u private inputs",
                           r.n_wires, r.n_pub_out, r.n_pub_in, r.n_prv_in);
    if (sec[3].present && sec[3].size != 8 * (uint64_t)r.n_wires)
        return circom_fail(err, CUZK_ERR_FORMAT, sec[3].off,
                           "r1cs: wire-to-label map has %llu bytes, want 8 x %u wires",
                           (unsigned long long)sec[3].size, r.n_wires);
    rc = read_constraints(&r, buf, sec[2].off, sec[2].off + sec[2].size, err);
    if (rc) {
        if (rc == CUZK_ERR_NO_MEMORY) circom_fail(err, rc, 0, "r1cs: out of memory");
        cuzk_circom_r1cs_free(&r);
        return rc;
    }
    *out = r;
    return CUZK_OK;
}

int cuzk_circom_r1cs_read_file(cuzk_circom_r1cs *out, const char *path, cuzk_circom_error *err)
{
    circom_map m;
    if (out) memset(out, 0, sizeof *out);
    int rc = circom_map_file(&m, path, "r1cs", err);
    if (rc) return rc;
    rc = cuzk_circom_r1cs_read_mem(out, m.p, m.len, err);
    circom_unmap(&m);
    return rc;
}

/* ---- .wtns ------------------------------------------------------------------ */

void cuzk_circom_wtns_free(cuzk_circom_wtns *w)
{
    if (!w) return;
    free(w->values);
    memset(w, 0, sizeof *w);
}

int cuzk_circom_wtns_read_mem(cuzk_circom_wtns *out, const uint8_t *buf, size_t len,
                              cuzk_circom_error *err)
{
    if (!out) return circom_fail(err, CUZK_ERR_INVALID_ARG, 0, "wtns: no output");
    memset(out, 0, sizeof *out);
    circom_section sec[3];
    int rc = circom_container(buf, len, "wtns", "wtns", 2, sec, 2, err);
    if (rc) return rc;
    if (!sec[1].present) return circom_fail(err, CUZK_ERR_FORMAT, 0, "wtns: header section (1) missing");
    if (!sec[2].present) return circom_fail(err, CUZK_ERR_FORMAT, 0, "wtns: values section (2) missing");
    uint64_t pos = sec[1].off, end = pos + sec[1].size;
    if ((rc = circom_field_header(buf, end, &pos, false, "wtns header", err))) return rc;
    if (end - pos != 4)
        return circom_fail(err, CUZK_ERR_FORMAT, pos, "wtns: header section has %llu bytes after the prime, want 4",
                           (unsigned long long)(end - pos));
    uint32_t n = circom_u32(buf + pos);
    if (sec[2].size != 32 * (uint64_t)n)
        return circom_fail(err, CUZK_ERR_FORMAT, sec[2].off,
                           "wtns: values section has %llu bytes, want 32 x %u values",
                           (unsigned long long)sec[2].size, n);
    uint64_t(*v)[4] = malloc((n ? n : 1) * sizeof *v);
    if (!v) return circom_fail(err, CUZK_ERR_NO_MEMORY, 0, "wtns: out of memory");
    for (uint32_t i = 0; i < n; i++) {
        uint64_t off = sec[2].off + 32 * (uint64_t)i;
        if (!circom_fr_plain_ok(buf + off, v[i])) {
            free(v);
            return circom_fail(err, CUZK_ERR_NONCANONICAL, off, "wtns: value %u at offset %llu is >= r", i,
                               (unsigned long long)off);
        }
    }
    out->n = n;
    out->values = v;
    return CUZK_OK;
}

int cuzk_circom_wtns_read_file(cuzk_circom_wtns *out, const char *path, cuzk_circom_error *err)
{
    circom_map m;
    if (out) memset(out, 0, sizeof *out);
    int rc = circom_map_file(&m, path, "wtns", err);
    if (rc) return rc;
    rc = cuzk_circom_wtns_read_mem(out, m.p, m.len, err);
    circom_unmap(&m);
    return rc;
}

/* ---- the check ---------------------------------------------------------------- */

static void lc_eval(cuzk_fr *acc, const cuzk_circom_r1cs *r, size_t k, const cuzk_fr *w)
{
    *acc = cuzk_fr_zero;
    for (size_t t = r->start[k]; t < r->start[k + 1]; t++) {
        cuzk_fr x;
        cuzk_fr_mul(&x, &r->coef[t], &w[r->wire[t]]);
        cuzk_fr_add(acc, acc, &x);
    }
}

int cuzk_circom_check(const cuzk_circom_r1cs *r, const cuzk_circom_wtns *w, size_t *first_failed,
                      size_t *n_failed, cuzk_circom_error *err)
{
    if (first_failed) *first_failed = 0;
    if (n_failed) *n_failed = 0;
    if (!r || !w) return circom_fail(err, CUZK_ERR_INVALID_ARG, 0, "check: no input");
    if (w->n != r->n_wires)
        return circom_fail(err, CUZK_ERR_INVALID_ARG, 0, "check: witness has %zu values, circuit has %u wires",
                           w->n, r->n_wires);
    cuzk_fr *wm = malloc((w->n ? w->n : 1) * sizeof *wm);
    if (!wm) return circom_fail(err, CUZK_ERR_NO_MEMORY, 0, "check: out of memory");
    for (size_t i = 0; i < w->n; i++) cuzk_fr_from_limbs(&wm[i], w->values[i]);
    if (!cuzk_fr_is_one(&wm[0])) {
        free(wm);
        return circom_fail(err, CUZK_ERR_INVALID_ARG, 0, "check: witness value 0 (the ONE wire) is not 1");
    }
    size_t bad = 0, first = 0;
    for (size_t k = 0; k < r->n_constraints; k++) {
        cuzk_fr a, b, c;
        lc_eval(&a, r, 3 * k, wm);
        lc_eval(&b, r, 3 * k + 1, wm);
        lc_eval(&c, r, 3 * k + 2, wm);
        cuzk_fr_mul(&a, &a, &b);
        if (!cuzk_fr_eq(&a, &c) && bad++ == 0) first = k;
    }
    free(wm);
    if (first_failed) *first_failed = first;
    if (n_failed) *n_failed = bad;
    if (bad)
        return circom_fail(err, CUZK_ERR_UNSATISFIED, 0, "check: constraint %zu is not satisfied (%zu of %u fail)",
                           first, bad, r->n_constraints);
    return CUZK_OK;
}

/*
 * Variables and linear combinations of R1CS (cuzk/cs/cs.h builds constraints
 * from them), with bellpepper's semantics: a combination is a map variable
 * -> coefficient kept sorted (inputs first, then aux, each by index);
 * adding a variable already present adds the coefficients, and a term
 * whose coefficient becomes zero stays (it still counts as a matrix entry).
 */
#ifndef CUZK_LC_H
#define CUZK_LC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/ff/fr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- variables -------------------------------------------------------- */

/* A variable: input index, or aux index with bit 31 set. Sorting the
 * encoded values gives bellpepper's term order (inputs, then aux). */
typedef uint32_t cuzk_var;
#define CUZK_VAR_AUX 0x80000000u
#define CUZK_VAR_MAX_INDEX 0x7fffffffu
#define CUZK_CS_ONE ((cuzk_var)0) /* input 0, allocated by the caller */

static inline cuzk_var cuzk_var_input(uint32_t i) { return i; }
static inline cuzk_var cuzk_var_aux(uint32_t i) { return i | CUZK_VAR_AUX; }
static inline bool cuzk_var_is_aux(cuzk_var v) { return (v & CUZK_VAR_AUX) != 0; }
static inline uint32_t cuzk_var_index(cuzk_var v) { return v & CUZK_VAR_MAX_INDEX; }

/* ---- linear combinations ---------------------------------------------- */

typedef struct cuzk_lc_term {
    cuzk_var var;
    cuzk_fr coeff;
} cuzk_lc_term;

#define CUZK_LC_INLINE 6
/*
 * Sorted, merged term list. Small combinations live inline (no malloc);
 * larger ones move to the heap. Do not copy the struct by value (use
 * cuzk_lc_copy); always cuzk_lc_free. On allocation failure the lc is
 * marked (oom) and constraint systems report CUZK_ERR_NO_MEMORY when it is used.
 */
typedef struct cuzk_lc {
    cuzk_lc_term *heap; /* NULL while inline */
    uint32_t len, cap;
    uint32_t last;      /* index of the last inserted term (append fast path) */
    bool oom;
    cuzk_lc_term inl[CUZK_LC_INLINE];
} cuzk_lc;

void cuzk_lc_init(cuzk_lc *lc);
void cuzk_lc_free(cuzk_lc *lc);
void cuzk_lc_clear(cuzk_lc *lc); /* len = 0, keeps storage */
static inline const cuzk_lc_term *cuzk_lc_terms(const cuzk_lc *lc)
{
    return lc->heap ? lc->heap : lc->inl;
}
/* lc += coeff * v (merging with an existing term for v). */
void cuzk_lc_add(cuzk_lc *lc, cuzk_var v, const cuzk_fr *coeff);
/* lc -= coeff * v. */
void cuzk_lc_sub(cuzk_lc *lc, cuzk_var v, const cuzk_fr *coeff);
void cuzk_lc_add_var(cuzk_lc *lc, cuzk_var v); /* coefficient one */
void cuzk_lc_sub_var(cuzk_lc *lc, cuzk_var v);
/* lc += other, lc -= other, lc += coeff * other (term by term). */
void cuzk_lc_add_lc(cuzk_lc *lc, const cuzk_lc *other);
void cuzk_lc_sub_lc(cuzk_lc *lc, const cuzk_lc *other);
void cuzk_lc_add_scaled(cuzk_lc *lc, const cuzk_fr *coeff, const cuzk_lc *other);
void cuzk_lc_copy(cuzk_lc *dst, const cuzk_lc *src); /* dst initialised */
/* sum coeff * value; in/aux index the assignments. */
void cuzk_lc_eval(cuzk_fr *out, const cuzk_lc *lc, const cuzk_fr *in, const cuzk_fr *aux);

#ifdef __cplusplus
}
#endif

#endif

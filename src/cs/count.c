/* CountingCS: variables, constraints and matrix terms, nothing stored. */
#include <stdlib.h>

#include "cs_internal.h"

static void c_alloc(cuzk_cs *cs, const cuzk_fr *v) {}
static void c_enforce(cuzk_cs *cs, const char *n, const cuzk_lc *a, const cuzk_lc *b, const cuzk_lc *c)
{
    cuzk_count_cs *k = (cuzk_count_cs *)cs;
    k->nnz[0] += a->len;
    k->nnz[1] += b->len;
    k->nnz[2] += c->len;
}
static int c_extend(cuzk_cs *p, const cuzk_cs *c)
{
    for (int m = 0; m < 3; m++) ((cuzk_count_cs *)p)->nnz[m] += ((const cuzk_count_cs *)c)->nnz[m];
    return 0;
}
static cuzk_cs *c_new_like(const cuzk_cs *cs) { return (cuzk_cs *)cuzk_count_cs_new(); }
static void c_destroy(cuzk_cs *cs) { free(cs); }

static const cuzk_cs_vtable count_vt = {.kind = CUZK_CS_COUNT, .name = "CountingCS", .alloc = c_alloc,
                                        .alloc_input = c_alloc, .enforce = c_enforce, .extend = c_extend,
                                        .new_like = c_new_like, .destroy = c_destroy};

cuzk_count_cs *cuzk_count_cs_new(void)
{
    cuzk_count_cs *k = calloc(1, sizeof *k);
    if (k) cuzk_cs_base_init(&k->base, &count_vt, false, false);
    return k;
}

/* bincode reading/writing and Merkle proofs shared by the vanilla-proof files (fil_vanilla.h). */
#ifndef CUZK_VANILLA_INTERNAL_H
#define CUZK_VANILLA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/filecoin/fil_vanilla.h"

/* A reader over one blob; the first failure is kept (rc, err) and later reads are no-ops. */
typedef struct vrd {
    const uint8_t *p;
    size_t n, off;
    int rc;
    char *err;
    size_t err_len;
} vrd;

void vrd_fail(vrd *r, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
uint64_t vrd_u64(vrd *r, const char *field);
uint32_t vrd_u32(vrd *r, const char *field);
void vrd_fr(vrd *r, cuzk_fr *out, const char *field);
/* A u64 length that must equal want. */
bool vrd_len(vrd *r, uint64_t want, const char *field);
void vrd_end(vrd *r);

/* A growing output buffer; oom set on allocation failure. */
typedef struct vwr {
    uint8_t *p;
    size_t n, cap;
    bool oom;
} vwr;

void vwr_u64(vwr *w, uint64_t v);
void vwr_u32(vwr *w, uint32_t v);
void vwr_fr(vwr *w, const cuzk_fr *v);
int vwr_finish(vwr *w, uint8_t **out, size_t *len);

/* The shape of one Merkle proof: levels, arities, ProofData variant. */
typedef struct vshape {
    cuzk_tree_shape tree;
    uint64_t leaves;
    size_t levels, base_levels, path_len;
    unsigned arity[64];
    unsigned variant; /* 0 Single, 1 Sub, 2 Top */
} vshape;

int vshape_init(vshape *s, const cuzk_tree_shape *tree, uint64_t leaves);
/* Tree R of a sector size (Poseidon, base 8). */
int vshape_tree_r(vshape *s, uint64_t sector_size);
void vrd_mproof(vrd *r, const vshape *s, cuzk_fil_mproof *out, const char *field);
void vwr_mproof(vwr *w, const vshape *s, const cuzk_fil_mproof *p);
/* The path recomputes p->root from p->leaf at p->index. */
bool mproof_ok(const vshape *s, const cuzk_fil_mproof *p);

#endif

/*
 * A vector of Fr packed by value class: what a Filecoin witness mostly is.
 *
 * Each entry is a 2-bit code: 00 zero, 01 one, 1x "the next general value".
 * The general values follow in entry order, as they were (Montgomery form,
 * or plain integers when the vector is plain); a count of the general values
 * before each 32-entry word lets any entry be found on its own (a device
 * thread per entry). The 32 GiB PoRep partition's aux witness is 51.4 %
 * zeros, 47.3 % ones and 1.3 % other (measured on a synthetic C1, partition
 * 0): 130.2 M entries, 4.17 GB as cuzk_fr, 103 MB packed.
 *
 * Zero and one are recognized in the vector's own form: cuzk_fr_one (R mod r)
 * when Montgomery, the integer 1 when plain. Unpacking gives back the very
 * limbs that were packed.
 */
#ifndef CUZK_FR_PACKED_H
#define CUZK_FR_PACKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/ff/fr.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_FR_PACKED_ZERO 0u
#define CUZK_FR_PACKED_ONE 1u
#define CUZK_FR_PACKED_GENERAL 2u /* and 3: the high bit marks a general value */

typedef struct cuzk_fr_packed {
    size_t n;          /* entries */
    bool plain;        /* the form of the entries (and of what unpacking writes) */
    uint64_t *codes;   /* ceil(n / 32) words; entry i: bits 2(i mod 32) and up of word i / 32 */
    uint32_t *before;  /* per word: the general values of the words before it */
    cuzk_fr *gen;      /* the general values, in entry order */
    size_t n_gen;
} cuzk_fr_packed;

/* out <- v[0 .. n) packed; n < 2^32 general values. CUZK_OK, CUZK_ERR_NO_MEMORY or
 * CUZK_ERR_INVALID_ARG (NULL v with n > 0, too many general values). */
int cuzk_fr_pack(cuzk_fr_packed *out, const cuzk_fr *v, size_t n, bool plain);
/* The same on nthreads threads (0 or 1: the caller's alone): the words'
 * codes and counts, one scan of the counts, the general values put in
 * place. The result does not depend on nthreads. */
int cuzk_fr_pack_threads(cuzk_fr_packed *out, const cuzk_fr *v, size_t n, bool plain, unsigned nthreads);
/* out[0 .. p->n) <- the entries. */
void cuzk_fr_unpack(cuzk_fr *out, const cuzk_fr_packed *p);
/* Entry i alone. */
void cuzk_fr_packed_get(cuzk_fr *out, const cuzk_fr_packed *p, size_t i);
/* One in a vector's form: the integer 1 when plain, else cuzk_fr_one (R mod r). */
const cuzk_fr *cuzk_fr_packed_one(bool plain);
/* How many of up to `samples` evenly spaced entries of v[0 .. n) (entry
 * i·n/samples) are general, and (*taken) how many were looked at: whether
 * packing pays, judged without a pass over the whole vector. */
size_t cuzk_fr_packed_general_sample(const cuzk_fr *v, size_t n, bool plain, size_t samples, size_t *taken);
/* The bytes of its three arrays (what a device upload moves). */
size_t cuzk_fr_packed_bytes(const cuzk_fr_packed *p);
/* Frees the arrays; p is left empty (freeing twice is harmless). */
void cuzk_fr_packed_free(cuzk_fr_packed *p);

#ifdef __cplusplus
}
#endif

#endif

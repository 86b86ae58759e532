/*
 * The Filecoin kinds' one table: PoRep C2 (porep-), NI-PoRep C2 (ni-porep-),
 * SnapDeals (snap-), WindowPoSt (wpost-) and WinningPoSt (winning-) at each
 * Filecoin sector size (2k, 8m, 512m, 32g, 64g), each named
 * "<prefix>-<size>" ("porep-32g").
 *
 * A request names its kind by proof kind and sector size; the daemon hands
 * the kinds layer the request as a cuzk_fil_request, asks it which kind that
 * is (cuzk_fil_kind_of) and for the job inputs that kind decodes
 * (cuzk_fil_kind_encode). The engine registers the table's kinds whose
 * parameter files are in the param cache (cuzk_engine_register_filecoin,
 * cuzk/kinds/kinds.h); nothing above this layer knows a sector size.
 */
#ifndef CUZK_FIL_KINDS_H
#define CUZK_FIL_KINDS_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/filecoin/fil_request.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_fil_kind_entry {
    cuzk_fil_proof_kind kind;
    uint64_t sector_size;
    uint64_t proof_id; /* the registered proof whose parameter file the kind uses */
    char name[32];     /* "porep-32g": the kind's name */
    char circuit_id[32]; /* its circuit (parameters, PCE): the name, but "porep-32g" for "ni-porep-32g" */
} cuzk_fil_kind_entry;

#define CUZK_FIL_KINDS 25 /* 5 proof kinds x 5 sector sizes */

/* The SnarkPack aggregation of sectors' PoRep C2 outputs (AGGREGATE_SEAL, every sector size;
 * its inputs: cuzk_fil_agg_request, cuzk/kinds/fil_aggregate.h), registered beside the PoRep kinds. */
#define CUZK_FIL_AGG_KIND "aggregate-seal"

/* Entry i (< CUZK_FIL_KINDS) of the table: sizes outer, proof kinds inner. */
void cuzk_fil_kind_at(cuzk_fil_kind_entry *out, size_t i);
/* The entry of a name ("porep-32g"); -1 when the table has none. */
int cuzk_fil_kind_by_name(cuzk_fil_kind_entry *out, const char *name);

/*
 * The kind r names, into out: r->kind and r->sector_size, where r carries no
 * sector size the one of r->registered_proof (written into r->sector_size;
 * for SnapDeals r->num_blobs must then be the proof's partitions); a PoRep
 * request of an NI-PoRep registered proof names the NI-PoRep kind (written
 * into r->kind). 0, or
 * CUZK_ERR_INVALID_ARG with the reason in why: proof kind unset or unknown,
 * a registered proof that says no size, a size that is not Filecoin's.
 */
int cuzk_fil_kind_of(cuzk_fil_request *r, cuzk_fil_kind_entry *out, char *why, size_t why_len);

/* r as a kind's job inputs (cuzk_fil_request's encoding, which the kind's
 * prepare decodes): malloc'd, *len bytes; NULL when out of memory. */
uint8_t *cuzk_fil_kind_encode(const cuzk_fil_request *r, size_t *len);

#ifdef __cplusplus
}
#endif
#endif

/*
 * The backends layer's internals: the Filecoin kinds (kinds_filecoin.c,
 * parsing in kinds_filecoin_parse.c) and the PCE cache's fingerprint, which
 * the Filecoin operator tools share (pce_cache.c).
 */
#ifndef CUZK_BACKENDS_INTERNAL_H
#define CUZK_BACKENDS_INTERNAL_H

#include "cuzk/backends.h"
#include "cuzk/fil_request.h"
#include "cuzk/filecoin.h"
#include "cuzk/porep.h"
#include "cuzk/post.h"
#include "cuzk/update.h"

/* One registered kind: a proof type at one sector size. */
typedef struct fil_kind {
    cuzk_fil_proof_kind kind;
    uint64_t sector_size;
    uint64_t proof_id; /* the registered proof that names the parameter file */
    char name[32];     /* "porep-32g": the kind and its circuit id */
    char cache_id[CUZK_FIL_CACHE_ID_MAX];
    char params_path[4096];
    char vk_path[4096]; /* the .vk of the same name beside it */
    uint32_t partitions, num_inputs;
    cuzk_priority priority;
    unsigned synth_threads;
    union {
        cuzk_porep_config porep;
        cuzk_post_config post;
        cuzk_update_config update;
    } cfg;
} fil_kind;

/* A parsed request: per-partition witnesses and public inputs. */
typedef struct fil_job {
    const fil_kind *fk;
    cuzk_fr *pub; /* partitions x num_inputs */
    union {
        cuzk_porep_witness *porep;
        cuzk_post_witness *post;
        cuzk_update_witness *update;
    } w;
    void *parsed;                  /* what the witnesses point into */
    void (*release)(struct fil_job *j); /* frees parsed and w */
} fil_job;

/* Parses req's vanilla proofs into j (w, pub, parsed, release), rebuilding
 * every public input; a message naming the bad field into err. */
int fil_parse(const fil_kind *fk, const cuzk_fil_request *req, fil_job *j, char *err, size_t err_len);

/* The fingerprint the engine's PCE cache gives a circuit id (pce_cache.c). */
void pce_engine_fingerprint(uint8_t fp[32], const char *circuit_id);

#endif

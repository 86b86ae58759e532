/*
 * The kinds layer's internals: the Filecoin kinds (kinds_filecoin.c,
 * parsing in kinds_filecoin_parse.c) and the PCE cache's fingerprint, which
 * the Filecoin operator tools share (pce_cache.c).
 */
#ifndef CUZK_KINDS_INTERNAL_H
#define CUZK_KINDS_INTERNAL_H

#include <pthread.h>

#include "cuzk/kinds/kinds.h"
#include "cuzk/kinds/fil_aggregate.h"
#include "cuzk/filecoin/fil_request.h"
#include "cuzk/filecoin/filecoin.h"
#include "cuzk/circuits/porep.h"
#include "cuzk/circuits/post.h"
#include "cuzk/circuits/update.h"

/* An NI-PoRep kind's aggregation: the SRS (read at its first request) and
 * the PoRep circuit's verifying key the aggregate is checked against. */
typedef struct fil_ni {
    pthread_mutex_t mu;
    int loaded; /* srs and vk hold; else err says why not (tried again at the next request) */
    char param_cache[4096];
    int allow_test_srs;
    cuzk_snarkpack_srs srs;
    cuzk_fil_srs_origin origin;
    cuzk_groth16_vk vk;
} fil_ni;

/* One registered kind: a proof type at one sector size. */
typedef struct fil_kind {
    cuzk_fil_proof_kind kind;
    uint64_t sector_size;
    uint64_t proof_id; /* the registered proof that names the parameter file */
    char name[32];     /* "porep-32g": the kind */
    char circuit_id[32]; /* its circuit: the name, "porep-32g" for "ni-porep-32g" */
    fil_ni *ni;        /* NI-PoRep kinds only */
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
    cuzk_fil_agg_sector ni_sector; /* NI-PoRep: the sector's values, for the aggregate */
    uint8_t prover_id[32];
    uint64_t registered_proof;
    void *parsed;                  /* what the witnesses point into */
    void (*release)(struct fil_job *j); /* frees parsed and w */
} fil_job;

/* Parses req's vanilla proofs into j (w, pub, parsed, release), rebuilding
 * every public input; a message naming the bad field into err. */
int fil_parse(const fil_kind *fk, const cuzk_fil_request *req, fil_job *j, char *err, size_t err_len);

/* NI-PoRep (kinds_filecoin_ni.c): the kind's state for param_cache; ready
 * loads the SRS and key once (CUZK_OK, or why not in err); finish is the
 * engine kind's finish (the partitions' SnarkPack v2 aggregate, verified). */
fil_ni *fil_ni_new(const char *param_cache, int allow_test_srs);
void fil_ni_free(fil_ni *ni);
int fil_ni_ready(const fil_kind *fk, char *err, size_t err_len);
int fil_ni_finish(void *ctx, cuzk_job *job, const void *inputs, size_t inputs_len, const void *prepared,
                  const uint8_t *proofs, size_t len, uint8_t **out, size_t *out_len, char *err, size_t err_len);

/* A SnarkPack ctl (kinds_aggregate.c) that stops an aggregation at its next stage once job has
 * ended (cancelled, timed out): its cores and memory go back then, not at its end. Its Miller
 * loops and MSMs run on an engine device that lends hooks (cuzk_job_snarkpack_accel, filled
 * into the caller's *acc, which must outlive the aggregation), else on the CPU; the bytes are
 * the same either way; a device's failure is logged and the aggregation runs again on the CPU. */
cuzk_snarkpack_ctl fil_agg_job_ctl(cuzk_job *job, cuzk_snarkpack_accel *acc);

/* The aggregate-seal task kind (kinds_aggregate.c) for o's param cache; on_kind hears it. */
int fil_agg_register(cuzk_engine *e, const cuzk_engine_filecoin_opts *o,
                     void (*on_kind)(void *ud, const char *name, const char *circuit_id), void *ud);

/* The fingerprint the engine's PCE cache gives a circuit id (pce_cache.c). */
void pce_engine_fingerprint(uint8_t fp[32], const char *circuit_id);

#endif

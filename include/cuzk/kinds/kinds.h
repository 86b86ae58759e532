/*
 * What the engine runs (cuzk/engine/engine.h is the core: jobs, partitions,
 * priorities, workers, memory, residency, and the small tables things plug
 * in through). This layer fills those tables:
 *  - kinds: the Filecoin proofs at every sector size, and synthetic test
 *    kinds (cuzk_engine_kind);
 *  - the provers (cuzk_engine_prover): the CPU prover, and the GPU prover;
 *  - the PCE cache behind the PCE hook (cuzk_engine_pce), and the Filecoin
 *    circuits' PCE for operators.
 * The daemon, the CLI and the tests pick from here what the engine runs.
 */
#ifndef CUZK_KINDS_H
#define CUZK_KINDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/engine/engine.h"
#include "cuzk/pce/pce.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the Filecoin kinds ------------------------------------------------- */

/*
 * The Filecoin kinds (porep-, ni-porep-, snap-, wpost-, winning- x 2k, 8m,
 * 512m, 32g, 64g), one per sector size whose .params file is in param_cache
 * under Filecoin's name (v28-<cache id>.params); an NI-PoRep kind proves the
 * PoRep circuit (circuit id porep-<size>) and answers with the partitions'
 * SnarkPack v2 aggregate (the engine kind's finish). Their inputs are a
 * cuzk_fil_request (cuzk/filecoin/fil_request.h) parsed once at submit; every public
 * input is rebuilt by cuzk. on_kind (may be NULL) hears each name. Returns
 * the number registered (>= 0) or a CUZK_ERR_* with a message in err.
 */
typedef struct cuzk_engine_filecoin_opts {
    const char *param_cache;
    cuzk_groth16_read_mode read_mode;
    unsigned synth_threads; /* threads synthesizing one partition (0: what the engine gives it, synthesis_threads) */
    /* NI-PoRep's aggregation SRS (param_cache/v28-fil-inner-product-v1.srs, read at the
     * first NI request): the ceremony's file (its digest checked), else a TEST SRS
     * (cuzk setup --aggregation) unless this is set (cuzk_fil_agg_srs_load) */
    bool refuse_test_srs;
} cuzk_engine_filecoin_opts;

int cuzk_engine_register_filecoin(cuzk_engine *e, const cuzk_engine_filecoin_opts *o,
                                  void (*on_kind)(void *ud, const char *name, const char *circuit_id), void *ud,
                                  unsigned *registered, char *err, size_t err_len);

/*
 * The PCE of one Filecoin circuit ("porep-32g", "wpost-2k", ...) as the
 * daemon's PCE cache keeps it: <dir>/<circuit id>.pce with the engine's
 * fingerprint, loaded when valid, else extracted from the blank circuit
 * (nthreads synthesis and extraction threads) and saved atomically. Needs no
 * parameter file: operators pre-extract before the first proof (`cuzk pce
 * extract`). *outcome as cuzk_pce_cache_get's; free *out with cuzk_pce_free.
 */
int cuzk_engine_filecoin_pce(const char *dir, const char *circuit_id, unsigned nthreads, cuzk_pce **out,
                             cuzk_pce_cache_outcome *outcome, char *err, size_t err_len);

/*
 * One partition of a Filecoin request through a circuit's PCE, checked: the
 * request (cuzk_fil_request's encoding) parsed and its public inputs rebuilt,
 * the partition's witness synthesized (WitnessCS), a, b, c evaluated from the
 * PCE, then the witness's public inputs compared with the rebuilt ones and
 * a·b = c checked for every constraint. Timings into *out. CUZK_ERR_VERIFY
 * names the first failure in err. For operators and the scale run.
 */
typedef struct cuzk_engine_pce_check {
    double parse_s, witness_s, eval_s, check_s;
    size_t constraints, aux;
} cuzk_engine_pce_check;
int cuzk_engine_filecoin_pce_check(const cuzk_pce *pce, const char *circuit_id, const void *request, size_t len,
                                   uint32_t partition, unsigned nthreads, cuzk_engine_pce_check *out, char *err,
                                   size_t err_len);

/* ---- the CPU prover ----------------------------------------------------- */

/* Fills *out with the CPU prover: cuzk_groth16_prove_assignment with
 * `threads` threads per call (0: 1), one device, no device state. Tests
 * wrap it. */
void cuzk_engine_cpu_prover(cuzk_engine_prover *out, unsigned threads);

/*
 * cuzk_engine_start, with the CPU prover where cfg (may be NULL: all
 * defaults) names no prover: its threads cuzk_engine_prove_threads of its
 * devices (num_devices, else 1), the parameters not page-locked under pin
 * auto (nothing uploads them). With a prover and cpu_fallback, the CPU
 * prover behind its devices (as one device). The daemon, the CLI and the
 * tests create their engines here.
 */
int cuzk_engine_create(cuzk_engine **out, const cuzk_engine_config *cfg);

/* ---- the GPU prover ----------------------------------------------------- */

/*
 * Fills *out with the GPU prover (cuzk/gpu/gpu.h): engine device i is GPU
 * ordinals[i] (n == 0: every GPU, in order), each with one CUDA stream and
 * witness buffers per worker; parameters go to each device once and are
 * dropped there when the SRS is evicted. An ordinal may repeat: each entry
 * is its own device context on that GPU. CUZK_ERR_NO_DEVICE when built
 * without CUDA, with no GPU, or with an ordinal that does not exist: callers
 * fall back to the CPU prover (cuzk_engine_create also returns
 * CUZK_ERR_NO_DEVICE when a device cannot be opened). Free with
 * cuzk_engine_gpu_prover_free after the engine.
 */
int cuzk_engine_gpu_prover(cuzk_engine_prover *out, const unsigned *ordinals, unsigned n);
void cuzk_engine_gpu_prover_free(cuzk_engine_prover *p);
/* Caps each GPU's device memory at limit bytes (0: the card's free memory
 * when it is opened; cuzk_gpu_device_set_memory_limit), for the devices
 * the engine opens from then on. */
void cuzk_engine_gpu_prover_memory_limit(cuzk_engine_prover *p, uint64_t limit);
/* Every device allocation listed on stderr with the card's free memory
 * after it (cuzk_gpu_set_trace's CUZK_GPU_TRACE_ALLOC), from the first
 * device the engine opens on. */
void cuzk_engine_gpu_prover_log_allocations(cuzk_engine_prover *p, bool on);

/* ---- the PCE cache ------------------------------------------------------ */

/*
 * The PCE layer (cuzk/pce/pce.h) behind the hook: caches "<dir>/<circuit id>.pce"
 * (fingerprint of the circuit id) loaded at registration, extracted once and
 * saved by cuzk_pce_cache_get, witness-only synthesis plus cuzk_pce_eval on
 * the fast path. dir must exist; nthreads for loading, extraction and
 * evaluation (0: 1). Free with cuzk_engine_pce_cache_free after the engine.
 * Made at a daemon's start, so it first removes the temporaries of writers
 * killed mid-save ("<id>.pce.tmp.*" whose id lock is free:
 * cuzk_pce_cache_clean), each logged through the PCE log.
 */
int cuzk_engine_pce_cache(cuzk_engine_pce *out, const char *dir, unsigned nthreads);
/*
 * pce_verify = "background" (on) or "sync" (off, the default): a cached
 * file's section checksums are verified on a thread started at load
 * (CUZK_PCE_LOAD_VERIFY_BACKGROUND) instead of before the load returns. The
 * first witness through the PCE waits for the result; a mismatch makes the
 * witness hook return CUZK_ERR_FORMAT, the file has been set aside, and the
 * engine drops the PCE, synthesizes that partition in full and re-extracts.
 */
int cuzk_engine_pce_cache_verify_background(cuzk_engine_pce *hooks, bool on);
/*
 * Cached files loaded when a kind is registered (a daemon's start): with
 * background on, their section checksums are always verified on a thread,
 * whatever pce_verify says, so that the start never waits for hashing
 * gigabytes; a mismatch is logged and the file set aside as soon as the
 * thread finds it, and no proof uses the PCE before its verdict. A file that
 * fails its other checks is logged and set aside at registration either way.
 */
int cuzk_engine_pce_cache_verify_at_start(cuzk_engine_pce *hooks, bool background);
void cuzk_engine_pce_cache_free(cuzk_engine_pce *hooks);

/* ---- synthetic test kinds ----------------------------------------------- */

/*
 * Built-in test kinds over the synthetic circuit (cuzk/circuits/test_circuits.h) with
 * test parameters made now by cuzk_groth16_setup (toxic waste from the OS
 * or setup_seed; test parameters only). Inputs are an 8-byte little-endian seed; partition
 * k uses a witness seed derived from (seed, k). With params_path the
 * parameters are written there and the kind loads them from the file.
 */
typedef struct cuzk_engine_synthetic_kind {
    const char *name, *circuit_id;
    uint32_t num_partitions;
    cuzk_priority priority;
    uint64_t num_constraints;
    uint32_t num_inputs;
    const char *params_path; /* NULL: parameters in memory */
    /* 0: toxic waste from the OS; else drawn from this seed, so that hosts
     * given the same seed make the same parameters (a cluster's hosts
     * proving partitions of one test-kind request) */
    uint64_t setup_seed;
} cuzk_engine_synthetic_kind;
int cuzk_engine_register_synthetic(cuzk_engine *e, const cuzk_engine_synthetic_kind *spec,
                                   unsigned setup_threads);
/* "test-porep" (10 partitions, NORMAL), "test-window" (1, HIGH) and
 * "test-winning" (1, CRITICAL) with the given constraint counts. */
int cuzk_engine_register_test_kinds(cuzk_engine *e, uint64_t porep_constraints,
                                    uint64_t post_constraints, unsigned setup_threads);

#ifdef __cplusplus
}
#endif
#endif

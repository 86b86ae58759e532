/*
 * The in-process proving engine: jobs, partitions, synthesis workers in
 * parallel with prover workers, SRS and PCE residency under a memory budget,
 * and verification of every partition before a job completes. The daemon
 * wraps this API; every function here is thread-safe.
 *
 * Model (docs/engine.md has the full picture):
 *  - A job is one proof request: a registered kind, opaque inputs, a
 *    priority and a caller-given request id. Submitting an id that is
 *    already known returns the same job (and refuses different inputs).
 *  - A kind has num_partitions partitions; each is synthesized (CPU),
 *    proved (a prover "device" worker), then verified against public inputs
 *    computed natively by the kind. The job's proof is the partitions'
 *    192-byte proofs concatenated in partition order.
 *  - An invalid partition proof is logged ("partition k INVALID", with the
 *    device and worker) and proved once more on another worker (another
 *    device when there is one); a second invalid proof fails the job. A job
 *    never returns a proof that did not verify.
 *  - Priorities order the work at partition granularity: a CRITICAL
 *    partition is the next one synthesized and the next one proved.
 *
 * Everything else plugs in through small tables: cuzk_engine_kind (a
 * circuit), cuzk_engine_prover (devices with workers) and cuzk_engine_pce
 * (pre-compiled circuits); the core knows no Filecoin, GPU or PCE format
 * and holds no prover. cuzk/kinds/kinds.h fills those tables (the Filecoin and
 * test kinds, the CPU and GPU provers, the PCE cache). The log callback and the stage hook are called from worker
 * threads and must not call back into the engine.
 */
#ifndef CUZK_ENGINE_H
#define CUZK_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/cs/cs.h"
#include "cuzk/ff/fr.h"
#include "cuzk/groth16/groth16.h"
#include "cuzk/groth16/snarkpack.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_engine cuzk_engine;
typedef struct cuzk_job cuzk_job;

typedef enum cuzk_priority {
    CUZK_PRIORITY_DEFAULT = 0,  /* a request: the kind's; a kind: NORMAL */
    CUZK_PRIORITY_LOW = 1,
    CUZK_PRIORITY_NORMAL = 2,   /* PoRep, SnapDeals */
    CUZK_PRIORITY_HIGH = 3,     /* WindowPoSt */
    CUZK_PRIORITY_CRITICAL = 4  /* WinningPoSt */
} cuzk_priority;

typedef enum cuzk_job_state {
    CUZK_JOB_QUEUED = 0,
    CUZK_JOB_RUNNING = 1,
    CUZK_JOB_DONE = 2,
    CUZK_JOB_FAILED = 3,
    CUZK_JOB_CANCELLED = 4,
    CUZK_JOB_TIMED_OUT = 5
} cuzk_job_state;

/* ---- what a prover consumes -------------------------------------------- */

/* A synthesized partition: the assignment view and who owns its memory. */
typedef struct cuzk_engine_witness {
    cuzk_groth16_assignment as;
    void (*release)(void *owner); /* frees everything as points into */
    void *owner;
    uint64_t bytes; /* memory it holds; 0: estimated from the sizes */
} cuzk_engine_witness;

/* ---- circuit registry -------------------------------------------------- */

typedef struct cuzk_engine_kind {
    const char *name;       /* request kind, e.g. "porep-32g" (copied) */
    const char *circuit_id; /* SRS and PCE key (copied); kinds may share one */
    uint32_t num_partitions;
    cuzk_priority default_priority;
    uint32_t num_public_inputs; /* per partition, ONE excluded */
    /* Parameters, exactly one of: a bellperson .params file, read with
     * read_mode; or parameters in memory, borrowed (they must outlive the
     * engine; loading copies them, so residency is real either way). */
    const char *params_path;
    cuzk_groth16_read_mode read_mode;
    const cuzk_groth16_params *params;
    /* Optional, with params_path: the .vk file of the same setup
     * (bellperson's VerifyingKey alone), the key that the proofs' verifiers
     * hold. At each load, when the file exists, the key inside the .params
     * must equal it, or the load fails naming both files (the circuit is
     * then failed as for an unreadable file); every partition is verified
     * against the .vk's key. Without the file the .params' own key
     * verifies, and the log says so once. Kinds sharing a circuit id give
     * the same vk_path. */
    const char *vk_path;
    /* With vk_path, optional: whether the .vk's bytes are the key of the
     * setup ceremony that the proofs' verifiers trust, rather than a test
     * setup's (proofs made with those verify here and are rejected there).
     * note gets what was compared, for the log and the status. Called at
     * each load, without the engine's lock. */
    bool (*vk_is_ceremony)(void *ctx, const uint8_t *vk, size_t len, char *note, size_t note_len);
    /* Memory of one synthesized partition, reserved before synthesis;
     * 0: learned from the largest partition seen so far. */
    uint64_t witness_bytes;
    /* Partition `partition` of the circuit into cs (any backend; ONE is
     * allocated, the engine finalizes). cs->threads is what the engine
     * gives this partition (synthesis_threads): a kind that synthesizes in
     * parallel asks for 0 threads to use it. inputs are the job's bytes as
     * submitted; prepared is what prepare made of them (NULL for a kind
     * without prepare, and for a background PCE extraction, which may
     * outlive the job: the blank circuit). Returns CUZK_OK or an error. */
    int (*synthesize)(void *ctx, cuzk_cs *cs, const void *inputs, size_t inputs_len, const void *prepared,
                      uint32_t partition);
    /* The num_public_inputs public inputs of a partition, computed natively
     * (inputs and prepared as for synthesize). */
    int (*public_inputs)(void *ctx, cuzk_fr *out, const void *inputs, size_t inputs_len, const void *prepared,
                         uint32_t partition);
    /* Optional: rejects malformed inputs at submit (CUZK_OK or an error). */
    int (*check_inputs)(void *ctx, const void *inputs, size_t inputs_len);
    /* Optional, for inputs worth parsing once (a 50 MB C1 JSON): called at
     * submit; on success *prepared is the job's parsed inputs, which
     * synthesize and public_inputs receive as `prepared` (the raw bytes
     * still decide idempotency). On failure a message naming the bad field
     * goes to err. prepared_free releases it. */
    int (*prepare)(void *ctx, const void *inputs, size_t inputs_len, void **prepared, char *err,
                   size_t err_len);
    void (*prepared_free)(void *ctx, void *prepared);
    /* Optional, for a kind whose answer is not its partitions' proofs
     * themselves (NI-PoRep: their SnarkPack aggregate): the job's proof
     * made from them (num_partitions · 192 bytes, every one verified), into
     * *out (malloc'd, *out_len bytes). Called once per job, on the worker
     * that verified the last partition, without the engine's lock, so that
     * it may take seconds; a job cancelled or timed out meanwhile stays so
     * and *out is dropped: a long finish asks cuzk_job_stopped(job) between
     * its steps and gives up (any error) once it says so. An error fails the
     * job with err. Not called for one_partition jobs (a cluster's share:
     * its proof stays the 192 bytes). */
    int (*finish)(void *ctx, cuzk_job *job, const void *inputs, size_t inputs_len, const void *prepared,
                  const uint8_t *proofs, size_t len, uint8_t **out, size_t *out_len, char *err, size_t err_len);
    void *ctx;
    void (*ctx_free)(void *ctx); /* at engine destroy; may be NULL */
} cuzk_engine_kind;
/*
 * A task kind: num_partitions 0, finish set, no circuit (no parameters,
 * synthesize or public_inputs; circuit_id only names it). Its job is its
 * finish alone (proofs of length 0), run once by a CPU worker in the
 * job's priority turn, in a synthesis slot: CPU work (a SnarkPack
 * aggregation) with the jobs' submit, idempotency, priority, cancellation,
 * deadline and counters. prepare checks its inputs at submit as for any
 * kind. A task cancelled or timed out while its finish runs stays so; its
 * result is dropped, and cuzk_job_stopped tells the finish to stop early.
 */


/* ---- provers: devices with workers -------------------------------------- */

/*
 * A parameter set as the engine's residency hands it to a prover. The
 * engine owns every set and PCE and decides their tiers (on disk, in host
 * memory, page-locked, its arrays' pages given back once the devices hold
 * them); a prover keeps device copies keyed by the handles here, never by
 * an address: a set loaded again (even at the same address) gets new ids,
 * and the engine evicts the old ones first.
 *  - id: the parameters' handle (cuzk/util/handle.h: unique in the
 *    process, never reused).
 *  - pce_id, pce: the set's PCE when one is resident (0, NULL otherwise);
 *    the same pce_id names the same PCE object until it is evicted.
 */
typedef struct cuzk_engine_set {
    uint64_t id;
    const char *name; /* the circuit id, for messages */
    const cuzk_groth16_params *params;
    uint64_t pce_id;
    const void *pce;
} cuzk_engine_set;

/* What a prove reports besides its proofs (the engine zeroes it first). */
typedef struct cuzk_engine_prove_report {
    bool timed;                          /* timing holds the last proof's phases */
    cuzk_groth16_prove_timing timing;
    /* a CUZK_ERR_NO_MEMORY that was the host's memory, not the device's: a
     * shortage of the device's (the default) makes the worker leave its
     * device's work to workers with room for a while; a failed host
     * allocation says nothing about the card */
    bool host_memory_short;
    char error[256];                     /* why it failed ("": nothing to add) */
} cuzk_engine_prove_report;

/* What evict drops (or gives up) of a set on one device. */
#define CUZK_EVICT_PARAMS 1u /* the device copies of the parameters (id) */
#define CUZK_EVICT_PCE 2u    /* the device copies of the PCE (pce_id) */
/* Not a drop: may the host's point arrays (h, l, a, b_g1, b_g2) go? CUZK_OK
 * when the device's copy stands in for them from now on (it never uploads
 * from them again), anything else when not (or not yet). */
#define CUZK_EVICT_HOST_ARRAYS 4u

/* A device as its prover describes it. */
typedef struct cuzk_engine_device_mem {
    uint64_t total, free_bytes; /* the driver's: the card's memory and what is free now */
    uint64_t budget, held;      /* this process's budget on the card and what it holds of it */
    char plan[400];             /* the last parameter set's device-memory plan, "" when none */
} cuzk_engine_device_mem;

/* How a HOT parameter array is page-locked (pin). */
typedef enum cuzk_engine_pin_how {
    CUZK_PIN_HOW_NONE = 0,   /* pageable */
    CUZK_PIN_HOW_DEVICE = 1, /* registered with the prover's device: direct DMA */
    CUZK_PIN_HOW_MLOCK = 2   /* kept in RAM (mlock), unknown to a device */
} cuzk_engine_pin_how;

/*
 * A prover has `devices` devices (GPUs, or CPU "devices"; used when the
 * configuration says 0) and the engine runs workers_per_device threads per
 * device (worker 0 .. workers-1 of a device). Only prove is required.
 *  - open: the device context, with its number of workers (so it can make
 *    one handle per worker, e.g. a CUDA stream); close ends it.
 *  - prove: n proofs (n > 1 only with batching), proof i from as[i] with
 *    randomisers r[i], s[i], all against set. Called concurrently by the
 *    device's workers, each with its own index; the set stays alive and
 *    unchanged while any prove with it runs. *rep (zeroed by the engine)
 *    gets the phases of the last proof on success, why on failure.
 *  - warm (may be NULL): make the set (and its PCE, when it has one)
 *    resident on the device now, as a first prove would; called once the
 *    parameters are loaded (a preload), outside the scheduler lock, while
 *    proves may run; a failure is logged and left to the first prove. msg
 *    says why on failure; on success, when set, it ends the log line.
 *  - evict (may be NULL): what (CUZK_EVICT_*) of the set on the device;
 *    never called for the parameters or PCE while a prove with them runs.
 *    Called with the scheduler lock held: no engine calls from it.
 *  - describe (may be NULL): the device's name (*name, stable while the
 *    device is open; called with the scheduler lock held) and, with mem
 *    not NULL, its memory now (the driver's, this process's budget, the
 *    last set's device-memory plan; called without the engine's lock).
 *    CUZK_ERR_NO_DEVICE where it has no memory to report.
 *  - pin (may be NULL): with undo NONE, page-lock len bytes at ptr, an
 *    array of a HOT set that the prover uploads again and again, its own
 *    way (registered with its device driver, so that uploads are direct
 *    DMA), returning how (msg, may be NULL, says why unless DEVICE); with
 *    undo the way it was pinned, unpin it (scheduler lock held: no engine
 *    calls). Without pin the engine mlocks the arrays.
 *  - defer_pce_eval: prove takes assignments whose a, b, c are left to it
 *    (CUZK_GROTH16_WITNESS_DEFERRED): a partition through a PCE then holds
 *    only its witness until it is proved, and the prover evaluates (the
 *    GPU prover on the device, from matrices kept there).
 *  - pack_witness (with defer_pce_eval): those witnesses come packed by
 *    value class (CUZK_GROTH16_WITNESS_PACKED, cuzk/ff/fr_packed.h), the full
 *    array freed once packed: a 32 GiB PoRep partition waits in 103 MB
 *    instead of 4.17 GB, and the GPU uploads that much.
 *  - snarkpack (may be NULL): fills *acc with hooks (cuzk/groth16/snarkpack.h)
 *    that run a SnarkPack aggregation's Miller loops and MSMs on the device,
 *    for a task kind's finish (cuzk_job_snarkpack_accel). Several finishes
 *    may aggregate at once, each on its CPU worker, beside the device's
 *    proves: the hooks take turns on the device themselves (a GPU stream
 *    serves one caller at a time) and give the CPU's values bit for bit.
 *    They stay valid while the device is open, which outlasts every finish
 *    (the engine joins its workers before it closes the devices). Called
 *    without the engine's lock: a first call may create device state (a
 *    stream) and block. Anything but CUZK_OK leaves the aggregation to the
 *    CPU.
 *  A prove error or an invalid proof counts against the device once the
 *  partition proves valid elsewhere; device_max_errors of those in a row,
 *  or CUZK_ERR_DEVICE once, mark it failed.
 */
typedef struct cuzk_engine_prover {
    const char *name;
    void *ctx;
    unsigned devices;
    bool defer_pce_eval, pack_witness;
    int (*open)(void *ctx, unsigned device, unsigned workers, void **dev);
    void (*close)(void *ctx, void *dev);
    int (*prove)(void *ctx, void *dev, unsigned worker, const cuzk_engine_set *set, size_t n,
                 const cuzk_groth16_assignment *as, const cuzk_fr *r, const cuzk_fr *s, cuzk_groth16_proof *out,
                 cuzk_engine_prove_report *rep);
    int (*warm)(void *ctx, void *dev, const cuzk_engine_set *set, char *msg, size_t msg_len);
    int (*evict)(void *ctx, void *dev, const cuzk_engine_set *set, unsigned what);
    int (*describe)(void *ctx, void *dev, const char **name, cuzk_engine_device_mem *mem);
    cuzk_engine_pin_how (*pin)(void *ctx, void *ptr, size_t len, cuzk_engine_pin_how undo, char *msg,
                               size_t msg_len);
    int (*snarkpack)(void *ctx, void *dev, cuzk_snarkpack_accel *acc);
} cuzk_engine_prover;


/* ---- pre-compiled circuits (PCE) --------------------------------------- */

typedef enum cuzk_pce_state {
    CUZK_PCE_NONE = 0,       /* no PCE backend, or not extracted yet */
    CUZK_PCE_EXTRACTING = 1, /* one background extraction running */
    CUZK_PCE_RESIDENT = 2,   /* fast path in use */
    CUZK_PCE_FAILED = 3      /* extraction failed; full synthesis from now on */
} cuzk_pce_state;

/*
 * PCE backend (the PCE layer fills it). load: a validated cache from disk
 * (CUZK_OK with *pce, or an error when absent or invalid). extract: build
 * the PCE of a circuit (runs on its own thread, once per circuit), given the
 * inputs of the job whose full synthesis triggered it (the circuit's shape
 * must not depend on them).
 * witness: witness-only synthesis plus the matrix-vector products for one
 * partition, on a system given `threads` (cuzk_cs_set_threads) (with CUZK_ENGINE_WITNESS_DEFER_EVAL in flags: the witness
 * alone, a, b, c left to the prover, cuzk_groth16_assignment_deferred);
 * CUZK_ERR_FORMAT means the PCE itself turned out invalid (a
 * checksum verified after load failed): the engine drops it, makes that
 * witness by full synthesis and extracts again. estimate_bytes (may be NULL) sizes the reservation made before
 * an extraction. free: a PCE the engine no longer uses (an idle PCE evicted
 * for memory, or at destroy); called with the scheduler lock held, so it
 * must not call the engine. An evicted PCE is extracted again (extract) by
 * the next full synthesis of its circuit.
 */
#define CUZK_ENGINE_WITNESS_DEFER_EVAL 1u /* the prover evaluates (defer_pce_eval) */
#define CUZK_ENGINE_WITNESS_PACK 2u       /* and the aux packed by value class (pack_witness) */

typedef struct cuzk_engine_pce {
    int (*load)(void *ctx, const cuzk_engine_kind *kind, void **pce, uint64_t *bytes);
    int (*extract)(void *ctx, const cuzk_engine_kind *kind, const void *inputs, size_t inputs_len,
                   void **pce, uint64_t *bytes);
    int (*witness)(void *ctx, void *pce, const cuzk_engine_kind *kind, const void *inputs,
                   size_t inputs_len, const void *prepared, uint32_t partition, unsigned flags,
                   unsigned threads, cuzk_engine_witness *out);
    uint64_t (*estimate_bytes)(void *ctx, const cuzk_engine_kind *kind);
    void (*free)(void *ctx, void *pce);
    void *ctx;
} cuzk_engine_pce;


/* ---- configuration ----------------------------------------------------- */

typedef enum cuzk_engine_stage {
    CUZK_STAGE_SYNTHESIS = 0,
    CUZK_STAGE_PROVE = 1,
    CUZK_STAGE_VERIFY = 2,
    CUZK_STAGE_TASK = 3 /* a task kind's finish (partition 0) */
} cuzk_engine_stage;

/* Page-locking of HOT parameter sets (the prover's host_pin, else mlock). */
typedef enum cuzk_engine_pin {
    CUZK_PIN_AUTO = 0, /* on (the prover uploads); cuzk_engine_create: off on the CPU prover it supplies */
    CUZK_PIN_ON = 1,
    CUZK_PIN_OFF = 2
} cuzk_engine_pin;

typedef struct cuzk_engine_config {
    /* CPU worker threads (synthesis and verification). 0: one per online
     * CPU, and at most min(CPUs, memory_budget / the largest per-partition
     * footprint of a registered kind) of them synthesize at once
     * (cuzk_engine_synthesis_workers_default); set: exactly that many. */
    unsigned synthesis_workers;
    /* Threads one partition's synthesis may use. 0: a share of the CPUs
     * taken when it starts, CPUs / partitions then synthesizing (itself
     * included), so the first partition of a burst gets every core and the
     * GPU its first witness sooner; set: exactly that many. */
    unsigned synthesis_threads;
    /* Added to the nice value of the CPU worker threads (synthesis and
     * verification, and the threads a synthesis starts), 0-19: when every
     * core is busy, the prover workers' own host work (a GPU worker's
     * uploads, a proof's finish) goes first and the GPU is not left
     * waiting on synthesis that has slack. 0: unchanged. */
    unsigned synthesis_nice;
    unsigned num_devices;        /* 0: the prover's devices */
    unsigned workers_per_device; /* 0: 2 */
    unsigned prover_threads;     /* host threads per prove call (cuzk_engine_prove_threads) */
    unsigned queue_depth;        /* partitions synthesized ahead of the provers, counted per
                                    priority and above; 0: at least 2 per prover worker, and
                                    as many as keep the provers fed (mean synthesis time over
                                    the interval between proofs, plus one per worker), learned
                                    as partitions complete; memory bounds it in any case */
    unsigned max_batch_size;     /* partitions per prove call; 0 or 1: no batching */
    unsigned max_batch_wait_ms;  /* how long a worker waits to fill a batch */
    uint64_t memory_budget;      /* bytes; 0: physical memory minus a margin */
    uint32_t default_timeout_ms; /* per job; 0: none */
    unsigned job_retention;      /* finished jobs kept for duplicate ids; 0: 4096 */
    const cuzk_engine_prover *prover; /* required, copied (cuzk_engine_create: NULL for the CPU prover) */
    const cuzk_engine_pce *pce;       /* NULL: always full synthesis */
    /* level 0 error, 1 warning, 2 info, 3 debug; NULL: errors and warnings to stderr */
    void (*log)(void *ctx, int level, const char *msg);
    void *log_ctx;
    /* Test hook: called by a worker before each stage of a partition. */
    void (*stage_hook)(void *ctx, cuzk_engine_stage stage, const char *request_id, uint32_t partition);
    void *hook_ctx;
    /* Failed devices: a device is marked failed after device_max_errors
     * prover errors or invalid proofs in a row (0: 3) whose partitions then
     * proved valid on another device (a bad input, failing everywhere,
     * blames none), or at once on CUZK_ERR_DEVICE (the GPU layer's
     * unusable device). Its workers stop,
     * its partitions are proved elsewhere, the status says why. A
     * fallback (copied; its open is not called: a prover without device
     * state) takes over when every device has failed, on as many workers
     * as a device has; without one the jobs then fail with
     * CUZK_ERR_NO_DEVICE. cpu_fallback: cuzk_engine_create makes the CPU
     * prover the fallback of a prover it was given. */
    unsigned device_max_errors;
    const cuzk_engine_prover *fallback;
    bool cpu_fallback;
    /* A set's host point arrays stay in RAM after every device holds them
     * (release_host_params); false: their pages go back to the kernel,
     * unless a fallback needs them. */
    bool keep_host_params;
    /* HOT parameters are page-locked (the prover's host_pin, else mlock) up to pinned_limit
     * bytes (0: the memory budget); sets over the limit stay pageable. */
    cuzk_engine_pin pin;
    uint64_t pinned_limit;
    /* Job events, for a journal of accepted jobs (may be NULL): state
     * CUZK_JOB_QUEUED when a job is accepted (a new job, or a new attempt
     * under the id of a failed one; not a duplicate), then its final state
     * when it finishes. Called with the scheduler lock held, in the order
     * the events happen: no engine calls, nothing slow (no fsync). */
    void (*job_event)(void *ctx, const char *request_id, cuzk_job_state state);
    void *job_event_ctx;
} cuzk_engine_config;

/*
 * Memory this process may use: physical RAM, lowered to its cgroup's limit
 * (the smallest cgroup v2 memory.max from its cgroup up, else the v1
 * memory.limit_in_bytes) where it has one: the OOM killer acts on that.
 * root prefixes every path read ("" or NULL: the real files; tests point it
 * at a fake tree). from (may be NULL) says which it is. 0: unknown.
 */
uint64_t cuzk_engine_memory_limit(const char *root, char *from, size_t from_len);
/* The default budget under limit: limit less headroom for the OS and the page
 * cache, max(margin, limit / 10); half of it when that leaves less. */
uint64_t cuzk_engine_memory_budget_default(uint64_t limit, uint64_t margin);
/* Anonymous resident memory of this process (RssAnon), bytes; 0: unknown. */
uint64_t cuzk_engine_rss_anon(void);

/* The default number of concurrent syntheses: min(cores, budget /
 * footprint) and at least 1 (footprint 0, not known yet: cores). */
unsigned cuzk_engine_synthesis_workers_default(unsigned cores, uint64_t budget, uint64_t footprint);

/* Host threads for each prove call of a prover with `devices` devices under
 * cfg: prover_threads, else the CPUs shared among its devices ×
 * workers_per_device workers; at least 1 (what the CPU prover is given). */
unsigned cuzk_engine_prove_threads(const cuzk_engine_config *cfg, unsigned devices);

/* Opens cfg->prover's devices and starts the workers (CUZK_ERR_INVALID_ARG
 * without a prover). cuzk_engine_create (cuzk/kinds/kinds.h) is this with the CPU
 * prover supplied. */
int cuzk_engine_start(cuzk_engine **out, const cuzk_engine_config *cfg);
/* Cancels every job, joins the workers and frees everything. Job handles
 * must have been released before. NULL-safe. */
void cuzk_engine_destroy(cuzk_engine *e);

/* The memory a partition of kind holds once synthesized in full, as the
 * engine reserves it: synthesizes that partition of inputs now (prepared as
 * for kind->synthesize). For a kind whose partitions all have one shape, to
 * set witness_bytes before registering it. */
int cuzk_engine_kind_witness_bytes(const cuzk_engine_kind *kind, const void *inputs, size_t inputs_len,
                                   const void *prepared, uint32_t partition, uint64_t *bytes);

/* Registers a kind (CUZK_ERR_INVALID_ARG for a duplicate name, missing
 * functions, a vk_path without params_path or vk_is_ceremony without
 * vk_path, or a circuit id already bound to other parameters or another
 * .vk; CUZK_ERR_IO
 * when the parameter file cannot be read). With a PCE
 * backend, a cache on disk is loaded now. */
int cuzk_engine_register_kind(cuzk_engine *e, const cuzk_engine_kind *kind);


/* ---- jobs -------------------------------------------------------------- */

typedef struct cuzk_job_request {
    const char *request_id; /* non-empty; idempotency key */
    const char *kind;
    const void *inputs;
    size_t inputs_len;
    cuzk_priority priority; /* CUZK_PRIORITY_DEFAULT: the kind's */
    uint32_t timeout_ms;    /* 0: the engine default */
    char *error;            /* optional: why a submit was refused */
    size_t error_len;
    const char *origin;     /* optional: who submitted, for the log line ("ipv4:10.0.0.2:5000") */
    /* A cluster spreads one request's partitions over hosts: with
     * one_partition the job proves and verifies only partition `partition`
     * of the kind (< its num_partitions), its proof is that partition's 192
     * bytes, and the same id submitted again must name the same partition.
     * Such a job keeps no inputs once it finished (a cluster makes one per
     * partition): its id submitted again is then refused. */
    bool one_partition;
    uint32_t partition;
} cuzk_job_request;

/*
 * Submits a job, or finds the job already submitted under request_id (then
 * *duplicate = true; the kind and inputs must be the same, otherwise
 * CUZK_ERR_INVALID_ARG). An id whose job failed, was cancelled or timed out
 * starts a new job, with any inputs (a retry; *duplicate = false). *out is a new reference: cuzk_job_release it. duplicate may be NULL.
 * The job's "submitted" line is logged (info) before any worker can see the
 * job, so that its later lines (failed at once, say) never come first.
 */
int cuzk_engine_submit(cuzk_engine *e, const cuzk_job_request *req, cuzk_job **out, bool *duplicate);
/* What cuzk_engine_submit checks of a request (its kind, check_inputs,
 * prepare), with the same result and message, without queuing a job: for a
 * daemon that stores the request for other hosts to prove. */
int cuzk_engine_check_request(cuzk_engine *e, const cuzk_job_request *req);
/* A registered kind's partitions and default priority; CUZK_ERR_INVALID_ARG
 * for an unknown kind. Either output may be NULL. */
int cuzk_engine_kind_info(cuzk_engine *e, const char *kind, uint32_t *num_partitions, cuzk_priority *priority);
/* Whether a registered kind's parameters and one partition fit in the
 * memory budget at all (a job of it that does not fit fails with
 * CUZK_ERR_NO_MEMORY instead of waiting): for a cluster host choosing what
 * to claim. CUZK_ERR_INVALID_ARG for an unknown kind. */
int cuzk_engine_kind_fits(cuzk_engine *e, const char *kind, bool *fits);
/* The job known under request_id (a new reference), or NULL. */
cuzk_job *cuzk_engine_find(cuzk_engine *e, const char *request_id);
void cuzk_job_release(cuzk_job *job); /* NULL-safe */

/*
 * Waits until the job is finished or timeout_ms passes (< 0: forever).
 * Returns the job's result: CUZK_OK (proof available), its error
 * (CUZK_ERR_CANCELLED, CUZK_ERR_TIMEOUT, CUZK_ERR_VERIFY_FAILED, a prover or
 * synthesis error, ...), or CUZK_ERR_NOT_READY when the wait ran out first.
 */
int cuzk_job_await(cuzk_job *job, int64_t timeout_ms);

/* Cancels a job that has not finished (CUZK_ERR_INVALID_ARG otherwise).
 * Queued partitions are dropped now; running ones at their next stage
 * boundary. Waiters wake at once with CUZK_ERR_CANCELLED. */
int cuzk_job_cancel(cuzk_job *job);
/* The same, the job's message "cancelled: <why>" (who or what cancelled it;
 * the job's last log line says it). why NULL: as cuzk_job_cancel. */
int cuzk_job_cancel_why(cuzk_job *job, const char *why);
/* Whether the job has ended (cancelled, timed out, failed, the engine shut
 * down): what a kind's finish, running without the engine's lock, polls
 * between its steps to stop early. Lock-free; any thread. */
bool cuzk_job_stopped(const cuzk_job *job);
/* For a kind's finish that aggregates with SnarkPack: *acc filled with the
 * hooks of the first of the engine's devices that is open, not failed, and
 * whose prover's snarkpack hook succeeds; they stay valid until the engine
 * is destroyed (its devices close after its workers, which run the
 * finishes, have stopped). CUZK_ERR_NO_DEVICE (*acc zeroed) when no device
 * offers them (the CPU prover, every device failed): the aggregation runs
 * on the CPU. Takes the engine's lock briefly; call it without. */
int cuzk_job_snarkpack_accel(cuzk_job *job, cuzk_snarkpack_accel *acc);
/* A line in the engine's log about job ("job ID: " and the message; level as
 * cuzk_engine_config's log): what a kind's finish did that the operator
 * should see, e.g. an aggregation that failed on a device and ran again on
 * the CPU. */
void cuzk_job_logf(cuzk_job *job, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

typedef struct cuzk_job_info {
    cuzk_job_state state;
    int error;          /* CUZK_OK unless FAILED, CANCELLED, TIMED_OUT */
    const char *message; /* why it failed, whole ("" when nothing failed); valid while the job is held */
    cuzk_priority priority;
    uint32_t num_partitions, partitions_done, partitions_reproved;
    uint64_t finish_seq; /* order in which jobs finished (1, 2, ...); 0 while running */
    /* seconds: wall time from submit to the first partition started, the
     * SRS load this job waited for, worker time summed over partitions for
     * synthesis, prove and verify, and wall time from submit to finish */
    double queue_wait_s, srs_load_s, synthesis_s, prove_s, verify_s, total_s;
} cuzk_job_info;
void cuzk_job_get_info(cuzk_job *job, cuzk_job_info *out);
const char *cuzk_job_request_id(const cuzk_job *job);

/* The proof of a DONE job: num_partitions · 192 bytes (or what the kind's
 * finish made of them), valid while the handle is held.
 * CUZK_ERR_INVALID_ARG when the job is not DONE. */
int cuzk_job_proof(cuzk_job *job, const uint8_t **proof, size_t *len);

/* Waits until no job is running and no work is in flight (tests, drain). */
int cuzk_engine_wait_idle(cuzk_engine *e, int64_t timeout_ms);

/*
 * The first half of cuzk_engine_destroy, returning at once: every unfinished
 * job is cancelled with the message "cancelled: <why>" (why NULL: "engine
 * shut down"), no new work starts (workers finish the task in hand and exit;
 * no new parameter load, PCE extraction or preload; submits are refused).
 * A load or extraction already running is not interrupted:
 * cuzk_engine_wait_idle says when it is over, cuzk_engine_destroy waits for it.
 */
void cuzk_engine_shutdown(cuzk_engine *e, const char *why);

/* ---- SRS management ---------------------------------------------------- */

typedef enum cuzk_srs_state {
    CUZK_SRS_COLD = 0,    /* on disk (or in the registrant's memory) only */
    CUZK_SRS_WARM = 1,    /* decoded before from its file, evicted (page cache at most) */
    CUZK_SRS_LOADING = 2,
    CUZK_SRS_HOT = 3      /* decoded in host memory, ready to prove */
} cuzk_srs_state;

/* Loads a circuit's parameters now (evicting idle ones if the budget needs
 * it; waits for memory held by running work). CUZK_ERR_NO_MEMORY if they
 * cannot fit in the budget at all. */
int cuzk_engine_srs_preload(cuzk_engine *e, const char *circuit_id);
/* Drops a circuit's parameters to cold now, or as soon as no job uses them. */
int cuzk_engine_srs_evict(cuzk_engine *e, const char *circuit_id);
int cuzk_engine_srs_state(cuzk_engine *e, const char *circuit_id, cuzk_srs_state *state);
/*
 * Whether a circuit's parameters failed to load (a truncated or unreadable
 * file, a .vk that is not the .params' key; running out of memory or a
 * cancellation does not count): *msg is the reason, whole and malloc'd
 * (free it), and *when (may be NULL) the Unix time of the failure; *msg
 * NULL when they did not. While failed, jobs needing the parameters fail
 * at once with that reason; a successful load (cuzk_engine_srs_preload
 * retries) or a change of the .params or its .vk (size, mtime or inode)
 * ends it.
 */
int cuzk_engine_srs_failure(cuzk_engine *e, const char *circuit_id, char **msg, int64_t *when);
int cuzk_engine_pce_state(cuzk_engine *e, const char *circuit_id, cuzk_pce_state *state);

/* Whose keys a circuit's parameters carry, as their last successful load
 * found them (see cuzk_engine_kind's vk_path and vk_is_ceremony); a load
 * that fails on the files makes them unchecked again. */
typedef enum cuzk_engine_keys {
    CUZK_KEYS_UNCHECKED = 0,    /* not loaded since the engine started */
    CUZK_KEYS_CEREMONY = 1,     /* the .vk is the ceremony's, and the .params holds its key */
    CUZK_KEYS_NOT_CEREMONY = 2, /* a .vk that is not: its proofs are rejected by the ceremony's verifiers */
    CUZK_KEYS_NO_VK = 3,        /* no .vk (none beside the .params, or parameters from memory) */
    CUZK_KEYS_VK = 4            /* the .params holds the .vk's key; the kind does not judge whose */
} cuzk_engine_keys;
/* "unchecked", "ceremony", "not-ceremony", "no-vk", "vk". */
const char *cuzk_engine_keys_name(cuzk_engine_keys k);
/* The circuit's keys and (note, may be NULL) a malloc'd sentence saying
 * what the load found: the .vk's path and what was compared (free it; NULL
 * when there is nothing to say). CUZK_ERR_INVALID_ARG: unknown circuit. */
int cuzk_engine_srs_keys(cuzk_engine *e, const char *circuit_id, cuzk_engine_keys *keys, char **note);

/* ---- metrics and status ------------------------------------------------ */

/* Phases of a proof as the provers that report them (last_timing) measure
 * them: the witness upload, a, b, c from the PCE, H (the NTTs), the five
 * MSMs together and each one (the CPU prover runs them as one task list:
 * its single ones stay 0), waiting for the device (another worker's kernel
 * region), and host: the rest of the call (host copies and gathers, the
 * final combination). Inside the MSMs, for points streamed from the host
 * (the GPU's device-memory plan): the copy engine's time for them, and the
 * part of it the MSMs waited for; the rest of the copy hid under kernels. */
enum {
    CUZK_PHASE_UPLOAD, CUZK_PHASE_EVAL, CUZK_PHASE_NTT, CUZK_PHASE_MSM, CUZK_PHASE_MSM_H, CUZK_PHASE_MSM_L,
    CUZK_PHASE_MSM_A, CUZK_PHASE_MSM_B_G1, CUZK_PHASE_MSM_B_G2, CUZK_PHASE_WAIT, CUZK_PHASE_HOST,
    CUZK_PHASE_STREAM_COPY, CUZK_PHASE_STREAM_WAIT, CUZK_PHASES
};
/* Histogram buckets of a phase (seconds, upper bounds; the last is +Inf). */
#define CUZK_PHASE_BUCKETS 12
extern const double cuzk_engine_phase_le[CUZK_PHASE_BUCKETS - 1];
/* "upload", "eval", "ntt", "msm_h", ... (NULL out of range). */
const char *cuzk_engine_phase_name(unsigned phase);

typedef struct cuzk_engine_counters {
    uint64_t jobs_submitted, jobs_duplicate, jobs_done, jobs_failed, jobs_cancelled, jobs_timed_out;
    uint64_t partitions_synthesized, partitions_proved, partitions_verified;
    uint64_t partitions_invalid, partitions_reproved;
    uint64_t synthesis_errors, prover_errors;
    uint64_t prover_out_of_memory; /* prover errors that were the device's memory running out */
    uint64_t pce_fast_path, pce_extractions, pce_failures;
    uint64_t srs_hits, srs_loads, srs_evictions;
    uint64_t srs_host_released; /* sets whose host arrays went once every device held them */
    uint64_t batches, batched_partitions;
    uint64_t memory_waits; /* times work was held back by the budget */
    double synthesis_busy_s, prove_busy_s, verify_busy_s, srs_load_busy_s;
    uint64_t memory_budget, memory_reserved, memory_peak;
    unsigned jobs_active, queued_synthesis, queued_prove, queued_verify;
    uint64_t pce_evictions;  /* idle PCEs freed for memory */
    uint64_t devices_failed; /* devices marked failed */
    unsigned devices_healthy;
    unsigned synthesis_limit; /* syntheses at once (see synthesis_workers) */
    /* page-locked HOT parameter bytes, their limit and peak; parameter sets
     * left pageable because they were over the limit */
    uint64_t memory_pinned, memory_pinned_limit, memory_pinned_peak, pin_over_limit;
    uint64_t pce_resident_bytes;
    uint64_t memory_rss_anon; /* the process's anonymous resident memory, read now */
    /* per phase: proofs timed, seconds summed, proofs per bucket (not
     * cumulative; bucket i holds le[i-1] < t <= le[i]) */
    uint64_t phase_count;
    double phase_sum_s[CUZK_PHASES];
    uint64_t phase_hist[CUZK_PHASES][CUZK_PHASE_BUCKETS];
} cuzk_engine_counters;
void cuzk_engine_get_counters(cuzk_engine *e, cuzk_engine_counters *out);

/* Prover devices of the engine, and a description of device d (the
 * backend's device_name, or its name). */
unsigned cuzk_engine_num_devices(cuzk_engine *e);
const char *cuzk_engine_device_name(cuzk_engine *e, unsigned d);
/* Whether device d was marked failed; reason (may be NULL) gets why. */
bool cuzk_engine_device_failed(cuzk_engine *e, unsigned d, char *reason, size_t reason_len);
/* Device d's memory now (the backend's device_memory): CUZK_OK with *out
 * filled, or CUZK_ERR_NO_DEVICE (*out zeroed) where the backend has none to
 * report (the CPU prover). */
int cuzk_engine_device_memory(cuzk_engine *e, unsigned d, cuzk_engine_device_mem *out);

/* A prover worker now: its device (cuzk_engine_num_devices(): the CPU
 * fallback) and index there, what it does ("idle", "prove", "standby",
 * "failed", "stopped"), and while it proves, the job's request id and kind. */
typedef struct cuzk_engine_prover_worker {
    unsigned device, slot;
    char doing[16];
    char job_id[260]; /* "" when not proving; longer ids are cut */
    char kind[64];
} cuzk_engine_prover_worker;
/* Fills out with up to max prover workers (devices' in order, then the
 * fallback's); returns how many. */
size_t cuzk_engine_prover_workers(cuzk_engine *e, cuzk_engine_prover_worker *out, size_t max);

/* A JSON snapshot (config, counters, queues, workers, devices, SRS and PCE
 * residency, memory, active jobs); malloc'd, free() it. NULL on no memory. */
char *cuzk_engine_status_json(cuzk_engine *e);

const char *cuzk_job_state_name(cuzk_job_state s);
const char *cuzk_priority_name(cuzk_priority p);

#ifdef __cplusplus
}
#endif
#endif

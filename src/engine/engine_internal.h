/*
 * The engine core's internals, shared by its files, lowest first (each
 * calls only those before it): memlimit.c (what the machine allows),
 * base.c (log line, strings), residency.c (memory budget, SRS and PCE
 * residency, the synthesis limit), kinds.c (registry, full synthesis, the
 * CPU prover), jobs.c (the job table and API), devices.c (prover devices'
 * health), schedule.c (which work runs next), workers.c (the threads'
 * loops), engine.c (lifecycle, deadlines, counters) and status.c (JSON
 * snapshot). None knows Filecoin, the GPU or a PCE's format: those
 * come through the tables of cuzk/engine/engine.h (cuzk/kinds/kinds.h fills them).
 *
 * One scheduler lock, e->mu, guards every field below unless a comment says
 * otherwise. It is never held across synthesis, proving, verification, SRS
 * decoding or pinning, PCE hooks other than free, or the stage hook; it is
 * held across the log callback, the prover's evict and describe (its name),
 * the PCE hook's free, and unpinning (none may call the engine).
 */
#ifndef CUZK_ENGINE_INTERNAL_H
#define CUZK_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "cuzk/engine/engine.h"
#include "cuzk/util/strf.h"

/* ---- SRS and PCE residency, one entry per circuit id ------------------- */

typedef struct srs_entry {
    char *circuit_id;
    char *path;                       /* file source, or NULL */
    cuzk_groth16_read_mode mode;
    const cuzk_groth16_params *src;   /* memory source, or NULL */
    char *vk_path;                    /* the .vk beside path, or NULL (cuzk_engine_kind's vk_path) */
    bool (*vk_is_ceremony)(void *ctx, const uint8_t *vk, size_t len, char *note, size_t note_len);
    void *vk_ctx;                     /* the registering kind's ctx, for vk_is_ceremony */
    cuzk_srs_state state;
    /* Written only by the thread that set LOADING (outside the lock); read
     * by provers and verifiers of jobs holding a reference (state HOT). */
    cuzk_groth16_params params;
    cuzk_groth16_pvk pvk;
    uint64_t set_id;                  /* HOT: the parameters' handle for the prover (set_handle) */
    uint64_t est_bytes;               /* reservation made before a load */
    uint64_t bytes;                   /* reserved while LOADING or HOT */
    unsigned refs;                    /* running jobs (and a preload) using it */
    uint64_t last_used;               /* LRU tick */
    bool evict_pending;
    uint64_t loads, hits;
    double load_s;
    /* The last load failed (not for memory, not cancelled): why, whole, and
     * when (Unix seconds). Jobs then fail at once with it instead of reading
     * a bad file again, until a load succeeds (a preload retries) or the
     * .params or its .vk changes (fail_id: their device, inode, size and
     * mtime). */
    char *fail_msg;
    int64_t fail_time;
    uint64_t fail_id[8]; /* the .params' then the .vk's (zeros: none) */
    /* Whose keys the last successful load found, and what it compared
     * (malloc'd, or NULL); unchecked again after a load that failed on the
     * files. The loading thread writes load_keys and load_keys_note;
     * srs_load_done makes them keys and keys_note under the lock, where
     * the status reads them. */
    cuzk_engine_keys keys, load_keys;
    char *keys_note, *load_keys_note;
    bool no_vk_said; /* "no .vk" is logged once */
    /* HOT only: how the parameter arrays are page-locked (pin_how) and the
     * bytes counted against the pinned limit; set by the loading thread
     * (outside the lock, after reserving pinned bytes under it). */
    cuzk_engine_pin_how pin_how;         /* DEVICE when every array is; MLOCK when some are only mlocked */
    cuzk_engine_pin_how pin_arr[5];      /* h, l, a, b_g1, b_g2 */
    uint64_t pinned_bytes;
    /* HOT only: the devices' copies stand in for the point arrays, whose
     * pages went back to the kernel (srs_release_host) */
    bool host_released;
    /* PCE */
    cuzk_pce_state pce_state;
    void *pce;
    uint64_t pce_id;                  /* RESIDENT: the PCE's handle for the prover */
    uint64_t pce_bytes;
    unsigned pce_refs;                /* fast-path syntheses and their witnesses using pce */
    uint64_t pce_last_used;           /* LRU tick, shared with the SRS entries */
    uint64_t pce_last_bytes;          /* size before an eviction: the next reservation */
    uint64_t pce_evictions;
    const cuzk_engine_kind *pce_kind; /* the kind used to extract */
    pthread_t pce_thread;
    bool pce_thread_live;
    void **pce_retired; /* PCEs found invalid after load: synthesis tasks may still hold them, freed at the end */
    size_t n_pce_retired;
} srs_entry;

typedef struct kind_entry {
    cuzk_engine_kind k; /* strings owned */
    srs_entry *srs;
    uint64_t witness_bytes; /* from the kind, or the largest seen */
    bool probing;           /* a partition of unknown size is being synthesized */
} kind_entry;

/* ---- jobs ------------------------------------------------------------- */

typedef enum part_state {
    P_PENDING = 0, /* waits for synthesis */
    P_SYNTH,       /* a CPU worker synthesizes it (maybe loading the SRS first) */
    P_READY,       /* synthesized, in the prove queue */
    P_PROVING,     /* a prover worker has it */
    P_PROVED,      /* in the verify queue */
    P_VERIFYING,   /* a CPU worker verifies it */
    P_DONE,
    P_DROPPED      /* its job finished otherwise */
} part_state;

typedef struct part {
    uint32_t index;
    part_state state;
    unsigned attempts;                /* prove attempts */
    bool inflight;                    /* between synthesis and done/dropped */
    int last_device, last_worker;     /* who proved it last (global worker id) */
    int avoid_device, avoid_worker;   /* a re-prove goes elsewhere; -1 none */
    int blame_device;                 /* where its last attempt failed; -1 none */
    cuzk_engine_witness wit;
    uint64_t wit_reserved;
    /* the entry whose PCE made wit (fast path): the witness is a view into
     * the PCE, so its reference is held until the witness is released */
    struct srs_entry *pce_src;
    uint64_t pce_id;                  /* that PCE's handle */
    cuzk_groth16_proof proof;
} part;

struct cuzk_job {
    atomic_uint refs;
    cuzk_engine *e;
    uint64_t seq;
    char *request_id;
    kind_entry *kind;
    uint8_t *inputs;
    size_t inputs_len;
    void *prepared; /* the kind's parsed inputs (kind->prepare), or NULL */
    cuzk_priority priority;
    cuzk_job_state state;
    atomic_bool stopped; /* state is final: read without the lock by a running finish */
    int error;
    char *message;     /* why it failed (malloc'd, set once when it finishes), or NULL */
    uint32_t nparts, done, reproved;
    bool one_partition; /* parts[0] is partition parts[0].index of the kind (a cluster's share) */
    bool inputs_dropped; /* a retired one-partition job: inputs freed (the same id again is refused) */
    part *parts;
    unsigned busy;     /* partitions a thread is working on */
    bool srs_held, retired;
    double t_submit, t_start, t_end, deadline; /* monotonic seconds; deadline 0: none */
    double srs_load_s, synth_s, prove_s, verify_s;
    uint64_t finish_seq;
    uint8_t *proof;    /* DONE: nparts * 192 bytes, or what the kind's finish made of them */
    size_t proof_len;
    struct cuzk_job *hnext; /* hash chain */
};

/* ---- workers and the engine ------------------------------------------- */

typedef enum worker_kind { W_CPU = 0, W_PROVE = 1 } worker_kind;

/* A prover device's health. Index n_devices is the CPU fallback (when
 * configured), which takes work only while every device is failed and is
 * never marked failed itself. */
typedef struct device_state {
    bool failed;
    char reason[224];
    unsigned strikes;             /* failures in a row proved to be the device's */
    uint64_t errors, invalid, proved; /* prove calls failed, proofs invalid, proofs valid */
    char last_err[160];           /* the last failure's description */
} device_state;

typedef struct worker {
    cuzk_engine *e;
    worker_kind kind;
    int id;              /* global index among workers of its kind */
    int device, slot;    /* prover workers: device (n_devices: the CPU fallback) and index on it */
    pthread_t thread;
    const char *doing;   /* "idle", "synthesis", "srs-load", "prove", "verify" */
    uint64_t job_seq;
    struct cuzk_job *job; /* prover workers: the job being proved, while doing is "prove" */
    uint32_t partition;
    double busy_s;
    uint64_t tasks;
    bool mem_short;      /* prover workers: the last call ran out of device memory */
    double mem_retry_at; /* then: when it may try again beside a worker that has room */
} worker;

struct cuzk_engine {
    pthread_mutex_t mu;
    pthread_cond_t cpu_cv;   /* CPU workers: synthesis or verify work, memory */
    pthread_cond_t prove_cv; /* prover workers: prove queue */
    pthread_cond_t done_cv;  /* awaiters, idle waiters, preloads, SRS loads */
    pthread_cond_t timer_cv; /* the deadline thread */
    bool shutdown;

    /* configuration (read-only after create) */
    cuzk_engine_config cfg;
    cuzk_engine_prover prover;
    cuzk_engine_pce pce;
    bool have_pce;
    unsigned ncpu, n_cpu_workers, n_devices, per_device, n_prove_workers;
    unsigned queue_depth, batch_max, batch_wait_ms, retention;
    /* running means (EWMA) of a partition's synthesis and of a prove call
     * per partition, for the default depth (queue_limit in schedule.c) */
    double synth_mean_s, prove_mean_s;
    void **devs;                 /* n_devices + 1: the fallback's is NULL */
    cuzk_engine_prover fallback; /* cfg.fallback, behind failed devices */
    unsigned n_fb_workers;       /* its workers (0: no fallback) */
    unsigned max_strikes;        /* errors in a row that fail a device */
    unsigned n_healthy;          /* devices not failed */
    device_state *dstate;        /* n_devices + 1 */
    bool synth_fixed;            /* synthesis_workers configured */
    unsigned synth_limit;        /* syntheses at once (<= n_cpu_workers) */

    kind_entry **kinds;
    size_t nkinds, kinds_cap;
    srs_entry **srs;
    size_t nsrs, srs_cap;

    /* jobs: active (sorted by priority desc, seq asc), by id, finished FIFO */
    cuzk_job **active;
    size_t nactive, active_cap;
    cuzk_job **buckets;
    size_t nbuckets, njobs;
    cuzk_job **finished;
    size_t fin_head, fin_len, fin_cap;
    uint64_t next_seq, next_finish, lru_tick;
    unsigned n_synth, n_ready, n_proved; /* partitions in P_SYNTH, P_READY, P_PROVED */
    unsigned n_inflight;                 /* partitions holding a witness reservation */

    /* memory budget; pinned: bytes of HOT SRS page-locked, within pin_limit */
    uint64_t budget, reserved, peak;
    uint64_t pin_limit, pinned, pinned_peak;
    bool pin_off;
    cuzk_engine_pin_how pin_last;   /* how the last pin went (status) */
    char pin_note[160];          /* why pinning fell back or failed (status) */

    cuzk_engine_counters c;
    worker *workers; /* n_cpu_workers CPU workers, then the prover workers */
    pthread_t timer;
    bool timer_live;
};

/* logging (base.c); time is cuzk_now (cuzk/util/clock.h), strings cuzk_strf (cuzk/util/strf.h) */
void eng_log(cuzk_engine *e, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void eng_wake_all(cuzk_engine *e);

/* Waits on cv until woken or the monotonic time t (t <= 0: no limit); base.c */
void eng_cv_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, double t);

/* the job table (jobs.c); every call under e->mu */
static inline bool job_final(const cuzk_job *j) { return j->state >= CUZK_JOB_DONE; }
/* Frees what partition p holds (its witness, its reservation, its PCE view). */
void part_release(cuzk_engine *e, part *p);
/* part_release, and the partition is P_DROPPED. */
void part_drop(cuzk_engine *e, part *p);
/* A finished job leaves the active list once no thread works on it. */
void job_maybe_retire(cuzk_engine *e, cuzk_job *j);
/* Finishes j (once): its state, error and message (fmt, or none), its
 * queued partitions dropped, the counters, its log line, the retention ring. */
void job_finish(cuzk_engine *e, cuzk_job *j, cuzk_job_state st, int err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Every partition verified: the proofs concatenated, or what the kind's
 * finish makes of them, run with e->mu released (the job held busy so that
 * it is not retired meanwhile); then DONE. Called and returns with e->mu held. */
void job_complete(cuzk_engine *e, cuzk_job *j);
/* Every job's references dropped (destroy, no thread left). */
void jobs_free_all(cuzk_engine *e);

/* scheduling (schedule.c); under e->mu */
typedef enum task_kind { T_NONE = 0, T_SYNTH, T_VERIFY, T_TASK /* a task kind's job: its finish */ } task_kind;
typedef struct task {
    task_kind kind;
    cuzk_job *job;
    part *p;
    bool load_srs;    /* load the SRS before synthesizing */
    void *pce;        /* PCE fast path, or NULL */
    bool probe;       /* witness size unknown: learn it */
    unsigned threads; /* the synthesis's share of the CPUs */
} task;
/* The next CPU task (T_NONE: none now); its partition and job are marked taken. */
task pick_cpu(cuzk_engine *e);
/* Claims up to cap ready partitions of one SRS (*srs: NULL, or the batch's) for prover w,
 * after the n already in ps / js; returns the new count. */
size_t claim_ready(cuzk_engine *e, worker *w, part **ps, cuzk_job **js, size_t n, size_t cap, srs_entry **srs);
/* A prover worker short of device memory stands by until *until (true) while others of its device have room. */
#define MEM_RETRY_S 30.0
bool mem_wait(const cuzk_engine *e, const worker *w, double *until);
/* Partitions synthesizing or waiting for a prover, at most. */
unsigned queue_limit(const cuzk_engine *e);

/* prover devices' health (devices.c); under e->mu */
bool prover_available(const cuzk_engine *e);
void job_fail_no_prover(cuzk_engine *e, cuzk_job *j);
bool worker_usable(const cuzk_engine *e, const worker *w);
bool prove_eligible(cuzk_engine *e, const worker *w, const part *p);
bool reprove_allowed(const cuzk_engine *e, const part *p);
/* A failed prove call or an invalid proof (CUZK_ERR_VERIFY_FAILED) on device d. */
void device_failure(cuzk_engine *e, int d, int err, const char *detail);
/* A partition that failed on device d proved valid elsewhere: a strike against d. */
void device_strike(cuzk_engine *e, int d);
void part_requeue(cuzk_engine *e, cuzk_job *j, part *p);

/* the threads' loops (workers.c), started by cuzk_engine_start with their worker */
void *cpu_worker_main(void *arg);
void *prove_worker_main(void *arg);

/* memory budget (residency.c) */
bool mem_try(cuzk_engine *e, uint64_t bytes);     /* evicts idle SRS and PCEs if needed */
void mem_force(cuzk_engine *e, int64_t delta);    /* adjust to actual sizes */
void mem_release(cuzk_engine *e, uint64_t bytes);

/* SRS (residency.c) */
srs_entry *srs_find(cuzk_engine *e, const char *circuit_id);
/* The entry of kind->circuit_id, made from the kind's parameter source
 * (file and .vk, or memory) if new; an existing one must have the same. */
srs_entry *srs_get_or_add(cuzk_engine *e, const cuzk_engine_kind *kind, int *err);
/* no lock; s LOADING. On failure *msg is the reason, malloc'd (free it), or NULL. */
int srs_load(cuzk_engine *e, srs_entry *s, char **msg);
/* Under the lock; msg: srs_load's reason (kept as the entry's failure). */
void srs_load_done(cuzk_engine *e, srs_entry *s, int err, double secs, const char *msg);
/* Under the lock: true when s failed to load and its file is unchanged
 * since (a changed file clears the failure: the next job tries it). */
bool srs_failed(srs_entry *s);
void srs_unref(cuzk_engine *e, srs_entry *s);
void srs_release_host(cuzk_engine *e, srs_entry *s); /* every device holds it: the host's points go */
void srs_drop(cuzk_engine *e, srs_entry *s, bool to_cold); /* HOT -> WARM/COLD */
/* s's handle for the prover, with the PCE pce (handle pce_id) when not NULL */
void srs_handle(const srs_entry *s, const void *pce, uint64_t pce_id, cuzk_engine_set *out);
void srs_free_all(cuzk_engine *e);
uint64_t params_bytes(const cuzk_groth16_params *p);
void srs_pin(cuzk_engine *e, srs_entry *s);   /* no lock; s LOADING, params decoded */

/* PCE manager (residency.c) */
void pce_load_cached(cuzk_engine *e, kind_entry *k); /* no lock */
void pce_maybe_extract(cuzk_engine *e, kind_entry *k, const void *inputs, size_t inputs_len);
/* The resident PCE pce turned out invalid (its witness hook said CUZK_ERR_FORMAT): back to
 * CUZK_PCE_NONE so the next full synthesis extracts again. Under the lock. */
void pce_drop_invalid(cuzk_engine *e, srs_entry *s, void *pce);
void pce_join_all(cuzk_engine *e); /* no lock */
void pce_unref(cuzk_engine *e, srs_entry *s); /* a fast-path witness was released */
void pce_drop(cuzk_engine *e, srs_entry *s);  /* RESIDENT and idle -> NONE */

/* synthesis limit (residency.c): recomputed when kinds or sizes change */
void synth_limit_update(cuzk_engine *e);

/* registry (kinds.c) */
kind_entry *kind_find(cuzk_engine *e, const char *name);
void kinds_free_all(cuzk_engine *e);
int witness_full(const kind_entry *k, const void *inputs, size_t len, const void *prepared, uint32_t partition,
                 unsigned threads, cuzk_engine_witness *out);
uint64_t witness_bytes(const cuzk_engine_witness *w);

/* status (status.c) */
const char *srs_state_name(cuzk_srs_state s);
const char *pce_state_name(cuzk_pce_state s);

#endif

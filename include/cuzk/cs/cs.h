/*
 * R1CS constraint systems: one synthesis interface, five implementations.
 *
 * Circuits are written once against cuzk_cs and run on any constraint system:
 *   WitnessCS          values only, enforce is a no-op (fast witness path)
 *   RecordingCS        the A, B, C matrices as CSR rows (no values)
 *   ProvingAssignment  assignments, per-constraint evaluations a_i, b_i, c_i
 *                      and bellperson's A/B density bitmaps
 *   TestCS             checks every constraint as it is enforced, names the
 *                      first failure by namespace path, counts only
 *   CountingCS         counts variables, constraints and matrix terms and
 *                      stores nothing (bellperson's BenchCS/MetricCS role),
 *                      for circuits too large to hold in memory
 *
 * Semantics follow bellpepper/bellperson exactly, because Filecoin's
 * parameters depend on variable order, constraint order and the terms of
 * every linear combination:
 *  - A linear combination is a map variable -> coefficient kept sorted
 *    (inputs first, then aux, each by index). Adding a variable that is
 *    already present adds the coefficients; a term whose coefficient becomes
 *    zero stays (it still counts as a matrix entry in the keypair assembly).
 *  - Density (ProvingAssignment) counts a variable only where its
 *    coefficient is non-zero, and tracks aux in A, inputs and aux in B
 *    (inputs are dense in A because of the input constraints below).
 *  - Every constraint system starts with zero inputs: the caller allocates ONE as
 *    input 0 (cuzk_cs_alloc_one) before synthesis.
 *  - cuzk_cs_finalize appends input_i * 0 = 0 (input_i in A only) for each
 *    input, as bellperson's prover and generator do.
 *
 * Errors are sticky: an allocation failure or misuse records an error code
 * in the system (cuzk_cs_error) and later calls become no-ops, so gadget
 * code needs no per-call checks. Not thread-safe per system; use one child
 * system per thread and cuzk_cs_extend (or cuzk_cs_synthesize_parallel).
 */
#ifndef CUZK_CS_H
#define CUZK_CS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/ff/fr.h"
#include "cuzk/cs/lc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the interface ---------------------------------------------------- */

typedef enum cuzk_cs_kind {
    CUZK_CS_WITNESS = 1,
    CUZK_CS_RECORDING = 2,
    CUZK_CS_PROVING = 3,
    CUZK_CS_TEST = 4,
    CUZK_CS_COUNT = 5
} cuzk_cs_kind;

typedef struct cuzk_cs cuzk_cs;

/* Computes an aux/input value on demand; returns 0 or an error code. */
typedef int (*cuzk_cs_value_fn)(cuzk_fr *out, void *ctx);

/* Dispatch: one indirect call per operation. */
typedef struct cuzk_cs_vtable {
    cuzk_cs_kind kind;
    const char *name;
    void (*alloc)(cuzk_cs *cs, const cuzk_fr *value);
    void (*alloc_input)(cuzk_cs *cs, const cuzk_fr *value);
    void (*enforce)(cuzk_cs *cs, const char *name, const cuzk_lc *a, const cuzk_lc *b,
                    const cuzk_lc *c);
    int (*extend)(cuzk_cs *parent, const cuzk_cs *child);
    int (*finalize)(cuzk_cs *cs);
    cuzk_cs *(*new_like)(const cuzk_cs *cs);
    void (*destroy)(cuzk_cs *cs);
    /* Optional: give a fresh child the parent's current variables (values,
     * zero density bits) for cuzk_cs_fork; NULL when nothing is stored. */
    int (*fork)(cuzk_cs *child, const cuzk_cs *parent);
    /* Optional, systems holding values: room for that many more inputs and aux, so
     * the arrays do not move while they fill (cuzk_cs_reserve). */
    int (*reserve)(cuzk_cs *cs, size_t inputs, size_t aux);
    /* Optional: a fresh child (of new_like) whose own aux values go straight
     * into parent's aux array at [at, at + len) (reserved), for in-place
     * parallel segments; copy_inputs: it also gets parent's inputs, as a
     * fork does. An alloc past len fails the child. */
    int (*place)(cuzk_cs *child, const cuzk_cs *parent, size_t at, size_t len, bool copy_inputs);
} cuzk_cs_vtable;

/* Common header of every constraint system (first member). */
struct cuzk_cs {
    const cuzk_cs_vtable *vt;
    size_t num_inputs, num_aux, num_constraints;
    int err;           /* sticky first error */
    bool needs_values; /* false: alloc may pass value NULL (RecordingCS) */
    bool wants_names;  /* only TestCS keeps namespace names */
    bool skip_lcs;     /* enforce ignores its arguments (WitnessCS) */
    bool finalized;
    /* A fork's variables shared with its parent (inputs including ONE, aux);
     * 0 / 0 for other systems, whose only shared variable is ONE. */
    size_t shared_inputs, shared_aux;
    /* threads for a parallel synthesis asked for 0 threads (0: all online
     * CPUs): whoever owns the system decides (cuzk_cs_set_threads) */
    unsigned threads;
    /* namespace path "a/b/c" (TestCS only) */
    char *ns;
    size_t ns_len, ns_cap;
    size_t *ns_stack;
    size_t ns_depth, ns_stack_cap;
};

/*
 * Allocates an aux variable. value may be NULL only when cs->needs_values
 * is false; name is used only by constraint systems that want names (may be NULL).
 */
cuzk_var cuzk_cs_alloc(cuzk_cs *cs, const char *name, const cuzk_fr *value);
/* Same with a value callback, called only when the constraint system needs values. */
cuzk_var cuzk_cs_alloc_fn(cuzk_cs *cs, const char *name, cuzk_cs_value_fn fn, void *ctx);
cuzk_var cuzk_cs_alloc_input(cuzk_cs *cs, const char *name, const cuzk_fr *value);
cuzk_var cuzk_cs_alloc_input_fn(cuzk_cs *cs, const char *name, cuzk_cs_value_fn fn, void *ctx);
/* Allocates ONE as input 0; the system must have no inputs yet. */
int cuzk_cs_alloc_one(cuzk_cs *cs);
/* Enforces a * b = c. */
void cuzk_cs_enforce(cuzk_cs *cs, const char *name, const cuzk_lc *a, const cuzk_lc *b,
                     const cuzk_lc *c);
/* Namespaces: printf-style name, formatted only if the constraint system keeps names. */
void cuzk_cs_push_ns(cuzk_cs *cs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cuzk_cs_pop_ns(cuzk_cs *cs);
/* Current path ("" at the root); meaningful only where names are kept. */
const char *cuzk_cs_ns_path(const cuzk_cs *cs);
/* All five constraint systems are extensible. */
bool cuzk_cs_is_extensible(const cuzk_cs *cs);
/*
 * Appends child to parent (same kind, neither finalized): child's input 0
 * (ONE) maps to parent's ONE, child inputs >= 1 follow the parent's inputs,
 * child aux follow the parent's aux, child constraints follow in order.
 */
int cuzk_cs_extend(cuzk_cs *parent, const cuzk_cs *child);
/*
 * A child for parallel synthesis that may use every variable parent has now
 * (ONE included, nothing to allocate): its own variables are numbered after
 * them and cuzk_cs_extend appends only those, mapping shared ones to
 * themselves. Until the child is extended, parent may only be extended with
 * sibling forks (in the order the result should have). ProvingAssignment
 * and TestCS copy the parent's values into the child (they evaluate
 * constraints over them): fork after a small prefix; a WitnessCS child
 * holds only its own values. NULL on error.
 */
cuzk_cs *cuzk_cs_fork(const cuzk_cs *parent);
/* Appends the input constraints (input_i in A, nothing in B and C) and, for
 * RecordingCS, assigns final columns. No allocation or enforce afterwards. */
int cuzk_cs_finalize(cuzk_cs *cs);
/* A fresh empty system of the same kind (no ONE), or NULL. */
cuzk_cs *cuzk_cs_new_like(const cuzk_cs *cs);
void cuzk_cs_free(cuzk_cs *cs);
/*
 * Lazy constraints (bellpepper passes closures that WitnessCS never calls):
 * when cuzk_cs_skip_lcs is true a gadget may skip building its linear
 * combinations and call cuzk_cs_enforce_skipped instead of cuzk_cs_enforce;
 * the constraint is still counted.
 */
static inline bool cuzk_cs_skip_lcs(const cuzk_cs *cs) { return cs->skip_lcs; }
void cuzk_cs_enforce_skipped(cuzk_cs *cs);
static inline int cuzk_cs_error(const cuzk_cs *cs) { return cs->err; }
static inline void cuzk_cs_set_error(cuzk_cs *cs, int err)
{
    if (!cs->err) cs->err = err;
}

/* Room for that many more inputs and aux variables in a system holding values (a
 * witness whose size is known: no regrowth, no slack); a no-op elsewhere. */
int cuzk_cs_reserve(cuzk_cs *cs, size_t inputs, size_t aux);
/* The threads a parallel synthesis of cs uses when asked for 0 (0: all
 * online CPUs). */
void cuzk_cs_set_threads(cuzk_cs *cs, unsigned threads);
/* What a request for nthreads means on cs: nthreads, else cs's own count,
 * else all online CPUs. */
unsigned cuzk_cs_threads(const cuzk_cs *cs, unsigned nthreads);

/*
 * Parallel synthesis driver: segment s (0 <= s < n) is synthesized by
 * fn(child, s, ctx) into a fresh child system (ONE already allocated);
 * children run on nthreads pthreads (0: cs's own count, see
 * cuzk_cs_set_threads) and are extended into parent in segment order. The
 * result is identical to calling fn(parent, s, ctx) for s = 0..n-1
 * sequentially. Returns 0 or the first error (fn's return value or the
 * system's).
 */
typedef int (*cuzk_cs_segment_fn)(cuzk_cs *cs, size_t segment, void *ctx);
int cuzk_cs_synthesize_parallel(cuzk_cs *parent, size_t n, cuzk_cs_segment_fn fn, void *ctx,
                                unsigned nthreads);
/* Same, each segment on a cuzk_cs_fork of parent: segments may use the
 * variables parent has when the call begins (e.g. shared commitments). */
int cuzk_cs_synthesize_parallel_shared(cuzk_cs *parent, size_t n, cuzk_cs_segment_fn fn, void *ctx,
                                       unsigned nthreads);
/*
 * Both, for circuits whose segments have the same shapes from call to call
 * (the partitions of one circuit): shape_key names that shape (e.g. a hash
 * of the circuit's configuration; 0: unnamed, as above). After one call has
 * shown each segment's number of aux variables, later calls with the same
 * fn, key, n and parent sizes let a WitnessCS's segments write their values
 * straight into the parent's array, each at its offset, instead of copying
 * every child in at the end: the merge copy and its page faults were what
 * kept a threaded 32 GiB PoRep partition from running faster than one
 * thread. A segment whose shape differs (the key was wrong) is caught, and
 * the call redone the copying way; fn must therefore be a pure function
 * of (segment, ctx).
 */
int cuzk_cs_synthesize_parallel_keyed(cuzk_cs *parent, size_t n, cuzk_cs_segment_fn fn, void *ctx,
                                      unsigned nthreads, bool shared, uint64_t shape_key);
/* How keyed parallel syntheses went in this process: segments written in
 * place, calls that copied children in (a shape not seen yet, or a constraint system
 * without place), and in-place attempts redone because a segment's shape
 * differed. */
typedef struct cuzk_cs_parallel_counts {
    uint64_t placed, copied, reshaped;
} cuzk_cs_parallel_counts;
void cuzk_cs_parallel_counts_get(cuzk_cs_parallel_counts *out);
/* A shape key from the numbers that decide a circuit's shape (FNV-1a; never 0). */
static inline uint64_t cuzk_cs_shape_key(const uint64_t *v, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 64; b += 8) h = (h ^ ((v[i] >> b) & 0xff)) * 0x100000001b3ull;
    return h ? h : 1;
}

/* ---- the constraint systems -------------------------------------------- */

/* Growable Fr array. */
typedef struct cuzk_fr_vec {
    cuzk_fr *v;
    size_t len, cap;
} cuzk_fr_vec;

/* Bitmap of which variables occur (bellperson DensityTracker). */
typedef struct cuzk_density {
    uint64_t *bits;
    size_t len, cap_words;
    size_t total; /* number of set bits */
} cuzk_density;
static inline bool cuzk_density_get(const cuzk_density *d, size_t i)
{
    return (d->bits[i >> 6] >> (i & 63)) & 1;
}

typedef struct cuzk_witness_cs {
    cuzk_cs base;
    cuzk_fr_vec input, aux;
    bool aux_placed; /* aux.v is a window of a parent's array: never grown or freed */
} cuzk_witness_cs;

/*
 * Distinct coefficients of a RecordingCS. Circuits use few distinct values
 * (1, -1, powers of two, round constants), so matrices store a 32-bit index
 * per term: 8 bytes per term (column + coefficient index) instead of 36.
 * Index 0 is always one.
 */
typedef struct cuzk_coeff_table {
    cuzk_fr *v;
    size_t len, cap;
    uint32_t *slots; /* open addressing: coefficient index + 1, 0 = empty */
    size_t nslots;   /* power of two */
} cuzk_coeff_table;

/*
 * One CSR matrix. During synthesis col holds tagged variables (cuzk_var);
 * after finalize it holds final columns: input i -> i, aux j ->
 * num_inputs + j. Row r spans [row_ptr[r], row_ptr[r+1]); term i has value
 * table->v[coeff[i]].
 */
typedef struct cuzk_csr {
    uint64_t *row_ptr; /* num_rows + 1 entries */
    uint32_t *col;
    uint32_t *coeff;
    size_t nnz, cap, rows_cap;
} cuzk_csr;

typedef struct cuzk_recording_cs {
    cuzk_cs base;
    cuzk_csr m[3]; /* A, B, C */
    cuzk_coeff_table coeffs;
} cuzk_recording_cs;

/* Value of term i of matrix k (0 A, 1 B, 2 C). */
static inline const cuzk_fr *cuzk_recording_cs_val(const cuzk_recording_cs *r, int k, size_t i)
{
    return &r->coeffs.v[r->m[k].coeff[i]];
}

typedef struct cuzk_proving_cs {
    cuzk_cs base;
    cuzk_fr_vec input, aux;
    cuzk_fr_vec a, b, c;                  /* per-constraint evaluations */
    cuzk_density a_aux, b_input, b_aux;   /* as bellperson */
} cuzk_proving_cs;

typedef struct cuzk_test_cs {
    cuzk_cs base;
    cuzk_fr_vec input, aux;
    size_t nnz[3];        /* terms per matrix (A, B, C) */
    size_t num_unsatisfied;
    size_t first_unsat_index; /* constraint index of the first failure */
    char *first_unsat;        /* its full path "ns/.../name", or NULL */
    /* Tampering for negative tests (like bellpepper's TestConstraintSystem::set):
     * when aux tamper_index is allocated, tamper_value is stored instead. */
    bool tamper;
    size_t tamper_index;
    cuzk_fr tamper_value;
} cuzk_test_cs;

/* Counts only: no values are needed (alloc may pass NULL), no names kept. */
typedef struct cuzk_count_cs {
    cuzk_cs base;
    size_t nnz[3]; /* terms per matrix (A, B, C), as TestCS counts them */
} cuzk_count_cs;

cuzk_witness_cs *cuzk_witness_cs_new(void);
cuzk_count_cs *cuzk_count_cs_new(void);
cuzk_recording_cs *cuzk_recording_cs_new(void);
cuzk_proving_cs *cuzk_proving_cs_new(void);
cuzk_test_cs *cuzk_test_cs_new(void);
/* Any constraint system by kind (NULL on bad kind or no memory). */
cuzk_cs *cuzk_cs_new(cuzk_cs_kind kind);

/* TestCS: true when every constraint enforced so far holds. */
static inline bool cuzk_test_cs_is_satisfied(const cuzk_test_cs *t) { return t->num_unsatisfied == 0; }

#ifdef __cplusplus
}
#endif
#endif

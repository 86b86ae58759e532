/* System-independent parts of the constraint-system interface: counting,
 * namespaces, dispatch and the parallel synthesis driver. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#include "cuzk/cs/cs.h"
#include "cuzk/util/error.h"
#include "cuzk/util/parallel.h"
#include "cs_internal.h"

static bool cs_usable(cuzk_cs *cs)
{
    if (cs->err) return false;
    if (cs->finalized) {
        cs->err = CUZK_ERR_INVALID_ARG;
        return false;
    }
    return true;
}

cuzk_var cuzk_cs_alloc(cuzk_cs *cs, const char *name, const cuzk_fr *value)
{
    (void)name;
    if (!cs_usable(cs)) return cuzk_var_aux(0);
    if (cs->num_aux > CUZK_VAR_MAX_INDEX || (cs->needs_values && !value)) {
        cuzk_cs_set_error(cs, CUZK_ERR_INVALID_ARG);
        return cuzk_var_aux(0);
    }
    cs->vt->alloc(cs, value);
    return cuzk_var_aux((uint32_t)cs->num_aux++);
}

cuzk_var cuzk_cs_alloc_fn(cuzk_cs *cs, const char *name, cuzk_cs_value_fn fn, void *ctx)
{
    if (!cs->needs_values) return cuzk_cs_alloc(cs, name, NULL);
    cuzk_fr v;
    int e = fn(&v, ctx);
    if (e) {
        cuzk_cs_set_error(cs, e);
        return cuzk_var_aux(0);
    }
    return cuzk_cs_alloc(cs, name, &v);
}

cuzk_var cuzk_cs_alloc_input(cuzk_cs *cs, const char *name, const cuzk_fr *value)
{
    (void)name;
    if (!cs_usable(cs)) return cuzk_var_input(0);
    if (cs->num_inputs > CUZK_VAR_MAX_INDEX || (cs->needs_values && !value)) {
        cuzk_cs_set_error(cs, CUZK_ERR_INVALID_ARG);
        return cuzk_var_input(0);
    }
    cs->vt->alloc_input(cs, value);
    return cuzk_var_input((uint32_t)cs->num_inputs++);
}

cuzk_var cuzk_cs_alloc_input_fn(cuzk_cs *cs, const char *name, cuzk_cs_value_fn fn, void *ctx)
{
    if (!cs->needs_values) return cuzk_cs_alloc_input(cs, name, NULL);
    cuzk_fr v;
    int e = fn(&v, ctx);
    if (e) {
        cuzk_cs_set_error(cs, e);
        return cuzk_var_input(0);
    }
    return cuzk_cs_alloc_input(cs, name, &v);
}

int cuzk_cs_alloc_one(cuzk_cs *cs)
{
    if (cs->num_inputs != 0) {
        cuzk_cs_set_error(cs, CUZK_ERR_INVALID_ARG);
        return CUZK_ERR_INVALID_ARG;
    }
    cuzk_cs_alloc_input(cs, "ONE", &cuzk_fr_one);
    return cs->err;
}

void cuzk_cs_enforce(cuzk_cs *cs, const char *name, const cuzk_lc *a, const cuzk_lc *b,
                     const cuzk_lc *c)
{
    if (!cs_usable(cs)) return;
    if (a->oom || b->oom || c->oom) {
        cs->err = CUZK_ERR_NO_MEMORY;
        return;
    }
    cs->vt->enforce(cs, name, a, b, c);
    cs->num_constraints++;
}

void cuzk_cs_enforce_skipped(cuzk_cs *cs)
{
    if (cs_usable(cs)) cs->num_constraints++;
}

void cuzk_cs_push_ns(cuzk_cs *cs, const char *fmt, ...)
{
    if (!cs->wants_names || cs->err) return;
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof buf) n = sizeof buf - 1;
    if (cs->ns_depth == cs->ns_stack_cap) {
        size_t nc = cs->ns_stack_cap ? cs->ns_stack_cap * 2 : 16;
        size_t *s = realloc(cs->ns_stack, nc * sizeof *s);
        if (!s) {
            cs->err = CUZK_ERR_NO_MEMORY;
            return;
        }
        cs->ns_stack = s;
        cs->ns_stack_cap = nc;
    }
    size_t need = cs->ns_len + (size_t)n + 2;
    if (need > cs->ns_cap) {
        size_t nc = cs->ns_cap ? cs->ns_cap : 256;
        while (nc < need) nc *= 2;
        char *p = realloc(cs->ns, nc);
        if (!p) {
            cs->err = CUZK_ERR_NO_MEMORY;
            return;
        }
        cs->ns = p;
        cs->ns_cap = nc;
    }
    cs->ns_stack[cs->ns_depth++] = cs->ns_len;
    if (cs->ns_len) cs->ns[cs->ns_len++] = '/';
    memcpy(cs->ns + cs->ns_len, buf, (size_t)n);
    cs->ns_len += (size_t)n;
    cs->ns[cs->ns_len] = 0;
}

void cuzk_cs_pop_ns(cuzk_cs *cs)
{
    if (!cs->wants_names || cs->err) return;
    if (!cs->ns_depth) {
        cs->err = CUZK_ERR_INVALID_ARG;
        return;
    }
    cs->ns_len = cs->ns_stack[--cs->ns_depth];
    cs->ns[cs->ns_len] = 0;
}

const char *cuzk_cs_ns_path(const cuzk_cs *cs) { return cs->ns_len ? cs->ns : ""; }

bool cuzk_cs_is_extensible(const cuzk_cs *cs)
{
    (void)cs;
    return true;
}

int cuzk_cs_extend(cuzk_cs *parent, const cuzk_cs *child)
{
    if (parent->err) return parent->err;
    if (child->err) {
        parent->err = child->err;
        return parent->err;
    }
    if (parent->vt != child->vt || parent->finalized || child->finalized ||
        child->num_inputs < 1 || parent->num_inputs < 1) {
        parent->err = CUZK_ERR_INVALID_ARG;
        return parent->err;
    }
    size_t si = cs_shared_inputs(child), sa = cs_shared_aux(child);
    if (child->num_inputs < si || child->num_aux < sa || parent->num_inputs < si || parent->num_aux < sa ||
        parent->num_inputs + (child->num_inputs - si) > (size_t)CUZK_VAR_MAX_INDEX + 1 ||
        parent->num_aux + (child->num_aux - sa) > (size_t)CUZK_VAR_MAX_INDEX + 1) {
        parent->err = CUZK_ERR_INVALID_ARG;
        return parent->err;
    }
    int e = parent->vt->extend(parent, child);
    if (e) {
        parent->err = e;
        return e;
    }
    parent->num_inputs += child->num_inputs - si;
    parent->num_aux += child->num_aux - sa;
    parent->num_constraints += child->num_constraints;
    return 0;
}

int cuzk_cs_finalize(cuzk_cs *cs)
{
    if (cs->err) return cs->err;
    if (cs->finalized) return CUZK_ERR_INVALID_ARG;
    cuzk_lc a, z;
    cuzk_lc_init(&a);
    cuzk_lc_init(&z);
    for (size_t i = 0; i < cs->num_inputs && !cs->err; i++) {
        cuzk_lc_clear(&a);
        cuzk_lc_add_var(&a, cuzk_var_input((uint32_t)i));
        cuzk_cs_enforce(cs, "", &a, &z, &z);
    }
    cuzk_lc_free(&a);
    if (cs->err) return cs->err;
    int e = cs->vt->finalize ? cs->vt->finalize(cs) : 0;
    if (e) cs->err = e;
    cs->finalized = true;
    return cs->err;
}

cuzk_cs *cuzk_cs_new_like(const cuzk_cs *cs) { return cs->vt->new_like(cs); }

int cuzk_cs_reserve(cuzk_cs *cs, size_t inputs, size_t aux)
{
    if (cs->err) return cs->err;
    int e = cs->vt->reserve && !cs->finalized ? cs->vt->reserve(cs, inputs, aux) : 0;
    if (e) cuzk_cs_set_error(cs, e);
    return e;
}

void cuzk_cs_set_threads(cuzk_cs *cs, unsigned threads) { cs->threads = threads; }

unsigned cuzk_cs_threads(const cuzk_cs *cs, unsigned nthreads)
{
    return nthreads ? nthreads : cs->threads ? cs->threads : cuzk_parallel_cpus();
}

cuzk_cs *cuzk_cs_fork(const cuzk_cs *parent)
{
    if (parent->err || parent->finalized || parent->num_inputs < 1) return NULL;
    cuzk_cs *c = cuzk_cs_new_like(parent);
    if (!c) return NULL;
    if (parent->vt->fork && parent->vt->fork(c, parent)) {
        cuzk_cs_free(c);
        return NULL;
    }
    c->num_inputs = c->shared_inputs = parent->num_inputs;
    c->num_aux = c->shared_aux = parent->num_aux;
    return c;
}

void cuzk_cs_free(cuzk_cs *cs)
{
    if (!cs) return;
    free(cs->ns);
    free(cs->ns_stack);
    cs->vt->destroy(cs);
}

void cuzk_cs_base_init(cuzk_cs *cs, const cuzk_cs_vtable *vt, bool needs_values, bool wants_names)
{
    memset(cs, 0, sizeof *cs);
    cs->vt = vt;
    cs->needs_values = needs_values;
    cs->wants_names = wants_names;
}

/* ---- parallel driver -------------------------------------------------- */

/* Segments first + i (0 <= i < count), segment first + i into children[i]. */
typedef struct par_job {
    cuzk_cs **children;
    cuzk_cs_segment_fn fn;
    void *ctx;
    int *rc;
    size_t first;
    bool forked; /* children are forks: ONE is already there */
} par_job;

/* Children [lo, hi) (one per chunk). */
static void par_segments(void *arg, unsigned worker, size_t lo, size_t hi)
{
    par_job *j = arg;
    for (size_t i = lo; i < hi; i++) {
        cuzk_cs *c = j->children[i];
        int e = j->forked ? 0 : cuzk_cs_alloc_one(c);
        if (!e) e = j->fn(c, j->first + i, j->ctx);
        if (!e) e = c->err;
        j->rc[i] = e;
    }
}

/* ---- segment shapes seen, for in-place parallel synthesis -------------- */

/* A few shapes (each segment's own aux count) by what names them; the least
 * recently used one gives way. */
#define SHAPE_SLOTS 32
typedef struct seg_shape {
    cuzk_cs_segment_fn fn;
    uint64_t key, used;
    size_t n, base_inputs, base_aux;
    const cuzk_cs_vtable *vt;
    bool shared;
    size_t *aux; /* n entries */
} seg_shape;
static seg_shape shapes[SHAPE_SLOTS];
static uint64_t shapes_tick;
static cuzk_cs_parallel_counts counts;
static pthread_mutex_t shapes_mu = PTHREAD_MUTEX_INITIALIZER;

static bool shape_is(const seg_shape *h, const cuzk_cs *parent, size_t n, cuzk_cs_segment_fn fn, bool shared,
                     uint64_t key)
{
    return h->aux && h->fn == fn && h->key == key && h->n == n && h->shared == shared && h->vt == parent->vt &&
           h->base_inputs == parent->num_inputs && h->base_aux == parent->num_aux;
}

/* A copy of the shape seen for this call, or NULL. */
static size_t *shape_find(const cuzk_cs *parent, size_t n, cuzk_cs_segment_fn fn, bool shared, uint64_t key)
{
    size_t *out = NULL;
    pthread_mutex_lock(&shapes_mu);
    for (size_t i = 0; i < SHAPE_SLOTS; i++)
        if (shape_is(&shapes[i], parent, n, fn, shared, key)) {
            if ((out = malloc(n * sizeof *out))) memcpy(out, shapes[i].aux, n * sizeof *out);
            shapes[i].used = ++shapes_tick;
            break;
        }
    pthread_mutex_unlock(&shapes_mu);
    return out;
}

/* Remembers the shape aux (n entries, taken over) of a call that began with
 * the parent sizes in `start`. */
static void shape_keep(const cuzk_cs *start, size_t n, cuzk_cs_segment_fn fn, bool shared, uint64_t key,
                       size_t *aux)
{
    pthread_mutex_lock(&shapes_mu);
    seg_shape *slot = &shapes[0];
    for (size_t i = 0; i < SHAPE_SLOTS; i++) {
        if (shape_is(&shapes[i], start, n, fn, shared, key)) {
            slot = &shapes[i];
            break;
        }
        if (shapes[i].used < slot->used) slot = &shapes[i];
    }
    free(slot->aux);
    *slot = (seg_shape){fn, key, ++shapes_tick, n, start->num_inputs, start->num_aux, start->vt, shared, aux};
    pthread_mutex_unlock(&shapes_mu);
}

void cuzk_cs_parallel_counts_get(cuzk_cs_parallel_counts *out)
{
    pthread_mutex_lock(&shapes_mu);
    *out = counts;
    pthread_mutex_unlock(&shapes_mu);
}

static void tally(uint64_t *c)
{
    pthread_mutex_lock(&shapes_mu);
    (*c)++;
    pthread_mutex_unlock(&shapes_mu);
}

static unsigned threads_for(const cuzk_cs *parent, size_t n, unsigned nthreads)
{
    nthreads = cuzk_cs_threads(parent, nthreads);
    return nthreads > n ? (unsigned)n : nthreads;
}

static bool children_alloc(par_job *j, size_t count)
{
    j->children = calloc(count, sizeof *j->children);
    j->rc = calloc(count, sizeof *j->rc);
    return j->children && j->rc;
}

static void children_free(par_job *j, size_t count)
{
    if (j->children)
        for (size_t i = 0; i < count; i++) cuzk_cs_free(j->children[i]);
    free(j->children);
    free(j->rc);
}

/* Segments [first, n) written in place at the offsets own[first..n-1]
 * give: 0, an error of the parent, or NOT_THIS_SHAPE when a segment did
 * not have its shape (or failed). The segments before the first such one
 * sat in their windows and are kept (*done of them: the caller redoes the
 * rest the copying way); the others were at wrong offsets and are
 * dropped. So a guess that misses only at the end (PoSt's last, smaller
 * group of sectors) costs that segment again, not the partition. */
#define NOT_THIS_SHAPE (-1)
static int synthesize_placed(cuzk_cs *parent, size_t first, size_t n, cuzk_cs_segment_fn fn, void *ctx,
                             unsigned nthreads, bool forked, const size_t *own, size_t *done)
{
    *done = 0;
    const size_t count = n - first;
    size_t total = 0;
    for (size_t s = first; s < n; s++) {
        if (own[s] > SIZE_MAX - total) return NOT_THIS_SHAPE;
        total += own[s];
    }
    int err = parent->vt->reserve(parent, 0, total);
    if (err) {
        cuzk_cs_set_error(parent, err);
        return err;
    }
    par_job j = {.fn = fn, .ctx = ctx, .first = first, .forked = forked};
    if (!children_alloc(&j, count)) err = CUZK_ERR_NO_MEMORY;
    for (size_t i = 0, at = parent->num_aux; i < count && !err; at += own[first + i], i++) {
        cuzk_cs *c = j.children[i] = cuzk_cs_new_like(parent);
        if (!c) {
            err = CUZK_ERR_NO_MEMORY;
            break;
        }
        if (parent->vt->place(c, parent, at, own[first + i], forked)) {
            err = NOT_THIS_SHAPE;
            break;
        }
        if (forked) { /* as cuzk_cs_fork, without copying the parent's aux */
            c->num_inputs = c->shared_inputs = parent->num_inputs;
            c->num_aux = c->shared_aux = parent->num_aux;
        }
    }
    if (!err) {
        cuzk_parallel_for(count, 1, nthreads, par_segments, &j);
        size_t good = 0; /* any failure is retried the copying way, which reports it */
        while (good < count && !j.rc[good] &&
               j.children[good]->num_aux - cs_shared_aux(j.children[good]) == own[first + good])
            good++;
        for (size_t i = 0; i < good && !err; i++)
            if (!(err = cuzk_cs_extend(parent, j.children[i]))) ++*done;
        if (!err && good < count) err = NOT_THIS_SHAPE;
    }
    children_free(&j, count);
    if (err == CUZK_ERR_NO_MEMORY) cuzk_cs_set_error(parent, err);
    return err;
}

/* Segments [first, n), each in its own child, appended in order; each
 * one's own aux count into seen[s] when seen is given. */
static int synthesize_copied(cuzk_cs *parent, size_t first, size_t n, cuzk_cs_segment_fn fn, void *ctx,
                             unsigned nthreads, bool forked, size_t *seen)
{
    const size_t count = n - first;
    par_job j = {.fn = fn, .ctx = ctx, .first = first, .forked = forked};
    int err = children_alloc(&j, count) ? 0 : CUZK_ERR_NO_MEMORY;
    for (size_t i = 0; i < count && !err; i++)
        if (!(j.children[i] = forked ? cuzk_cs_fork(parent) : cuzk_cs_new_like(parent))) err = CUZK_ERR_NO_MEMORY;
    if (!err) {
        cuzk_parallel_for(count, 1, nthreads, par_segments, &j);
        /* Extend in segment order; free each child as soon as it is merged. */
        for (size_t i = 0; i < count; i++) {
            if (!err && j.rc[i]) err = j.rc[i];
            if (!err && seen) seen[first + i] = j.children[i]->num_aux - cs_shared_aux(j.children[i]);
            if (!err) err = cuzk_cs_extend(parent, j.children[i]);
            cuzk_cs_free(j.children[i]);
            j.children[i] = NULL;
        }
    }
    children_free(&j, count);
    if (err) cuzk_cs_set_error(parent, err);
    return err;
}

static int synthesize_parallel(cuzk_cs *parent, size_t n, cuzk_cs_segment_fn fn, void *ctx, unsigned nthreads,
                               bool forked, uint64_t key)
{
    if (parent->err) return parent->err;
    nthreads = threads_for(parent, n, nthreads);
    if (nthreads <= 1) {
        for (size_t s = 0; s < n; s++) {
            int e = fn(parent, s, ctx);
            if (e) {
                cuzk_cs_set_error(parent, e);
                return e;
            }
            if (parent->err) return parent->err;
        }
        return 0;
    }
    if (!(key && parent->vt->place && parent->vt->reserve)) {
        if (key) tally(&counts.copied);
        return synthesize_copied(parent, 0, n, fn, ctx, nthreads, forked, NULL);
    }
    const cuzk_cs start = *parent; /* its sizes name the shape */
    size_t *own = shape_find(parent, n, fn, forked, key), first = 0;
    if (!own) {
        /* A shape not seen yet: segment 0 goes straight into the parent
         * (as a sequential synthesis would), and the others are placed
         * as if they had its shape, the usual case (PoRep's challenges).
         * Learning by copying instead would hold every child twice, the
         * first partition's witness twice over. */
        if (!(own = malloc(n * sizeof *own))) {
            cuzk_cs_set_error(parent, CUZK_ERR_NO_MEMORY);
            return CUZK_ERR_NO_MEMORY;
        }
        size_t aux0 = parent->num_aux;
        int e = fn(parent, 0, ctx);
        if (e || parent->err) {
            free(own);
            cuzk_cs_set_error(parent, e);
            return parent->err;
        }
        for (size_t s = 0; s < n; s++) own[s] = parent->num_aux - aux0;
        first = 1;
    }
    size_t done = 0;
    int e = synthesize_placed(parent, first, n, fn, ctx, nthreads, forked, own, &done);
    tally(e == NOT_THIS_SHAPE ? &counts.reshaped : &counts.placed);
    if (e == NOT_THIS_SHAPE) { /* the rest the copying way, which learns its shape */
        tally(&counts.copied);
        e = synthesize_copied(parent, first + done, n, fn, ctx, nthreads, forked, own);
    }
    if (!e) shape_keep(&start, n, fn, forked, key, own);
    else free(own);
    return e;
}

int cuzk_cs_synthesize_parallel(cuzk_cs *parent, size_t n, cuzk_cs_segment_fn fn, void *ctx,
                                unsigned nthreads)
{
    return synthesize_parallel(parent, n, fn, ctx, nthreads, false, 0);
}

int cuzk_cs_synthesize_parallel_shared(cuzk_cs *parent, size_t n, cuzk_cs_segment_fn fn, void *ctx,
                                       unsigned nthreads)
{
    return synthesize_parallel(parent, n, fn, ctx, nthreads, true, 0);
}

int cuzk_cs_synthesize_parallel_keyed(cuzk_cs *parent, size_t n, cuzk_cs_segment_fn fn, void *ctx,
                                      unsigned nthreads, bool shared, uint64_t shape_key)
{
    return synthesize_parallel(parent, n, fn, ctx, nthreads, shared, shape_key);
}

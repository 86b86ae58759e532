/*
 * Memory budget, SRS residency (with page-locking of HOT parameters) and
 * the PCE manager. Everything here runs under the scheduler lock except
 * srs_load (and srs_pin in it), pce_load_cached, the extraction thread
 * body and pce_join_all.
 *
 * SRS states: COLD (only the source: a file, or the registrant's memory),
 * WARM (decoded before from its file, evicted since: the file's pages may
 * still be in the page cache; nothing held, nothing counted), LOADING
 * (one thread decodes or copies it; its estimated size is reserved), HOT
 * (decoded in host memory with its prepared verifying key; its size is
 * reserved). Jobs hold references; an entry without references is idle.
 * Resident PCEs are counted too, referenced by the syntheses using them.
 * When a reservation does not fit, the least recently used idle entries,
 * parameters (HOT -> WARM/COLD) or PCEs (RESIDENT -> NONE), are evicted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/util/clock.h"
#include "cuzk/util/error.h"
#include "cuzk/util/file.h"
#include "cuzk/util/handle.h"
#include "cuzk/util/mem.h"
#include "engine/engine_internal.h"

/* ---- memory budget ------------------------------------------------------ */

static void mem_take(cuzk_engine *e, uint64_t bytes)
{
    e->reserved += bytes;
    if (e->reserved > e->peak) e->peak = e->reserved;
}

/* The least recently used idle entry: a HOT SRS no job holds, or a
 * resident PCE no synthesis uses (*is_pce says which); NULL if none. A
 * set whose points went back to the kernel (host_released) is no victim:
 * dropping it would give the budget a few kilobytes and cost a 47 GB
 * decode and upload at its next job. */
static srs_entry *lru_idle(cuzk_engine *e, bool *is_pce)
{
    srs_entry *victim = NULL;
    uint64_t best = 0;
    for (size_t i = 0; i < e->nsrs; i++) {
        srs_entry *s = e->srs[i];
        if (s->state == CUZK_SRS_HOT && s->refs == 0 && !s->host_released && (!victim || s->last_used < best))
            victim = s, best = s->last_used, *is_pce = false;
        if (s->pce_state == CUZK_PCE_RESIDENT && s->pce_refs == 0 && (!victim || s->pce_last_used < best))
            victim = s, best = s->pce_last_used, *is_pce = true;
    }
    return victim;
}

bool mem_try(cuzk_engine *e, uint64_t bytes)
{
    if (e->reserved + bytes <= e->budget) {
        mem_take(e, bytes);
        return true;
    }
    /* evict only if the idle entries are enough to make it fit */
    uint64_t idle = 0;
    for (size_t i = 0; i < e->nsrs; i++) {
        srs_entry *s = e->srs[i];
        if (s->state == CUZK_SRS_HOT && s->refs == 0 && !s->host_released) idle += s->bytes;
        if (s->pce_state == CUZK_PCE_RESIDENT && s->pce_refs == 0) idle += s->pce_bytes;
    }
    if (e->reserved - idle + bytes > e->budget) return false;
    while (e->reserved + bytes > e->budget) {
        bool is_pce = false;
        srs_entry *victim = lru_idle(e, &is_pce);
        if (!victim) return false;
        if (is_pce) {
            eng_log(e, 2, "evicting the idle PCE of %s (%llu bytes) for memory", victim->circuit_id,
                    (unsigned long long)victim->pce_bytes);
            pce_drop(e, victim);
        } else {
            eng_log(e, 2, "evicting idle parameters of %s (%llu bytes) for memory", victim->circuit_id,
                    (unsigned long long)victim->bytes);
            srs_drop(e, victim, false);
        }
    }
    mem_take(e, bytes);
    return true;
}

void mem_force(cuzk_engine *e, int64_t delta)
{
    if (delta >= 0) {
        mem_take(e, (uint64_t)delta);
    } else {
        mem_release(e, (uint64_t)-delta);
    }
}

void mem_release(cuzk_engine *e, uint64_t bytes)
{
    e->reserved = bytes > e->reserved ? 0 : e->reserved - bytes;
    /* every waiter for memory waits on one of these */
    pthread_cond_broadcast(&e->cpu_cv);
    pthread_cond_broadcast(&e->done_cv);
}

/* ---- SRS entries -------------------------------------------------------- */

uint64_t params_bytes(const cuzk_groth16_params *p)
{
    /* vk.ic twice: the parameters and the prepared key's copy */
    uint64_t g1 = 2 * p->vk.n_ic + p->n_h + p->n_l + p->n_a + p->n_b_g1;
    return g1 * sizeof(cuzk_g1_affine) + p->n_b_g2 * sizeof(cuzk_g2_affine);
}

srs_entry *srs_find(cuzk_engine *e, const char *circuit_id)
{
    for (size_t i = 0; i < e->nsrs; i++)
        if (!strcmp(e->srs[i]->circuit_id, circuit_id)) return e->srs[i];
    return NULL;
}

static bool same_str(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

/* The memory a load will reserve: the decoded points take as much as
 * uncompressed ones on disk (96 / 192 bytes); the vk's ic is copied once
 * more by the pvk. */
static int srs_estimate(const cuzk_engine_kind *kind, uint64_t *est)
{
    if (!kind->params_path) {
        *est = params_bytes(kind->params);
        return CUZK_OK;
    }
    struct stat st;
    if (stat(kind->params_path, &st) != 0 || !S_ISREG(st.st_mode)) return CUZK_ERR_IO;
    *est = (uint64_t)st.st_size + (uint64_t)st.st_size / 16;
    return CUZK_OK;
}

srs_entry *srs_get_or_add(cuzk_engine *e, const cuzk_engine_kind *kind, int *err)
{
    srs_entry *s = srs_find(e, kind->circuit_id);
    if (s) {
        bool same = kind->params_path ? (same_str(s->path, kind->params_path) && s->mode == kind->read_mode &&
                                         same_str(s->vk_path, kind->vk_path))
                                      : (s->src == kind->params);
        *err = same ? CUZK_OK : CUZK_ERR_INVALID_ARG;
        return same ? s : NULL;
    }
    uint64_t est;
    if ((*err = srs_estimate(kind, &est)) != CUZK_OK) return NULL;
    if (e->nsrs == e->srs_cap) {
        size_t cap = e->srs_cap ? 2 * e->srs_cap : 8;
        srs_entry **a = realloc(e->srs, cap * sizeof *a);
        if (!a) {
            *err = CUZK_ERR_NO_MEMORY;
            return NULL;
        }
        e->srs = a, e->srs_cap = cap;
    }
    s = calloc(1, sizeof *s);
    if (s) {
        s->circuit_id = strdup(kind->circuit_id);
        s->path = kind->params_path ? strdup(kind->params_path) : NULL;
        s->vk_path = kind->vk_path ? strdup(kind->vk_path) : NULL;
    }
    if (!s || !s->circuit_id || (kind->params_path && !s->path) || (kind->vk_path && !s->vk_path)) {
        if (s) free(s->circuit_id), free(s->path), free(s->vk_path);
        free(s);
        *err = CUZK_ERR_NO_MEMORY;
        return NULL;
    }
    s->mode = kind->read_mode;
    s->src = kind->params;
    s->vk_is_ceremony = kind->vk_is_ceremony;
    s->vk_ctx = kind->ctx;
    s->est_bytes = est;
    e->srs[e->nsrs++] = s;
    *err = CUZK_OK;
    return s;
}

/* Deep copy of in-memory parameters (what a load from the source costs). */
static int params_copy(cuzk_groth16_params *d, const cuzk_groth16_params *s)
{
    memset(d, 0, sizeof *d);
    d->vk = s->vk;
    d->vk.ic = NULL;
    d->n_h = s->n_h, d->n_l = s->n_l, d->n_a = s->n_a, d->n_b_g1 = s->n_b_g1, d->n_b_g2 = s->n_b_g2;
#define DUP(field, n)                                                                              \
    if ((n) && !(d->field = malloc((n) * sizeof *s->field))) goto oom;                             \
    if (n) memcpy(d->field, s->field, (n) * sizeof *s->field);
    DUP(vk.ic, s->vk.n_ic)
    DUP(h, s->n_h)
    DUP(l, s->n_l)
    DUP(a, s->n_a)
    DUP(b_g1, s->n_b_g1)
    DUP(b_g2, s->n_b_g2)
#undef DUP
    return CUZK_OK;
oom:
    cuzk_groth16_params_free(d);
    return CUZK_ERR_NO_MEMORY;
}

/* ---- pinned host memory for HOT parameters ------------------------------ */

/* The arrays provers upload; vk.ic stays with the CPU verifier. */
static size_t pin_arrays(cuzk_groth16_params *p, void *ptr[5], size_t len[5])
{
    ptr[0] = p->h, len[0] = p->n_h * sizeof *p->h;
    ptr[1] = p->l, len[1] = p->n_l * sizeof *p->l;
    ptr[2] = p->a, len[2] = p->n_a * sizeof *p->a;
    ptr[3] = p->b_g1, len[3] = p->n_b_g1 * sizeof *p->b_g1;
    ptr[4] = p->b_g2, len[4] = p->n_b_g2 * sizeof *p->b_g2;
    return 5;
}

/* One array the prover's way (its pin hook), else kept in RAM by mlock. */
static cuzk_engine_pin_how host_pin(cuzk_engine *e, void *ptr, size_t len, char *msg, size_t msg_len)
{
    if (e->prover.pin) return e->prover.pin(e->prover.ctx, ptr, len, CUZK_PIN_HOW_NONE, msg, msg_len);
    char why[140];
    if (cuzk_mem_lock(ptr, len, why, sizeof why) == CUZK_OK) {
        snprintf(msg, msg_len, "mlock (the %s prover pins nothing itself)", e->prover.name);
        return CUZK_PIN_HOW_MLOCK;
    }
    snprintf(msg, msg_len, "pageable (%s)", why);
    return CUZK_PIN_HOW_NONE;
}

static void host_unpin(cuzk_engine *e, void *ptr, size_t len, cuzk_engine_pin_how how)
{
    if (!ptr || !len || how == CUZK_PIN_HOW_NONE) return;
    if (e->prover.pin) e->prover.pin(e->prover.ctx, ptr, len, how, NULL, 0);
    else cuzk_mem_unlock(ptr, len);
}

/*
 * Page-locks the decoded parameters when they fit in the pinned limit
 * (reserved under the lock first, so concurrent loads never overshoot it);
 * sets over the limit stay pageable and still prove. Each array is pinned
 * on its own (small arrays may share a page that CUDA registered already:
 * those get mlock); the set's pin_how is CUDA only when every array is.
 */
void srs_pin(cuzk_engine *e, srs_entry *s)
{
    /* pin_how and pinned_bytes are NONE / 0 here (srs_unpin); the status
     * reads them under the lock, so they are written under it below */
    memset(s->pin_arr, 0, sizeof s->pin_arr);
    if (e->pin_off) return;
    void *ptr[5];
    size_t len[5], n = pin_arrays(&s->params, ptr, len);
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) total += ptr[i] ? len[i] : 0;
    if (!total) return;
    pthread_mutex_lock(&e->mu);
    bool fits = e->pinned + total <= e->pin_limit;
    if (fits) {
        e->pinned += total;
        if (e->pinned > e->pinned_peak) e->pinned_peak = e->pinned;
    } else {
        e->c.pin_over_limit++;
    }
    pthread_mutex_unlock(&e->mu);
    if (!fits) {
        eng_log(e, 1, "parameters of %s (%llu bytes) stay pageable: over the pinned limit", s->circuit_id,
                (unsigned long long)total);
        return;
    }
    char note[160] = "";
    uint64_t got = 0;
    bool all_device = true;
    for (size_t i = 0; i < n; i++) {
        if (!ptr[i] || !len[i]) continue;
        char m[160] = "";
        s->pin_arr[i] = host_pin(e, ptr[i], len[i], m, sizeof m);
        if (s->pin_arr[i] != CUZK_PIN_HOW_NONE) got += len[i];
        all_device = all_device && s->pin_arr[i] == CUZK_PIN_HOW_DEVICE;
        if (m[0] && !note[0]) memcpy(note, m, sizeof note);
    }
    cuzk_engine_pin_how how = got == 0 ? CUZK_PIN_HOW_NONE : all_device ? CUZK_PIN_HOW_DEVICE : CUZK_PIN_HOW_MLOCK;
    pthread_mutex_lock(&e->mu);
    e->pinned -= total - got;
    s->pin_how = how;
    s->pinned_bytes = got;
    e->pin_last = how;
    snprintf(e->pin_note, sizeof e->pin_note, "%s", note);
    pthread_mutex_unlock(&e->mu);
    if (note[0])
        eng_log(e, how == CUZK_PIN_HOW_NONE ? 1 : 2, "parameters of %s: %s", s->circuit_id, note);
}

/* Under the lock: the set counts as unpinned from now on, how[] says how
 * each array was pinned (for srs_unpin_arrays). */
static void srs_unpin_take(cuzk_engine *e, srs_entry *s, cuzk_engine_pin_how how[5])
{
    memcpy(how, s->pin_arr, sizeof s->pin_arr);
    memset(s->pin_arr, 0, sizeof s->pin_arr);
    e->pinned -= s->pinned_bytes;
    s->pinned_bytes = 0;
    s->pin_how = CUZK_PIN_HOW_NONE;
}

/* The arrays' unpinning itself (no lock needed: their owner keeps them). */
static void srs_unpin_arrays(cuzk_engine *e, srs_entry *s, const cuzk_engine_pin_how how[5])
{
    void *ptr[5];
    size_t len[5], n = pin_arrays(&s->params, ptr, len);
    for (size_t i = 0; i < n; i++) host_unpin(e, ptr[i], len[i], how[i]);
}

/* Under the lock, before the parameters are freed. */
static void srs_unpin(cuzk_engine *e, srs_entry *s)
{
    cuzk_engine_pin_how how[5];
    srs_unpin_take(e, s, how);
    srs_unpin_arrays(e, s, how);
}

/* What identifies a file's content: device, inode, size, mtime (ns). */
static void stat_id(const struct stat *st, uint64_t id[4])
{
    id[0] = (uint64_t)st->st_dev, id[1] = (uint64_t)st->st_ino, id[2] = (uint64_t)st->st_size;
    id[3] = (uint64_t)st->st_mtim.tv_sec * 1000000000u + (uint64_t)st->st_mtim.tv_nsec;
}

/* The same of the file at path; zeros for no path or a file that cannot
 * be stat'ed. */
static void file_id(const char *path, uint64_t id[4])
{
    struct stat st;
    memset(id, 0, 4 * sizeof *id);
    if (path && stat(path, &st) == 0) stat_id(&st, id);
}

/* A .vk holds the six fixed points and a few public inputs' ic: kilobytes.
 * Anything near this bound is not one. */
#define VK_FILE_MAX ((size_t)16 << 20)

/* Whose keys the .vk's bytes are, as the kind judges them: the loading
 * thread's load_keys and load_keys_note ("<vk>: <what was compared>");
 * note gets what was compared alone. */
static void srs_vk_judge(srs_entry *s, const uint8_t *buf, size_t len, char *note, size_t note_len)
{
    note[0] = 0;
    if (!s->vk_is_ceremony) {
        s->load_keys = CUZK_KEYS_VK;
        s->load_keys_note = cuzk_strf("%s", s->vk_path);
        return;
    }
    bool ceremony = s->vk_is_ceremony(s->vk_ctx, buf, len, note, note_len);
    s->load_keys = ceremony ? CUZK_KEYS_CEREMONY : CUZK_KEYS_NOT_CEREMONY;
    s->load_keys_note = cuzk_strf("%s: %s", s->vk_path, note);
}

/* The refusal of a .params whose key is not the .vk's: both files, where
 * the keys first differ and, when the kind judged the .vk, which of the
 * two is the one to replace. */
static char *vk_mismatch_msg(const srs_entry *s, const char *what, const char *note)
{
    const char *which = s->load_keys == CUZK_KEYS_CEREMONY       ? "; the .vk is the ceremony's ("
                        : s->load_keys == CUZK_KEYS_NOT_CEREMONY ? "; the .vk is not the ceremony's either ("
                                                                 : "";
    const char *then = s->load_keys == CUZK_KEYS_CEREMONY ? "): the .params is the file to replace" : ")";
    bool judged = which[0] != 0;
    return cuzk_strf("%s does not go with %s: the verifying key inside the .params is not the .vk's (they differ "
                    "at %s), so its proofs would be rejected by every verifier holding the .vk%s%s%s; refused",
                    s->path, s->vk_path, what, which, judged ? note : "", judged ? then : "");
}

/* The .vk beside the parameters (decoded into params): read, judged and
 * compared with the key inside the .params. *vk gets the file's key
 * (zeroed and load_keys NO_VK when there is no .vk: the .params' own key
 * then verifies). */
static int srs_vk_check(srs_entry *s, cuzk_groth16_vk *vk, char **msg)
{
    memset(vk, 0, sizeof *vk);
    s->load_keys = CUZK_KEYS_NO_VK;
    free(s->load_keys_note);
    s->load_keys_note = NULL;
    if (!s->vk_path) return CUZK_OK;
    uint8_t *buf = NULL;
    size_t len = 0;
    int err = cuzk_file_read(s->vk_path, VK_FILE_MAX, &buf, &len);
    if (err == CUZK_ERR_IO && errno == ENOENT) {
        s->load_keys_note = cuzk_strf("no %s: proofs are checked against the key inside %s only, whose setup "
                                     "nothing confirms",
                                     s->vk_path, s->path);
        return CUZK_OK;
    }
    if (err != CUZK_OK) {
        *msg = cuzk_strf("%s (the verifying key of %s): %s", s->vk_path, s->path,
                        err == CUZK_ERR_IO ? strerror(errno)
                        : err == CUZK_ERR_BAD_LENGTH ? "larger than 16 MiB: not a .vk"
                                                     : cuzk_strerror(err));
        return err;
    }
    cuzk_groth16_error gerr;
    memset(&gerr, 0, sizeof gerr);
    char note[512] = "";
    err = cuzk_groth16_vk_read_mem(vk, buf, len, NULL, &gerr);
    if (err == CUZK_OK) srs_vk_judge(s, buf, len, note, sizeof note);
    free(buf);
    if (err != CUZK_OK) {
        /* the reader names its source "<memory>": the file is named here */
        const char *why = gerr.msg[0] ? gerr.msg : cuzk_strerror(err);
        if (!strncmp(why, "<memory>: ", 10)) why += 10;
        *msg = cuzk_strf("%s (the verifying key of %s): %s", s->vk_path, s->path, why);
        return err;
    }
    char what[64];
    if (!cuzk_groth16_vk_equal(&s->params.vk, vk, what, sizeof what)) {
        *msg = vk_mismatch_msg(s, what, note);
        cuzk_groth16_vk_free(vk);
        return CUZK_ERR_FORMAT;
    }
    return CUZK_OK;
}

/* Decodes or copies the parameters; the caller set LOADING, so this thread
 * owns params, pvk and load_keys until srs_load_done. */
int srs_load(cuzk_engine *e, srs_entry *s, char **msg)
{
    int err;
    cuzk_groth16_vk vk;
    memset(&vk, 0, sizeof vk);
    if (s->path) {
        /* read, not mapped (cuzk_groth16_params_read_file): a file cut or
         * rewritten under the load is this load's error, never a SIGBUS of
         * the daemon; once decoded, the file is not looked at again */
        cuzk_groth16_error gerr;
        memset(&gerr, 0, sizeof gerr);
        err = cuzk_groth16_params_read_file(&s->params, s->path, s->mode, e->ncpu, &gerr);
        if (err != CUZK_OK) {
            const char *why = gerr.msg[0] ? gerr.msg : cuzk_strerror(err);
            size_t n = strlen(s->path); /* the reader names the file too */
            if (!strncmp(why, s->path, n) && !strncmp(why + n, ": ", 2)) why += n + 2;
            *msg = cuzk_strf("%s: %s", s->path, why);
            return err;
        }
        if ((err = srs_vk_check(s, &vk, msg)) != CUZK_OK) {
            cuzk_groth16_params_free(&s->params);
            return err;
        }
    } else {
        s->load_keys = CUZK_KEYS_NO_VK;
        err = params_copy(&s->params, s->src);
        if (err != CUZK_OK) {
            *msg = cuzk_strf("copying parameters: %s", cuzk_strerror(err));
            return err;
        }
    }
    /* the verifiers' key: the .vk's when there is one (equal to the one
     * inside the .params, as srs_vk_check made sure) */
    bool have_vk = s->load_keys != CUZK_KEYS_NO_VK;
    err = cuzk_groth16_prepare_vk(&s->pvk, have_vk ? &vk : &s->params.vk);
    cuzk_groth16_vk_free(&vk);
    if (err != CUZK_OK) {
        cuzk_groth16_params_free(&s->params);
        *msg = cuzk_strf("preparing the verifying key: %s", cuzk_strerror(err));
        return err;
    }
    srs_pin(e, s);
    return CUZK_OK;
}

/* For srs_failed: the .params' and the .vk's identities, since either
 * file, fixed, may end a failure (a .vk of another setup is replaced as
 * often as the .params). */
static void srs_file_id(const srs_entry *s, uint64_t id[8])
{
    file_id(s->path, id);
    file_id(s->vk_path, id + 4);
}

static void srs_fail_clear(srs_entry *s)
{
    free(s->fail_msg);
    s->fail_msg = NULL;
    s->fail_time = 0;
}

bool srs_failed(srs_entry *s)
{
    if (!s->fail_msg) return false;
    /* a stat under the lock, only for a kind whose load failed: cheap next
     * to reading the file again, and what lets a fixed file be used without
     * a restart */
    uint64_t id[8];
    srs_file_id(s, id);
    if (!memcmp(id, s->fail_id, sizeof id)) return true;
    srs_fail_clear(s);
    return false;
}

/* Under the lock, after a successful load: what srs_vk_check found
 * becomes the entry's keys, said in the log; keys that are not the
 * ceremony's at every load (a warning: proofs made with them are rejected
 * where it counts), a missing .vk once. */
static void srs_keys_commit(cuzk_engine *e, srs_entry *s)
{
    free(s->keys_note);
    s->keys = s->load_keys;
    s->keys_note = s->load_keys_note;
    s->load_keys_note = NULL;
    const char *note = s->keys_note ? s->keys_note : "";
    switch (s->keys) {
    case CUZK_KEYS_CEREMONY: eng_log(e, 2, "parameters of %s: the ceremony's keys (%s)", s->circuit_id, note); break;
    case CUZK_KEYS_NOT_CEREMONY:
        eng_log(e, 1,
                "parameters of %s: NOT the ceremony's keys (%s): its proofs verify here and are rejected by every "
                "verifier holding the ceremony's key; replace the .params and .vk with the ceremony's",
                s->circuit_id, note);
        break;
    case CUZK_KEYS_VK: eng_log(e, 2, "parameters of %s: checked against %s", s->circuit_id, note); break;
    case CUZK_KEYS_NO_VK:
        if (s->vk_path && !s->no_vk_said) eng_log(e, 1, "parameters of %s: %s", s->circuit_id, note);
        s->no_vk_said |= s->vk_path != NULL;
        break;
    case CUZK_KEYS_UNCHECKED: break;
    }
}

void srs_load_done(cuzk_engine *e, srs_entry *s, int err, double secs, const char *msg)
{
    if (err == CUZK_OK) srs_fail_clear(s);
    else if (err != CUZK_ERR_NO_MEMORY && err != CUZK_ERR_CANCELLED) {
        /* the file (or its copy) is bad: remembered, so that jobs fail at
         * once saying why instead of each reading it again */
        char *m = strdup(msg ? msg : cuzk_strerror(err));
        if (m) {
            free(s->fail_msg);
            s->fail_msg = m;
            s->fail_time = (int64_t)time(NULL);
            srs_file_id(s, s->fail_id);
        }
        /* what an earlier load found of the files no longer holds */
        s->keys = CUZK_KEYS_UNCHECKED;
        free(s->keys_note);
        s->keys_note = NULL;
    }
    if (err == CUZK_OK) {
        uint64_t actual = params_bytes(&s->params);
        mem_force(e, (int64_t)actual - (int64_t)s->bytes);
        s->bytes = s->est_bytes = actual;
        s->state = CUZK_SRS_HOT;
        s->set_id = cuzk_handle_new();
        s->loads++;
        s->load_s += secs;
        s->last_used = ++e->lru_tick;
        e->c.srs_loads++;
        e->c.srs_load_busy_s += secs;
        eng_log(e, 2, "loaded parameters of %s (%llu bytes) in %.3f s", s->circuit_id,
                (unsigned long long)actual, secs);
        srs_keys_commit(e, s);
    } else {
        free(s->load_keys_note);
        s->load_keys_note = NULL;
        s->state = CUZK_SRS_COLD;
        mem_release(e, s->bytes);
        s->bytes = 0;
    }
    eng_wake_all(e);
}

void srs_handle(const srs_entry *s, const void *pce, uint64_t pce_id, cuzk_engine_set *out)
{
    *out = (cuzk_engine_set){.id = s->set_id, .name = s->circuit_id, .params = &s->params,
                             .pce_id = pce ? pce_id : 0, .pce = pce};
}

/* what (CUZK_EVICT_PARAMS, _PCE) of s's handle on every device */
static void srs_evict_devices(cuzk_engine *e, const srs_entry *s, const void *pce, uint64_t pce_id, unsigned what)
{
    if (!e->prover.evict) return;
    cuzk_engine_set set;
    srs_handle(s, pce, pce_id, &set);
    for (unsigned d = 0; d < e->n_devices; d++) e->prover.evict(e->prover.ctx, e->devs[d], &set, what);
}

void srs_drop(cuzk_engine *e, srs_entry *s, bool to_cold)
{
    if (s->state == CUZK_SRS_HOT) {
        srs_evict_devices(e, s, NULL, 0, CUZK_EVICT_PARAMS);
        srs_unpin(e, s);
        cuzk_groth16_params_free(&s->params);
        cuzk_groth16_pvk_free(&s->pvk);
        mem_release(e, s->bytes);
        s->bytes = 0;
        s->host_released = false;
        e->c.srs_evictions++;
    }
    if (s->state != CUZK_SRS_LOADING) s->state = s->path && !to_cold ? CUZK_SRS_WARM : CUZK_SRS_COLD;
}

/* Once every usable device holds a HOT set (the prover's evict with
 * CUZK_EVICT_HOST_ARRAYS says so for each), the host's point arrays are only
 * the source of an upload that will not happen again: their pages go back
 * to the kernel and their bytes to the budget. The arrays stay allocated,
 * their addresses unchanged, so that proves in flight, which compare them
 * with the device copy's source and read nothing from them, need no pause;
 * the eviction frees them as before. Kept with a CPU fallback (it proves
 * from them) or keep_host_params. Called with the lock held; the unpinning
 * and discarding of a large set (seconds for 44 GiB) happen without it,
 * the set referenced meanwhile so that no eviction frees the arrays. Cheap
 * when it does nothing; the GPU prover's answer never waits on an upload. */
void srs_release_host(cuzk_engine *e, srs_entry *s)
{
    if (s->state != CUZK_SRS_HOT || s->host_released || !e->prover.evict || !e->n_healthy ||
        e->n_fb_workers || e->cfg.keep_host_params)
        return;
    cuzk_engine_set set;
    srs_handle(s, NULL, 0, &set);
    for (unsigned d = 0; d < e->n_devices; d++)
        if (!e->dstate[d].failed && e->prover.evict(e->prover.ctx, e->devs[d], &set, CUZK_EVICT_HOST_ARRAYS) != CUZK_OK)
            return;
    s->host_released = true;
    s->refs++;
    cuzk_engine_pin_how how[5];
    srs_unpin_take(e, s, how);
    pthread_mutex_unlock(&e->mu);
    srs_unpin_arrays(e, s, how); /* before the discard: locked pages would stay */
    void *ptr[5];
    size_t len[5], n = pin_arrays(&s->params, ptr, len);
    uint64_t freed = 0;
    for (size_t i = 0; i < n; i++) /* an array of under two pages, or one the kernel kept, stays counted */
        if (cuzk_mem_discard(ptr[i], len[i])) freed += len[i];
    pthread_mutex_lock(&e->mu);
    if (freed > s->bytes) freed = s->bytes;
    s->bytes -= freed;
    e->c.srs_host_released++;
    mem_release(e, freed);
    eng_log(e, 2, "parameters of %s: the devices' copies stand in for the host's; %.1f GiB freed", s->circuit_id,
            freed / 1073741824.0);
    srs_unref(e, s);
}

void srs_unref(cuzk_engine *e, srs_entry *s)
{
    s->refs--;
    s->last_used = ++e->lru_tick;
    if (s->refs == 0 && s->evict_pending && s->state == CUZK_SRS_HOT) {
        s->evict_pending = false;
        srs_drop(e, s, true);
    }
    /* an idle entry is evictable: memory waiters may proceed */
    pthread_cond_broadcast(&e->cpu_cv);
    pthread_cond_broadcast(&e->done_cv);
}

/* The prover's device copies of a PCE go before the PCE does. */
static void pce_evict_devices(cuzk_engine *e, srs_entry *s, const void *pce, uint64_t pce_id)
{
    if (pce) srs_evict_devices(e, s, pce, pce_id, CUZK_EVICT_PCE);
}

void srs_free_all(cuzk_engine *e)
{
    for (size_t i = 0; i < e->nsrs; i++) {
        srs_entry *s = e->srs[i];
        srs_drop(e, s, true);
        pce_evict_devices(e, s, s->pce, s->pce_id);
        if (s->pce && e->pce.free) e->pce.free(e->pce.ctx, s->pce);
        for (size_t r = 0; r < s->n_pce_retired; r++)
            if (e->pce.free) e->pce.free(e->pce.ctx, s->pce_retired[r]);
        free(s->pce_retired);
        free(s->fail_msg);
        free(s->keys_note);
        free(s->load_keys_note);
        free(s->vk_path);
        if (s->pce_state == CUZK_PCE_RESIDENT || s->pce_state == CUZK_PCE_EXTRACTING) mem_release(e, s->pce_bytes);
        free(s->circuit_id);
        free(s->path);
        free(s);
    }
    free(e->srs);
    e->srs = NULL;
    e->nsrs = e->srs_cap = 0;
}

/* The prover's devices take the parameters (and the resident PCE) now,
 * so that the first proof does not upload them. Called and returns with
 * e->mu held; both stay referenced (neither evictable) while it runs. */
static void srs_warm_devices(cuzk_engine *e, srs_entry *s)
{
    if (s->state != CUZK_SRS_HOT) return;
    const bool pce = s->pce_state == CUZK_PCE_RESIDENT && s->pce;
    s->refs++;
    if (pce) s->pce_refs++;
    cuzk_engine_set set;
    srs_handle(s, pce ? s->pce : NULL, s->pce_id, &set);
    pthread_mutex_unlock(&e->mu);
    unsigned warm = 0;
    for (unsigned d = 0; d < e->n_devices; d++) {
        char msg[512] = "";
        double t0 = cuzk_now();
        int err = e->prover.warm(e->prover.ctx, e->devs[d], &set, msg, sizeof msg);
        warm += err == CUZK_OK;
        if (err) eng_log(e, 1, "device %u: uploading %s ahead of the first proof: %s (%s)", d, s->circuit_id,
                         cuzk_strerror(err), msg);
        else eng_log(e, 2, "device %u: parameters%s of %s resident in %.3f s%s%s", d, pce ? " and PCE" : "",
                     s->circuit_id, cuzk_now() - t0, msg[0] ? ": " : "", msg);
    }
    pthread_mutex_lock(&e->mu);
    if (pce) pce_unref(e, s);
    if (warm == e->n_devices) srs_release_host(e, s);
    srs_unref(e, s);
}

int cuzk_engine_srs_preload(cuzk_engine *e, const char *circuit_id)
{
    if (!e || !circuit_id) return CUZK_ERR_INVALID_ARG;
    pthread_mutex_lock(&e->mu);
    srs_entry *s = srs_find(e, circuit_id);
    int err = s ? CUZK_OK : CUZK_ERR_INVALID_ARG;
    while (s) {
        if (e->shutdown) {
            err = CUZK_ERR_CANCELLED;
            break;
        }
        if (s->state == CUZK_SRS_HOT) {
            s->last_used = ++e->lru_tick;
            s->evict_pending = false;
            break;
        }
        if (s->state == CUZK_SRS_LOADING) {
            pthread_cond_wait(&e->done_cv, &e->mu);
            continue;
        }
        if (s->est_bytes > e->budget) {
            err = CUZK_ERR_NO_MEMORY;
            break;
        }
        if (!mem_try(e, s->est_bytes)) {
            e->c.memory_waits++;
            pthread_cond_wait(&e->done_cv, &e->mu); /* memory release broadcasts it */
            continue;
        }
        s->state = CUZK_SRS_LOADING;
        s->bytes = s->est_bytes;
        s->refs++;
        pthread_mutex_unlock(&e->mu);
        char *msg = NULL;
        double t0 = cuzk_now();
        err = srs_load(e, s, &msg);
        double t1 = cuzk_now();
        pthread_mutex_lock(&e->mu);
        srs_load_done(e, s, err, t1 - t0, msg);
        srs_unref(e, s);
        if (err != CUZK_OK)
            eng_log(e, 0, "preloading parameters of %s: %s", circuit_id, msg ? msg : cuzk_strerror(err));
        free(msg);
        break;
    }
    if (err == CUZK_OK && s && e->prover.warm && !e->shutdown) srs_warm_devices(e, s);
    pthread_mutex_unlock(&e->mu);
    return err;
}

int cuzk_engine_srs_failure(cuzk_engine *e, const char *circuit_id, char **msg, int64_t *when)
{
    if (!e || !circuit_id || !msg) return CUZK_ERR_INVALID_ARG;
    *msg = NULL;
    pthread_mutex_lock(&e->mu);
    srs_entry *s = srs_find(e, circuit_id);
    int err = s ? CUZK_OK : CUZK_ERR_INVALID_ARG;
    if (s && srs_failed(s)) {
        if (!(*msg = strdup(s->fail_msg))) err = CUZK_ERR_NO_MEMORY;
        if (when) *when = s->fail_time;
    }
    pthread_mutex_unlock(&e->mu);
    return err;
}

const char *cuzk_engine_keys_name(cuzk_engine_keys k)
{
    static const char *const n[] = {"unchecked", "ceremony", "not-ceremony", "no-vk", "vk"};
    return (unsigned)k < sizeof n / sizeof n[0] ? n[k] : "unknown";
}

int cuzk_engine_srs_keys(cuzk_engine *e, const char *circuit_id, cuzk_engine_keys *keys, char **note)
{
    if (!e || !circuit_id || !keys) return CUZK_ERR_INVALID_ARG;
    if (note) *note = NULL;
    pthread_mutex_lock(&e->mu);
    srs_entry *s = srs_find(e, circuit_id);
    int err = s ? CUZK_OK : CUZK_ERR_INVALID_ARG;
    if (s) {
        *keys = s->keys;
        if (note && s->keys_note && !(*note = strdup(s->keys_note))) err = CUZK_ERR_NO_MEMORY;
    }
    pthread_mutex_unlock(&e->mu);
    return err;
}

int cuzk_engine_srs_evict(cuzk_engine *e, const char *circuit_id)
{
    if (!e || !circuit_id) return CUZK_ERR_INVALID_ARG;
    pthread_mutex_lock(&e->mu);
    srs_entry *s = srs_find(e, circuit_id);
    if (s) {
        if (s->refs == 0 && s->state != CUZK_SRS_LOADING) srs_drop(e, s, true);
        else s->evict_pending = true;
    }
    pthread_mutex_unlock(&e->mu);
    return s ? CUZK_OK : CUZK_ERR_INVALID_ARG;
}

int cuzk_engine_srs_state(cuzk_engine *e, const char *circuit_id, cuzk_srs_state *state)
{
    if (!e || !circuit_id || !state) return CUZK_ERR_INVALID_ARG;
    pthread_mutex_lock(&e->mu);
    srs_entry *s = srs_find(e, circuit_id);
    if (s) *state = s->state;
    pthread_mutex_unlock(&e->mu);
    return s ? CUZK_OK : CUZK_ERR_INVALID_ARG;
}

/* ---- PCE manager -------------------------------------------------------- */

int cuzk_engine_pce_state(cuzk_engine *e, const char *circuit_id, cuzk_pce_state *state)
{
    if (!e || !circuit_id || !state) return CUZK_ERR_INVALID_ARG;
    pthread_mutex_lock(&e->mu);
    srs_entry *s = srs_find(e, circuit_id);
    if (s) *state = s->pce_state;
    pthread_mutex_unlock(&e->mu);
    return s ? CUZK_OK : CUZK_ERR_INVALID_ARG;
}

/* A cache from disk when a kind is registered (one attempt per circuit). */
void pce_load_cached(cuzk_engine *e, kind_entry *k)
{
    if (!e->have_pce || !e->pce.load) return;
    srs_entry *s = k->srs;
    pthread_mutex_lock(&e->mu);
    bool go = s->pce_state == CUZK_PCE_NONE && !s->pce_kind;
    if (go) {
        s->pce_state = CUZK_PCE_EXTRACTING; /* keeps extraction away meanwhile */
        s->pce_kind = &k->k;
    }
    pthread_mutex_unlock(&e->mu);
    if (!go) return;
    void *pce = NULL;
    uint64_t bytes = 0;
    int err = e->pce.load(e->pce.ctx, &k->k, &pce, &bytes);
    pthread_mutex_lock(&e->mu);
    if (err == CUZK_OK && pce) {
        s->pce = pce;
        s->pce_id = cuzk_handle_new();
        s->pce_bytes = bytes;
        mem_force(e, (int64_t)bytes); /* already in memory: account for it */
        s->pce_state = CUZK_PCE_RESIDENT;
        s->pce_last_used = ++e->lru_tick;
        eng_log(e, 2, "loaded the PCE of %s from disk", s->circuit_id);
    } else {
        s->pce_state = CUZK_PCE_NONE;
    }
    eng_wake_all(e);
    pthread_mutex_unlock(&e->mu);
}

typedef struct pce_job {
    cuzk_engine *e;
    srs_entry *s;
    size_t inputs_len;
    uint8_t inputs[]; /* the triggering job's, copied */
} pce_job;

static void *pce_thread_main(void *arg)
{
    pce_job *pj = arg;
    cuzk_engine *e = pj->e;
    srs_entry *s = pj->s;
    void *pce = NULL;
    uint64_t bytes = 0;
    /* no inputs (a prepared kind): NULL, the blank circuit (pj->inputs is never NULL) */
    int err = e->pce.extract(e->pce.ctx, s->pce_kind, pj->inputs_len ? pj->inputs : NULL, pj->inputs_len, &pce,
                             &bytes);
    free(pj);
    pthread_mutex_lock(&e->mu);
    if (err == CUZK_OK && pce) {
        mem_force(e, (int64_t)bytes - (int64_t)s->pce_bytes);
        s->pce = pce;
        s->pce_id = cuzk_handle_new();
        s->pce_bytes = bytes;
        s->pce_state = CUZK_PCE_RESIDENT;
        s->pce_last_used = ++e->lru_tick;
        e->c.pce_extractions++;
        eng_log(e, 2, "PCE of %s extracted (%llu bytes)", s->circuit_id, (unsigned long long)bytes);
    } else {
        mem_release(e, s->pce_bytes);
        s->pce_bytes = 0;
        s->pce_state = CUZK_PCE_FAILED;
        e->c.pce_failures++;
        eng_log(e, 1, "PCE extraction of %s failed: %s", s->circuit_id, cuzk_strerror(err ? err : CUZK_ERR_INTERNAL));
    }
    eng_wake_all(e);
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* After a full synthesis: start the one background extraction of its circuit. */
void pce_maybe_extract(cuzk_engine *e, kind_entry *k, const void *inputs, size_t inputs_len)
{
    srs_entry *s = k->srs;
    if (!e->have_pce || !e->pce.extract || e->shutdown || s->pce_state != CUZK_PCE_NONE) return;
    if (s->pce_thread_live) {
        /* an earlier extraction (its PCE since evicted) set its result
         * under this lock and only returns now: the join is immediate */
        pthread_join(s->pce_thread, NULL);
        s->pce_thread_live = false;
    }
    uint64_t est = e->pce.estimate_bytes ? e->pce.estimate_bytes(e->pce.ctx, &k->k) : 0;
    if (s->pce_last_bytes > est) est = s->pce_last_bytes; /* re-extraction after an eviction */
    if (est && !mem_try(e, est)) return; /* later, when memory allows */
    pce_job *pj = malloc(sizeof *pj + inputs_len);
    s->pce_kind = &k->k;
    s->pce_bytes = est;
    s->pce_state = CUZK_PCE_EXTRACTING;
    if (pj) {
        pj->e = e, pj->s = s, pj->inputs_len = inputs_len;
        if (inputs_len) memcpy(pj->inputs, inputs, inputs_len);
        if (pthread_create(&s->pce_thread, NULL, pce_thread_main, pj) == 0) {
            s->pce_thread_live = true;
            return;
        }
        free(pj);
    }
    s->pce_state = CUZK_PCE_NONE;
    mem_release(e, est);
    s->pce_bytes = 0;
}

void pce_unref(cuzk_engine *e, srs_entry *s)
{
    s->pce_refs--;
    s->pce_last_used = ++e->lru_tick;
    /* an idle PCE is evictable: memory waiters may proceed */
    pthread_cond_broadcast(&e->cpu_cv);
    pthread_cond_broadcast(&e->done_cv);
}

/* Frees an idle resident PCE; the next full synthesis of its circuit
 * extracts it again (from the PCE layer's disk cache when it has one). */
void pce_drop(cuzk_engine *e, srs_entry *s)
{
    if (s->pce_state != CUZK_PCE_RESIDENT || s->pce_refs) return;
    pce_evict_devices(e, s, s->pce, s->pce_id);
    if (s->pce && e->pce.free) e->pce.free(e->pce.ctx, s->pce);
    s->pce = NULL;
    mem_release(e, s->pce_bytes);
    s->pce_last_bytes = s->pce_bytes;
    s->pce_bytes = 0;
    s->pce_state = CUZK_PCE_NONE;
    s->pce_evictions++;
    e->c.pce_evictions++;
}

void pce_drop_invalid(cuzk_engine *e, srs_entry *s, void *pce)
{
    if (s->pce != pce || s->pce_state != CUZK_PCE_RESIDENT) return; /* dropped by another task already */
    void **r = realloc(s->pce_retired, (s->n_pce_retired + 1) * sizeof *r);
    if (!r) return; /* keep it resident: every witness through it falls back to full synthesis */
    s->pce_retired = r;
    r[s->n_pce_retired++] = pce;
    pce_evict_devices(e, s, pce, s->pce_id);
    s->pce = NULL;
    mem_release(e, s->pce_bytes);
    s->pce_last_bytes = s->pce_bytes;
    s->pce_bytes = 0;
    s->pce_state = CUZK_PCE_NONE;
    s->pce_kind = NULL;
    e->c.pce_failures++;
    eng_log(e, 1, "the PCE of %s failed verification after load; full synthesis until it is extracted again",
            s->circuit_id);
}

void pce_join_all(cuzk_engine *e)
{
    for (size_t i = 0; i < e->nsrs; i++)
        if (e->srs[i]->pce_thread_live) {
            pthread_join(e->srs[i]->pce_thread, NULL);
            e->srs[i]->pce_thread_live = false;
        }
}

/* ---- how many synthesize at once ------------------------------------------ */

/* Unless configured: min(cores, budget / the largest partition footprint
 * of a registered kind), at least 1, logged when it changes. */
void synth_limit_update(cuzk_engine *e)
{
    if (e->synth_fixed) return;
    uint64_t fp = 0;
    const char *which = NULL;
    for (size_t i = 0; i < e->nkinds; i++)
        if (e->kinds[i]->witness_bytes > fp) fp = e->kinds[i]->witness_bytes, which = e->kinds[i]->k.name;
    unsigned n = cuzk_engine_synthesis_workers_default(e->n_cpu_workers, e->budget, fp);
    if (n == e->synth_limit) return;
    e->synth_limit = n;
    eng_log(e, 2, "synthesis workers: %u = min(%u cores, budget %llu / %llu bytes per partition of %s)", n,
            e->n_cpu_workers, (unsigned long long)e->budget, (unsigned long long)fp, which ? which : "?");
}

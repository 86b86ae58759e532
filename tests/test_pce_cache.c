/* The PCE cache cannot poison a run: truncated files, a flipped byte in
 * every section and in the header, another format or library version,
 * another fingerprint or circuit id, leftover temporaries, concurrent
 * writers and readers (threads and fork()ed processes), no_wait, and a
 * writer killed with SIGKILL half way: each case ends with the correct PCE
 * in use (its content hash equals a fresh extraction's, its evaluations
 * equal a ProvingAssignment's, a proof from it verifies), a corrupt file
 * logged exactly once and set aside, and exactly one extraction. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuzk/util/error.h"
#include "cuzk/groth16/groth16_pce.h"
#include "cuzk/pce/pce.h"
#include "pce/pce_internal.h"
#include "test_pce_circuit.h"
#include "testutil.h"

static cuzk_rng rng;
static char root[256];
static int dir_seq;
static pc_cfg cfg;
static uint8_t fp[32];
static cuzk_proving_cs *ref_p;
static cuzk_witness_cs *ref_w;
static cuzk_pce *ref_pce;
static cuzk_groth16_params params;
static const char *ID = "porep-test";

/* ---- log capture ---- */
static int log_lines, log_aside;
static char log_last[512];
static void log_hook(const char *line, void *ctx)
{
    (void)ctx;
    log_lines++;
    if (strstr(line, "set aside")) log_aside++;
    snprintf(log_last, sizeof log_last, "%s", line);
}

static int synth(cuzk_cs *cs, void *ctx)
{
    pc_circuit(cs, ctx);
    return cuzk_cs_error(cs);
}

static void new_dir(char *out, size_t n)
{
    snprintf(out, n, "%s/d%d", root, dir_seq++);
    mkdir(out, 0755);
}

static void path_of(char *out, size_t n, const char *dir, const char *suffix)
{
    snprintf(out, n, "%s/%s.pce%s", dir, ID, suffix);
}

static bool exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static int count_temps(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (strstr(de->d_name, ".pce.tmp.")) n++;
    if (d) closedir(d);
    return n;
}

/* The PCE in use is the right one: same content as a fresh extraction,
 * evaluations equal to the ProvingAssignment, and its proof verifies. */
static bool pce_good(const cuzk_pce *pce)
{
    if (!pce || memcmp(pce->content_hash, ref_pce->content_hash, 32)) return false;
    cuzk_pce_eval_buf buf;
    if (cuzk_pce_eval_buf_alloc(&buf, pce)) return false;
    size_t m = ref_p->base.num_constraints;
    bool ok = cuzk_pce_eval(pce, ref_w, &buf, 2, NULL) == CUZK_OK && !memcmp(buf.a, ref_p->a.v, m * 32) &&
              !memcmp(buf.b, ref_p->b.v, m * 32) && !memcmp(buf.c, ref_p->c.v, m * 32);
    cuzk_pce_eval_buf_free(&buf);
    cuzk_fr r, s;
    cuzk_fr_random(&r, &rng), cuzk_fr_random(&s, &rng);
    cuzk_groth16_proof pf;
    cuzk_groth16_pvk pvk;
    ok = ok && cuzk_groth16_prove_pce(&pf, &params, pce, ref_w, &r, &s, 1, NULL, NULL, NULL) == CUZK_OK;
    ok = ok && cuzk_groth16_prepare_vk(&pvk, &params.vk) == CUZK_OK;
    if (ok) {
        ok = cuzk_groth16_verify(&pvk, &pf, ref_w->input.v + 1, ref_w->input.len - 1) == CUZK_OK;
        cuzk_groth16_pvk_free(&pvk);
    }
    return ok;
}

static cuzk_pce *cache_get(const char *dir, const uint8_t *f, bool no_wait, cuzk_pce_cache_outcome *oc)
{
    cuzk_pce_cache_opts o = {.dir = dir, .nthreads = 2, .no_wait = no_wait};
    cuzk_pce *p = NULL;
    cuzk_pce_error e;
    int rc = cuzk_pce_cache_get(&p, &o, ID, f, synth, &cfg, oc, &e);
    if (rc) fprintf(stderr, "cache_get: %s\n", e.msg);
    return p;
}

static void write_file(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (n) fwrite(b, 1, n, f);
    fclose(f);
}

/* The cache meets a bad file at the expected path: one log line, set
 * aside, re-extracted, correct. */
static void recover(const char *what, const char *dir)
{
    char path[512], aside[512];
    path_of(path, sizeof path, dir, "");
    path_of(aside, sizeof aside, dir, ".rejected");
    unlink(aside);
    int l0 = log_aside;
    cuzk_pce_counters c0, c1;
    cuzk_pce_counters_get(&c0);
    cuzk_pce_cache_outcome oc = 0;
    cuzk_pce *p = cache_get(dir, fp, false, &oc);
    cuzk_pce_counters_get(&c1);
    CHECK_MSG(oc == CUZK_PCE_CACHE_EXTRACTED && pce_good(p), "%s: recovery", what);
    CHECK_MSG(log_aside == l0 + 1 && exists(aside) && c1.set_aside == c0.set_aside + 1 &&
                  c1.extractions == c0.extractions + 1,
              "%s: logged once (%d) and set aside", what, log_aside - l0);
    cuzk_pce_free(p);
    /* and the next request loads the new file without a word */
    l0 = log_lines;
    p = cache_get(dir, fp, false, &oc);
    CHECK_MSG(oc == CUZK_PCE_CACHE_LOADED && pce_good(p) && log_lines == l0, "%s: reload", what);
    cuzk_pce_free(p);
}

static void rehash_header(uint8_t *img)
{
    unsigned int n = 32;
    EVP_Digest(img, PCE_OFF_HEADER_SHA, img + PCE_OFF_HEADER_SHA, &n, EVP_sha256(), NULL);
}

/* Plants a damaged copy of the reference image; checks the loader's verdict. */
static void damaged(const char *what, const uint8_t *img, size_t len, cuzk_pce_fail want, const char *want_in_msg)
{
    char dir[300], path[512];
    new_dir(dir, sizeof dir);
    path_of(path, sizeof path, dir, "");
    write_file(path, img, len);
    cuzk_pce *p = NULL;
    cuzk_pce_error e;
    cuzk_pce_expect ex = {.circuit_id = ID, .fingerprint = fp};
    int rc = cuzk_pce_load_file(&p, path, &ex, 0, 2, &e);
    CHECK_MSG(rc == CUZK_ERR_FORMAT && !p && (want == CUZK_PCE_FAIL_NONE || e.fail == want) &&
                  (!want_in_msg || strstr(e.msg, want_in_msg)),
              "%s: rc %d fail %s (%s)", what, rc, cuzk_pce_fail_name(e.fail), rc ? e.msg : "");
    /* without checksums the structure checks still keep it memory-safe */
    rc = cuzk_pce_load_file(&p, path, &ex, CUZK_PCE_LOAD_NO_CHECKSUMS, 1, &e);
    cuzk_pce_free(p);
    recover(what, dir);
}

static void test_fresh_and_files(void)
{
    char dir[300], path[512];
    new_dir(dir, sizeof dir);
    path_of(path, sizeof path, dir, "");
    cuzk_pce_cache_outcome oc = 0;
    int l0 = log_lines;
    cuzk_pce *p = cache_get(dir, fp, false, &oc);
    CHECK(oc == CUZK_PCE_CACHE_EXTRACTED && pce_good(p) && exists(path) && log_lines == l0);
    cuzk_pce_free(p);
    p = cache_get(dir, fp, false, &oc);
    CHECK(oc == CUZK_PCE_CACHE_LOADED && p && p->mapped && pce_good(p) && count_temps(dir) == 0);
    cuzk_pce_free(p);

    const uint8_t *img = ref_pce->image;
    const size_t len = ref_pce->image_len;
    uint8_t *buf = malloc(len);

    /* truncations */
    size_t cuts[] = {0, 7, 100, PCE_HEADER_BYTES - 1, PCE_HEADER_BYTES, PCE_HEADER_BYTES + 1, len / 2, len - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "truncated to %zu", cuts[i]);
        damaged(what, img, cuts[i], CUZK_PCE_FAIL_TRUNCATED, NULL);
    }
    /* a flipped byte in every section (the section is named), in the header,
     * in padding between sections, and appended garbage */
    for (unsigned s = 0; s < PCE_NUM_SECTIONS; s++) {
        const uint8_t *e = img + PCE_OFF_SECTIONS + s * PCE_SECTION_ENTRY_BYTES;
        uint64_t off = pce_rd64(e + 8), sl = pce_rd64(e + 16);
        CHECK_MSG(sl > 0, "section %s is empty in the test circuit", pce_section_names[s + 1]);
        if (!sl) continue;
        memcpy(buf, img, len);
        uint64_t at = off + cuzk_rng_u64(&rng) % sl;
        buf[at] ^= (uint8_t)(1u << (cuzk_rng_u64(&rng) % 8));
        char what[64];
        snprintf(what, sizeof what, "flip in %s at %llu", pce_section_names[s + 1], (unsigned long long)at);
        damaged(what, buf, len, CUZK_PCE_FAIL_SECTION_CHECKSUM, pce_section_names[s + 1]);
    }
    for (int i = 0; i < 4; i++) {
        memcpy(buf, img, len);
        size_t at = (size_t)(cuzk_rng_u64(&rng) % PCE_HEADER_BYTES);
        buf[at] ^= (uint8_t)(1u << (cuzk_rng_u64(&rng) % 8));
        char what[64];
        snprintf(what, sizeof what, "flip in the header at %zu", at);
        damaged(what, buf, len, CUZK_PCE_FAIL_NONE, NULL);
    }
    {
        const uint8_t *e = img + PCE_OFF_SECTIONS; /* padding after A.row_ptr, if any */
        uint64_t end = pce_rd64(e + 8) + pce_rd64(e + 16), next = pce_rd64(e + PCE_SECTION_ENTRY_BYTES + 8);
        if (next > end) {
            memcpy(buf, img, len);
            buf[end] = 1;
            damaged("non-zero padding", buf, len, CUZK_PCE_FAIL_STRUCTURE, NULL);
        }
        uint8_t *big = malloc(len + 5);
        memcpy(big, img, len);
        memset(big + len, 0, 5);
        damaged("trailing bytes", big, len + 5, CUZK_PCE_FAIL_STRUCTURE, NULL);
        free(big);
    }
    /* other format version, other library version (headers re-hashed: only the version is wrong) */
    memcpy(buf, img, len);
    pce_wr32(buf + PCE_OFF_VERSION, CUZK_PCE_FORMAT_VERSION + 1);
    rehash_header(buf);
    damaged("format version", buf, len, CUZK_PCE_FAIL_VERSION, NULL);
    memcpy(buf, img, len);
    memset(buf + PCE_OFF_LIBVER, 0, PCE_LIBVER_BYTES);
    memcpy(buf + PCE_OFF_LIBVER, "0.0.1-older", 11);
    rehash_header(buf);
    damaged("library version", buf, len, CUZK_PCE_FAIL_LIBRARY_VERSION, "0.0.1-older");
    /* a consistent file of another circuit id under this name */
    memcpy(buf, img, len);
    memcpy(buf + PCE_OFF_ID, "porep-tesu", 10);
    rehash_header(buf);
    damaged("circuit id", buf, len, CUZK_PCE_FAIL_CIRCUIT_ID, NULL);
    /* content hash disagreeing with a consistent section table */
    memcpy(buf, img, len);
    buf[PCE_OFF_CONTENT + 3] ^= 0x10;
    rehash_header(buf);
    damaged("content hash", buf, len, CUZK_PCE_FAIL_CONTENT_HASH, NULL);
    /* a structurally bad file whose checksums are all right: a column out of range */
    {
        memcpy(buf, img, len);
        const uint8_t *e = img + PCE_OFF_SECTIONS + 1 * PCE_SECTION_ENTRY_BYTES; /* A.col */
        uint32_t *col = (uint32_t *)(buf + pce_rd64(e + 8));
        col[0] = (uint32_t)(ref_pce->num_inputs + ref_pce->num_aux);
        unsigned int n = 32;
        EVP_Digest(buf + pce_rd64(e + 8), pce_rd64(e + 16), buf + PCE_OFF_SECTIONS + PCE_SECTION_ENTRY_BYTES + 24,
                   &n, EVP_sha256(), NULL);
        uint8_t ch[16 + 24 + PCE_NUM_SECTIONS * 48], *o = ch;
        memcpy(o, "cuzk-pce-content", 16), o += 16;
        memcpy(o, buf + PCE_OFF_NUM_INPUTS, 24), o += 24;
        for (unsigned s = 0; s < PCE_NUM_SECTIONS; s++) {
            const uint8_t *t = buf + PCE_OFF_SECTIONS + s * PCE_SECTION_ENTRY_BYTES;
            memcpy(o, t, 8), o += 8;
            memcpy(o, t + 16, 40), o += 40;
        }
        EVP_Digest(ch, (size_t)(o - ch), buf + PCE_OFF_CONTENT, &n, EVP_sha256(), NULL);
        rehash_header(buf);
        damaged("column out of range", buf, len, CUZK_PCE_FAIL_STRUCTURE, "A.col");
    }
    free(buf);

    /* wrong fingerprint: the circuit changed; the old file goes aside */
    {
        new_dir(dir, sizeof dir);
        path_of(path, sizeof path, dir, "");
        uint8_t fp2[32];
        cuzk_pce_fingerprint(fp2, "another gadget version");
        p = cache_get(dir, fp2, false, &oc); /* a file under the other fingerprint */
        CHECK(oc == CUZK_PCE_CACHE_EXTRACTED && p && !memcmp(p->fingerprint, fp2, 32));
        cuzk_pce_free(p);
        cuzk_pce_expect ex = {.circuit_id = ID, .fingerprint = fp};
        cuzk_pce_error e;
        CHECK(cuzk_pce_load_file(&p, path, &ex, 0, 1, &e) == CUZK_ERR_FORMAT && e.fail == CUZK_PCE_FAIL_FINGERPRINT);
        recover("wrong fingerprint", dir);
    }
}

static void test_temporaries(void)
{
    char dir[300], t1[512], t2[512], path[512], lp[512];
    new_dir(dir, sizeof dir);
    path_of(t1, sizeof t1, dir, ".tmp.AbC123");
    snprintf(t2, sizeof t2, "%s/other.pce.tmp.XyZ789", dir);
    write_file(t1, (const uint8_t *)"partial", 7);
    write_file(t2, (const uint8_t *)"partial", 7);
    /* a live writer of "other" holds its lock: its temporary stays */
    snprintf(lp, sizeof lp, "%s/other.pce.lock", dir);
    int lfd = open(lp, O_RDWR | O_CREAT, 0644);
    CHECK(lfd >= 0 && flock(lfd, LOCK_EX) == 0);
    CHECK(cuzk_pce_cache_clean(dir) == 1 && !exists(t1) && exists(t2));
    close(lfd);
    CHECK(cuzk_pce_cache_clean(dir) == 1 && !exists(t2));
    /* the cache removes its own circuit's leftovers before extracting */
    write_file(t1, (const uint8_t *)"partial", 7);
    cuzk_pce_cache_outcome oc;
    cuzk_pce *p = cache_get(dir, fp, false, &oc);
    path_of(path, sizeof path, dir, "");
    CHECK(oc == CUZK_PCE_CACHE_EXTRACTED && pce_good(p) && !exists(t1) && exists(path) && count_temps(dir) == 0);
    cuzk_pce_free(p);
}

/* ---- concurrency ---- */
typedef struct thr {
    const char *dir;
    pthread_barrier_t *bar;
    cuzk_pce *p;
    cuzk_pce_cache_outcome oc;
} thr;

static void *thr_get(void *arg)
{
    thr *t = arg;
    pthread_barrier_wait(t->bar);
    cuzk_pce_cache_opts o = {.dir = t->dir, .nthreads = 1};
    cuzk_pce_cache_get(&t->p, &o, ID, fp, synth, &cfg, &t->oc, NULL);
    return NULL;
}

static void test_concurrency(void)
{
    char dir[300], path[512];
    /* threads */
    {
        new_dir(dir, sizeof dir);
        enum { NT = 4 };
        pthread_barrier_t bar;
        pthread_barrier_init(&bar, NULL, NT);
        thr t[NT];
        pthread_t th[NT];
        cuzk_pce_counters c0, c1;
        cuzk_pce_counters_get(&c0);
        for (int i = 0; i < NT; i++) {
            t[i] = (thr){.dir = dir, .bar = &bar};
            pthread_create(&th[i], NULL, thr_get, &t[i]);
        }
        int ext = 0, good = 0;
        for (int i = 0; i < NT; i++) {
            pthread_join(th[i], NULL);
            ext += t[i].oc == CUZK_PCE_CACHE_EXTRACTED;
            good += (t[i].oc == CUZK_PCE_CACHE_EXTRACTED || t[i].oc == CUZK_PCE_CACHE_LOADED) && pce_good(t[i].p);
            cuzk_pce_free(t[i].p);
        }
        cuzk_pce_counters_get(&c1);
        CHECK_MSG(ext == 1 && good == NT && c1.extractions == c0.extractions + 1, "threads: %d extractions, %d good",
                  ext, good);
        pthread_barrier_destroy(&bar);
    }
    /* processes: one extraction among them, all end with the right PCE */
    {
        new_dir(dir, sizeof dir);
        enum { NP = 3 };
        int go[2];
        CHECK(pipe(go) == 0);
        pid_t pid[NP];
        for (int i = 0; i < NP; i++) {
            pid[i] = fork();
            if (pid[i] == 0) {
                close(go[1]);
                char c;
                if (read(go[0], &c, 1) < 0) _exit(9); /* EOF when the parent closes: all start together */
                cuzk_pce_cache_outcome oc = 0;
                cuzk_pce *p = cache_get(dir, fp, false, &oc);
                int code = !pce_good(p) ? 8 : oc == CUZK_PCE_CACHE_EXTRACTED ? 1 : oc == CUZK_PCE_CACHE_LOADED ? 0 : 7;
                cuzk_pce_free(p);
                _exit(code);
            }
        }
        close(go[0]);
        close(go[1]);
        int ext = 0, bad = 0;
        for (int i = 0; i < NP; i++) {
            int st = 0;
            waitpid(pid[i], &st, 0);
            int code = WIFEXITED(st) ? WEXITSTATUS(st) : 99;
            ext += code == 1;
            bad += code > 1;
        }
        CHECK_MSG(ext == 1 && bad == 0, "processes: %d extractions, %d bad", ext, bad);
    }
    /* readers in another process while this one rewrites the file: every
     * load sees a whole, valid file */
    {
        new_dir(dir, sizeof dir);
        path_of(path, sizeof path, dir, "");
        CHECK(cuzk_pce_save(ref_pce, path, NULL) == CUZK_OK);
        int stop[2];
        CHECK(pipe(stop) == 0);
        pid_t r = fork();
        if (r == 0) {
            close(stop[1]);
            fcntl(stop[0], F_SETFL, O_NONBLOCK);
            int bad = 0, n = 0;
            char c;
            cuzk_pce_expect ex = {.circuit_id = ID, .fingerprint = fp};
            while (read(stop[0], &c, 1) < 0 || n < 20) {
                cuzk_pce *p = NULL;
                if (cuzk_pce_load_file(&p, path, &ex, 0, 1, NULL) != CUZK_OK ||
                    memcmp(p->content_hash, ref_pce->content_hash, 32))
                    bad++;
                cuzk_pce_free(p);
                n++;
            }
            _exit(bad > 100 ? 100 : bad);
        }
        close(stop[0]);
        for (int i = 0; i < 30; i++) CHECK(cuzk_pce_save(ref_pce, path, NULL) == CUZK_OK);
        close(stop[1]);
        int st = 0;
        waitpid(r, &st, 0);
        CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "reader saw %d bad loads", WEXITSTATUS(st));
        CHECK(count_temps(dir) == 0);
    }
    /* no_wait: while someone else holds the lock, the caller is told to take the slow path */
    {
        new_dir(dir, sizeof dir);
        char lp[512];
        path_of(lp, sizeof lp, dir, ".lock");
        int lfd = open(lp, O_RDWR | O_CREAT, 0644);
        CHECK(lfd >= 0 && flock(lfd, LOCK_EX) == 0);
        cuzk_pce_cache_outcome oc = 0;
        cuzk_pce *p = cache_get(dir, fp, true, &oc);
        CHECK(oc == CUZK_PCE_CACHE_BUSY && !p);
        close(lfd);
        p = cache_get(dir, fp, true, &oc);
        CHECK(oc == CUZK_PCE_CACHE_EXTRACTED && pce_good(p));
        cuzk_pce_free(p);
    }
}

/* ---- SIGKILL during a write ---- */
static int hook_fd = -1;
static void stall_hook(size_t written, size_t total)
{
    (void)total;
    if (written > 0 && hook_fd >= 0) {
        if (write(hook_fd, "w", 1) < 0) _exit(3);
        for (;;) pause(); /* killed here, temporary half written */
    }
}

static pid_t stalled_writer(const char *dir, bool via_cache, int *rd)
{
    int pp[2];
    if (pipe(pp)) return -1;
    pid_t c = fork();
    if (c == 0) {
        close(pp[0]);
        hook_fd = pp[1];
        pce_save_chunk_hook = stall_hook;
        if (via_cache) {
            cuzk_pce_cache_outcome oc;
            cache_get(dir, fp, false, &oc);
        } else {
            char path[512];
            path_of(path, sizeof path, dir, "");
            cuzk_pce_save(ref_pce, path, NULL);
        }
        _exit(4); /* not reached: the hook stalls */
    }
    close(pp[1]);
    *rd = pp[0];
    return c;
}

static void test_kill9(void)
{
    char dir[300], path[512];
    for (int prior = 0; prior < 2; prior++) {
        new_dir(dir, sizeof dir);
        path_of(path, sizeof path, dir, "");
        if (prior) CHECK(cuzk_pce_save(ref_pce, path, NULL) == CUZK_OK);
        int rd = -1;
        pid_t c = stalled_writer(dir, !prior, &rd);
        char b;
        CHECK(read(rd, &b, 1) == 1); /* the writer is inside its write */
        close(rd);
        CHECK(count_temps(dir) == 1 && exists(path) == (prior == 1));
        kill(c, SIGKILL);
        int st;
        waitpid(c, &st, 0);
        CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
        cuzk_pce_cache_outcome oc = 0;
        cuzk_pce *p = cache_get(dir, fp, false, &oc);
        /* no file: the lock is free again, the temporary goes, one extraction */
        /* a prior file: it is intact and loads; start-up cleaning removes the temporary */
        CHECK_MSG(pce_good(p) && oc == (prior ? CUZK_PCE_CACHE_LOADED : CUZK_PCE_CACHE_EXTRACTED), "kill -9 (prior %d)",
                  prior);
        if (prior) CHECK(cuzk_pce_cache_clean(dir) == 1);
        CHECK(count_temps(dir) == 0 && exists(path));
        cuzk_pce_free(p);
        p = cache_get(dir, fp, false, &oc);
        CHECK(oc == CUZK_PCE_CACHE_LOADED && pce_good(p));
        cuzk_pce_free(p);
    }
}

/* pce_verify = "background": a flipped byte in any section is found by the
 * verifier thread before any proof uses the PCE; the evaluation and the
 * prover refuse it (never a proof from it), the file is set aside once and
 * the next lookup re-extracts the right PCE. A good file passes. */
static void test_background(void)
{
    const uint8_t *img = ref_pce->image;
    const size_t len = ref_pce->image_len;
    uint8_t *buf = malloc(len);
    cuzk_pce_cache_opts o = {.nthreads = 2, .verify_background = true};
    char dir[300], path[512], aside[512];
    int n_background = 0;
    for (unsigned s = 0; s <= PCE_NUM_SECTIONS; s++) {
        new_dir(dir, sizeof dir);
        path_of(path, sizeof path, dir, "");
        path_of(aside, sizeof aside, dir, ".rejected");
        o.dir = dir;
        memcpy(buf, img, len);
        char what[80] = "good file";
        if (s < PCE_NUM_SECTIONS) { /* s == PCE_NUM_SECTIONS: the good file */
            const uint8_t *e = img + PCE_OFF_SECTIONS + s * PCE_SECTION_ENTRY_BYTES;
            uint64_t at = pce_rd64(e + 8) + cuzk_rng_u64(&rng) % pce_rd64(e + 16);
            buf[at] ^= (uint8_t)(1u << (cuzk_rng_u64(&rng) % 8));
            snprintf(what, sizeof what, "background: flip in %s at %llu", pce_section_names[s + 1],
                     (unsigned long long)at);
        }
        write_file(path, buf, len);
        cuzk_pce_counters c0, c1;
        cuzk_pce_counters_get(&c0);
        int a0 = log_aside;
        cuzk_pce *p = NULL;
        cuzk_pce_cache_outcome oc = 0;
        cuzk_pce_error e;
        int rc = cuzk_pce_cache_get(&p, &o, ID, fp, synth, &cfg, &oc, &e);
        if (rc == CUZK_OK && oc == CUZK_PCE_CACHE_EXTRACTED) {
            /* the structure checks, which always run at load, caught this flip
             * (row pointers, columns, codes): the synchronous path handled it */
            CHECK_MSG(!p->verify && pce_good(p) && exists(aside) && log_aside == a0 + 1, "%s: caught at load", what);
            cuzk_pce_free(p);
            continue;
        }
        /* returned before the sections were hashed */
        CHECK_MSG(rc == CUZK_OK && oc == CUZK_PCE_CACHE_LOADED && p && p->verify, "%s: loaded", what);
        if (!p) continue;
        n_background += s < PCE_NUM_SECTIONS;
        /* the first use: a proof attempt, which waits for the verdict */
        cuzk_fr r, sr;
        cuzk_fr_random(&r, &rng), cuzk_fr_random(&sr, &rng);
        cuzk_groth16_proof pf;
        memset(&e, 0, sizeof e);
        rc = cuzk_groth16_prove_pce(&pf, &params, p, ref_w, &r, &sr, 1, NULL, NULL, &e);
        cuzk_pce_counters_get(&c1);
        if (s == PCE_NUM_SECTIONS) {
            CHECK_MSG(rc == CUZK_OK && cuzk_pce_ready(p, NULL) == CUZK_OK && pce_good(p) &&
                          c1.bg_verified == c0.bg_verified + 1 && c1.bg_failed == c0.bg_failed &&
                          exists(path) && !exists(aside) && log_aside == a0,
                      "%s: rc %d", what, rc);
            cuzk_pce_free(p);
            continue;
        }
        CHECK_MSG(rc == CUZK_ERR_FORMAT && e.fail == CUZK_PCE_FAIL_SECTION_CHECKSUM &&
                      strstr(e.msg, pce_section_names[s + 1]) != NULL,
                  "%s: prove gave rc %d (%s)", what, rc, e.msg);
        cuzk_pce_eval_buf eb;
        CHECK(cuzk_pce_eval_buf_alloc(&eb, p) == CUZK_OK);
        CHECK(cuzk_pce_eval(p, ref_w, &eb, 1, NULL) == CUZK_ERR_FORMAT &&
              cuzk_pce_eval_raw(p, ref_w->input.v, ref_w->aux.v, &eb, 1) == CUZK_ERR_FORMAT);
        cuzk_pce_eval_buf_free(&eb);
        CHECK(cuzk_pce_save(p, path, NULL) == CUZK_ERR_FORMAT); /* never copied on */
        CHECK_MSG(c1.bg_failed == c0.bg_failed + 1 && !exists(path) && exists(aside) && log_aside == a0 + 1 &&
                      c1.set_aside == c0.set_aside + 1,
                  "%s: set aside once (failed %llu, path %d, aside %d, logs %d, set_aside %llu)", what,
                  (unsigned long long)(c1.bg_failed - c0.bg_failed), exists(path), exists(aside), log_aside - a0,
                  (unsigned long long)(c1.set_aside - c0.set_aside));
        cuzk_pce_free(p);
        /* the next lookup re-extracts, exactly as the synchronous path */
        p = NULL;
        rc = cuzk_pce_cache_get(&p, &o, ID, fp, synth, &cfg, &oc, &e);
        CHECK_MSG(rc == CUZK_OK && oc == CUZK_PCE_CACHE_EXTRACTED && !p->verify && pce_good(p),
                  "%s: re-extracted", what);
        cuzk_pce_free(p);
    }
    /* freed before its verdict: the verification is cancelled, a good file stays where it is */
    new_dir(dir, sizeof dir);
    path_of(path, sizeof path, dir, "");
    path_of(aside, sizeof aside, dir, ".rejected");
    write_file(path, img, len);
    for (int i = 0; i < 5; i++) {
        cuzk_pce_expect ex = {.circuit_id = ID, .fingerprint = fp};
        cuzk_pce *p = NULL;
        CHECK(cuzk_pce_load_file(&p, path, &ex, CUZK_PCE_LOAD_VERIFY_BACKGROUND, 1, NULL) == CUZK_OK && p);
        cuzk_pce_free(p);
    }
    CHECK(exists(path) && !exists(aside));
    /* flips in coefficients and in the middle of row data are invisible to the structure checks */
    CHECK_MSG(n_background >= 1, "no flip was left to the background verifier");
    /* a file replaced after it was loaded is not set aside by the old load's verifier */
    new_dir(dir, sizeof dir);
    path_of(path, sizeof path, dir, "");
    path_of(aside, sizeof aside, dir, ".rejected");
    memcpy(buf, img, len);
    buf[len - 1] ^= 1;
    write_file(path, buf, len);
    cuzk_pce_expect ex = {.circuit_id = ID, .fingerprint = fp};
    cuzk_pce *p = NULL;
    int lfd = open(path, O_RDONLY); /* hold off the verifier: take the file's lock first */
    char lp[560];
    snprintf(lp, sizeof lp, "%s.lock", path);
    int lk = open(lp, O_RDWR | O_CREAT, 0644);
    CHECK(lk >= 0 && flock(lk, LOCK_EX) == 0);
    CHECK(cuzk_pce_load_file(&p, path, &ex, CUZK_PCE_LOAD_VERIFY_BACKGROUND, 1, NULL) == CUZK_OK && p);
    char tmp[560];
    snprintf(tmp, sizeof tmp, "%s.new", path);
    write_file(tmp, img, len);
    CHECK(rename(tmp, path) == 0);
    close(lk); /* releases the lock */
    CHECK(p && cuzk_pce_ready(p, NULL) == CUZK_ERR_FORMAT);
    CHECK_MSG(exists(path) && !exists(aside), "the replacement was left in place");
    cuzk_pce_free(p);
    if (lfd >= 0) close(lfd);
    p = NULL;
    CHECK(cuzk_pce_load_file(&p, path, &ex, CUZK_PCE_LOAD_VERIFY_BACKGROUND, 1, NULL) == CUZK_OK &&
          cuzk_pce_ready(p, NULL) == CUZK_OK && pce_good(p));
    cuzk_pce_free(p);
    free(buf);
}

/* cuzk_pce_cache_load (a daemon's start): absent, nothing said; a valid file
 * loaded (its sections verified in the background when asked); a file with a
 * random byte flipped reported and set aside at once, never extracted: by
 * the load when the synchronous checks see it, else by the background
 * verifier before any use. */
static void test_load_only(void)
{
    const uint8_t *img = ref_pce->image;
    const size_t len = ref_pce->image_len;
    char dir[300], path[512], aside[512];
    new_dir(dir, sizeof dir);
    path_of(path, sizeof path, dir, "");
    path_of(aside, sizeof aside, dir, ".rejected");
    cuzk_pce_cache_opts o = {.dir = dir, .nthreads = 2};
    cuzk_pce *p = NULL;
    int l0 = log_lines;
    CHECK(cuzk_pce_cache_load(&p, &o, ID, fp, NULL) == CUZK_ERR_IO && !p && log_lines == l0);
    write_file(path, img, len);
    CHECK(cuzk_pce_cache_load(&p, &o, ID, fp, NULL) == CUZK_OK && pce_good(p) && !p->verify && log_lines == l0);
    cuzk_pce_free(p);
    uint8_t *buf = malloc(len);
    for (int round = 0; round < 8; round++) {
        memcpy(buf, img, len);
        size_t at = cuzk_rng_u64(&rng) % len;
        buf[at] ^= (uint8_t)(1 + cuzk_rng_u64(&rng) % 255);
        write_file(path, buf, len);
        unlink(aside);
        o.verify_background = round % 2;
        cuzk_pce_counters c0, c1;
        cuzk_pce_counters_get(&c0);
        int a0 = log_aside;
        p = NULL;
        cuzk_pce_error e;
        int rc = cuzk_pce_cache_load(&p, &o, ID, fp, &e);
        if (rc == CUZK_OK) /* only the section hashes can see it: the background verifier's verdict */
            CHECK_MSG(o.verify_background && p && cuzk_pce_ready(p, NULL) == CUZK_ERR_FORMAT, "flip at %zu", at);
        else
            CHECK_MSG(rc == CUZK_ERR_FORMAT && !p, "flip at %zu: rc %d", at, rc);
        cuzk_pce_free(p);
        cuzk_pce_counters_get(&c1);
        CHECK_MSG(log_aside == a0 + 1 && exists(aside) && !exists(path) && c1.extractions == c0.extractions,
                  "flip at %zu (background %d): reported once, set aside, not extracted", at, o.verify_background);
    }
    free(buf);
}

static void rm_rf(const char *d)
{
    DIR *dd = opendir(d);
    struct dirent *de;
    char p[600];
    while (dd && (de = readdir(dd))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        snprintf(p, sizeof p, "%s/%s", d, de->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) rm_rf(p);
        else unlink(p);
    }
    if (dd) closedir(dd);
    rmdir(d);
}

int main(void)
{
    tu_init(&rng, "test_pce_cache");
    snprintf(root, sizeof root, "%s/cuzk_test_pce_cache.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(root)) return 1;
    cuzk_pce_set_log(log_hook, NULL);

    cfg = (pc_cfg){.seed = cuzk_rng_u64(&rng), .rows = 300, .long_every = 9, .satisfied = true};
    char ident[96];
    snprintf(ident, sizeof ident, "pce-cache-test;seed=%llu", (unsigned long long)cfg.seed);
    cuzk_pce_fingerprint(fp, ident);
    cuzk_recording_cs *r = (cuzk_recording_cs *)pc_build(CUZK_CS_RECORDING, &cfg);
    ref_p = (cuzk_proving_cs *)pc_build(CUZK_CS_PROVING, &cfg);
    ref_w = (cuzk_witness_cs *)pc_build(CUZK_CS_WITNESS, &cfg);
    CHECK(r && ref_p && ref_w);
    CHECK(cuzk_pce_from_recording(&ref_pce, r, ID, fp, 0, 1, NULL) == CUZK_OK);
    CHECK(cuzk_groth16_setup(&params, r, &rng, 2) == CUZK_OK);
    cuzk_cs_free(&r->base);
    if (!ref_pce) return tu_finish("test_pce_cache");

    test_fresh_and_files();
    test_temporaries();
    test_concurrency();
    test_kill9();
    test_background();
    test_load_only();

    cuzk_pce_free(ref_pce);
    cuzk_groth16_params_free(&params);
    cuzk_cs_free(&ref_p->base), cuzk_cs_free(&ref_w->base);
    rm_rf(root);
    return tu_finish("test_pce_cache");
}

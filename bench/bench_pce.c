/* Pre-compiled circuits: extraction time, save/load GB/s, and a proof's
 * constraint work two ways: witness synthesis + A·w, B·w, C·w from the PCE,
 * against a full ProvingAssignment synthesis, on SHA-256 block circuits
 * (512 allocated bits + one compression each, 26,352 constraints per block)
 * at 1 and 2 threads. The SpMV is compared with a memory-bandwidth floor:
 * the bytes it must move (row pointers, columns, codes, the witness once,
 * the three outputs) over the read bandwidth measured here.
 * Also the built-in synthetic circuit (src/circuits, a Filecoin-shaped mix;
 * its synthesis is sequential, so only the SpMV uses the second thread).
 * Usage: bench_pce [sha:BLOCKS | syn:CONSTRAINTS ...]
 *        (default sha:4 sha:32 sha:128 syn:1000000 syn:4000000) */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/cs/cs.h"
#include "cuzk/gadgets/gadgets.h"
#include "cuzk/pce/pce.h"
#include "cuzk/circuits/test_circuits.h"

#include "bench_util.h"

static double last_cpu;
static bool synthetic; /* sizes are constraints of the synthetic circuit, not SHA-256 blocks */
static cuzk_cs *synth(cuzk_cs_kind kind, size_t blocks, unsigned threads, double *secs)
{
    cuzk_cs *cs = cuzk_cs_new(kind);
    cuzk_cs_alloc_one(cs);
    double t0 = cuzk_now(), c0 = bench_cpu_now();
    cuzk_synthetic_spec spec = {.num_constraints = blocks, .num_inputs = 16, .witness_seed = 42};
    int rc = synthetic ? cuzk_synthetic_synthesize(cs, &spec)
                       : cuzk_cs_synthesize_parallel(cs, blocks, bench_sha256_block, NULL, threads);
    if (rc || cuzk_cs_finalize(cs)) {
        fprintf(stderr, "synthesis failed\n");
        exit(1);
    }
    *secs = cuzk_now() - t0;
    last_cpu = bench_cpu_now() - c0;
    return cs;
}

/* ---- read bandwidth ---- */
typedef struct bw_arg {
    const uint64_t *p;
    size_t n;
    uint64_t sum;
} bw_arg;
static void *bw_read(void *a)
{
    bw_arg *b = a;
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (size_t i = 0; i + 4 <= b->n; i += 4) s0 += b->p[i], s1 += b->p[i + 1], s2 += b->p[i + 2], s3 += b->p[i + 3];
    b->sum = s0 + s1 + s2 + s3;
    return NULL;
}
static double read_bw(unsigned threads)
{
    const size_t n = (size_t)256 << 20 >> 3; /* 256 MiB */
    uint64_t *buf = malloc(n * 8);
    for (size_t i = 0; i < n; i++) buf[i] = i;
    double best = 0;
    for (int rep = 0; rep < 3; rep++) {
        pthread_t th[8];
        bw_arg a[8];
        double t0 = cuzk_now();
        for (unsigned t = 0; t < threads; t++) {
            a[t] = (bw_arg){buf + t * (n / threads), n / threads, 0};
            pthread_create(&th[t], NULL, bw_read, &a[t]);
        }
        uint64_t s = 0;
        for (unsigned t = 0; t < threads; t++) pthread_join(th[t], NULL), s += a[t].sum;
        double gbs = n * 8.0 / (cuzk_now() - t0) / 1e9;
        if (gbs > best && s != 1) best = gbs;
    }
    free(buf);
    return best;
}

int main(int argc, char **argv)
{
    size_t sizes[16] = {4, 32, 128, 1000000, 4000000}, nsizes = 5;
    bool syn[16] = {false, false, false, true, true};
    if (argc > 1) {
        nsizes = 0;
        for (int i = 1; i < argc && nsizes < 16; i++) {
            syn[nsizes] = !strncmp(argv[i], "syn:", 4);
            const char *v = strchr(argv[i], ':');
            sizes[nsizes++] = (size_t)atol(v ? v + 1 : argv[i]);
        }
    }
    const char *tmpd = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    double bw[3] = {0, read_bw(1), read_bw(2)};
    printf("read bandwidth: %.1f GB/s (1 thread), %.1f GB/s (2 threads)\n\n", bw[1], bw[2]);

    printf("%-11s %10s %11s %9s %8s %9s %9s %9s %9s\n", "circuit", "constr", "nnz", "extract", "MiB", "save GB/s",
           "load GB/s", "bg ret s", "bg rdy s");
    typedef struct row {
        size_t blocks, m, nnz;
        double tw[3], te[3], tp[3], floor_bytes, cw, ce, cp;
        double td[3], tc; /* SpMV into the prover's NTT layout; the copy that layout saves */
        char name[32];
    } row;
    row rows[16];
    for (size_t si = 0; si < nsizes; si++) {
        row *R = &rows[si];
        R->blocks = sizes[si];
        synthetic = syn[si];
        snprintf(R->name, sizeof R->name, "%s:%zu", synthetic ? "syn" : "sha", sizes[si]);
        double trec, t0;
        cuzk_recording_cs *r = (cuzk_recording_cs *)synth(CUZK_CS_RECORDING, sizes[si], 2, &trec);
        cuzk_pce *pce = NULL;
        cuzk_pce_error e;
        t0 = cuzk_now();
        if (cuzk_pce_from_recording(&pce, r, "bench-sha", NULL, 0, 2, &e)) {
            fprintf(stderr, "%s\n", e.msg);
            return 1;
        }
        double text = cuzk_now() - t0;
        cuzk_cs_free(&r->base);
        char path[512];
        snprintf(path, sizeof path, "%s/bench_pce.%d.pce", tmpd, (int)getpid());
        t0 = cuzk_now();
        if (cuzk_pce_save(pce, path, &e)) {
            fprintf(stderr, "%s\n", e.msg);
            return 1;
        }
        double tsave = cuzk_now() - t0;
        cuzk_pce *l = NULL;
        t0 = cuzk_now();
        if (cuzk_pce_load_file(&l, path, NULL, 0, 2, &e)) {
            fprintf(stderr, "%s\n", e.msg);
            return 1;
        }
        double tload = cuzk_now() - t0;
        cuzk_pce_free(l);
        /* pce_verify = "background": when the load returns, and when the PCE is usable */
        t0 = cuzk_now();
        if (cuzk_pce_load_file(&l, path, NULL, CUZK_PCE_LOAD_VERIFY_BACKGROUND, 2, &e)) {
            fprintf(stderr, "%s\n", e.msg);
            return 1;
        }
        double tbg_ret = cuzk_now() - t0;
        if (cuzk_pce_ready(l, &e)) {
            fprintf(stderr, "%s\n", e.msg);
            return 1;
        }
        double tbg_ready = cuzk_now() - t0;
        cuzk_pce_free(l);
        if (!getenv("BENCH_PCE_KEEP")) unlink(path);
        R->m = pce->num_constraints;
        R->nnz = pce->m[0].nnz + pce->m[1].nnz + pce->m[2].nnz;
        double img = (double)pce->image_len;
        printf("%-11s %10zu %11zu %8.3fs %8.1f %9.2f %9.2f %9.3f %9.3f\n", R->name, R->m, R->nnz, trec + text,
               img / 1048576, img / tsave / 1e9, img / tload / 1e9, tbg_ret, tbg_ready);
        /* bytes the SpMV must move at least once */
        R->floor_bytes = 3.0 * (R->m + 1) * 4 + 8.0 * R->nnz + 32.0 * (pce->num_inputs + pce->num_aux) + 96.0 * R->m;

        for (unsigned t = 1; t <= 2; t++) {
            cuzk_witness_cs *w = (cuzk_witness_cs *)synth(CUZK_CS_WITNESS, sizes[si], t, &R->tw[t]);
            if (t == 1) R->cw = last_cpu;
            cuzk_pce_eval_buf buf;
            cuzk_pce_eval_buf_alloc(&buf, pce);
            R->te[t] = 1e9;
            if (t == 1) R->ce = 1e9;
            for (int rep = 0; rep < 3; rep++) {
                t0 = cuzk_now();
                double c0 = bench_cpu_now();
                cuzk_pce_eval(pce, w, &buf, t, NULL);
                double d = cuzk_now() - t0, dc = bench_cpu_now() - c0;
                if (d < R->te[t]) R->te[t] = d;
                if (t == 1 && dc < R->ce) R->ce = dc;
            }
            cuzk_pce_eval_buf_free(&buf);
            /* into the prover's NTT layout (zero tail included), and the copy
             * the prover made before it could transform a plain buffer */
            cuzk_pce_eval_buf dbuf, plain;
            cuzk_pce_eval_buf_alloc_domain(&dbuf, pce);
            cuzk_pce_eval_buf_alloc(&plain, pce);
            cuzk_pce_eval(pce, w, &plain, t, NULL);
            R->td[t] = 1e9;
            if (t == 1) R->tc = 1e9;
            for (int rep = 0; rep < 3; rep++) {
                t0 = cuzk_now();
                cuzk_pce_eval(pce, w, &dbuf, t, NULL);
                double d = cuzk_now() - t0;
                if (d < R->td[t]) R->td[t] = d;
                if (t != 1) continue;
                const size_t m = plain.len, n = dbuf.domain;
                t0 = cuzk_now();
                memcpy(dbuf.a, plain.a, m * sizeof(cuzk_fr));
                memcpy(dbuf.b, plain.b, m * sizeof(cuzk_fr));
                memcpy(dbuf.c, plain.c, m * sizeof(cuzk_fr));
                for (size_t i = m; i < n; i++) memset(&dbuf.a[i], 0, 32), memset(&dbuf.b[i], 0, 32), memset(&dbuf.c[i], 0, 32);
                d = cuzk_now() - t0;
                if (d < R->tc) R->tc = d;
            }
            cuzk_pce_eval_buf_free(&dbuf);
            cuzk_pce_eval_buf_free(&plain);
            cuzk_cs_free(&w->base);
            cuzk_cs *p = synth(CUZK_CS_PROVING, sizes[si], t, &R->tp[t]);
            if (t == 1) R->cp = last_cpu;
            cuzk_cs_free(p);
        }
        cuzk_pce_free(pce);
    }
    printf("\n%-11s %3s %9s %9s %9s %10s %9s %7s %10s %8s\n", "circuit", "thr", "witness", "SpMV", "w+SpMV",
           "ProvingA", "speedup", "Mnnz/s", "floor", "x floor");
    for (size_t si = 0; si < nsizes; si++) {
        row *R = &rows[si];
        for (unsigned t = 1; t <= 2; t++) {
            double fl = R->floor_bytes / (bw[t] * 1e9);
            printf("%-11s %3u %8.3fs %8.3fs %8.3fs %9.3fs %8.1fx %7.0f %9.4fs %7.1fx\n", R->name, t, R->tw[t],
                   R->te[t], R->tw[t] + R->te[t], R->tp[t], R->tp[t] / (R->tw[t] + R->te[t]), R->nnz / R->te[t] / 1e6,
                   fl, R->te[t] / fl);
        }
    }
    printf("\n1 thread, CPU time of the thread (holds on a shared box; memory stalls included)\n");
    printf("%-11s %9s %9s %9s %10s %8s %7s %8s %9s\n", "circuit", "witness", "SpMV", "w+SpMV", "ProvingA", "speedup",
           "Mnnz/s", "ns/nnz", "x floor");
    for (size_t si = 0; si < nsizes; si++) {
        row *R = &rows[si];
        double fl = R->floor_bytes / (bw[1] * 1e9);
        printf("%-11s %8.3fs %8.3fs %8.3fs %9.3fs %7.1fx %7.0f %8.1f %8.1fx\n", R->name, R->cw, R->ce, R->cw + R->ce,
               R->cp, R->cp / (R->cw + R->ce), R->nnz / R->ce / 1e6, R->ce * 1e9 / R->nnz, R->ce / fl);
    }
    printf("\nSpMV into the prover's NTT layout (cuzk_pce_eval_buf_alloc_domain) and the a, b, c copy it saves\n");
    printf("%-11s %3s %9s %11s %10s %8s\n", "circuit", "thr", "SpMV", "SpMV->NTT", "copy (1t)", "saved");
    for (size_t si = 0; si < nsizes; si++) {
        row *R = &rows[si];
        for (unsigned t = 1; t <= 2; t++)
            printf("%-11s %3u %8.3fs %10.3fs %9.4fs %7.1f%%\n", R->name, t, R->te[t], R->td[t], R->tc,
                   100.0 * R->tc / (R->td[t] + R->tc));
    }
    return 0;
}

/* Device field arithmetic (src/gpu/ff.cuh) against the CPU field code, on
 * fresh random values plus the edges (0, 1, p - 1, 2, R^2-like limbs): the
 * multiplication the kernels use (f_mul), every version it can be (the
 * even/odd CIOS with the generic reduction and, in Fr, the one that uses r's
 * limbs 1 and 2^32 - 1; the single-accumulator one), squaring, addition and
 * subtraction, in Fp and Fr; the Fp inversion (Fermat's); limbs must be
 * bit-identical. Without a CUDA
 * device: prints "SKIPPED: no CUDA device" (CTest: Skipped). */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/ff.cuh"
extern "C" {
#include "cuzk/ff/fp.h"
#include "cuzk/ff/fp2.h"
#include "cuzk/ff/fr.h"
#include "testutil.h"
}
#include "ff_oracle.h"

using namespace cuzk_gpu;

enum { OP_MUL, OP_MUL_EO, OP_MUL_EO_LOW01, OP_MUL_CIOS, OP_SQR, OP_ADD, OP_SUB, NOPS };
static const char *op_name[NOPS] = {"mul", "mul_eo", "mul_eo_low01", "mul_cios", "sqr", "add", "sub"};

template <class P> __global__ void ff_ops(const fe<P> *a, const fe<P> *b, fe<P> *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fe<P> x = a[i], y = b[i];
    f_mul(out[OP_MUL * n + i], x, y);
    f_mul_eo<P, false>(out[OP_MUL_EO * n + i], x, y);
    f_mul_eo<P, P::LOW01>(out[OP_MUL_EO_LOW01 * n + i], x, y); /* Fp: the generic one again */
    f_mul_cios(out[OP_MUL_CIOS * n + i], x, y);
    f_sqr(out[OP_SQR * n + i], x);
    f_add(out[OP_ADD * n + i], x, y);
    f_sub(out[OP_SUB * n + i], x, y);
}

/* Runs the ops on n pairs, returns the outputs (NOPS·n elements), NULL on a CUDA error. */
template <class P> static fe<P> *run(const fe<P> *a, const fe<P> *b, size_t n)
{
    const size_t sz = n * sizeof(fe<P>);
    fe<P> *da, *db, *dout, *out = (fe<P> *)malloc(NOPS * sz);
    if (cudaMalloc(&da, sz) || cudaMalloc(&db, sz) || cudaMalloc(&dout, NOPS * sz)) return NULL;
    cudaMemcpy(da, a, sz, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, sz, cudaMemcpyHostToDevice);
    ff_ops<P><<<(unsigned)((n + 127) / 128), 128>>>(da, db, dout, n);
    cudaError_t e = cudaMemcpy(out, dout, NOPS * sz, cudaMemcpyDeviceToHost);
    cudaFree(da), cudaFree(db), cudaFree(dout);
    if (e != cudaSuccess) {
        fprintf(stderr, "CUDA: %s\n", cudaGetErrorString(e));
        free(out);
        return NULL;
    }
    return out;
}

template <class P, class T>
static void check_field(const char *field, const T *a, const T *b, size_t n, const cpu_ops<T> &ops)
{
    static_assert(sizeof(T) == sizeof(fe<P>), "layouts differ");
    fe<P> *out = run<P>((const fe<P> *)a, (const fe<P> *)b, n);
    CHECK_MSG(out != NULL, "%s: kernel failed", field);
    if (!out) return;
    unsigned long bad[NOPS] = {0};
    for (size_t i = 0; i < n; i++) {
        T want[NOPS];
        ops.mul(&want[OP_MUL], &a[i], &b[i]);
        want[OP_MUL_EO] = want[OP_MUL_EO_LOW01] = want[OP_MUL_CIOS] = want[OP_MUL];
        ops.sqr(&want[OP_SQR], &a[i]);
        ops.add(&want[OP_ADD], &a[i], &b[i]);
        ops.sub(&want[OP_SUB], &a[i], &b[i]);
        for (int op = 0; op < NOPS; op++)
            if (memcmp(&want[op], &out[op * n + i], sizeof(T))) {
                if (bad[op]++ == 0) fprintf(stderr, "%s %s differs at pair %zu\n", field, op_name[op], i);
            }
    }
    for (int op = 0; op < NOPS; op++)
        CHECK_MSG(bad[op] == 0, "%s %s: %lu of %zu differ", field, op_name[op], bad[op], n);
    printf("%s: %zu pairs, %d ops, %s\n", field, n, (int)NOPS, tu_failed ? "FAILURES" : "all equal");
    free(out);
}

/* Edge values first (every pair of them), then nr random pairs. */
template <class P, class T>
static void test_field(const char *field, const cpu_ops<T> &ops, size_t nr, cuzk_rng *rng)
{
    enum { NE = FF_NEDGES };
    T e[NE];
    ff_edges(e, ops);
    const size_t n = NE * NE + nr;
    T *a = (T *)malloc(n * sizeof(T)), *b = (T *)malloc(n * sizeof(T));
    size_t k = 0;
    for (size_t i = 0; i < NE; i++)
        for (size_t j = 0; j < NE; j++) a[k] = e[i], b[k++] = e[j];
    for (; k < n; k++) ops.random(&a[k], rng), ops.random(&b[k], rng);
    check_field<P>(field, a, b, n, ops);
    free(a), free(b);
}

/* Fp2: Karatsuba with reduced products (fp2_mul) and squaring, against the
 * CPU's on edge-built and random pairs. */
__global__ void fp2_ops(const fp2_t *a, const fp2_t *b, fp2_t *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = fp2_mul(a[i], b[i]);
    out[n + i] = fp2_sqr(a[i]);
}

static void test_fp2(size_t nr, cuzk_rng *rng)
{
    enum { NE = FF_NEDGES };
    cuzk_fp e[NE];
    ff_edges(e, fp_oracle);
    const size_t ne = NE * NE, n = ne * ne + nr, sz = n * sizeof(cuzk_fp2);
    cuzk_fp2 *a = (cuzk_fp2 *)malloc(sz), *b = (cuzk_fp2 *)malloc(sz), *out = (cuzk_fp2 *)malloc(2 * sz);
    size_t k = 0;
    for (size_t i = 0; i < ne; i++)
        for (size_t j = 0; j < ne; j++, k++) {
            a[k].c0 = e[i / NE], a[k].c1 = e[i % NE];
            b[k].c0 = e[j / NE], b[k].c1 = e[j % NE];
        }
    for (; k < n; k++) cuzk_fp2_random(&a[k], rng), cuzk_fp2_random(&b[k], rng);
    fp2_t *da, *db, *dout;
    bool ok = !cudaMalloc(&da, sz) && !cudaMalloc(&db, sz) && !cudaMalloc(&dout, 2 * sz);
    if (ok) {
        cudaMemcpy(da, a, sz, cudaMemcpyHostToDevice);
        cudaMemcpy(db, b, sz, cudaMemcpyHostToDevice);
        fp2_ops<<<(unsigned)((n + 127) / 128), 128>>>(da, db, dout, n);
        ok = cudaMemcpy(out, dout, 2 * sz, cudaMemcpyDeviceToHost) == cudaSuccess;
        cudaFree(da), cudaFree(db), cudaFree(dout);
    }
    CHECK_MSG(ok, "Fp2: kernel failed");
    unsigned long bad[2] = {0};
    for (size_t i = 0; ok && i < n; i++) {
        cuzk_fp2 m, q;
        cuzk_fp2_mul(&m, &a[i], &b[i]);
        cuzk_fp2_sqr(&q, &a[i]);
        bad[0] += memcmp(&m, &out[i], sizeof m) != 0;
        bad[1] += memcmp(&q, &out[n + i], sizeof q) != 0;
    }
    CHECK_MSG(!bad[0] && !bad[1], "Fp2: mul %lu, sqr %lu of %zu differ", bad[0], bad[1], n);
    printf("Fp2: %zu pairs, mul, sqr %s\n", n, bad[0] + bad[1] ? "DIFFER" : "all equal");
    free(a), free(b), free(out);
}
/* Fp inversion on the device (Fermat's, f_inv) against the CPU's, on the
 * edges and nr random values. */
__global__ void inv_ops(const fp_t *a, fp_t *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    f_inv(out[i], a[i]);
}

static void test_inv(size_t nr, cuzk_rng *rng)
{
    cuzk_fp e[FF_NEDGES];
    ff_edges(e, fp_oracle);
    const size_t n = FF_NEDGES + nr, sz = n * sizeof(cuzk_fp);
    cuzk_fp *a = (cuzk_fp *)malloc(sz), *out = (cuzk_fp *)malloc(sz);
    for (size_t k = 0; k < n; k++)
        if (k < FF_NEDGES) a[k] = e[k];
        else cuzk_fp_random(&a[k], rng);
    fp_t *da, *dout;
    bool ok = !cudaMalloc(&da, sz) && !cudaMalloc(&dout, sz);
    if (ok) {
        cudaMemcpy(da, a, sz, cudaMemcpyHostToDevice);
        inv_ops<<<(unsigned)((n + 127) / 128), 128>>>(da, dout, n);
        ok = cudaMemcpy(out, dout, sz, cudaMemcpyDeviceToHost) == cudaSuccess;
        cudaFree(da), cudaFree(dout);
    }
    CHECK_MSG(ok, "Fp inversion: kernel failed");
    unsigned long bad = 0;
    for (size_t i = 0; ok && i < n; i++) {
        cuzk_fp want;
        cuzk_fp_inv(&want, &a[i]);
        bad += memcmp(&want, &out[i], sizeof want) != 0;
    }
    CHECK_MSG(!bad, "Fp inversion: %lu of %zu differ", bad, n);
    printf("Fp inversion: %zu values %s\n", n, bad ? "DIFFER" : "all equal");
    free(a), free(out);
}

int main(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        return tu_skip("test_gpu_ff", "no CUDA device");
    }
    cuzk_rng rng;
    tu_init(&rng, "test_gpu_ff");
    const size_t nr = 1 << 18;
    test_field<fp_params>("Fp", fp_oracle, nr, &rng);
    test_field<fr_params>("Fr", fr_oracle, nr, &rng);
    test_fp2(nr, &rng);
    test_inv(1 << 16, &rng);
    return tu_finish("test_gpu_ff");
}

/* Device field throughput: Montgomery multiplications per second for the
 * even/odd CIOS (f_mul_eo; in Fr also with the reduction that uses r's limbs
 * 1 and 2^32 - 1) and the single-accumulator version (f_mul_cios), in Fp and Fr;
 * plus G1 XYZZ mixed additions (the MSM's inner step) and Fp inversions
 * (Fermat's). Each thread runs 4 independent chains of K dependent
 * operations (inversions: one chain of KI); one table, median of 5 launches. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu/ec.cuh"

using namespace cuzk_gpu;

#define CHAINS 4
#define K 256

/* EO: 0 cios, 1 eo, 2 eo low01 */
template <class P, int EO> __global__ void mul_loop(fe<P> *io, fe<P> y)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    fe<P> x[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; c++) x[c] = io[i * CHAINS + c];
#pragma unroll 1
    for (int k = 0; k < K; k++)
#pragma unroll
        for (int c = 0; c < CHAINS; c++) {
            if (EO == 2)
                f_mul_eo<P, P::LOW01>(x[c], x[c], y);
            else if (EO)
                f_mul_eo<P, false>(x[c], x[c], y);
            else
                f_mul_cios(x[c], x[c], y);
        }
#pragma unroll
    for (int c = 0; c < CHAINS; c++) io[i * CHAINS + c] = x[c];
}

__global__ void add_loop(xyzz_t<fp_t> *io, const affine_t<fp_t> *pts)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    xyzz_t<fp_t> acc = io[i];
#pragma unroll 1
    for (int k = 0; k < K; k++) {
        affine_t<fp_t> p;
        load16(p, pts + ((i + k) & 1023));
        hot_add_aff(acc, p);
    }
    io[i] = acc;
}

/* KI dependent inversions per thread (Fermat's, f_inv) */
#define KI 4
__global__ void inv_loop(fp_t *io)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    fp_t x = io[i];
#pragma unroll 1
    for (int k = 0; k < KI; k++) f_inv(x, x);
    io[i] = x;
}

static int cmpf(const void *a, const void *b) { float x = *(const float *)a, y = *(const float *)b; return (x > y) - (x < y); }

template <class F> static float time_it(F launch)
{
    cudaEvent_t a, b;
    cudaEventCreate(&a), cudaEventCreate(&b);
    float ms[5];
    launch(); /* warm-up */
    for (int r = 0; r < 5; r++) {
        cudaEventRecord(a);
        launch();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        cudaEventElapsedTime(&ms[r], a, b);
    }
    qsort(ms, 5, sizeof *ms, cmpf);
    return ms[2];
}

int main(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("bench_gpu_ff: skipped: no CUDA device\n");
        return 0;
    }
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    const unsigned T = 256, blocks = (unsigned)prop.multiProcessorCount * 16;
    const size_t threads = (size_t)T * blocks;
    void *buf;
    if (cudaMalloc(&buf, threads * CHAINS * sizeof(fp_t) * 2)) return 1;
    cudaMemset(buf, 0x11, threads * CHAINS * sizeof(fp_t) * 2); /* values < p: top limb 0x11111111 */
    printf("device: %s, %d SMs; %zu threads x %d chains x %d ops\n\n", prop.name, prop.multiProcessorCount,
           threads, CHAINS, K);
    printf("| operation | ms | G op/s | ns per op per SM |\n|---|---|---|---|\n");
    const double ops = (double)threads * CHAINS * K;
    affine_t<fp_t> *pts;
    if (cudaMalloc(&pts, 1024 * sizeof *pts)) return 1;
    cudaMemset(pts, 0x07, 1024 * sizeof *pts);
    fp_t yp;
    fr_t yr;
    for (int i = 0; i < 12; i++) yp.l[i] = 0x01234567u * (i + 1);
    for (int i = 0; i < 8; i++) yr.l[i] = 0x01234567u * (i + 1);
    yp.l[11] = 0x0a0a0a0a, yr.l[7] = 0x0a0a0a0a;
    struct {
        const char *name;
        float ms;
        double n;
    } rows[] = {
        {"Fp mul even/odd (f_mul_eo)", time_it([&] { mul_loop<fp_params, 1><<<blocks, T>>>((fp_t *)buf, yp); }), ops},
        {"Fp mul single-acc (f_mul_cios)", time_it([&] { mul_loop<fp_params, 0><<<blocks, T>>>((fp_t *)buf, yp); }), ops},
        {"Fr mul even/odd (f_mul_eo)", time_it([&] { mul_loop<fr_params, 1><<<blocks, T>>>((fr_t *)buf, yr); }), ops},
        {"Fr mul even/odd, r's limbs 1 and 2^32 - 1 (f_mul_eo low01)",
         time_it([&] { mul_loop<fr_params, 2><<<blocks, T>>>((fr_t *)buf, yr); }), ops},
        {"Fr mul single-acc (f_mul_cios)", time_it([&] { mul_loop<fr_params, 0><<<blocks, T>>>((fr_t *)buf, yr); }), ops},
        /* G1 mixed additions: any Fp values exercise the same instruction stream (no branch
         * depends on the curve) */
        {"G1 XYZZ mixed add (hot_add_aff, f_mul)",
         time_it([&] { add_loop<<<blocks, T>>>((xyzz_t<fp_t> *)buf, pts); }), (double)threads * K},
        {"Fp inversion, Fermat (f_inv)", time_it([&] { inv_loop<<<blocks, T>>>((fp_t *)buf); }), (double)threads * KI},
    };
    for (const auto &r : rows)
        printf("| %s | %.3f | %.2f | %.3f |\n", r.name, r.ms, r.n / r.ms / 1e6, r.ms * 1e6 / r.n * prop.multiProcessorCount);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) printf("CUDA error: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}

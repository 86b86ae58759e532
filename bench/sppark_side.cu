/*
 * cuzk and sppark side by side in one process, on the same data (issue 21's
 * "measuring honestly"). Not part of the build: bench/sppark_side.sh compiles
 * it against a sppark and a blst fetched and built outside the repository
 * (neither is ever committed) and libcuzk.a.
 *
 * G1 MSM, random scalars, distinct bases k_i·G (cuzk's GPU fixed-base kernel):
 *   whole call, bases resident, scalars from pinned host memory:
 *     sppark  msm_t constructed with the points, invoke(host scalars);
 *     cuzk    cuzk_gpu_g1_msm_bases (scalars registered with CUDA);
 *   scalars already on the device:
 *     sppark  invoke(dev_ptr_t scalars), the whole call;
 *     cuzk    the kernel region of the call above (its scalar copy excluded).
 * NTT natural -> bit-reversed, forward, Filecoin's domain:
 *   on the device: sppark NTT::Base_dev_ptr + sync; cuzk's kernel region;
 *   whole call from pinned host memory: sppark NTT::Base; cuzk_gpu_ntt.
 * Every MSM result and every NTT output is compared; a difference is printed.
 * Medians of CUZK_BENCH_REPS (3) after one warm-up; sizes CUZK_BENCH_MIN (20)
 * to CUZK_BENCH_G1 (26) and CUZK_BENCH_NTT_MIN (24) to CUZK_BENCH_NTT (27).
 */
#include <cuda.h>

#include <ff/bls12-381.hpp>

#include <ec/jacobian_t.hpp>
#include <ec/xyzz_t.hpp>

typedef jacobian_t<fp_t> point_t;
typedef xyzz_t<fp_t> bucket_t;
typedef bucket_t::affine_t affine_t;
typedef fr_t scalar_t;

#include <msm/pippenger.cuh>
#include <ntt/ntt.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
#include "cuzk/ec/g1.h"
#include "cuzk/gpu/gpu.h"
#include "cuzk/util/clock.h"
#include "cuzk/ff/fr.h"
#include "cuzk/util/rng.h"
}
#include "bench_util.h"

static_assert(sizeof(affine_t) == sizeof(cuzk_g1_affine), "affine layouts differ");
static_assert(sizeof(point_t) == sizeof(cuzk_g1_jac), "Jacobian layouts differ");
static_assert(sizeof(scalar_t) == sizeof(cuzk_fr), "scalar layouts differ");

static unsigned env_u(const char *n, unsigned d)
{
    const char *v = getenv(n);
    return v && *v ? (unsigned)atoi(v) : d;
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

static void row(const char *what, unsigned lg, double sp, double cz, const char *eq)
{
    printf("| %-44s | 2^%-2u | %10.2f | %10.2f | %5.2f | %-6s |\n", what, lg, sp * 1e3, cz * 1e3,
           sp > 0 ? cz / sp : 0.0, eq);
    fflush(stdout);
}

int main()
{
    const unsigned reps = env_u("CUZK_BENCH_REPS", 3), lmin = env_u("CUZK_BENCH_MIN", 20),
                   lg1 = env_u("CUZK_BENCH_G1", 26), nmin = env_u("CUZK_BENCH_NTT_MIN", 24),
                   lntt = env_u("CUZK_BENCH_NTT", 27);
    char msg[256] = "";
    cuzk_gpu_device *dev;
    cuzk_gpu_worker *w;
    if (cuzk_gpu_device_open(&dev, 0, msg, sizeof msg) || cuzk_gpu_worker_create(&w, dev)) {
        fprintf(stderr, "sppark_side: %s\n", msg);
        return 1;
    }
    printf("device: %s\n\n", cuzk_gpu_device_describe(dev));
    printf("| %-44s | size | sppark ms  | cuzk ms    | c / s | equal  |\n", "operation");
    printf("|----------------------------------------------|------|------------|------------|-------|--------|\n");
    const unsigned lmax = std::max(lg1, lntt);
    const size_t nmax = (size_t)1 << lmax, n1 = (size_t)1 << lg1;
    cuzk_fr *k = (cuzk_fr *)malloc(nmax * sizeof *k), *k2 = (cuzk_fr *)malloc(nmax * sizeof *k2);
    cuzk_g1_affine *b1 = (cuzk_g1_affine *)malloc(n1 * sizeof *b1);
    if (!k || !k2 || !b1) return 1;
    cuzk_rng rng;
    cuzk_rng_seed(&rng, 4242);
    uint64_t st = cuzk_rng_u64(&rng);
    for (size_t i = 0; i < n1; i++) bench_fr_random(&k[i], &st);
    if (cuzk_gpu_g1_fixed_base(w, b1, &cuzk_g1_generator, k, n1)) {
        fprintf(stderr, "sppark_side: bases: %s\n", cuzk_gpu_worker_error(w));
        return 1;
    }
    if (cuzk_gpu_host_register(k, nmax * sizeof *k, msg, sizeof msg) ||
        cuzk_gpu_host_register(k2, nmax * sizeof *k2, msg, sizeof msg)) {
        fprintf(stderr, "sppark_side: pinning: %s\n", msg);
        return 1;
    }
    const gpu_t &gpu = select_gpu(0);
    cuzk_gpu_bases *rb = NULL;
    if (cuzk_gpu_g1_bases_upload(w, &rb, b1, n1)) {
        fprintf(stderr, "sppark_side: resident bases: %s\n", cuzk_gpu_worker_error(w));
        return 1;
    }

    for (unsigned lg = lmin; lg <= lg1; lg += 2) {
        const size_t n = (size_t)1 << lg;
        for (size_t i = 0; i < n; i++) bench_fr_random(&k[i], &st);
        std::vector<double> sp_call, sp_dev, cz_call, cz_dev;
        point_t so, sd;
        cuzk_g1_jac co;
        bool bad = false;
        {
            msm_t<bucket_t, point_t, affine_t, scalar_t> msm{(const affine_t *)b1, n};
            dev_ptr_t<scalar_t> ds{n};
            gpu.HtoD(&ds[0], (const scalar_t *)k, n);
            gpu.sync();
            for (unsigned r = 0; r <= reps; r++) {
                double t = cuzk_now();
                RustError e = msm.invoke(so, (const affine_t *)nullptr, n, (const scalar_t *)k, true);
                if (r) sp_call.push_back(cuzk_now() - t);
                t = cuzk_now();
                RustError e2 = msm.invoke(sd, (const affine_t *)nullptr, n, ds, true);
                if (r) sp_dev.push_back(cuzk_now() - t);
                bad |= e.code != cudaSuccess || e2.code != cudaSuccess;
            }
        }
        for (unsigned r = 0; r <= reps; r++) {
            const double t = cuzk_now();
            bad |= cuzk_gpu_g1_msm_bases(w, &co, rb, k, n) != 0;
            if (r) cz_call.push_back(cuzk_now() - t), cz_dev.push_back(cuzk_gpu_worker_region_s(w));
        }
        if (bad) printf("G1 MSM 2^%u: an error (cuzk: %s)\n", lg, cuzk_gpu_worker_error(w));
        cuzk_g1_jac sj, sdj;
        memcpy(&sj, &so, sizeof sj);
        memcpy(&sdj, &sd, sizeof sdj);
        const bool eq = !bad && cuzk_g1_jac_eq(&sj, &co) && cuzk_g1_jac_eq(&sdj, &co);
        row("G1 MSM random, call: bases resident, pinned", lg, median(sp_call), median(cz_call), eq ? "yes" : "NO");
        row("G1 MSM random, scalars on the device", lg, median(sp_dev), median(cz_dev), eq ? "yes" : "NO");
    }
    cuzk_gpu_bases_free(rb);

    for (unsigned lg = nmin; lg <= lntt; lg++) {
        const size_t n = (size_t)1 << lg;
        for (size_t i = 0; i < n; i++) bench_fr_random(&k[i], &st);
        std::vector<double> sp_dev, sp_call, cz_dev, cz_call;
        bool bad = false;
        dev_ptr_t<fr_t> d{n};
        for (unsigned r = 0; r <= reps; r++) {
            gpu.HtoD(&d[0], (const fr_t *)k, n);
            gpu.sync();
            double t = cuzk_now();
            NTT::Base_dev_ptr(gpu[0], &d[0], lg, NTT::InputOutputOrder::NR, NTT::Direction::forward,
                              NTT::Type::standard);
            gpu[0].sync();
            if (r) sp_dev.push_back(cuzk_now() - t);
            memcpy(k2, k, n * sizeof *k);
            t = cuzk_now();
            RustError e = NTT::Base(gpu, (fr_t *)k2, lg, NTT::InputOutputOrder::NR, NTT::Direction::forward,
                                    NTT::Type::standard);
            if (r) sp_call.push_back(cuzk_now() - t);
            bad |= e.code != cudaSuccess;
        }
        std::vector<cuzk_fr> sp(n);
        gpu.DtoH(sp.data(), (const cuzk_fr *)&d[0], n);
        gpu.sync();
        const bool same_calls = !memcmp(sp.data(), k2, n * sizeof *k2);
        for (unsigned r = 0; r <= reps; r++) {
            memcpy(k2, k, n * sizeof *k);
            const double t = cuzk_now();
            bad |= cuzk_gpu_ntt(w, k2, lg, CUZK_GPU_NTT_OUT_BITREV) != 0;
            if (r) cz_call.push_back(cuzk_now() - t), cz_dev.push_back(cuzk_gpu_worker_region_s(w));
        }
        if (bad) printf("NTT 2^%u: an error (cuzk: %s)\n", lg, cuzk_gpu_worker_error(w));
        const bool eq = !bad && same_calls && !memcmp(sp.data(), k2, n * sizeof *k2);
        row("NTT natural -> bit-reversed, on the device", lg, median(sp_dev), median(cz_dev), eq ? "yes" : "NO");
        row("NTT natural -> bit-reversed, call, pinned", lg, median(sp_call), median(cz_call), eq ? "yes" : "NO");
    }
    cuzk_gpu_host_unregister(k);
    cuzk_gpu_host_unregister(k2);
    cuzk_gpu_worker_destroy(w);
    cuzk_gpu_device_close(dev);
    free(k), free(k2), free(b1);
    return 0;
}

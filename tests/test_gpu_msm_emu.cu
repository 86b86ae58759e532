/* The MSM's level 0 by affine strands (src/gpu/msm_chain.cuh) run on the
 * host (CUZK_FF_HOST_EMU: the device source over emulated carries), every
 * thread of a launch one after the other, against the CPU's sums: sorted
 * entries in runs of one key from 1 to 700 long, signed indices into random
 * points k·G and the point at infinity, zero digits (MSM_SKIP), a point
 * added to itself and to its negative. For each key the bucket written plus
 * the partials of that key must equal the CPU's sum of the run's points, the
 * partials' keys must not decrease (the next levels rely on it), and a
 * tampered bucket must be seen. Several strand counts and lengths, short and
 * ragged chunks (strands past the chunk's end), and one chunk (the final
 * level). No device needed: CI runs it. */
#define CUZK_FF_HOST_EMU 1
#define CUZK_GPU_MUL_EO 0
#include <stdlib.h>
#include <string.h>

#include "gpu/msm_chain.cuh"
extern "C" {
#include "cuzk/fp.h"
#include "cuzk/g1.h"
#include "testutil.h"
}

using namespace cuzk_gpu;

static_assert(sizeof(cuzk_g1_affine) == sizeof(affine_t<fp_t>) && sizeof(cuzk_g1_xyzz) == sizeof(xyzz_t<fp_t>),
              "layouts differ");

enum { NP = 192 };

struct entries {
    size_t M;
    uint32_t *keys, *vals;
    uint32_t nkeys; /* keys are < nkeys */
};

/* runs of random lengths with gaps between keys; 5 % zero digits; pairs of
 * one point and of a point and its negative at the runs' starts and inside */
static void make_entries(entries *E, size_t target, bool short_runs, cuzk_rng *rng)
{
    size_t cap = target + 1000;
    E->keys = (uint32_t *)malloc(cap * 4);
    E->vals = (uint32_t *)malloc(cap * 4);
    size_t M = 0;
    uint32_t key = (uint32_t)(cuzk_rng_u64(rng) % 3);
    while (M < target) {
        const unsigned r = (unsigned)(cuzk_rng_u64(rng) % (short_runs ? 6 : 10));
        size_t len = r < 4 ? 1 + cuzk_rng_u64(rng) % 3
                     : r < 7 ? 4 + cuzk_rng_u64(rng) % 37
                     : r < 9 ? 41 + cuzk_rng_u64(rng) % 160
                             : 201 + cuzk_rng_u64(rng) % 500;
        if (M + len > cap) len = cap - M;
        for (size_t i = 0; i < len; i++) {
            const uint64_t x = cuzk_rng_u64(rng);
            uint32_t v = (uint32_t)(x % NP) | (((x >> 20) & 1) ? 0x80000000u : 0u);
            const unsigned kind = (unsigned)((x >> 24) % 20);
            if (kind == 0) v = MSM_SKIP;
            else if (i && kind == 1) v = E->vals[M - 1];                                  /* the same point again */
            else if (i && kind == 2 && E->vals[M - 1] != MSM_SKIP) v = E->vals[M - 1] ^ 0x80000000u; /* its negative */
            E->keys[M] = key, E->vals[M] = v, M++;
        }
        key += 1 + (uint32_t)(cuzk_rng_u64(rng) % 3);
    }
    E->M = M;
    E->nkeys = key;
}

/* the CPU's sum of each key's run */
static void reference(cuzk_g1_jac *want, const entries *E, const cuzk_g1_affine *pts)
{
    for (uint32_t k = 0; k < E->nkeys; k++) cuzk_g1_jac_set_infinity(&want[k]);
    for (size_t e = 0; e < E->M; e++) {
        const uint32_t v = E->vals[e];
        if (v == MSM_SKIP) continue;
        cuzk_g1_affine p = pts[v & 0x7fffffffu];
        if (v >> 31) cuzk_g1_affine_neg(&p, &p);
        cuzk_g1_jac_add_affine(&want[E->keys[e]], &want[E->keys[e]], &p);
    }
}

/* keys whose bucket plus partials differ from want; partial keys out of order */
static unsigned long check_sums(const cuzk_g1_jac *want, const entries *E, const cuzk_g1_xyzz *buckets,
                                const uint32_t *pk, const cuzk_g1_xyzz *pp, size_t npart, unsigned long *order)
{
    cuzk_g1_jac *got = (cuzk_g1_jac *)malloc(E->nkeys * sizeof *got);
    for (uint32_t k = 0; k < E->nkeys; k++) cuzk_g1_xyzz_to_jac(&got[k], &buckets[k]);
    *order = 0;
    for (size_t i = 0; i < npart; i++) {
        if (i && pk[i] < pk[i - 1]) (*order)++;
        if (pk[i] >= E->nkeys) {
            (*order)++;
            continue;
        }
        cuzk_g1_jac q;
        cuzk_g1_xyzz_to_jac(&q, &pp[i]);
        cuzk_g1_jac_add(&got[pk[i]], &got[pk[i]], &q);
    }
    unsigned long bad = 0;
    for (uint32_t k = 0; k < E->nkeys; k++) bad += !cuzk_g1_jac_eq(&got[k], &want[k]);
    free(got);
    return bad;
}

/* one level 0 launch: every thread in turn; buckets zeroed first, as the
 * device's are */
template <int K>
static size_t run_level0(const entries *E, const affine_t<fp_t> *bases, unsigned L, cuzk_g1_xyzz *buckets,
                         uint32_t *pk, cuzk_g1_xyzz *pp)
{
    memset(buckets, 0, E->nkeys * sizeof *buckets);
    const size_t nt = (E->M + L - 1) / L;
    const bool fin = E->M <= L;
    for (size_t t = 0; t < nt; t++)
        msm_chain_body<fp_t, K>(t, E->keys, E->vals, bases, E->M, L, fin, (xyzz_t<fp_t> *)buckets, pk,
                                (xyzz_t<fp_t> *)pp);
    return fin ? 0 : 2 * nt;
}

template <int K>
static void case_run(const char *what, const entries *E, const cuzk_g1_affine *pts, const cuzk_g1_jac *want,
                     unsigned L, bool tamper)
{
    const size_t nt = (E->M + L - 1) / L;
    cuzk_g1_xyzz *buckets = (cuzk_g1_xyzz *)malloc(E->nkeys * sizeof *buckets);
    uint32_t *pk = (uint32_t *)malloc(2 * nt * 4);
    cuzk_g1_xyzz *pp = (cuzk_g1_xyzz *)malloc(2 * nt * sizeof *pp);
    const size_t np = run_level0<K>(E, (const affine_t<fp_t> *)pts, L, buckets, pk, pp);
    unsigned long order, bad = check_sums(want, E, buckets, pk, pp, np, &order);
    CHECK_MSG(bad == 0 && order == 0, "%s, K = %d, L = %u, %zu entries: %lu of %u keys differ, %lu partials out of order",
              what, K, L, E->M, bad, E->nkeys, order);
    printf("%s: K = %d, L = %u (strands of %u), %zu entries, %u keys, %zu partials\n", what, K, L,
           (L + K - 1) / K, E->M, E->nkeys, np);
    if (tamper) { /* the check can fail: one written bucket changed */
        uint32_t k = E->keys[E->M / 2];
        while (k < E->nkeys && cuzk_g1_xyzz_is_infinity(&buckets[k])) k++;
        if (k < E->nkeys) {
            cuzk_g1_xyzz g;
            cuzk_g1_xyzz_from_affine(&g, &cuzk_g1_generator);
            cuzk_g1_xyzz_add(&buckets[k], &buckets[k], &g);
            bad = check_sums(want, E, buckets, pk, pp, np, &order);
            CHECK_MSG(bad == 1, "a tampered bucket: %lu keys differ, want 1", bad);
        } else {
            CHECK_MSG(0, "no bucket written to tamper with");
        }
    }
    free(buckets), free(pk), free(pp);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_gpu_msm_emu");
    /* NP points: the point at infinity at 0, random k·G after it */
    cuzk_g1_affine *pts = (cuzk_g1_affine *)malloc(NP * sizeof *pts);
    memset(&pts[0], 0, sizeof pts[0]);
    for (int i = 1; i < NP; i++) {
        cuzk_fr k;
        cuzk_fr_random(&k, &rng);
        tu_g1_mul_gen(&pts[i], &k);
    }
    /* runs mostly of 1 to 40 entries (many keys, whole runs inside a
     * strand), then runs up to 700 (pieces across strands and chunks) */
    for (int set = 0; set < 2; set++) {
        entries E;
        make_entries(&E, 20000, set == 0, &rng);
        cuzk_g1_jac *want = (cuzk_g1_jac *)malloc(E.nkeys * sizeof *want);
        reference(want, &E, pts);
        /* strands of 1, 2, 3, 7, 20 and 64 entries; a chunk that is not a
         * multiple of the strands (the last ones end early or are empty) */
        case_run<32>("strands", &E, pts, want, 32 * 1, set == 0);
        case_run<32>("strands", &E, pts, want, 32 * 2, false);
        case_run<32>("strands", &E, pts, want, 32 * 3, false);
        case_run<32>("strands", &E, pts, want, 32 * 7, false);
        case_run<32>("strands", &E, pts, want, 32 * 20, true);
        case_run<32>("strands", &E, pts, want, 32 * 64, false);
        case_run<32>("ragged chunk", &E, pts, want, 70, false);
        case_run<4>("strands", &E, pts, want, 4 * 5, false);
        case_run<4>("ragged chunk", &E, pts, want, 17, false);
        /* one chunk for everything: the final level writes every bucket */
        entries F = E;
        F.M = 900;
        F.nkeys = E.keys[F.M - 1] + 1;
        reference(want, &F, pts);
        case_run<32>("one chunk (final)", &F, pts, want, 32 * 30, false);
        free(want), free(E.keys), free(E.vals);
    }
    free(pts);
    return tu_finish("test_gpu_msm_emu");
}

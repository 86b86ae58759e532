/* The device-memory plan (cuzk_gpu_plan_make), on the CPU: random sets and
 * budgets, each plan checked against the parts cuzk/gpu/gpu.h and src/gpu/plan.c
 * describe, recomputed here; within budget; a resident prefix; never worse
 * (more streamed, more PCIe bytes) when the budget grows; no resident prefix
 * one longer would have fit; the PCE's matrices streamed only with every
 * array streamed; and the 32 GiB PoRep's sizes at the budgets of the cards
 * storage providers own. */
#include <stdio.h>
#include <string.h>

#include "cuzk/gpu/gpu.h"
#include "testutil.h"

#define GIB ((uint64_t)1 << 30)
#define MIB ((uint64_t)1 << 20)

/* The chunked MSMs' scratch as cuzk/gpu/gpu.h counts it, from the plan's own
 * widths and chunk */
static uint64_t expected_msm_chunked(const cuzk_gpu_plan *p, uint64_t *bk)
{
    const uint64_t k = p->chunk_bytes / 96;
    uint64_t phase[2] = {0, 0};
    for (int i = 0; i < CUZK_GPU_PLAN_ARRAYS; i++) {
        const unsigned c = p->msm_c[i];
        const uint64_t xb = i == CUZK_GPU_PLAN_B_G2 ? 384 : 192;
        const uint64_t windows = c ? (256 + c - 1) / c : 0;
        const int late = p->h_vectors == 2 && i >= CUZK_GPU_PLAN_B_G1;
        phase[late] += c ? windows * ((1ull << (c - 1)) + 1) * xb : 0;
    }
    const uint64_t buckets = phase[0] > phase[1] ? phase[0] : phase[1];
    if (bk) *bk = buckets;
    return k * 56 + 2 * (2 * ((k + 31) / 32) + 4) * 196 + buckets + CUZK_GPU_PLAN_MSM_SMALL;
}

/* the parts of a plan as the header states them, from the plan's own choices */
static uint64_t expected_total(const cuzk_gpu_plan_need *nd, const cuzk_gpu_plan *p)
{
    const uint64_t n = (uint64_t)1 << nd->log_n;
    uint64_t res = nd->pce - (p->pce_streamed ? nd->pce_stream : 0), largest = 0, any = 0;
    for (int i = 0; i < CUZK_GPU_PLAN_ARRAYS; i++) {
        if (!nd->points[i] || p->streamed[i]) continue;
        res += nd->points[i];
        if (nd->n_points[i] > largest) largest = nd->n_points[i];
    }
    for (int i = 0; i < CUZK_GPU_PLAN_ARRAYS; i++) any |= (uint64_t)p->streamed[i];
    /* twiddles: n/2 each way, or 2^S + 2^(L-S) each way (L = log n - 1, S = ceil(L/2)) */
    const unsigned L = nd->log_n - 1, S = (L + 1) / 2;
    const uint64_t tw = p->compact_tables && L ? 2 * ((1ull << S) + (1ull << (L - S))) * 32 : n * 32;
    const uint64_t tables = tw + 64 * MIB;
    const int buffers = any || p->pce_streamed;
    CHECK(buffers ? p->chunk_buffers == 2 || p->chunk_buffers == 4 : p->chunk_buffers == 0);
    const uint64_t wit = p->witness_packed ? nd->witness_packed + p->chunk_bytes / 96 * 32 : nd->witness;
    const uint64_t worker = p->h_vectors * n * 32 + wit + nd->host_scalars + p->chunk_buffers * p->chunk_bytes;
    const uint64_t msm = any ? expected_msm_chunked(p, NULL) : largest * CUZK_GPU_PLAN_MSM_BYTES_PER_POINT;
    return tables + res + worker + msm + 256 * MIB;
}

/* The MSMs' widths in chunks: H's at most its own points' width, the
 * others' at most that, CUZK_GPU_PLAN_MSM_C_REST and their own; none for
 * an absent array or when nothing streams */
static void check_widths(const cuzk_gpu_plan_need *nd, const cuzk_gpu_plan *p, int any)
{
    const unsigned ch = p->msm_c[CUZK_GPU_PLAN_H];
    for (int i = 0; i < CUZK_GPU_PLAN_ARRAYS; i++) {
        const unsigned c = p->msm_c[i];
        if (!any || !nd->n_points[i]) {
            CHECK(c == 0);
            continue;
        }
        const unsigned own = cuzk_gpu_msm_window_bits(nd->n_points[i]);
        CHECK_MSG(c >= 2 && c <= own, "array %d: %u bits, its points take %u", i, c, own);
        if (i != CUZK_GPU_PLAN_H) CHECK(c <= CUZK_GPU_PLAN_MSM_C_REST && c <= ch);
    }
}

static uint64_t resident_points(const cuzk_gpu_plan_need *nd, const cuzk_gpu_plan *p)
{
    uint64_t s = 0;
    for (int i = 0; i < CUZK_GPU_PLAN_ARRAYS; i++)
        if (nd->points[i] && !p->streamed[i]) s += nd->points[i];
    return s;
}

static void random_need(cuzk_rng *rng, cuzk_gpu_plan_need *nd)
{
    memset(nd, 0, sizeof *nd);
    nd->log_n = 10 + (unsigned)(cuzk_rng_u64(rng) % 19); /* 2^10 .. 2^28 */
    const uint64_t n = (uint64_t)1 << nd->log_n;
    for (int i = 0; i < CUZK_GPU_PLAN_ARRAYS; i++) {
        if (i && cuzk_rng_u64(rng) % 5 == 0) continue; /* an absent array (h is always there) */
        nd->n_points[i] = 1 + cuzk_rng_u64(rng) % n;
        nd->points[i] = nd->n_points[i] * (i == CUZK_GPU_PLAN_B_G2 ? 192 : 96);
    }
    nd->pce = cuzk_rng_u64(rng) % 2 ? cuzk_rng_u64(rng) % (n * 64) : 0;
    nd->pce_stream = nd->pce ? nd->pce / 10 * (5 + cuzk_rng_u64(rng) % 5) : 0;
    nd->witness = (1 + cuzk_rng_u64(rng) % n) * 32;
    nd->witness_packed = nd->pce && cuzk_rng_u64(rng) % 2 ? nd->witness / (2 + cuzk_rng_u64(rng) % 30) : 0;
    nd->host_scalars = nd->pce ? 0 : (cuzk_rng_u64(rng) % (2 * n)) * 32;
    nd->two_vectors = nd->pce != 0;
}

static void check_plan(const cuzk_gpu_plan_need *nd, const cuzk_gpu_plan *p, uint64_t budget)
{
    CHECK(p->budget == budget);
    CHECK(p->total == p->tables + p->resident + p->worker + p->msm_scratch + p->reserve);
    CHECK_MSG(p->total == expected_total(nd, p), "total %llu, parts say %llu", (unsigned long long)p->total,
              (unsigned long long)expected_total(nd, p));
    if (p->fits) CHECK_MSG(p->total <= budget, "%llu over %llu", (unsigned long long)p->total, (unsigned long long)budget);
    CHECK(p->h_vectors == 3 || (p->h_vectors == 2 && nd->two_vectors));
    /* resident arrays are a prefix of h, l, a, b_g1, b_g2 (absent ones skipped) */
    int seen_streamed = 0, any = 0, prefix = 1;
    uint64_t pinned = 0;
    for (int i = 0; i < CUZK_GPU_PLAN_ARRAYS; i++) {
        if (!nd->points[i]) {
            CHECK(!p->streamed[i]);
            continue;
        }
        if (p->streamed[i]) seen_streamed = any = 1, pinned += nd->points[i];
        else if (seen_streamed) prefix = 0;
    }
    CHECK(prefix);
    /* the PCE streams only with every array streamed, and only a PCE's */
    CHECK(!p->pce_streamed || (nd->pce_stream && resident_points(nd, p) == 0));
    /* the witness packed only as the last resort: everything streamed, two vectors, compact twiddles */
    CHECK(!p->witness_packed || (p->pce_streamed && p->h_vectors == 2 && p->compact_tables && nd->witness_packed));
    if (p->pce_streamed) pinned += nd->pce_stream;
    CHECK((p->chunk_bytes != 0) == (any || p->pce_streamed));
    check_widths(nd, p, any);
    if (any) {
        uint64_t bk = 0;
        expected_msm_chunked(p, &bk);
        CHECK(p->msm_buckets == bk && p->msm_entries == p->chunk_bytes / 96);
    }
    CHECK(p->host_pinned == pinned);
    CHECK(p->pcie_bytes == pinned + nd->witness);
}

/* no plan with one more array resident fits: the smallest such (fewest
 * vectors, smallest chunk, or none when all are then resident) is over */
static void check_longest_prefix(const cuzk_gpu_plan_need *nd, const cuzk_gpu_plan *p)
{
    int next = -1;
    for (int i = 0; i < CUZK_GPU_PLAN_ARRAYS && next < 0; i++)
        if (nd->points[i] && p->streamed[i]) next = i;
    if (next < 0 || !p->fits) return;
    cuzk_gpu_plan q = *p;
    q.streamed[next] = 0;
    q.h_vectors = nd->two_vectors ? 2 : 3;
    q.compact_tables = 1, q.pce_streamed = 0, q.witness_packed = 0;
    /* the smallest chunking: every width at its narrowest */
    for (int i = 0; i < CUZK_GPU_PLAN_ARRAYS; i++)
        if (q.msm_c[i] > CUZK_GPU_PLAN_MSM_C_MIN) q.msm_c[i] = CUZK_GPU_PLAN_MSM_C_MIN;
    int still = 0;
    for (int i = 0; i < CUZK_GPU_PLAN_ARRAYS; i++) still |= q.streamed[i];
    q.chunk_bytes = still ? 64 * MIB : 0;
    q.chunk_buffers = still ? 2 : 0;
    if (!still) memset(q.msm_c, 0, sizeof q.msm_c);
    CHECK_MSG(expected_total(nd, &q) > p->budget, "%s could have stayed resident", cuzk_gpu_plan_array_name(next));
}

static void porep_32g(cuzk_gpu_plan_need *nd)
{
    /* the 32 GiB PoRep's sizes (perf-log: TEST parameters and the PCE of the
     * sixth and seventh sessions; the out-of-memory messages of the small
     * card runs give a's and b_g2's bytes) */
    memset(nd, 0, sizeof *nd);
    nd->log_n = 27;
    const uint64_t np[CUZK_GPU_PLAN_ARRAYS] = {((uint64_t)1 << 27) - 1, 130278869, 129753620, 33112282, 33112282};
    for (int i = 0; i < CUZK_GPU_PLAN_ARRAYS; i++)
        nd->n_points[i] = np[i], nd->points[i] = np[i] * (i == CUZK_GPU_PLAN_B_G2 ? 192 : 96);
    /* the PCE: 130,278,869 rows, nnz A 309,405,051, B 130,327,340, C
     * 282,656,500 (8 bytes an entry, 4 a row pointer); its long-row lists'
     * bound and the query index lists (4 bytes an index) stay resident */
    const uint64_t rows = 130278869, nnz = 309405051ull + 130327340 + 282656500;
    nd->pce_stream = 3 * (rows + 1) * 4 + 8 * nnz;
    nd->pce = nd->pce_stream + 4 * (nnz / 33) + 4 * (18 + 129753620ull + 2 * 33112282);
    nd->witness = (1 + 130278869ull + 18) * 32;
    nd->witness_packed = (130278869ull + 31) / 32 * 12 + (19 + 130278869ull / 8) * 32;
    nd->two_vectors = 1;
}

/* The chunk schedule: every point of every MSM once, in order within its
 * MSM; phases in order; inside a phase no MSM runs more than one chunk
 * ahead of its share (done / n) of the others'; the count as returned. */
static void check_schedule(cuzk_rng *rng)
{
    uint64_t n[CUZK_GPU_PLAN_ARRAYS], per[CUZK_GPU_PLAN_ARRAYS];
    unsigned phase[CUZK_GPU_PLAN_ARRAYS];
    for (int i = 0; i < CUZK_GPU_PLAN_ARRAYS; i++) {
        n[i] = cuzk_rng_u64(rng) % 4 == 0 ? 0 : 1 + cuzk_rng_u64(rng) % 5000;
        per[i] = 1 + cuzk_rng_u64(rng) % 700;
        phase[i] = (unsigned)(cuzk_rng_u64(rng) % 2);
    }
    static cuzk_gpu_chunk_step st[40000];
    const size_t k = cuzk_gpu_chunk_schedule(st, sizeof st / sizeof *st, n, per, phase);
    size_t want = 0;
    for (int i = 0; i < CUZK_GPU_PLAN_ARRAYS; i++) want += (n[i] + per[i] - 1) / per[i];
    CHECK_MSG(k == want, "%zu steps, %zu chunks", k, want);
    uint64_t done[CUZK_GPU_PLAN_ARRAYS] = {0};
    unsigned ph = 0;
    for (size_t s = 0; s < k && s < sizeof st / sizeof *st; s++) {
        const cuzk_gpu_chunk_step *c = &st[s];
        CHECK(c->msm < CUZK_GPU_PLAN_ARRAYS && c->phase == phase[c->msm] && c->phase >= ph);
        if (c->msm >= CUZK_GPU_PLAN_ARRAYS) break;
        ph = c->phase;
        CHECK(c->off == done[c->msm] && c->len >= 1 && c->len <= per[c->msm] && c->off + c->len <= n[c->msm]);
        CHECK(c->len == per[c->msm] || c->off + c->len == n[c->msm]); /* only an MSM's last chunk is short */
        /* it was the least far along of its phase's unfinished MSMs */
        for (int j = 0; j < CUZK_GPU_PLAN_ARRAYS; j++)
            if (phase[j] == ph && done[j] < n[j] && j != (int)c->msm)
                CHECK((double)done[c->msm] / n[c->msm] <= (double)done[j] / n[j]);
        done[c->msm] += c->len;
    }
    for (int i = 0; i < CUZK_GPU_PLAN_ARRAYS; i++) CHECK(done[i] == n[i]);
}

/* The MSMs' buckets in one room (cuzk_gpu_msm_bucket_layout, what the plan
 * counts and the prover's offsets): random widths (0: no MSM) and phases;
 * each MSM's buckets as many bytes as its windows' buckets take, within
 * the room; two of one phase never overlap (they accumulate at once), and
 * the room no larger than the fuller phase */
static void check_bucket_layout(cuzk_rng *rng)
{
    unsigned c[CUZK_GPU_PLAN_ARRAYS], phase[CUZK_GPU_PLAN_ARRAYS];
    uint64_t off[CUZK_GPU_PLAN_ARRAYS], len[CUZK_GPU_PLAN_ARRAYS], sum[2] = {0, 0};
    for (int i = 0; i < CUZK_GPU_PLAN_ARRAYS; i++) {
        c[i] = cuzk_rng_u64(rng) % 5 == 0 ? 0 : 1 + (unsigned)(cuzk_rng_u64(rng) % 23);
        phase[i] = (unsigned)(cuzk_rng_u64(rng) % 2);
        const uint64_t xb = i == CUZK_GPU_PLAN_B_G2 ? 384 : 192;
        len[i] = c[i] ? (256 + c[i] - 1) / c[i] * ((1ull << (c[i] - 1)) + 1) * xb : 0;
        CHECK(cuzk_gpu_msm_bucket_bytes(c[i], (unsigned)xb) == len[i]);
        sum[phase[i]] += len[i];
    }
    const uint64_t room = cuzk_gpu_msm_bucket_layout(c, phase, off);
    CHECK(room == cuzk_gpu_msm_bucket_layout(c, phase, NULL));
    CHECK_MSG(room == (sum[0] > sum[1] ? sum[0] : sum[1]), "room %llu, phases %llu and %llu",
              (unsigned long long)room, (unsigned long long)sum[0], (unsigned long long)sum[1]);
    for (int i = 0; i < CUZK_GPU_PLAN_ARRAYS; i++) {
        CHECK(off[i] + len[i] <= room);
        for (int j = i + 1; j < CUZK_GPU_PLAN_ARRAYS; j++)
            if (phase[i] == phase[j] && len[i] && len[j])
                CHECK_MSG(off[i] + len[i] <= off[j] || off[j] + len[j] <= off[i],
                          "MSMs %d and %d of phase %u overlap", i, j, phase[i]);
    }
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_gpu_plan");
    for (int t = 0; t < 2000; t++) check_bucket_layout(&rng);
    for (int t = 0; t < 3000; t++) {
        cuzk_gpu_plan_need nd;
        random_need(&rng, &nd);
        /* budgets from nothing to past everything, ascending */
        cuzk_gpu_plan all;
        cuzk_gpu_plan_make(&all, &nd, UINT64_MAX);
        CHECK(all.fits);
        uint64_t b = 0;
        cuzk_gpu_plan prev = {0};
        int have_prev = 0;
        for (int k = 0; k < 12; k++) {
            b += cuzk_rng_u64(&rng) % (all.total / 6 + 1);
            cuzk_gpu_plan p;
            cuzk_gpu_plan_make(&p, &nd, b);
            check_plan(&nd, &p, b);
            check_longest_prefix(&nd, &p);
            if (have_prev) {
                CHECK(!prev.fits || p.fits);
                if (prev.fits) {
                    CHECK(resident_points(&nd, &p) >= resident_points(&nd, &prev));
                    CHECK(p.pcie_bytes <= prev.pcie_bytes);
                }
            }
            prev = p, have_prev = 1;
        }
        /* exactly its own total still fits; a byte less is another plan */
        if (prev.fits) {
            cuzk_gpu_plan p;
            cuzk_gpu_plan_make(&p, &nd, prev.total);
            CHECK(p.fits && p.total == prev.total);
            cuzk_gpu_plan_make(&p, &nd, prev.total - 1);
            CHECK(!p.fits || p.total < prev.total);
        }
    }

    for (int t = 0; t < 400; t++) check_schedule(&rng);

    cuzk_gpu_plan_need po;
    porep_32g(&po);
    printf("32 GiB PoRep C2, one worker:\n");
    const double cards[] = {79.2, 44.1, 30.7, 24.0, 16.0, 12.0};
    for (size_t k = 0; k < sizeof cards / sizeof *cards; k++) {
        cuzk_gpu_plan p;
        char line[512];
        cuzk_gpu_plan_make(&p, &po, (uint64_t)(cards[k] * GIB));
        check_plan(&po, &p, (uint64_t)(cards[k] * GIB));
        cuzk_gpu_plan_describe(&p, line, sizeof line);
        printf("  %5.1f GiB: %s\n", cards[k], line);
        CHECK(strstr(line, p.fits ? "planned" : "needs at least") != NULL);
        if (k == 0) { /* the whole H100: nothing streamed, three vectors, full twiddles, as before */
            CHECK(p.fits && !p.chunk_bytes && p.h_vectors == 3 && !p.compact_tables && !p.pce_streamed);
        }
        if (cards[k] == 16.0) /* a 16 GB card: compact twiddles and the PCE's matrices streamed too */
            CHECK(p.fits && p.compact_tables && p.pce_streamed && p.h_vectors == 2);
    }
    /* a tiny budget: the message says what the set needs */
    cuzk_gpu_plan p;
    char line[512];
    cuzk_gpu_plan_make(&p, &po, GIB);
    cuzk_gpu_plan_describe(&p, line, sizeof line);
    CHECK(!p.fits && p.total > GIB && strstr(line, "needs at least"));
    CHECK(!strcmp(cuzk_gpu_plan_array_name(CUZK_GPU_PLAN_B_G2), "b_g2"));
    return tu_finish("test_gpu_plan");
}

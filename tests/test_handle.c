/* Handles: never 0, never given twice, also when threads take them at once
 * (a device keeps copies under them: two objects under one handle would
 * share a copy). */
#include <pthread.h>
#include <stdlib.h>

#include "cuzk/util/handle.h"
#include "testutil.h"

#define THREADS 4
#define EACH 100000

static void *take(void *arg)
{
    uint64_t *out = arg;
    for (int i = 0; i < EACH; i++) out[i] = cuzk_handle_new();
    return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_handle");
    const uint64_t before = cuzk_handle_new();
    CHECK(before != 0);
    uint64_t *h = malloc((size_t)THREADS * EACH * sizeof *h);
    CHECK(h != NULL);
    if (!h) return tu_finish("test_handle");
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, take, h + (size_t)t * EACH);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    /* each thread's own handles rise */
    unsigned rising = 0;
    for (int t = 0; t < THREADS; t++)
        for (int i = 1; i < EACH; i++) rising += h[(size_t)t * EACH + i] > h[(size_t)t * EACH + i - 1];
    CHECK_MSG(rising == THREADS * (EACH - 1), "%u of %u steps rise", rising, THREADS * (EACH - 1));
    qsort(h, (size_t)THREADS * EACH, sizeof *h, cmp_u64);
    size_t dup = 0;
    for (size_t i = 1; i < (size_t)THREADS * EACH; i++) dup += h[i] == h[i - 1];
    CHECK_MSG(dup == 0, "%zu handles given twice", dup);
    CHECK_MSG(h[0] > before, "a handle %llu not after the one taken before, %llu", (unsigned long long)h[0],
              (unsigned long long)before);
    /* none skipped either: the threads' handles are the next THREADS·EACH */
    CHECK(h[(size_t)THREADS * EACH - 1] == before + (uint64_t)THREADS * EACH);
    CHECK(cuzk_handle_new() == before + (uint64_t)THREADS * EACH + 1);
    free(h);
    return tu_finish("test_handle");
}

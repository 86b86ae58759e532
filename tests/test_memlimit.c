/* The memory limit the engine budgets under: physical RAM, lowered to the
 * cgroup's limit where there is one (cgroup v2: the smallest memory.max from
 * the process's cgroup up to the root, "max" meaning none; cgroup v1:
 * memory.limit_in_bytes up the tree, a huge value meaning none; the hybrid
 * layout, v1 controllers beside /sys/fs/cgroup/unified), read from fake trees
 * with random limits, and under a cgroup namespace whose paths the mount
 * does not show; the default budget's headroom; RssAnon grows with
 * memory touched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/engine/engine.h"
#include "cuzk/util/mem.h"
#include "testutil.h"

static char root[] = "/tmp/cuzk_memlimit_XXXXXX";

static void put(const char *rel, const char *text)
{
    char path[512], dir[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + strlen(root) + 1; (p = strchr(p, '/')); p++) {
        *p = 0;
        mkdir(dir, 0755);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) fputs(text, f), fclose(f);
}

/* A random limit (256 MiB up to half the RAM) written as a limit file. */
static uint64_t put_limit(cuzk_rng *rng, uint64_t phys, const char *rel)
{
    uint64_t v = (1ull << 28) + cuzk_rng_u64(rng) % (phys / 2);
    char num[32];
    snprintf(num, sizeof num, "%llu\n", (unsigned long long)v);
    put(rel, num);
    return v;
}

/* The limit read under root is want, from the file named by in_from. */
static void expect_limit(uint64_t want, const char *in_from, const char *what)
{
    char from[4300];
    uint64_t got = cuzk_engine_memory_limit(root, from, sizeof from);
    CHECK_MSG(got == want && strstr(from, in_from), "%s: %llu (want %llu) from %s", what, (unsigned long long)got,
              (unsigned long long)want, from);
}

/* cuzk_mem_discard: the whole pages inside an array read as zeros and
 * leave the resident set; the partial pages at its ends keep their bytes. */
static unsigned long vm_rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned long kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "RssAnon:", 8)) kib = strtoul(line + 8, NULL, 10);
    if (f) fclose(f);
    return kib;
}

static void discard(cuzk_rng *rng)
{
    const size_t pg = (size_t)sysconf(_SC_PAGESIZE), off = 1 + cuzk_rng_u64(rng) % (pg - 1);
    const size_t pages = 2048 + cuzk_rng_u64(rng) % 1024, len = pages * pg; /* 8-12 MiB at 4 KiB pages */
    unsigned char *blk = malloc(len + 2 * pg), *a = blk + off;
    CHECK(blk != NULL);
    if (!blk) return;
    memset(blk, 0xA5, len + 2 * pg);
    const unsigned long before = vm_rss_kib();
    const size_t gone = cuzk_mem_discard(a, len);
    const unsigned long after = vm_rss_kib();
    const size_t lo = (size_t)(((uintptr_t)a + pg - 1) / pg * pg - (uintptr_t)a), hi = lo + gone;
    CHECK_MSG(gone == (pages - 1) * pg, "offset %zu: %zu of %zu bytes given back", off, gone, len);
    bool edges = true, zero = true;
    for (size_t i = 0; i < lo; i++) edges = edges && a[i] == 0xA5;
    for (size_t i = hi; i < len; i++) edges = edges && a[i] == 0xA5;
    for (size_t i = lo; i < hi; i++) zero = zero && a[i] == 0;
    CHECK(edges && zero);
    /* RSS: the kernel's own count, where /proc has it (the pages were resident) */
    if (before) CHECK_MSG(before - after + 64 >= gone / 1024, "RssAnon %lu -> %lu kB, %zu bytes given back", before,
                          after, gone);
    CHECK(cuzk_mem_discard(a, pg) == 0 && cuzk_mem_discard(NULL, len) == 0);
    free(blk);
    printf("discard: %zu of %zu bytes at offset %zu, RssAnon %lu -> %lu kB\n", gone, len, off, before, after);
}

int main(void)
{
    cuzk_rng rng;
    tu_init(&rng, "test_memlimit");
    discard(&rng);
    CHECK(mkdtemp(root) != NULL);
    char from[4300];
    const uint64_t phys = cuzk_engine_memory_limit("/nonexistent-root", from, sizeof from);
    CHECK_MSG(phys > (64ull << 20) && !strcmp(from, "physical memory"), "physical %llu from %s",
              (unsigned long long)phys, from);

    /* cgroup v2: the parent's limit is the smaller one; the leaf says "max" */
    const uint64_t lim = (1ull << 28) + (cuzk_rng_u64(&rng) % (phys / 2));
    char num[64];
    put("proc/self/cgroup", "0::/system.slice/cuzk.service\n");
    put("sys/fs/cgroup/system.slice/cuzk.service/memory.max", "max\n");
    snprintf(num, sizeof num, "%llu\n", (unsigned long long)lim);
    put("sys/fs/cgroup/system.slice/memory.max", num);
    uint64_t got = cuzk_engine_memory_limit(root, from, sizeof from);
    CHECK_MSG(got == lim && strstr(from, "/sys/fs/cgroup/system.slice/memory.max"), "v2 parent: %llu from %s",
              (unsigned long long)got, from);
    /* the leaf tighter still */
    snprintf(num, sizeof num, "%llu\n", (unsigned long long)(lim / 2));
    put("sys/fs/cgroup/system.slice/cuzk.service/memory.max", num);
    got = cuzk_engine_memory_limit(root, from, sizeof from);
    CHECK_MSG(got == lim / 2 && strstr(from, "cuzk.service/memory.max"), "v2 leaf: %llu from %s",
              (unsigned long long)got, from);
    /* a limit above the RAM is no limit */
    snprintf(num, sizeof num, "%llu\n", (unsigned long long)(phys * 4));
    put("sys/fs/cgroup/system.slice/cuzk.service/memory.max", num);
    put("sys/fs/cgroup/system.slice/memory.max", "max\n");
    got = cuzk_engine_memory_limit(root, from, sizeof from);
    CHECK_MSG(got == phys && !strcmp(from, "physical memory"), "v2 above RAM: %llu from %s",
              (unsigned long long)got, from);

    /* cgroup v1: memory.limit_in_bytes; ~2^63 means none */
    put("proc/self/cgroup", "12:pids:/x\n4:memory:/docker/abc\n1:name=systemd:/x\n");
    snprintf(num, sizeof num, "%llu\n", (unsigned long long)lim);
    put("sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", num);
    got = cuzk_engine_memory_limit(root, from, sizeof from);
    CHECK_MSG(got == lim && strstr(from, "memory.limit_in_bytes"), "v1: %llu from %s", (unsigned long long)got,
              from);
    put("sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "9223372036854771712\n");
    CHECK(cuzk_engine_memory_limit(root, NULL, 0) == phys);
    /* garbage is no limit either */
    put("sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "lots\n");
    CHECK(cuzk_engine_memory_limit(root, NULL, 0) == phys);

    /* v1: a parent's limit binds its children */
    snprintf(num, sizeof num, "%llu\n", (unsigned long long)(lim / 3));
    put("sys/fs/cgroup/memory/docker/memory.limit_in_bytes", num);
    got = cuzk_engine_memory_limit(root, from, sizeof from);
    CHECK_MSG(got == lim / 3 && strstr(from, "/memory/docker/memory.limit_in_bytes"), "v1 parent: %llu from %s",
              (unsigned long long)got, from);

    /* a cgroup namespace: /proc/self/cgroup names a path the mount does not
     * show (the mount's root is the process's group, or another namespace's
     * root): the longest tail of the path found under the mount, else its
     * top; the limit says where it was read and that the path was not found */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s/sys'", root);
    CHECK(system(cmd) == 0);
    put("proc/self/cgroup", "4:memory:/process_api/a0981cf1\n0::/\n");
    const uint64_t limt = put_limit(&rng, phys, "sys/fs/cgroup/memory/memory.limit_in_bytes");
    got = cuzk_engine_memory_limit(root, from, sizeof from);
    CHECK_MSG(got == limt && strstr(from, "/sys/fs/cgroup/memory/memory.limit_in_bytes (")
                  && strstr(from, "cgroup /process_api/a0981cf1 (/proc/self/cgroup) is not under "
                                  "/sys/fs/cgroup/memory; read from its top up"),
              "namespace, limit at the mount's top: %llu (want %llu) from %s", (unsigned long long)got,
              (unsigned long long)limt, from);
    put("sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
    got = cuzk_engine_memory_limit(root, from, sizeof from);
    CHECK_MSG(got == phys && !strncmp(from, "physical memory (this process's cgroup /process_api/a0981cf1", 60),
              "namespace, no limit: %llu from %s", (unsigned long long)got, from);
    /* a group outside the namespace ("/../../x"), its tail under the mount */
    put("proc/self/cgroup", "4:memory:/../../cuzk-test-7\n0::/\n");
    const uint64_t limo = put_limit(&rng, phys, "sys/fs/cgroup/memory/cuzk-test-7/memory.limit_in_bytes");
    expect_limit(limo, "/sys/fs/cgroup/memory/cuzk-test-7/memory.limit_in_bytes (this process's cgroup "
                       "/../../cuzk-test-7 (/proc/self/cgroup) is not under /sys/fs/cgroup/memory; read from "
                       "/cuzk-test-7 up)", "namespace, outside its root");
    /* a tail found: its ancestors under the mount bind too */
    put("proc/self/cgroup", "4:memory:/kubepods/pod1/c2\n");
    put_limit(&rng, phys, "sys/fs/cgroup/memory/pod1/c2/memory.limit_in_bytes");
    snprintf(num, sizeof num, "%llu\n", (unsigned long long)(1ull << 27));
    put("sys/fs/cgroup/memory/pod1/memory.limit_in_bytes", num);
    expect_limit(1ull << 27, "/sys/fs/cgroup/memory/pod1/memory.limit_in_bytes (", "namespace, a tail's parent");

    /* the hybrid layout: v1 controllers in /sys/fs/cgroup/<controller>, the
     * unified hierarchy in /sys/fs/cgroup/unified */
    snprintf(cmd, sizeof cmd, "rm -rf '%s/sys'", root);
    CHECK(system(cmd) == 0);
    put("proc/self/cgroup", "11:memory:/system.slice/cuzk.service\n3:pids:/system.slice/cuzk.service\n"
                            "1:name=systemd:/system.slice/cuzk.service\n0::/system.slice/cuzk.service\n");
    put("sys/fs/cgroup/unified/cgroup.controllers", "\n"); /* no controller on the unified side */
    put("sys/fs/cgroup/pids/system.slice/cuzk.service/pids.max", "max\n");
    const char *v1leaf = "sys/fs/cgroup/memory/system.slice/cuzk.service/memory.limit_in_bytes";
    const uint64_t lim1 = put_limit(&rng, phys, v1leaf);
    expect_limit(lim1, v1leaf, "hybrid, memory on v1");
    /* the memory controller on the unified side (no v1 memory hierarchy) */
    put("proc/self/cgroup", "3:pids:/system.slice/cuzk.service\n0::/system.slice/cuzk.service\n");
    put("sys/fs/cgroup/unified/cgroup.controllers", "memory pids\n");
    const char *v2leaf = "sys/fs/cgroup/unified/system.slice/cuzk.service/memory.max";
    const uint64_t lim2 = put_limit(&rng, phys, v2leaf);
    expect_limit(lim2, v2leaf, "hybrid, memory on v2");
    /* both sides limited: the smaller binds */
    put("proc/self/cgroup", "11:memory:/system.slice/cuzk.service\n0::/system.slice/cuzk.service\n");
    expect_limit(lim1 < lim2 ? lim1 : lim2, lim1 < lim2 ? v1leaf : v2leaf, "hybrid, both");

    /* the default budget: headroom max(margin, 3/10), half on a small machine */
    const uint64_t G = 1ull << 30;
    CHECK(cuzk_engine_memory_budget_default(125 * G, 5 * G) == 125 * G - 125 * G / 10 * 3);
    CHECK(cuzk_engine_memory_budget_default(125 * G, 5 * G) <= 90 * G); /* issue 20's RssAnon bound */
    CHECK(cuzk_engine_memory_budget_default(24 * G, 5 * G) == 24 * G - 24 * G / 10 * 3);
    CHECK(cuzk_engine_memory_budget_default(12 * G, 5 * G) == 7 * G);
    CHECK(cuzk_engine_memory_budget_default(8 * G, 5 * G) == 4 * G);
    uint64_t l = G + cuzk_rng_u64(&rng) % (512 * G), m = cuzk_rng_u64(&rng) % (16 * G);
    uint64_t b = cuzk_engine_memory_budget_default(l, m);
    CHECK_MSG(b < l && (b == l / 2 || (l - b >= m && l - b >= l / 10 * 3)), "budget %llu of %llu, margin %llu",
              (unsigned long long)b, (unsigned long long)l, (unsigned long long)m);

    /* RssAnon follows memory touched */
    uint64_t r0 = cuzk_engine_rss_anon();
    size_t n = 64u << 20;
    unsigned char *p = malloc(n);
    if (p) memset(p, 0x5a, n);
    uint64_t r1 = cuzk_engine_rss_anon();
    CHECK_MSG(r0 > 0 && r1 >= r0 + n / 2, "RssAnon %llu -> %llu after touching %zu bytes", (unsigned long long)r0,
              (unsigned long long)r1, n);
    free(p);

    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
    return tu_finish("test_memlimit");
}

/*
 * How much memory the process may use: physical RAM, lowered to its cgroup's
 * limit (a container or a systemd unit with MemoryMax), since the OOM killer
 * acts on the cgroup's limit, not on the machine's RAM; and how much
 * anonymous memory it holds (what that limit is charged with, beside the
 * page cache that the kernel can reclaim).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/engine/engine.h"

/* A limit file: a byte count, or "max" / an absurdly large value for none (0). */
static uint64_t read_limit(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char buf[64] = "";
    uint64_t v = 0;
    if (fgets(buf, sizeof buf, f) && strncmp(buf, "max", 3) != 0) {
        char *end;
        unsigned long long x = strtoull(buf, &end, 10);
        if (end != buf && x < (1ull << 60)) v = x; /* cgroup v1 says "none" with ~2^63 */
    }
    fclose(f);
    return v;
}

/* The smallest limit in file `name` of cgroup cg and of each ancestor, in
 * the hierarchy mounted at root + mnt (the top has none to read); 0: none. */
static uint64_t walk_up(const char *root, const char *mnt, const char *cg, const char *name, char *from,
                        size_t from_len)
{
    char dir[2048], path[4096];
    snprintf(dir, sizeof dir, "%s", cg);
    uint64_t best = 0;
    for (char *end = dir + strlen(dir);;) {
        *end = 0;
        snprintf(path, sizeof path, "%s%s%s/%s", root, mnt, dir, name);
        uint64_t l = read_limit(path);
        if (l && (!best || l < best)) {
            best = l;
            if (from) snprintf(from, from_len, "cgroup %s", path + strlen(root));
        }
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir) break;
        end = slash;
    }
    return best;
}

static bool exists(const char *root, const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s", root, rel);
    return access(path, F_OK) == 0;
}

/*
 * Where the cgroup path of /proc/self/cgroup is in the hierarchy mounted at
 * mnt: usually as it is. In a container the two can disagree: the path is
 * relative to the process's cgroup namespace while the mount may show
 * another root (docker's /docker/<id> read through a mount of that very
 * group; "/../x" for a group outside the namespace). Then the longest tail
 * of the path that exists under the mount is taken, else the mount's top
 * (in a namespace, the process's own group or an ancestor); false then.
 */
static bool locate(const char *root, const char *mnt, const char *cg, char *out, size_t outlen)
{
    char rel[2200];
    for (const char *p = cg; p && strcmp(p, "/") && *p; p = strchr(p + 1, '/')) {
        if (!strncmp(p, "/..", 3) && (!p[3] || p[3] == '/')) continue; /* above the namespace's root */
        snprintf(rel, sizeof rel, "%s%s", mnt, p);
        if (exists(root, rel)) {
            snprintf(out, outlen, "%s", p);
            return p == cg;
        }
    }
    snprintf(out, outlen, "%s", "");
    return !*cg || !strcmp(cg, "/");
}

/* The smallest limit in file `name` from cgroup cg up in the hierarchy at
 * mnt; from says which file; note (when cg was not found as it is) where
 * it was looked for instead. */
static uint64_t hierarchy_limit(const char *root, const char *mnt, const char *cg, const char *name, char *from,
                                size_t from_len, char *note, size_t note_len)
{
    char at[2048];
    if (!locate(root, mnt, cg, at, sizeof at))
        snprintf(note, note_len, "this process's cgroup %s (/proc/self/cgroup) is not under %s; read from %s up",
                 cg, mnt, at[0] ? at : "its top");
    return walk_up(root, mnt, at, name, from, from_len);
}

/*
 * The cgroup limit of this process under root, the smaller of:
 *  - cgroup v2: memory.max of its cgroup and each ancestor, in the unified
 *    hierarchy: /sys/fs/cgroup (v2 only), or /sys/fs/cgroup/unified (the
 *    hybrid layout systemd used to set up: v1 controllers beside it, the
 *    memory controller usually on the v1 side, so no memory.max there);
 *  - cgroup v1: memory.limit_in_bytes of its memory cgroup and each ancestor
 *    (a parent's limit binds its children), in /sys/fs/cgroup/memory.
 */
static uint64_t cgroup_limit(const char *root, char *from, size_t from_len, char *note, size_t note_len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/proc/self/cgroup", root);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[2048], v2[2048] = "", v1[2048] = "";
    bool have_v2 = false, have_v1 = false;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        /* "hierarchy-id:controllers:path"; v2 is "0::path" */
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2) continue;
        *c1 = 0, *c2 = 0;
        const char *ctrl = c1 + 1, *cg = c2 + 1;
        if (!strcmp(line, "0") && !*ctrl) snprintf(v2, sizeof v2, "%s", cg), have_v2 = true;
        else if (strstr(ctrl, "memory")) snprintf(v1, sizeof v1, "%s", cg), have_v1 = true;
    }
    fclose(f);
    /* note: a path not found as it is, in the hierarchy whose limit binds
     * (or, with none, the one the memory controller is on) */
    char n1[4200] = "", n2[4200] = "", f1[4200] = "";
    uint64_t best = 0, l1 = 0;
    if (have_v2) {
        const char *mnt = exists(root, "/sys/fs/cgroup/cgroup.controllers") ? "/sys/fs/cgroup"
                          : exists(root, "/sys/fs/cgroup/unified/cgroup.controllers") ? "/sys/fs/cgroup/unified"
                                                                                        : "/sys/fs/cgroup";
        best = hierarchy_limit(root, mnt, v2, "memory.max", from, from_len, n2, sizeof n2);
    }
    if (have_v1)
        l1 = hierarchy_limit(root, "/sys/fs/cgroup/memory", v1, "memory.limit_in_bytes", f1, sizeof f1, n1, sizeof n1);
    bool v1_binds = l1 && (!best || l1 < best);
    if (v1_binds) {
        best = l1;
        snprintf(from, from_len, "%s", f1);
    }
    snprintf(note, note_len, "%s", v1_binds || (!best && have_v1) ? n1 : n2);
    return best;
}

uint64_t cuzk_engine_memory_limit(const char *root, char *from, size_t from_len)
{
    if (!root) root = "";
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    uint64_t phys = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : 0;
    char cfrom[4200] = "", note[4200] = "";
    uint64_t cg = cgroup_limit(root, cfrom, sizeof cfrom, note, sizeof note);
    bool use_cg = cg && (!phys || cg < phys);
    if (from && from_len)
        snprintf(from, from_len, "%s%s%s%s", use_cg ? cfrom : "physical memory", note[0] ? " (" : "", note,
                 note[0] ? ")" : "");
    return use_cg ? cg : phys;
}

uint64_t cuzk_engine_memory_budget_default(uint64_t limit, uint64_t margin)
{
    /* headroom for the OS, the page cache (parameter and PCE files are read
     * through it) and what the engine does not account (gRPC buffers, a request in
     * parsing): at least margin and 3/10 of the limit; half the limit on a small
     * machine. Why 3/10: on the 125 GiB host of the 32 GiB PoRep the reservations
     * then stop at 87.5 GiB, of which 6.8 GiB is the PCE, and what is not counted
     * stayed under 3 GiB there: RssAnon ≤ ~84 GiB whatever the worker counts while
     * the PCE was a file mapping (the goal is ≤ 90 GiB); read into anonymous memory
     * (so that a cut file cannot fault the daemon) it adds its 6.8 GiB, reserved
     * in the budget all along. A tenth let 12 synthesis workers take RssAnon to
     * ~108 GiB. */
    uint64_t head = limit / 10 * 3 > margin ? limit / 10 * 3 : margin;
    return limit > 2 * head ? limit - head : limit / 2;
}

uint64_t cuzk_engine_rss_anon(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    uint64_t kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "RssAnon: %" SCNu64 " kB", &kb) == 1) break;
    fclose(f);
    return kb * 1024;
}

unsigned cuzk_engine_synthesis_workers_default(unsigned cores, uint64_t budget, uint64_t footprint)
{
    unsigned n = cores ? cores : 1;
    if (footprint && budget / footprint < n) n = (unsigned)(budget / footprint);
    return n ? n : 1;
}

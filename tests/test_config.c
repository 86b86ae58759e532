/*
 * The daemon's configuration: defaults, every key's parsing and range
 * checks with random values, errors that name the key, and agreement of the
 * key table with docs/configuration.md and deploy/cuzk.example.toml.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/config.h"
#include "testutil.h"

static cuzk_rng rng;

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) n = 0;
    if (b) b[n] = '\0';
    fclose(f);
    return b;
}

static int apply(cuzk_config *c, const char *text, char *err)
{
    return cfg_apply_toml(c, text, strlen(text), err, 384);
}

/* An error must mention `what`. */
static void expect_error(const char *text, const char *what)
{
    cuzk_config c;
    cfg_defaults(&c);
    char err[384] = "";
    int rc = apply(&c, text, err);
    CHECK_MSG(rc != 0 && strstr(err, what), "input <<%s>> gave rc %d err '%s', wanted '%s'", text, rc, err, what);
}

static void test_defaults(void)
{
    cuzk_config c;
    cfg_defaults(&c);
    /* curio's defaults, from its cuzk-core config (facts, not code) */
    CHECK(c.total_budget == 0);
    CHECK(c.safety_margin == 5ull << 30);
    CHECK(c.eviction_min_idle_ms == 300000);
    CHECK(c.gpu_workers_per_device == 2 && c.gpu_threads == 0 && c.n_devices == 0);
    CHECK(c.max_batch_size == 1 && c.max_batch_wait_ms == 10000 && c.sort_by_type);
    CHECK(c.threads == 0 && c.pipeline_enabled && c.synthesis_lookahead == 1);
    CHECK(c.synthesis_concurrency == 1 && c.max_parallel_synthesis == 18);
    CHECK(!strcmp(c.param_cache, "/data/zk/params"));
    CHECK(!c.pce_verify_background); /* sync unless asked */
    CHECK(c.log_level == CFG_LOG_INFO && !c.log_json);
    CHECK(!strncmp(c.listen, "unix:///", 8));
    CHECK(c.max_message_size >= 50u << 20); /* ~50 MB C1 outputs must fit */
    char err[384];
    CHECK(cfg_finish(&c, err, sizeof err) == 0);
}

static void test_random_values(void)
{
    for (int iter = 0; iter < 200; iter++) {
        cuzk_config c;
        cfg_defaults(&c);
        char doc[2048], err[384];
        uint32_t workers = 1 + (uint32_t)(cuzk_rng_u64(&rng) % 16);
        uint32_t batch = 1 + (uint32_t)(cuzk_rng_u64(&rng) % 64);
        uint64_t wait = cuzk_rng_u64(&rng) % 3600001;
        uint64_t n = 1 + cuzk_rng_u64(&rng) % 100000;
        static const char *units[] = {"KiB", "MiB", "GiB", "KB", "MB", "GB", ""};
        static const uint64_t mul[] = {1ull << 10, 1ull << 20, 1ull << 30, 1000, 1000000, 1000000000, 1};
        int u = (int)(cuzk_rng_u64(&rng) % 7);
        uint64_t dur = cuzk_rng_u64(&rng) % 100000;
        static const char *dunits[] = {"ms", "s", "m", "h", ""};
        static const uint64_t dmul[] = {1, 1000, 60000, 3600000, 1000};
        int du = (int)(cuzk_rng_u64(&rng) % 5);
        uint32_t dev0 = (uint32_t)(cuzk_rng_u64(&rng) % 8), dev1 = dev0 + 1 + (uint32_t)(cuzk_rng_u64(&rng) % 8);
        bool sort = cuzk_rng_u64(&rng) & 1;
        snprintf(doc, sizeof doc,
                 "# comment\n[gpus]\ndevices = [%u, %u]\ngpu_workers_per_device = %u\n"
                 "[scheduler]\nmax_batch_size = %u\nmax_batch_wait_ms = %llu\nsort_by_type = %s\n"
                 "[memory]\ntotal_budget = \"%llu%s\"\neviction_min_idle = \"%llu%s\"\n"
                 "[srs]\npreload = [\"porep-32g\", \"test-porep\"]\n[logging]\nlevel = \"debug\"\nformat = \"json\"\n",
                 dev0, dev1, workers, batch, (unsigned long long)wait, sort ? "true" : "false",
                 (unsigned long long)n, units[u], (unsigned long long)dur, dunits[du]);
        int rc = apply(&c, doc, err);
        CHECK_MSG(rc == 0, "%s\n%s", err, doc);
        CHECK(c.n_devices == 2 && c.devices[0] == dev0 && c.devices[1] == dev1);
        CHECK(c.gpu_workers_per_device == workers && c.max_batch_size == batch);
        CHECK(c.max_batch_wait_ms == wait && c.sort_by_type == sort);
        CHECK(c.total_budget == n * mul[u]);
        CHECK(c.eviction_min_idle_ms == dur * dmul[du]);
        CHECK(c.n_preload == 2 && !strcmp(c.preload[1], "test-porep"));
        CHECK(c.log_level == CFG_LOG_DEBUG && c.log_json);
        /* untouched keys keep their defaults */
        CHECK(c.safety_margin == 5ull << 30 && c.synthesis_lookahead == 1);

        /* one past a range limit names the key */
        char bad[256];
        snprintf(bad, sizeof bad, "[scheduler]\nmax_batch_size = %u\n", 65 + (unsigned)(cuzk_rng_u64(&rng) % 1000));
        expect_error(bad, "scheduler.max_batch_size");
    }
}

static void test_errors(void)
{
    expect_error("[daemon]\nlisen = \"x\"\n", "unknown key daemon.lisen");
    expect_error("[deamon]\nlisten = \"unix:///x\"\n", "unknown section [deamon]");
    expect_error("listen = \"unix:///x\"\n", "outside any [section]");
    expect_error("[gpus]\ngpu_workers_per_device = \"2\"\n", "gpus.gpu_workers_per_device: expected an integer");
    expect_error("[gpus]\ngpu_workers_per_device = 0\n", "gpus.gpu_workers_per_device");
    expect_error("[gpus]\ngpu_workers_per_device = -3\n", "out of range");
    expect_error("[gpus]\ndevices = [0, 0]\n", "gpus.devices: device 0 listed twice");
    expect_error("[gpus]\ndevices = [\"0\"]\n", "gpus.devices");
    expect_error("[memory]\ntotal_budget = \"12XB\"\n", "memory.total_budget");
    expect_error("[memory]\ntotal_budget = \"0GiB\"\n", "memory.total_budget");
    expect_error("[memory]\nsafety_margin = \"auto\"\n", "memory.safety_margin");
    expect_error("[memory]\neviction_min_idle = \"5 minutes\"\n", "memory.eviction_min_idle");
    expect_error("[memory]\nsafety_margin = \"99999999999999999999GiB\"\n", "memory.safety_margin");
    expect_error("[daemon]\nlisten = \"unix://relative\"\n", "daemon.listen");
    expect_error("[daemon]\nlisten = \"0.0.0.0\"\n", "daemon.listen");
    expect_error("[daemon]\nlisten = \"127.0.0.1:99999\"\n", "daemon.listen");
    expect_error("[daemon]\nstatus_listen = \"::1:x\"\n", "daemon.status_listen");
    expect_error("[logging]\nlevel = \"verbose\"\n", "logging.level");
    expect_error("[logging]\nformat = \"xml\"\n", "logging.format");
    expect_error("[scheduler]\nsort_by_type = 1\n", "scheduler.sort_by_type: expected true or false");
    expect_error("[srs]\nparam_cache = \"\"\n", "srs.param_cache");
    expect_error("[srs]\npce_verify = \"lazy\"\n", "srs.pce_verify: \"lazy\" is not sync or background");
    expect_error("[srs]\npce_verify = true\n", "srs.pce_verify: expected a string");
    {
        cuzk_config pv;
        char err[384];
        cfg_defaults(&pv);
        CHECK(apply(&pv, "[srs]\npce_verify = \"background\"\n", err) == 0 && pv.pce_verify_background);
        CHECK(apply(&pv, "[srs]\npce_verify = \"sync\"\n", err) == 0 && !pv.pce_verify_background);
    }
    expect_error("[srs]\npreload = [\"a b\"]\n", "srs.preload");
    expect_error("[srs]\npreload = \"porep-32g\"\n", "srs.preload");
    expect_error("[srs.sub]\nx = 1\n", "srs");
    expect_error("[daemon]\nlisten = \"a\"\nlisten = \"b\"\n", "line 3");
    expect_error("[daemon\n", "line 1");
    expect_error("[pipeline]\nenabled = tru\n", "line 2");

    /* TCP needs a token unless explicitly allowed */
    cuzk_config c;
    char err[384];
    cfg_defaults(&c);
    CHECK(apply(&c, "[daemon]\nlisten = \"127.0.0.1:9820\"\n", err) == 0);
    CHECK(cfg_finish(&c, err, sizeof err) != 0 && strstr(err, "auth_token"));
    CHECK(apply(&c, "[daemon]\nauth_token = \"s3cret\"\n", err) == 0);
    CHECK(cfg_finish(&c, err, sizeof err) == 0);
    CHECK(apply(&c, "[daemon]\nauth_token = \"has space\"\n", err) == 0);
    CHECK(cfg_finish(&c, err, sizeof err) != 0 && strstr(err, "daemon.auth_token"));

    /* NUL bytes and size/duration parsers at their limits */
    CHECK(cfg_apply_toml(&c, "[a]\0", 4, err, sizeof err) != 0);
    uint64_t v;
    CHECK(cfg_parse_size("16EiB", &v) == false);
    CHECK(cfg_parse_size("17179869183GiB", &v) && v == 17179869183ull << 30);
    CHECK(!cfg_parse_size("17179869184GiB", &v));
    CHECK(!cfg_parse_duration_ms("-5s", &v) && !cfg_parse_duration_ms("5d", &v));
}

static void test_reload_diff(void)
{
    cuzk_config a, b;
    cfg_defaults(&a);
    cfg_defaults(&b);
    char err[384], out[256];
    CHECK(apply(&b, "[logging]\nlevel = \"warn\"\n[srs]\npreload = [\"x\"]\n", err) == 0);
    CHECK(cfg_unreloadable_changes(&a, &b, out, sizeof out) == 0);
    CHECK(apply(&b, "[gpus]\ngpu_workers_per_device = 3\n[daemon]\nlisten = \"unix:///tmp/y\"\n", err) == 0);
    CHECK(cfg_unreloadable_changes(&a, &b, out, sizeof out) == 2);
    CHECK(strstr(out, "daemon.listen") && strstr(out, "gpus.gpu_workers_per_device"));
    cfg_apply_reloadable(&a, &b);
    CHECK(a.log_level == CFG_LOG_WARN && a.n_preload == 1 && a.gpu_workers_per_device == 2);
}

/* Every key appears in the reference doc with its default, and in the
 * annotated example, which must itself load. */
static void test_docs(void)
{
    const char *root = getenv("CUZK_SOURCE_DIR") ? getenv("CUZK_SOURCE_DIR") : CUZK_SOURCE_DIR;
    char path[1024];
    snprintf(path, sizeof path, "%s/docs/configuration.md", root);
    char *doc = slurp(path);
    snprintf(path, sizeof path, "%s/deploy/cuzk.example.toml", root);
    char *ex = slurp(path);
    CHECK_MSG(doc && ex, "docs/configuration.md or deploy/cuzk.example.toml missing under %s", root);
    if (!doc || !ex) return;
    for (size_t i = 0; i < cfg_key_count(); i++) {
        const cfg_key_info *k = cfg_key_at(i);
        char row[256];
        snprintf(row, sizeof row, "| `%s` | `%s` |", k->key, k->default_toml);
        char sec[64];
        snprintf(sec, sizeof sec, "## [%s]", k->section);
        CHECK_MSG(strstr(doc, sec) && strstr(doc, row), "docs/configuration.md lacks %s row %s", sec, row);
        char line[128];
        snprintf(line, sizeof line, "%s = ", k->key);
        CHECK_MSG(strstr(ex, line), "deploy/cuzk.example.toml lacks %s.%s", k->section, k->key);
    }
    cuzk_config c;
    cfg_defaults(&c);
    char err[384];
    CHECK_MSG(cfg_apply_toml(&c, ex, strlen(ex), err, sizeof err) == 0, "example: %s", err);
    free(doc);
    free(ex);
}

int main(void)
{
    tu_init(&rng, "test_config");
    test_defaults();
    test_random_values();
    test_errors();
    test_reload_diff();
    test_docs();
    return tu_finish("test_config");
}

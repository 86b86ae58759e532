/*
 * The daemon's configuration: defaults, every key's parsing and range
 * checks with random values, errors that name the key, and agreement of the
 * key table with docs/configuration.md and deploy/cuzk.example.toml; the
 * parameter cache from the environment, curio's deprecated keys, and
 * curio's example file (deploy/curio-example.toml).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    CHECK(!strcmp(c.param_cache, "/var/tmp/filecoin-proof-parameters") && !c.param_cache_set);
    CHECK(c.n_warnings == 0);
    CHECK(!c.pce_verify_background); /* sync unless asked */
    CHECK(!c.gpu_log_allocations);
    CHECK(c.log_level == CFG_LOG_INFO && !c.log_json);
    CHECK(!strncmp(c.listen, "unix:///", 8));
    CHECK(c.max_message_size >= 50u << 20); /* ~50 MB C1 outputs must fit */
    char err[384];
    CHECK(cfg_finish(&c, NULL, err, sizeof err) == 0);
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
        bool sort = cuzk_rng_u64(&rng) & 1, log_alloc = cuzk_rng_u64(&rng) & 1;
        snprintf(doc, sizeof doc,
                 "# comment\n[gpus]\ndevices = [%u, %u]\ngpu_workers_per_device = %u\nlog_allocations = %s\n"
                 "[scheduler]\nmax_batch_size = %u\nmax_batch_wait_ms = %llu\nsort_by_type = %s\n"
                 "[memory]\ntotal_budget = \"%llu%s\"\neviction_min_idle = \"%llu%s\"\n"
                 "[srs]\npreload = [\"porep-32g\", \"test-porep\"]\n[logging]\nlevel = \"debug\"\nformat = \"json\"\n",
                 dev0, dev1, workers, log_alloc ? "true" : "false", batch, (unsigned long long)wait,
                 sort ? "true" : "false",
                 (unsigned long long)n, units[u], (unsigned long long)dur, dunits[du]);
        int rc = apply(&c, doc, err);
        CHECK_MSG(rc == 0, "%s\n%s", err, doc);
        CHECK(c.n_devices == 2 && c.devices[0] == dev0 && c.devices[1] == dev1);
        CHECK(c.gpu_workers_per_device == workers && c.max_batch_size == batch);
        CHECK(c.max_batch_wait_ms == wait && c.sort_by_type == sort && c.gpu_log_allocations == log_alloc);
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

/* auth_token_file: the first line, blanks around it dropped; a blank line or
 * a bad token is an error naming auth_token_file, not auth_token. */
static void test_token_file(cuzk_config *c)
{
    char path[] = "/tmp/cuzk-test-token-XXXXXX", tok[40], doc[128], err[384];
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    close(fd);
    snprintf(tok, sizeof tok, "t%016llx", (unsigned long long)cuzk_rng_u64(&rng));
    static const char *blanks[] = {"", " ", "\t", " \t "};
    const char *pre = blanks[cuzk_rng_u64(&rng) % 4], *post = blanks[cuzk_rng_u64(&rng) % 4];
    const struct {
        const char *fmt; /* the file's text: %s blank, %s token, %s blank */
        bool ok;
        const char *why;
    } cases[] = {
        {"%s%s%s\r\nsecond line\n", true, NULL},
        {"%s%.0s%s\n%s\n", false, "blank"}, /* the token on line 2: line 1 is blank */
        {"%sa b%.0s%s\n", false, "printable ASCII"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        FILE *f = fopen(path, "w");
        fprintf(f, cases[i].fmt, pre, tok, post, tok);
        fclose(f);
        cfg_defaults(c);
        snprintf(doc, sizeof doc, "[daemon]\nauth_token_file = \"%s\"\n", path);
        CHECK(apply(c, doc, err) == 0);
        int rc = cfg_finish(c, NULL, err, sizeof err);
        if (cases[i].ok)
            CHECK_MSG(rc == 0 && !strcmp(c->auth_token, tok), "case %zu: %s [%s]", i, err, c->auth_token);
        else
            CHECK_MSG(rc != 0 && strstr(err, "daemon.auth_token_file") && strstr(err, cases[i].why), "case %zu: %s", i,
                      err);
    }
    unlink(path);
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
    expect_error("[gpus]\nlog_allocations = \"alloc\"\n", "gpus.log_allocations");
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

    /* TCP without a token loads (the service then serves loopback peers
     * only: protected mode, tested in test_peer and the daemon tests) */
    cuzk_config c;
    char err[384];
    cfg_defaults(&c);
    CHECK(apply(&c, "[daemon]\nlisten = \"0.0.0.0:9820\"\n", err) == 0);
    CHECK_MSG(cfg_finish(&c, NULL, err, sizeof err) == 0, "%s", err);
    CHECK(apply(&c, "[daemon]\nauth_token = \"s3cret\"\n", err) == 0);
    CHECK(cfg_finish(&c, NULL, err, sizeof err) == 0);
    CHECK(apply(&c, "[daemon]\nauth_token = \"has space\"\n", err) == 0);
    CHECK(cfg_finish(&c, NULL, err, sizeof err) != 0 && strstr(err, "daemon.auth_token"));
    test_token_file(&c);

    /* TLS keys: the cross-key rules (the files are checked by server/tls.c) */
    cfg_defaults(&c);
    CHECK(apply(&c, "[daemon]\nlisten = \"127.0.0.1:9820\"\ntls_client_ca = \"/x/ca.crt\"\n", err) == 0);
    CHECK_MSG(cfg_finish(&c, NULL, err, sizeof err) != 0 && strstr(err, "daemon.tls_client_ca"), "%s", err);
    cfg_defaults(&c);
    CHECK(apply(&c, "[daemon]\ntls_cert = \"/x/s.crt\"\ntls_key = \"/x/s.key\"\n", err) == 0);
    CHECK_MSG(cfg_finish(&c, NULL, err, sizeof err) != 0 && strstr(err, "daemon.tls_cert") && strstr(err, "unix socket"),
              "%s", err);

    /* NUL bytes and size/duration parsers at their limits */
    CHECK(cfg_apply_toml(&c, "[a]\0", 4, err, sizeof err) != 0);
    uint64_t v;
        CHECK(!cfg_parse_duration_ms("-5s", &v) && !cfg_parse_duration_ms("5d", &v));
}

/* srs.param_cache: the file's, else $FIL_PROOFS_PARAMETER_CACHE (cfg_env,
 * which the command line fills), else /var/tmp/filecoin-proof-parameters (as
 * the rest of the Filecoin stack). */
static void test_param_cache(void)
{
    char dir[64], err[384];
    snprintf(dir, sizeof dir, "/srv/params-%llx", (unsigned long long)cuzk_rng_u64(&rng));
    cuzk_config c;
    cfg_defaults(&c);
    CHECK(cfg_finish(&c, NULL, err, sizeof err) == 0 && !strcmp(c.param_cache, "/var/tmp/filecoin-proof-parameters"));
    cfg_defaults(&c);
    CHECK(cfg_finish(&c, &(cfg_env){.param_cache = dir}, err, sizeof err) == 0 && !strcmp(c.param_cache, dir));
    /* the file wins over the environment, even over one that is wrong */
    const char *wins = "[srs]\nparam_cache = \"/data/zk/params\"\n";
    cfg_defaults(&c);
    CHECK(apply(&c, wins, err) == 0);
    CHECK(cfg_finish(&c, &(cfg_env){.param_cache = dir}, err, sizeof err) == 0 && !strcmp(c.param_cache, "/data/zk/params"));
    cfg_defaults(&c);
    CHECK(apply(&c, wins, err) == 0);
    CHECK(cfg_finish(&c, &(cfg_env){.param_cache = "params"}, err, sizeof err) == 0 &&
          !strcmp(c.param_cache, "/data/zk/params"));
    /* an empty variable is unset; a relative one is an error naming it */
    cfg_defaults(&c);
    CHECK(cfg_finish(&c, &(cfg_env){.param_cache = ""}, err, sizeof err) == 0 &&
          !strcmp(c.param_cache, "/var/tmp/filecoin-proof-parameters"));
    cfg_defaults(&c);
    CHECK(cfg_finish(&c, &(cfg_env){.param_cache = "params"}, err, sizeof err) != 0 &&
          strstr(err, "FIL_PROOFS_PARAMETER_CACHE"));
}

/* daemon.state_dir: the file's, else $STATE_DIRECTORY's first entry (systemd
 * joins several with ':'; cfg_env, from the command line) when absolute,
 * else "" (the daemon then journals in param_cache). */
static void test_state_dir(void)
{
    char a[64], b[64], both[160], file[128], err[384];
    snprintf(a, sizeof a, "/var/lib/cuzk-%llx", (unsigned long long)cuzk_rng_u64(&rng));
    snprintf(b, sizeof b, "/var/lib/other-%llx", (unsigned long long)cuzk_rng_u64(&rng));
    snprintf(both, sizeof both, "%s:%s", a, b);
    cuzk_config c;
    cfg_defaults(&c);
    CHECK(cfg_finish(&c, NULL, err, sizeof err) == 0 && !c.state_dir[0]);
    cfg_defaults(&c);
    CHECK(cfg_finish(&c, &(cfg_env){.state_directory = a}, err, sizeof err) == 0 && !strcmp(c.state_dir, a));
    cfg_defaults(&c);
    CHECK_MSG(cfg_finish(&c, &(cfg_env){.state_directory = both}, err, sizeof err) == 0 && !strcmp(c.state_dir, a),
              "STATE_DIRECTORY=%s gave state_dir '%s'", both, c.state_dir);
    for (size_t i = 0; i < 3; i++) { /* unset, empty, relative: no state directory */
        const char *none[] = {NULL, "", "cuzk"};
        cfg_defaults(&c);
        CHECK(cfg_finish(&c, &(cfg_env){.state_directory = none[i]}, err, sizeof err) == 0 && !c.state_dir[0]);
    }
    snprintf(file, sizeof file, "[daemon]\nstate_dir = \"%s\"\n", b);
    cfg_defaults(&c);
    CHECK(apply(&c, file, err) == 0);
    CHECK(cfg_finish(&c, &(cfg_env){.state_directory = a}, err, sizeof err) == 0 && !strcmp(c.state_dir, b));
    char *huge = malloc(CFG_STR_MAX + 8);
    if (!huge) return;
    memset(huge, 'd', CFG_STR_MAX + 7);
    huge[0] = '/', huge[CFG_STR_MAX + 7] = '\0';
    cfg_defaults(&c);
    CHECK(cfg_finish(&c, &(cfg_env){.state_directory = huge}, err, sizeof err) != 0 && strstr(err, "STATE_DIRECTORY"));
    huge[CFG_STR_MAX - 2] = ':';
    cfg_defaults(&c);
    CHECK(cfg_finish(&c, &(cfg_env){.state_directory = huge}, err, sizeof err) == 0 &&
          strlen(c.state_dir) == CFG_STR_MAX - 2);
    free(huge);
}

/* Keys curio deprecated load with a warning; curio's keys this daemon does
 * not act on warn when set to anything but their default; bad values of
 * either are still errors. */
static void test_curio_keys(void)
{
    cuzk_config c;
    char err[384], text[256];
    uint64_t gib = 1 + cuzk_rng_u64(&rng) % 512;
    cfg_defaults(&c);
    snprintf(text, sizeof text, "[memory]\npinned_budget = \"%lluGiB\"\nworking_memory_budget = %llu\n",
             (unsigned long long)gib, (unsigned long long)(gib << 30));
    CHECK_MSG(apply(&c, text, err) == 0, "%s", err);
    bool pb_first = c.n_warnings == 2 && strstr(c.warnings[0], "pinned_budget");
    CHECK_MSG(c.n_warnings == 2 && strstr(c.warnings[pb_first ? 0 : 1], "line 2: memory.pinned_budget is deprecated") &&
                  strstr(c.warnings[pb_first ? 1 : 0], "line 3: memory.working_memory_budget is deprecated"),
              "%zu warnings: %s", c.n_warnings, c.n_warnings ? c.warnings[0] : "");
    CHECK(c.total_budget == 0); /* ignored: the budget is unchanged */
    expect_error("[memory]\npinned_budget = \"lots\"\n", "memory.pinned_budget");
    expect_error("[memory]\nworking_memory_budget = true\n", "memory.working_memory_budget");
    expect_error("[memory]\npinned_budgets = \"1GiB\"\n", "memory.pinned_budgets");
    /* no-effect keys: the default is silent, another value is warned about */
    cfg_defaults(&c);
    CHECK(apply(&c, "[pipeline]\nsynthesis_lookahead = 1\nenabled = true\n[scheduler]\nsort_by_type = true\n", err) == 0);
    CHECK_MSG(c.n_warnings == 0, "%s", c.n_warnings ? c.warnings[0] : "");
    unsigned la = 2 + (unsigned)(cuzk_rng_u64(&rng) % 30);
    snprintf(text, sizeof text, "[pipeline]\nsynthesis_lookahead = %u\n[memory]\neviction_min_idle = \"%us\"\n", la,
             (unsigned)(1 + cuzk_rng_u64(&rng) % 299));
    CHECK(apply(&c, text, err) == 0 && c.synthesis_lookahead == la);
    /* (toml++ visits tables in its own order, not the file's) */
    bool la_first = c.n_warnings == 2 && strstr(c.warnings[0], "pipeline.synthesis_lookahead");
    CHECK_MSG(c.n_warnings == 2 && strstr(c.warnings[la_first ? 0 : 1], "line 2: pipeline.synthesis_lookahead has no effect") &&
                  strstr(c.warnings[la_first ? 1 : 0], "line 4: memory.eviction_min_idle has no effect"),
              "%zu warnings: %s / %s", c.n_warnings, c.warnings[0], c.warnings[1]);
    expect_error("[pipeline]\nsynthesis_lookahead = -1\n", "pipeline.synthesis_lookahead");
    /* the warnings are bounded */
    cfg_defaults(&c);
    for (int i = 0; i < CFG_MAX_WARNINGS + 5; i++) CHECK(apply(&c, "[memory]\npinned_budget = \"1GiB\"\n", err) == 0);
    CHECK(c.n_warnings == CFG_MAX_WARNINGS);
}

/* curio's example configuration (its keys and values) loads, serves TCP
 * without a token in protected mode, and every key either acts or warns:
 * here every key is at a value this daemon honours, so none warns. */
static void test_curio_example(void)
{
    const char *root = getenv("CUZK_SOURCE_DIR") ? getenv("CUZK_SOURCE_DIR") : CUZK_SOURCE_DIR;
    char path[1024], err[384];
    snprintf(path, sizeof path, "%s/deploy/curio-example.toml", root);
    cuzk_config c;
    cfg_defaults(&c);
    CHECK_MSG(cfg_apply_file(&c, path, err, sizeof err) == 0, "%s", err);
    CHECK_MSG(cfg_finish(&c, NULL, err, sizeof err) == 0, "%s", err);
    CHECK(!strcmp(c.listen, "0.0.0.0:9820") && !c.auth_token[0] && !c.allow_unauthenticated_tcp);
    CHECK(!strcmp(c.param_cache, "/data/zk/params") && c.gpu_threads == 32 && c.gpu_workers_per_device == 2);
    CHECK(c.total_budget == 0 && c.safety_margin == 5ull << 30 && c.max_batch_wait_ms == 10000);
    CHECK(c.log_level == CFG_LOG_INFO && c.threads == 0 && c.pipeline_enabled);
    CHECK_MSG(c.n_warnings == 0, "%s", c.n_warnings ? c.warnings[0] : "");
    /* curio's file with the deprecated keys its older versions wrote */
    char *text = slurp(path);
    CHECK(text != NULL);
    if (!text) return;
    size_t n = strlen(text);
    cfg_defaults(&c);
    /* [memory] appears once in the file: the deprecated keys go inside it */
    CHECK(strstr(text, "[memory]\n") != NULL);
    if (!strstr(text, "[memory]\n")) {
        free(text);
        return;
    }
    char *more = malloc(n + 256);
    size_t at = (size_t)(strstr(text, "[memory]\n") - text) + strlen("[memory]\n");
    memcpy(more, text, at);
    int k = sprintf(more + at, "pinned_budget = \"64GiB\"\nworking_memory_budget = \"128GiB\"\n");
    strcpy(more + at + (size_t)k, text + at);
    CHECK_MSG(apply(&c, more, err) == 0, "%s", err);
    CHECK(c.n_warnings == 2);
    free(more);
    free(text);
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

/* Every key documented in docs/configuration.md (a row "| `key` | `default` |"
 * under "## [section]") loads with its documented default, and refuses a
 * value of a type no key takes (a float, or a date) with an error that
 * names the key. */
static void test_documented_keys(void)
{
    const char *root = getenv("CUZK_SOURCE_DIR") ? getenv("CUZK_SOURCE_DIR") : CUZK_SOURCE_DIR;
    char path[1024], section[64] = "";
    snprintf(path, sizeof path, "%s/docs/configuration.md", root);
    char *doc = slurp(path);
    CHECK_MSG(doc, "%s missing", path);
    if (!doc) return;
    size_t rows = 0;
    for (char *line = strtok(doc, "\n"); line; line = strtok(NULL, "\n")) {
        char key[64], def[256];
        if (sscanf(line, "## [%63[^]]]", section) == 1) continue;
        if (sscanf(line, "| `%63[^`]` | `%255[^`]` |", key, def) != 2 || !section[0]) continue;
        rows++;
        char text[512], err[384] = "";
        cuzk_config c;
        cfg_defaults(&c);
        snprintf(text, sizeof text, "[%s]\n%s = %s\n", section, key, def);
        CHECK_MSG(apply(&c, text, err) == 0, "documented %s.%s = %s refused: %s", section, key, def, err);
        if (cuzk_rng_u64(&rng) & 1)
            snprintf(text, sizeof text, "[%s]\n%s = %u.%u\n", section, key, (unsigned)(cuzk_rng_u64(&rng) % 1000),
                     1 + (unsigned)(cuzk_rng_u64(&rng) % 9));
        else
            snprintf(text, sizeof text, "[%s]\n%s = 20%02u-0%u-1%u\n", section, key, (unsigned)(cuzk_rng_u64(&rng) % 100),
                     1 + (unsigned)(cuzk_rng_u64(&rng) % 9), (unsigned)(cuzk_rng_u64(&rng) % 10));
        char want[160];
        snprintf(want, sizeof want, "line 2: %s.%s: expected ", section, key);
        cfg_defaults(&c);
        CHECK_MSG(apply(&c, text, err) != 0 && strstr(err, want), "<<%s>> gave '%s', wanted '%s'", text, err, want);
    }
    CHECK_MSG(rows == cfg_key_count(), "docs/configuration.md documents %zu keys, the table has %zu", rows,
              cfg_key_count());
    free(doc);
}

/* [cluster] statement_timeout, retention and pool_idle: their bounds, checked when the
 * configuration is finished; the defaults and in-range values taken. */
static void test_cluster_bounds(void)
{
    static const struct {
        const char *text, *why; /* why NULL: accepted */
        uint64_t stmt_ms, ret_ms;
    } cases[] = {
        {"", NULL, 10000, 86400000},
        {"statement_timeout = \"1s\"\nretention = \"0\"\n", NULL, 1000, 0},
        {"retention = \"1m\"\n", NULL, 10000, 60000},
        {"statement_timeout = \"999ms\"\n", "cluster.statement_timeout", 0, 0},
        {"retention = \"59s\"\n", "cluster.retention", 0, 0},
        {"pool_idle = \"999ms\"\n", "cluster.pool_idle", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cuzk_config c;
        cfg_defaults(&c);
        char doc[256], err[384] = "";
        snprintf(doc, sizeof doc, "[cluster]\n%s", cases[i].text);
        CHECK_MSG(apply(&c, doc, err) == 0, "case %zu: %s", i, err);
        int rc = cfg_finish(&c, NULL, err, sizeof err);
        if (cases[i].why)
            CHECK_MSG(rc != 0 && strstr(err, cases[i].why), "case %zu: rc %d, %s", i, rc, err);
        else
            CHECK_MSG(rc == 0 && c.cluster_statement_timeout_ms == cases[i].stmt_ms &&
                          c.cluster_retention_ms == cases[i].ret_ms,
                      "case %zu: rc %d %s: %llu ms, %llu ms", i, rc, err,
                      (unsigned long long)c.cluster_statement_timeout_ms, (unsigned long long)c.cluster_retention_ms);
    }
}

int main(void)
{
    tu_init(&rng, "test_config");
    test_defaults();
    test_random_values();
    test_errors();
    test_reload_diff();
    test_docs();
    test_documented_keys();
    test_param_cache();
    test_state_dir();
    test_curio_keys();
    test_curio_example();
    test_cluster_bounds();
    return tu_finish("test_config");
}

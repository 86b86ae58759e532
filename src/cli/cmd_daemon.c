/*
 * `cuzk daemon`: loads the configuration, starts the engine, the gRPC
 * listener and the optional HTTP status listener, and then waits for
 * signals in the main thread (every other thread blocks them):
 *   SIGTERM/SIGINT  drain: no new proofs (UNAVAILABLE), running jobs get
 *                   daemon.shutdown_grace to finish, the rest are cancelled,
 *                   exit 0. A second signal skips the rest of the grace.
 *   SIGHUP          re-read the file and apply what can change live.
 * systemd: READY=1 once serving, STATUS= lines (which circuits are usable,
 * the queues), RELOADING=1, STOPPING=1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef CUZK_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "cli/cli.h"
#include "cuzk/util/clock.h"
#include "cuzk/pce/pce.h"
#include "server/dispatch.h"
#include "server/config.h"
#include "server/grpc_adapter.h"
#include "server/http_status.h"
#include "server/listen_claim.h"
#include "server/log.h"
#include "server/service.h"
#include "server/tls.h"

#define DEFAULT_CONFIG "/data/zk/cuzk.toml"

/* The PCE layer's messages (a corrupt cache file set aside, a failed save)
 * go through the daemon's logger, so that logging.format = "json" covers them. */
static void pce_log(const char *line, void *ctx)
{
    (void)ctx;
    log_msg(CFG_LOG_WARN, "pce: %s", line);
}

static void notify(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void notify(const char *fmt, ...)
{
#ifdef CUZK_HAVE_SYSTEMD
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sd_notify(0, buf);
#else
    (void)fmt;
#endif
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cuzk daemon [--config FILE] [--listen ADDR] [--status-listen HOST:PORT]\n"
            "                   [--log-level LEVEL] [--test-kinds [--test-constraints N]\n"
            "                   [--test-post-constraints N]] [--check-config]\n"
            "       cuzk --config FILE [options]   (the same, as curio's unit runs its daemon)\n\n"
            "  -c, --config FILE  TOML configuration (default %s if it exists)\n"
            "  -l, --listen ADDR  unix:///path or host:port (overrides daemon.listen)\n"
            "  --log-level L   trace, debug, info, warn, error (overrides logging.level)\n"
            "  --test-kinds    register the built-in synthetic kinds test-porep (10\n"
            "                  partitions), test-window and test-winning\n"
            "  --check-config  load and check the configuration, print it, exit\n\n"
            "configuration keys (docs/configuration.md):\n", DEFAULT_CONFIG);
    for (size_t i = 0; i < cfg_key_count(); i++) {
        const cfg_key_info *k = cfg_key_at(i);
        fprintf(f, "  %-10s %-26s %-28s %s\n", k->section, k->key, k->default_toml, k->summary);
    }
}

static void engine_log(int level, const char *msg) { log_msg((cfg_log_level)level, "engine: %s", msg); }
static void engine_log_fields(int level, const char *msg, const log_field *f, size_t n)
{
    log_fields((cfg_log_level)level, f, n, "engine: %s", msg);
}

/* Loads defaults, the file, then the command-line overrides; the keys the
 * file leaves unset whose default is the environment's take it here (the
 * daemon's code reads no environment). */
static int load_config(cuzk_config *c, const char *path, bool path_given, const char *listen,
                       const char *status_listen, const char *level, char *err, size_t errlen)
{
    cfg_defaults(c);
    if (path_given || access(path, F_OK) == 0) {
        if (cfg_apply_file(c, path, err, errlen)) return -1;
    }
    char quoted[CFG_STR_MAX + 4];
    const struct {
        const char *sec, *key, *v;
    } ov[] = {{"daemon", "listen", listen}, {"daemon", "status_listen", status_listen}, {"logging", "level", level}};
    for (size_t i = 0; i < 3; i++) {
        if (!ov[i].v) continue;
        if (strchr(ov[i].v, '"') || strchr(ov[i].v, '\\') || strlen(ov[i].v) >= CFG_STR_MAX) {
            snprintf(err, errlen, "--%s: bad value", ov[i].key);
            return -1;
        }
        snprintf(quoted, sizeof quoted, "\"%s\"", ov[i].v);
        if (cfg_set(c, ov[i].sec, ov[i].key, quoted, err, errlen)) return -1;
    }
    const cfg_env env = {.param_cache = cli_param_cache_env(), .state_directory = getenv("STATE_DIRECTORY")};
    return cfg_finish(c, &env, err, errlen);
}

/* [srs] preload; returns how many failed. With fatal, stops at the first
 * failure (the caller exits). */
static size_t preload_all(srv_dispatch *b, const cuzk_config *c, bool fatal)
{
    size_t failed = 0;
    for (size_t i = 0; i < c->n_preload; i++) {
        bool already;
        uint64_t ms;
        char *err = NULL;
        if (srv_preload(b, c->preload[i], &already, &ms, &err) != RPC_OK) {
            failed++;
            const char *why = err ? err : "out of memory";
            const log_field f[] = {LOG_STR("event", "preload_failed"), LOG_STR("circuit", c->preload[i]),
                                   LOG_STR("reason", why)};
            if (fatal)
                log_fields(CFG_LOG_ERROR, f, 3, "preload %s: %s; exiting (daemon.preload_failure = \"fatal\")",
                           c->preload[i], why);
            else
                log_fields(CFG_LOG_ERROR, f, 3, "preload %s: %s; serving the other kinds, its jobs fail at once "
                           "until the file is fixed (then PreloadSRS %s, or SIGHUP)", c->preload[i], why,
                           c->preload[i]);
        } else if (!already) {
            const log_field f[] = {LOG_STR("event", "preloaded"), LOG_STR("circuit", c->preload[i]),
                                   LOG_NUM("load_ms", ms)};
            log_fields(CFG_LOG_INFO, f, 3, "preload %s: resident after %llu ms", c->preload[i], (unsigned long long)ms);
        }
        free(err);
        if (failed && fatal) break;
    }
    return failed;
}

/* systemd's STATUS= line: what is served and which circuits cannot be
 * (`systemctl status cuzk` shows it beside "active"). */
/* The circuits whose tier (keys < 0) or keys (tier < 0) is the one given,
 * comma separated into out; returns how many. */
static size_t circuits_with(const srv_status *st, int tier, int keys, char *out, size_t cap)
{
    size_t n = 0, used = 0;
    out[0] = 0;
    for (size_t i = 0; i < st->n_srs; i++) {
        if ((tier >= 0 && st->srs[i].tier != tier) || (keys >= 0 && st->srs[i].keys != keys)) continue;
        int w = snprintf(out + used, cap - used, "%s%s", n ? ", " : "", st->srs[i].circuit_id);
        if (w > 0 && used + (size_t)w < cap) used += (size_t)w;
        n++;
    }
    return n;
}

static void notify_status(const srv_status *st, const char *listen, const char *prefix)
{
    uint32_t pend = 0, run = 0;
    for (size_t i = 0; i < st->n_queues; i++) pend += st->queues[i].pending, run += st->queues[i].in_progress;
    char failed[320], test[320];
    size_t nf = circuits_with(st, 3, -1, failed, sizeof failed);
    size_t nt = circuits_with(st, -1, 2, test, sizeof test); /* SRSStatus.KEYS_NOT_CEREMONY */
    notify("%sSTATUS=serving on %s: %zu of %zu circuits usable%s%s%s%s%s%s; %u queued, %u running, %llu proved",
           prefix, listen, st->n_srs - nf, st->n_srs, nf ? " (FAILED to load: " : "", failed, nf ? ")" : "",
           nt ? " (NOT the ceremony's keys, proofs the chain rejects: " : "", test, nt ? ")" : "", pend, run,
           (unsigned long long)st->proofs_completed);
}

/* READY=1 with the status line. */
static void notify_ready(srv_dispatch *b, const char *listen)
{
    srv_status st;
    srv_get_status(b, &st);
    notify_status(&st, listen, "READY=1\n");
    srv_status_free(&st);
}

/* Who the gRPC listener serves, for the log at start. */
static const char *access_mode(const cuzk_config *c)
{
    if (!strncmp(c->listen, "unix:", 5)) return "unix socket: file permissions decide";
    if (c->tls_client_ca[0])
        return c->auth_token[0] ? "mutual TLS: a client certificate signed by tls_client_ca and the bearer token required"
                                : "mutual TLS: every client with a certificate signed by tls_client_ca served";
    if (c->auth_token[0])
        return c->tls_cert[0] ? "TLS: bearer token required"
                              : "TCP in plaintext: bearer token required (it crosses the network in clear: set "
                                "tls_cert and tls_key)";
    if (c->allow_unauthenticated_tcp) return "TCP: NO token, every client served (allow_unauthenticated_tcp)";
    return c->tls_cert[0] ? "TLS without auth_token: protected mode, loopback clients served, remote ones refused "
                            "(set auth_token, or tls_client_ca for mutual TLS)"
                          : "TCP without auth_token: protected mode, loopback clients served, remote ones refused "
                            "(set auth_token, or allow_unauthenticated_tcp behind a firewall)";
}

/* The listener's TLS files, read and checked now: a wrong file stops the
 * start with its key named, not every handshake later. */
static int load_tls(const cuzk_config *c, tls_pem *pem, char *err, size_t errlen)
{
    static const char *const names[3] = {"daemon.tls_cert", "daemon.tls_key", "daemon.tls_client_ca"};
    return tls_load(c->tls_cert, c->tls_key, c->tls_client_ca, names, pem, err, errlen);
}

int cmd_daemon(int argc, char **argv)
{
    const char *config_path = DEFAULT_CONFIG, *listen = NULL, *status_listen = NULL, *level = NULL;
    bool path_given = false, test_kinds = false, check_only = false;
    uint64_t test_c = 4096, test_post_c = 1024;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        /* --opt=value, as clap (curio's daemon) takes it */
        char opt[32];
        const char *eq = strncmp(a, "--", 2) ? NULL : strchr(a, '=');
        if (eq && (size_t)(eq - a) < sizeof opt) {
            memcpy(opt, a, (size_t)(eq - a));
            opt[eq - a] = '\0';
            a = opt, v = eq + 1, i--; /* the i++ below steps over nothing */
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if ((!strcmp(a, "--config") || !strcmp(a, "-c")) && v) config_path = v, path_given = true, i++;
        else if ((!strcmp(a, "--listen") || !strcmp(a, "-l")) && v) listen = v, i++;
        else if (!strcmp(a, "--status-listen") && v) status_listen = v, i++;
        else if (!strcmp(a, "--log-level") && v) level = v, i++;
        else if (!strcmp(a, "--test-kinds") && !eq) test_kinds = true;
        else if (!strcmp(a, "--check-config") && !eq) check_only = true;
        else if (!strcmp(a, "--test-constraints") && v && cli_parse_u64(v, &test_c) && test_c >= 16) i++;
        else if (!strcmp(a, "--test-post-constraints") && v && cli_parse_u64(v, &test_post_c) && test_post_c >= 16) i++;
        else {
            cli_errorf("daemon: bad or incomplete option '%s'", a);
            usage(stderr);
            return 2;
        }
    }
    cuzk_config cfg;
    char err[2 * CFG_STR_MAX + 512]; /* a TLS error names two paths */
    if (load_config(&cfg, config_path, path_given, listen, status_listen, level, err, sizeof err)) {
        cli_errorf("daemon: %s", err);
        return 2;
    }
    tls_pem pem;
    if (load_tls(&cfg, &pem, err, sizeof err)) {
        cli_errorf("daemon: %s", err);
        return 2;
    }
    if (check_only) {
        tls_pem_free(&pem);
        for (size_t i = 0; i < cfg.n_warnings; i++) printf("warning: %s: %s\n", config_path, cfg.warnings[i]);
        printf("configuration OK: listen %s (%s), param_cache %s, log level %s\n", cfg.listen, access_mode(&cfg),
               cfg.param_cache, cfg_log_level_name(cfg.log_level));
        return 0;
    }
    log_configure(cfg.log_level, cfg.log_json);
    cuzk_pce_set_log(pce_log, NULL);
    for (size_t i = 0; i < cfg.n_warnings; i++) LOG_WARN("%s: %s", config_path, cfg.warnings[i]);

    /* Signals are taken synchronously by this thread only. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    LOG_INFO("cuzk %s starting (config %s%s)", CUZK_VERSION, config_path,
             path_given || access(config_path, F_OK) == 0 ? "" : ", absent: defaults");
    /* The address first: a second daemon on it stops here, before it loads
     * parameters or takes memory beside the first. */
    listen_claim *claim = listen_claim_take(cfg.listen, err, sizeof err);
    if (!claim) {
        LOG_ERROR("%s", err);
        tls_pem_free(&pem);
        return 1;
    }
    notify("STATUS=starting the engine");
    double t0 = cuzk_now();
    srv_options so = {.cfg = &cfg, .test_kinds = test_kinds, .test_porep_constraints = test_c,
                      .test_post_constraints = test_post_c, .log = engine_log, .log_fields = engine_log_fields};
    srv_dispatch *b = srv_dispatch_open(&so, err, sizeof err);
    if (!b) {
        LOG_ERROR("%s", err);
        tls_pem_free(&pem);
        listen_claim_release(claim);
        return 1;
    }
    if (test_kinds)
        LOG_INFO("test kinds registered (test-porep: 10 x %llu constraints, test-window/test-winning: %llu) in %.2f s",
                 (unsigned long long)test_c, (unsigned long long)test_post_c, cuzk_now() - t0);
    /* Resident before READY: the first proofs never wait for a load. */
    if (preload_all(b, &cfg, cfg.preload_fatal) && cfg.preload_fatal) {
        srv_dispatch_close(b);
        tls_pem_free(&pem);
        listen_claim_release(claim);
        return 1;
    }
    srv_service *svc = service_create(b);
    service_set_token(svc, cfg.auth_token);
    service_set_open_tcp(svc, cfg.allow_unauthenticated_tcp);
    service_set_mutual_tls(svc, pem.ca != NULL);
    rpc_tls tls = {.cert = pem.cert, .key = pem.key, .ca = pem.ca};
    rpc_server_opts ro = {.listen = cfg.listen, .tls = pem.cert ? &tls : NULL, .max_message_size = cfg.max_message_size,
                          .max_concurrent_calls = cfg.max_concurrent_calls,
                          .handler = service_handle, .refused = service_refused, .ud = svc};
    rpc_server *srv = rpc_server_start(&ro, err, sizeof err);
    tls_pem_free(&pem); /* the core keeps its own copy */
    if (!srv) {
        LOG_ERROR("%s", err);
        service_destroy(svc);
        srv_dispatch_close(b);
        listen_claim_release(claim);
        return 1;
    }
    service_set_server(svc, srv);
    http_status *http = NULL;
    if (cfg.status_listen[0] && !(http = http_status_start(cfg.status_listen, svc, err, sizeof err)))
        LOG_ERROR("%s (continuing without it)", err);
    LOG_INFO("serving on %s%s%s (max message %llu bytes; %s)", cfg.listen, http ? ", status on http://" : "",
             http ? cfg.status_listen : "", (unsigned long long)cfg.max_message_size, access_mode(&cfg));
    notify_ready(b, cfg.listen);

    /* ---- the signal loop ---- */
    int sig = 0;
    for (;;) {
        struct timespec tick = {5, 0};
        sig = sigtimedwait(&sigs, NULL, &tick);
        if (sig == SIGHUP) {
            notify("RELOADING=1");
            cuzk_config next;
            if (load_config(&next, config_path, path_given, listen, status_listen, level, err, sizeof err)) {
                LOG_ERROR("reload rejected, keeping the running configuration: %s", err);
            } else {
                char changed[512];
                if (cfg_unreloadable_changes(&cfg, &next, changed, sizeof changed))
                    LOG_WARN("reload: these keys changed and need a restart: %s", changed);
                cfg_apply_reloadable(&cfg, &next);
                log_configure(cfg.log_level, cfg.log_json);
                for (size_t i = 0; i < next.n_warnings; i++) LOG_WARN("%s: %s", config_path, next.warnings[i]);
                service_set_token(svc, cfg.auth_token);
                preload_all(b, &cfg, false); /* a running daemon is never stopped by a reload */
                LOG_INFO("configuration reloaded from %s", config_path);
            }
            notify_ready(b, cfg.listen);
        } else if (sig == SIGTERM || sig == SIGINT) {
            break;
        } else {
            service_flush_log(svc, false);
            srv_status st;
            srv_get_status(b, &st);
            notify_status(&st, cfg.listen, "");
            srv_status_free(&st);
        }
    }

    /* ---- drain ---- */
    LOG_INFO("%s: draining (no new proofs; running jobs have %llu ms)", strsignal(sig),
             (unsigned long long)cfg.shutdown_grace_ms);
    notify("STOPPING=1\nSTATUS=draining");
    service_set_draining(svc, true);
    double deadline = cuzk_now() + (double)cfg.shutdown_grace_ms / 1000.0;
    bool idle = false;
    while (!(idle = srv_drain(b, 200)) && cuzk_now() < deadline) {
        struct timespec zero = {0, 0};
        int s2 = sigtimedwait(&sigs, NULL, &zero);
        if (s2 == SIGTERM || s2 == SIGINT) {
            LOG_WARN("second %s: cancelling running jobs now", strsignal(s2));
            break;
        }
    }
    if (!idle) {
        LOG_WARN("grace period over: cancelling the jobs still running, starting no new parameter load or PCE extraction");
        srv_shutdown(b, "daemon shutting down");
    }
    /* Let waiting callers receive their results before the listener goes. */
    for (int i = 0; i < 100 && rpc_server_active_calls(srv); i++) {
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
    http_status_stop(http); /* its /metrics reads the server's calls */
    rpc_server_stop(srv, 1000);
    service_destroy(svc);
    /* A parameter load or PCE extraction in hand cannot be interrupted and
     * may take minutes (a 47 GB file): past the grace the daemon does not
     * wait for it. The process exit frees its memory; files are written
     * atomically, so nothing is left half-written under its name. */
    if (!idle && !srv_drain(b, 1000)) {
        LOG_WARN("stopped with a parameter load or PCE extraction unfinished (abandoned at the grace deadline)");
        listen_claim_release(claim);
        return 0;
    }
    srv_dispatch_close(b);
    /* Last: a daemon started on this address now is refused until the
     * engine is closed (its job journal's lock among what it lets go). */
    listen_claim_release(claim);
    LOG_INFO("stopped");
    return 0;
}

#include "cuzk/util/clock.h"
#include "cuzk/util/strf.h"
#include "server/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static atomic_int cur_level = CFG_LOG_INFO;
static atomic_bool cur_json;

void log_configure(cfg_log_level level, bool json)
{
    atomic_store(&cur_level, (int)level);
    atomic_store(&cur_json, json);
}

bool log_enabled(cfg_log_level level) { return (int)level >= atomic_load(&cur_level); }

void log_json_escape(char *out, size_t outlen, const char *s)
{
    size_t o = 0;
    for (; *s && o + 7 < outlen; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') out[o++] = '\\', out[o++] = (char)ch;
        else if (ch == '\n') out[o++] = '\\', out[o++] = 'n';
        else if (ch < 0x20) o += (size_t)snprintf(out + o, outlen - o, "\\u%04x", ch);
        else out[o++] = (char)ch;
    }
    if (outlen) out[o < outlen ? o : outlen - 1] = '\0';
}

/* A field's value as JSON (a string escaped, a number as it is) into out;
 * bytes needed, like snprintf. */
static size_t field_json(char *out, size_t cap, const log_field *f, char *esc, size_t esc_len)
{
    if (f->is_num) return (size_t)snprintf(out, cap, ",\"%s\":%lld", f->key, f->num);
    log_json_escape(esc, esc_len, f->str ? f->str : "");
    return (size_t)snprintf(out, cap, ",\"%s\":\"%s\"", f->key, esc);
}

static void vlog(cfg_log_level level, const log_field *fields, size_t nf, const char *fmt, va_list ap)
{
    /* Every buffer is sized from the message and the fields: a line naming a
     * long path and a parser's reason is never cut. An escaped byte takes at
     * most 6 (JSON \u00NN) or 4 (text \xNN) bytes. */
    char *msg = cuzk_vstrf(fmt, ap);
    const char *m = msg ? msg : fmt; /* out of memory: the format still says what happened */
    size_t mlen = strlen(m), flen = 0, longest = mlen;
    const bool json = atomic_load(&cur_json);
    for (size_t i = 0; json && i < nf; i++) {
        size_t l = fields[i].is_num || !fields[i].str ? 0 : strlen(fields[i].str);
        flen += strlen(fields[i].key) + 32 + 6 * l;
        if (l > longest) longest = l;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char when[40];
    size_t w = strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(when + w, sizeof when - w, ".%03ldZ", ts.tv_nsec / 1000000);
    size_t esc_len = 6 * longest + 8, line_len = esc_len + flen + 128;
    char *esc = malloc(esc_len), *line = malloc(line_len);
    if (!esc || !line) {
        fprintf(stderr, "%s %-5s %s\n", when, cfg_log_level_name(level), m);
    } else if (json) {
        /* the message for people; the fields, typed, for programs */
        log_json_escape(esc, esc_len, m);
        size_t o = (size_t)snprintf(line, line_len, "{\"ts\":\"%s\",\"level\":\"%s\",\"msg\":\"%s\"", when,
                                    cfg_log_level_name(level), esc);
        for (size_t i = 0; i < nf && o < line_len; i++) o += field_json(line + o, line_len - o, &fields[i], esc, esc_len);
        if (o < line_len) snprintf(line + o, line_len - o, "}\n");
        fputs(line, stderr); /* stderr is unbuffered: one write per line */
    } else {
        /* one record, one line: control bytes (from a client's request id,
         * say) are written as \xNN so they cannot forge or split lines */
        size_t o = 0;
        for (const unsigned char *p = (const unsigned char *)m; *p; p++) {
            if (*p < 0x20 || *p == 0x7f || *p == '\\') o += (size_t)snprintf(esc + o, esc_len - o, "\\x%02x", *p);
            else esc[o++] = (char)*p;
        }
        esc[o] = '\0';
        snprintf(line, line_len, "%s %-5s %s\n", when, cfg_log_level_name(level), esc);
        fputs(line, stderr);
    }
    free(line);
    free(esc);
    free(msg);
}

void log_msg(cfg_log_level level, const char *fmt, ...)
{
    if (!log_enabled(level)) return;
    va_list ap;
    va_start(ap, fmt);
    vlog(level, NULL, 0, fmt, ap);
    va_end(ap);
}

void log_fields(cfg_log_level level, const log_field *fields, size_t n, const char *fmt, ...)
{
    if (!log_enabled(level)) return;
    va_list ap;
    va_start(ap, fmt);
    vlog(level, fields, n, fmt, ap);
    va_end(ap);
}

void log_limit_init(log_limit *l, unsigned burst, double window_s)
{
    memset(l, 0, sizeof *l);
    pthread_mutex_init(&l->mu, NULL);
    l->burst = burst;
    l->window_s = window_s;
    l->window_start = cuzk_now();
}

void log_limit_destroy(log_limit *l) { pthread_mutex_destroy(&l->mu); }

/* A new window when the last one is over (l->mu held). */
static void limit_roll(log_limit *l, double now)
{
    if (now - l->window_start < l->window_s) return;
    l->window_start = now;
    l->used = 0;
}

bool log_limit_take(log_limit *l, uint64_t *held)
{
    pthread_mutex_lock(&l->mu);
    limit_roll(l, cuzk_now());
    bool ok = l->used < l->burst;
    *held = 0;
    if (ok) {
        l->used++;
        *held = l->held;
        l->held = 0;
    } else {
        l->held++;
    }
    pthread_mutex_unlock(&l->mu);
    return ok;
}

uint64_t log_limit_flush(log_limit *l, bool force)
{
    pthread_mutex_lock(&l->mu);
    double now = cuzk_now();
    uint64_t n = 0;
    if (force || now - l->window_start >= l->window_s) {
        n = l->held;
        l->held = 0;
        limit_roll(l, now);
    }
    pthread_mutex_unlock(&l->mu);
    return n;
}

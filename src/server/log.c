#include "server/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
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

void log_msg(cfg_log_level level, const char *fmt, ...)
{
    if (!log_enabled(level)) return;
    char msg[1024], line[2300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char when[40];
    size_t w = strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(when + w, sizeof when - w, ".%03ldZ", ts.tv_nsec / 1000000);
    if (atomic_load(&cur_json)) {
        char esc[2100];
        log_json_escape(esc, sizeof esc, msg);
        snprintf(line, sizeof line, "{\"ts\":\"%s\",\"level\":\"%s\",\"msg\":\"%s\"}\n", when,
                 cfg_log_level_name(level), esc);
    } else {
        /* one record, one line: control bytes (from a client's request id,
         * say) are written as \xNN so they cannot forge or split lines */
        char esc[2100];
        size_t o = 0;
        for (const unsigned char *p = (const unsigned char *)msg; *p && o + 5 < sizeof esc; p++) {
            if (*p < 0x20 || *p == 0x7f || *p == '\\') o += (size_t)snprintf(esc + o, sizeof esc - o, "\\x%02x", *p);
            else esc[o++] = (char)*p;
        }
        esc[o] = '\0';
        snprintf(line, sizeof line, "%s %-5s %s\n", when, cfg_log_level_name(level), esc);
    }
    fputs(line, stderr); /* stderr is unbuffered: one write per line */
}

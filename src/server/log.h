/* Daemon logging to stderr (journald captures it): text or one JSON object
 * per line (with typed fields where the line has them), filtered by level;
 * thread-safe, one write per line. */
#ifndef CUZK_SERVER_LOG_H
#define CUZK_SERVER_LOG_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "server/config.h"

void log_configure(cfg_log_level level, bool json);
bool log_enabled(cfg_log_level level);
void log_msg(cfg_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A line's fields for programs: under logging.format = "json" each is a key
 * of the line's object beside ts, level and msg (a string, or a number when
 * is_num), so that jq or a log shipper needs no parsing of msg; the text
 * format writes msg only, which says the same for people. */
typedef struct log_field {
    const char *key; /* none of "ts", "level", "msg" */
    const char *str; /* NULL: "" */
    long long num;
    bool is_num;
} log_field;
#define LOG_STR(k, s) ((log_field){.key = (k), .str = (s)})
#define LOG_NUM(k, n) ((log_field){.key = (k), .num = (long long)(n), .is_num = true})
void log_fields(cfg_log_level level, const log_field *fields, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Escapes s into out as the inside of a JSON string (truncating). */
void log_json_escape(char *out, size_t outlen, const char *s);

/* A rate limit for lines a client can cause at will (rejected calls): at
 * most `burst` lines a window of `window_s` seconds. Lines held back are
 * counted, never lost without a word: their number is given before the next
 * line let through, or by log_limit_flush once the window is over. */
typedef struct log_limit {
    pthread_mutex_t mu;
    unsigned burst;
    double window_s, window_start;
    unsigned used;
    uint64_t held;
} log_limit;
void log_limit_init(log_limit *l, unsigned burst, double window_s);
void log_limit_destroy(log_limit *l);
/* True: log this line; *held is how many were held back since the last line
 * let through (0: none), to be said first. */
bool log_limit_take(log_limit *l, uint64_t *held);
/* The count held back, reset to 0: once the window is over, or now with force. */
uint64_t log_limit_flush(log_limit *l, bool force);

#define LOG_ERROR(...) log_msg(CFG_LOG_ERROR, __VA_ARGS__)
#define LOG_WARN(...) log_msg(CFG_LOG_WARN, __VA_ARGS__)
#define LOG_INFO(...) log_msg(CFG_LOG_INFO, __VA_ARGS__)
#define LOG_DEBUG(...) log_msg(CFG_LOG_DEBUG, __VA_ARGS__)

#endif

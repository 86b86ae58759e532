/* Daemon logging to stderr (journald captures it): text or one JSON object
 * per line, filtered by level; thread-safe, one write per line. */
#ifndef CUZK_SERVER_LOG_H
#define CUZK_SERVER_LOG_H

#include <stdbool.h>
#include "server/config.h"

void log_configure(cfg_log_level level, bool json);
bool log_enabled(cfg_log_level level);
void log_msg(cfg_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Escapes s into out as the inside of a JSON string (truncating). */
void log_json_escape(char *out, size_t outlen, const char *s);

#define LOG_ERROR(...) log_msg(CFG_LOG_ERROR, __VA_ARGS__)
#define LOG_WARN(...) log_msg(CFG_LOG_WARN, __VA_ARGS__)
#define LOG_INFO(...) log_msg(CFG_LOG_INFO, __VA_ARGS__)
#define LOG_DEBUG(...) log_msg(CFG_LOG_DEBUG, __VA_ARGS__)

#endif

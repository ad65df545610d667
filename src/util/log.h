/* SPDX-License-Identifier: MIT */
/* Leveled diagnostics on stderr. Library code logs only at debug levels (-v, -vv) to explain
 * "why is my symbol missing"; errors are returned as -errno and reported by src/cmd/. */
#ifndef PROSPECT_UTIL_LOG_H
#define PROSPECT_UTIL_LOG_H

/* -v shows LOG_DEBUG (and LOG_INFO, the same level), -vv adds LOG_DEBUG2. */
enum log_level { LOG_QUIET = -1, LOG_WARN = 0, LOG_INFO = 1, LOG_DEBUG = 1, LOG_DEBUG2 = 2 };

extern int log_verbosity;   /* LOG_WARN by default; each -v adds one */

void log_msg(int level, const char *prefix, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Messages of the calling thread, while a buffer is set, are appended to it instead of
 * written: work spread over threads prints them afterwards in the order a serial run would
 * (log_flush). A message that does not fit in memory is dropped. NULL writes again. */
struct log_buf {
    char *s;
    size_t len, cap;
};
void log_capture(struct log_buf *buf);
/* Writes what buf holds to stderr and frees it. */
void log_flush(struct log_buf *buf);

/* Each .c file that logs defines LOG_PREFIX ("symbol", "perf", ...) before including this. */
#ifndef LOG_PREFIX
#define LOG_PREFIX "prospect"
#endif
#define pr_warn(...)   log_msg(LOG_WARN, LOG_PREFIX, __VA_ARGS__)
#define pr_info(...)   log_msg(LOG_INFO, LOG_PREFIX, __VA_ARGS__)
#define pr_debug(...)  log_msg(LOG_DEBUG, LOG_PREFIX, __VA_ARGS__)
#define pr_debug2(...) log_msg(LOG_DEBUG2, LOG_PREFIX, __VA_ARGS__)
#endif

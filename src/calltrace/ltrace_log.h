/* SPDX-License-Identifier: MIT */
/* ltrace -o logs read as a library-call trace (`prospect replay ltrace.log`).
 *
 * Accepted: what ltrace 0.7 writes with any of -f (the task id before each line), -t/-tt/-ttt
 * (time of day / epoch) or -r (relative), -i ([caller address]), -T (<duration>), the
 * `<unfinished ...>` (or `<no return ...>`) / `<... NAME resumed>` pairs of calls interrupted by
 * another thread, `+++ exited|killed +++` and `--- SIGNAL ---` lines (skipped), `lib->name(...)`
 * or bare `name(...)`, -x's `name@lib(...)` (a function of its own, resumed as `<... name
 * resumed>`). Integer and pointer arguments and returns are kept (nil is 0); strings, structs
 * and arrays count as 0. tid is -f's task id (0 without -f); pid is 0 (unknown): ltrace does not
 * say which process a task belongs to.
 *
 * ltrace's own "unexpected breakpoint at ADDR" lines are skipped and counted (ltrace_error).
 *
 * Time: ltrace writes lines in the order events happen, so the line order is the time order.
 * With timestamps time_ns is the timestamp since the first one, nudged to grow by at least 1 ns
 * per line; without them it is the line number times 1000. dur_ns is -T's duration, else the
 * time between a call's line and its resumed line. A call that never resumed (thread exit)
 * has CALL_REC_NO_RETURN. Anything else is an error naming the line. */
#ifndef PROSPECT_CALLTRACE_LTRACE_LOG_H
#define PROSPECT_CALLTRACE_LTRACE_LOG_H
#include <stddef.h>
#include "calltrace/tracefile.h"

struct ltrace_error {
    unsigned long line;     /* 1-based; 0 when the error is not about a line */
    char msg[112];
    /* Also set on success: lines of ltrace's own complaints ("unexpected breakpoint at ADDR",
     * which ltrace -f writes into the log when it loses track of a thread), skipped. Calls may
     * be missing where they are. */
    unsigned long ltrace_complaints;
    unsigned long first_complaint;  /* its line */
};

/* Reads a whole log into t (initialized here). 0; -EINVAL (err says which line and why),
 * -ENOMEM, -EFBIG or -errno of the read. */
int ltrace_log_read(const char *path, struct call_trace *t, struct ltrace_error *err);
int ltrace_log_read_buf(const char *buf, size_t len, struct call_trace *t,
                        struct ltrace_error *err);
#endif

/* SPDX-License-Identifier: MIT */
/* The Prospect side of the call-trace interposer (src/intarget/calltrace_abi.h): the socket the
 * traced processes register their per-thread rings on, and the draining of those rings.
 * Every ring is untrusted memory the traced program can write: sizes and counters are checked,
 * a ring that breaks its rules is dropped and its calls counted as lost. */
#ifndef PROSPECT_CALLTRACE_COLLECT_H
#define PROSPECT_CALLTRACE_COLLECT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One recorded call, times still in TSC ticks. */
struct ct_call {
    uint32_t pid, tid, func;        /* func: enum ct_func_id */
    uint64_t t0, t1;
    uint64_t args[4], ret, caller;  /* args[3]: functions without a prototype only */
    unsigned nstr;
    uint8_t str[2][64];             /* string arguments (calltrace_abi.h's layout) */
    uint8_t strarg;                 /* the arguments str[] holds, in order: bit i for args[i] */
    bool has_rstr;
    uint8_t rstr[64];               /* the returned string, when has_rstr (same layout) */
    uint32_t ring;                  /* the ring's index: callers resolve per registration */
};

struct ct_collect;

/* Creates the socket pair. mask: the functions to trace (bit per ct_func_id); follow: children.
 * NULL with errno. */
struct ct_collect *ct_collect_new(uint64_t mask, bool follow);
/* The same on a connected socket (trace -p through the GOT: src/calltrace/inject.h); owns fd. */
struct ct_collect *ct_collect_from_fd(int fd);
void ct_collect_free(struct ct_collect *c);
/* Asks an injected interposer to restore the GOT entries it changed. 0 or -errno. */
int ct_collect_detach(struct ct_collect *c);
/* Whether the interposer answered the detach request (polls take the answer). */
bool ct_collect_detached(const struct ct_collect *c);
/* "PROSPECT_CALLTRACE=..." for the command's environment (owned by c). */
const char *ct_collect_env(const struct ct_collect *c);
/* Call in Prospect after the command was forked: closes Prospect's copy of the command's end. */
void ct_collect_forked(struct ct_collect *c);

/* Called for each registration (a new thread's ring), while the thread waits for it: the
 * process still runs, /proc/pid can be read. image: differs per exec'd image of a process. */
typedef void (*ct_ring_fn)(void *arg, uint32_t ring, uint32_t pid, uint32_t tid,
                           uint64_t image);
/* Called with a batch of calls in time order. Returns 0 or -errno (stops the collection). */
typedef int (*ct_batch_fn)(void *arg, const struct ct_call *calls, size_t n);
void ct_collect_set_fns(struct ct_collect *c, ct_ring_fn on_ring, ct_batch_fn on_batch,
                        void *arg);

/* Waits up to timeout_ms for registrations or wake_fd (may be -1), takes registrations, and
 * drains every ring. Returns 0 or -errno. *eof: every traced process has closed its end. */
int ct_collect_poll(struct ct_collect *c, int timeout_ms, int wake_fd, bool *eof);
/* Calls the traced threads reported they could not record, plus those of rings dropped as
 * corrupt. */
uint64_t ct_collect_lost(const struct ct_collect *c);
/* Rings registered (threads traced) and processes seen. */
size_t ct_collect_nrings(const struct ct_collect *c);
/* Whether the last poll found calls. */
bool ct_collect_had_calls(const struct ct_collect *c);
/* Rings that broke the protocol (dropped). */
size_t ct_collect_nbad(const struct ct_collect *c);
#endif

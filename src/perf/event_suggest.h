/* SPDX-License-Identifier: MIT */
/* "Did you mean" suggestions for misspelt event names, each from the list the name belongs to:
 * perf's software and hardware names, a tracepoint subsystem's events. */
#ifndef PROSPECT_PERF_EVENT_SUGGEST_H
#define PROSPECT_PERF_EVENT_SUGGEST_H
#include <stddef.h>

#define SUGGEST_MAX 3

/* The closest candidates offered so far (edit distance, closest first). */
struct suggest {
    const char *name;
    size_t cap;                       /* distances at or over this are no typo */
    size_t n;
    size_t dist[SUGGEST_MAX];
    char names[SUGGEST_MAX][128];
};

void suggest_init(struct suggest *s, const char *name);
void suggest_offer(struct suggest *s, const char *cand);
/* "a, b or c", each with prefix; empty when nothing was close. */
void suggest_format(const struct suggest *s, const char *prefix, char *buf, size_t len);

/* For "SUBSYSTEM:EVENT" that is no tracepoint: 1 when SUBSYSTEM exists in tracefs (buf: its
 * closest events as "SUBSYSTEM:EVENT", possibly empty), 0 when a close subsystem has EVENT
 * (buf: that tracepoint), -1 when tracefs says nothing about the name. */
int event_suggest_tracepoint(const char *name, char *buf, size_t len);
#endif

/* SPDX-License-Identifier: MIT */
/* "Did you mean" for event names: a tracepoint from its own subsystem's list in tracefs, a
 * perf name from the list it belongs to (event.c). Distances are util/editdist's. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include "perf/event.h"
#include "perf/event_suggest.h"
#include "util/editdist.h"

void suggest_init(struct suggest *s, const char *name)
{
    memset(s, 0, sizeof(*s));
    s->name = name;
    /* Close spellings only: a typo, not another event. */
    s->cap = 3 + strlen(name) / 6;
}

void suggest_offer(struct suggest *s, const char *cand)
{
    size_t d = edit_distance(s->name, cand, s->cap);

    if (d >= s->cap || (s->n == SUGGEST_MAX && d >= s->dist[s->n - 1]))
        return;
    size_t i = s->n < SUGGEST_MAX ? s->n++ : s->n - 1;
    for (; i > 0 && s->dist[i - 1] > d; i--) {   /* ties keep the list's order */
        s->dist[i] = s->dist[i - 1];
        memcpy(s->names[i], s->names[i - 1], sizeof(s->names[i]));
    }
    s->dist[i] = d;
    snprintf(s->names[i], sizeof(s->names[i]), "%s", cand);
}

void suggest_format(const struct suggest *s, const char *prefix, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < s->n && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s%s", i ? (i + 1 == s->n ? " or " : ", ")
                         : "", prefix, s->names[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* Entries of tracefs directory `dir` (subsystems, or one subsystem's events) offered to s. */
static int offer_dir(struct suggest *s, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;

    if (!d)
        return -1;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && e->d_type == DT_DIR)
            suggest_offer(s, e->d_name);
    closedir(d);
    return 0;
}

int event_suggest_tracepoint(const char *name, char *buf, size_t len)
{
    const char *dir = event_tracefs_dir(), *colon = strchr(name, ':');
    char path[512], sys[128], prefix[130];
    struct suggest s;

    if (!dir || !colon || colon == name || (size_t)(colon - name) >= sizeof(sys))
        return -1;
    snprintf(sys, sizeof(sys), "%.*s", (int)(colon - name), name);
    snprintf(path, sizeof(path), "%s/%s", dir, sys);
    suggest_init(&s, colon + 1);
    if (offer_dir(&s, path) == 0) {
        snprintf(prefix, sizeof(prefix), "%s:", sys);
        suggest_format(&s, prefix, buf, len);
        return 1;               /* the subsystem exists: its own list said */
    }
    /* No such subsystem: a misspelt one whose event exists ("schd:sched_switch"). */
    suggest_init(&s, sys);
    if (offer_dir(&s, dir))
        return -1;
    buf[0] = '\0';
    for (size_t i = 0; i < s.n; i++) {
        snprintf(path, sizeof(path), "%s/%s/%s", dir, s.names[i], colon + 1);
        DIR *d = opendir(path);
        if (d) {
            closedir(d);
            snprintf(buf, len, "%s:%s", s.names[i], colon + 1);
            return 0;
        }
    }
    return -1;
}

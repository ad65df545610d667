/* SPDX-License-Identifier: MIT */
#include "script/fields.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "perf/evlist.h"

static const char *const names[SF_COUNT] = {
    [SF_COMM] = "comm", [SF_TID] = "tid", [SF_PID] = "pid", [SF_CPU] = "cpu",
    [SF_TIME] = "time", [SF_PERIOD] = "period", [SF_EVENT] = "event", [SF_TRACE] = "trace",
    [SF_IP] = "ip", [SF_SYM] = "sym", [SF_SYMOFF] = "symoff", [SF_DSO] = "dso",
    [SF_SRCLINE] = "srcline",
};

const char *script_field_name(enum script_field f)
{
    return names[f];
}

static int field_by_name(const char *s, size_t n)
{
    for (int f = 0; f < SF_COUNT; f++)
        if (strlen(names[f]) == n && !strncmp(names[f], s, n))
            return f;
    return -1;
}

int script_fields_parse(const char *text, struct script_fieldspec *fs, char *why, size_t len)
{
    unsigned *dst = &fs->set;
    const char *p = text;

    memset(fs, 0, sizeof(*fs));
    if (*p == '+' || *p == '-') {
        dst = *p == '+' ? &fs->add : &fs->del;
        p++;
    } else {
        fs->given = true;
    }
    while (*p) {
        size_t n = strcspn(p, ",");
        int f = field_by_name(p, n);
        if (f < 0) {
            snprintf(why, len, "-F: unknown field '%.*s' (known: comm, tid, pid, cpu, time, "
                     "period, event, trace, ip, sym, symoff, dso, srcline)", (int)n, p);
            return -EINVAL;
        }
        *dst |= SF_BIT(f);
        p += n;
        p += *p == ',';
    }
    if (!(fs->set | fs->add | fs->del)) {
        snprintf(why, len, "-F: no field in '%s'", text);
        return -EINVAL;
    }
    return 0;
}

/* The sample_type bit a field needs, 0 if none. */
static uint64_t needs(enum script_field f)
{
    switch (f) {
    case SF_TID: case SF_PID: return PERF_SAMPLE_TID;
    case SF_CPU: return PERF_SAMPLE_CPU;
    case SF_TIME: return PERF_SAMPLE_TIME;
    case SF_TRACE: return PERF_SAMPLE_RAW;
    case SF_IP: return PERF_SAMPLE_IP;
    default: return 0;
    }
}

static unsigned defaults(const struct evsel *sel, bool file_has_chains)
{
    unsigned common = SF_BIT(SF_COMM) | SF_BIT(SF_TID) | SF_BIT(SF_CPU) | SF_BIT(SF_TIME) |
                      SF_BIT(SF_EVENT);
    unsigned code = SF_BIT(SF_IP) | SF_BIT(SF_SYM) | SF_BIT(SF_SYMOFF) | SF_BIT(SF_DSO);

    if (sel->attr.type == PERF_TYPE_TRACEPOINT)
        return common | SF_BIT(SF_TRACE) |
               (file_has_chains && (sel->attr.sample_type & PERF_SAMPLE_CALLCHAIN) ?
                code : 0);
    return common | SF_BIT(SF_PERIOD) | code;
}

int script_fields_for(const struct evsel *sel, bool file_has_chains,
                      const struct script_fieldspec *fs, unsigned *out, char *why, size_t len)
{
    unsigned f = fs->given ? fs->set : (defaults(sel, file_has_chains) | fs->add) & ~fs->del;

    if (sel->attr.type != PERF_TYPE_TRACEPOINT)
        f &= ~SF_BIT(SF_TRACE);   /* perf: "'trace' not valid for software events" */
    for (int k = 0; k < SF_COUNT; k++) {
        if (!(f & SF_BIT(k)) || !needs(k) || (sel->attr.sample_type & needs(k)))
            continue;
        if (fs->given && (fs->set & SF_BIT(k))) {
            snprintf(why, len, "samples of '%s' have no %s (not recorded): cannot print "
                     "field '%s'", sel->name, names[k], names[k]);
            return -EINVAL;
        }
        f &= ~SF_BIT(k);
    }
    *out = f;
    return 0;
}

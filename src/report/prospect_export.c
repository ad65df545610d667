/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "report/csv.h"
#include "report/json.h"
#include "report/profile.h"
#include "report/prospect_export.h"
#include "session/symbolize.h"

struct exporter {
    FILE *f;
    enum report_format fmt;
    struct json j;
    unsigned top;
};

static double pct(uint64_t n, uint64_t total)
{
    return total ? 100.0 * (double)n / (double)total : 0;
}

static const char *row_symbol(const struct prof_row *r, char *buf, size_t len)
{
    if (r->sym)
        return r->sym;
    snprintf(buf, len, "0x%" PRIx64, r->addr);
    return buf;
}

/* One sorted profile: CSV rows of `section`, or a JSON array under `key`. */
static void emit_profile(struct exporter *x, const struct profile *pr, const char *section,
                         const char *key, const struct process *p, uint64_t total)
{
    char sym[64], dso[256], pidbuf[16];
    size_t n = pr->rows.n;

    if (x->top && n > x->top)
        n = x->top;
    if (x->fmt == REPORT_JSON)
        json_begin_array(&x->j, key);
    for (size_t i = 0; i < n; i++) {
        const struct prof_row *r = &pr->rows.v[i];
        const char *name = row_symbol(r, sym, sizeof(sym));
        const char *file = prof_row_dso_name(r, dso, sizeof(dso));
        if (x->fmt == REPORT_JSON) {
            json_begin_object(&x->j, NULL);
            json_str(&x->j, "symbol", name);
            json_str(&x->j, "dso", file);
            json_u64(&x->j, "samples", r->samples);
            json_u64(&x->j, "period", r->period);
            json_double(&x->j, "percent", pct(r->period, total), 2);
            json_end_object(&x->j);
        } else {
            snprintf(pidbuf, sizeof(pidbuf), "%d", p ? (int)p->pid : 0);
            csv_field(x->f, section, false);
            csv_field(x->f, p ? pidbuf : "", false);
            csv_field(x->f, p ? p->comm : "", false);
            csv_field(x->f, name, false);
            csv_field(x->f, file, false);
            csv_u64(x->f, r->samples, false);
            csv_u64(x->f, r->period, false);
            csv_double(x->f, pct(r->period, total), 2, true);
        }
    }
    if (x->fmt == REPORT_JSON)
        json_end_array(&x->j);
}

static int process_profiles(struct exporter *x, struct process *p, const struct ksyms *ks)
{
    struct profile user, kern;
    int err;

    err = profile_process(&user, &kern, p, ks);
    if (!err) {
        emit_profile(x, &user, "user", "user_profile", p, process_period(p));
        emit_profile(x, &kern, "kernel", "kernel_profile", p, process_period(p));
    }
    profile_release(&user);
    profile_release(&kern);
    return err;
}

int report_prospect_export(FILE *f, struct session *s, const struct ksyms *ks,
                           const struct report_opts *o, enum report_format fmt)
{
    struct exporter x = { .f = f, .fmt = fmt, .top = o->top };
    struct process **procs;
    struct profile global;
    size_t n = 0;
    int err = 0;

    long got = session_sampled_processes(s, &procs);
    if (got < 0)
        return (int)got;
    n = (size_t)got;
    if (fmt == REPORT_JSON) {
        json_init(&x.j, f);
        json_begin_object(&x.j, NULL);
        json_str(&x.j, "event", o->event);
        json_u64(&x.j, "samples", s->stats.samples);
        json_u64(&x.j, "user", s->stats.user);
        json_u64(&x.j, "kernel", s->stats.kernel);
        json_u64(&x.j, "lost", s->stats.lost + o->lost_extra);
        json_u64(&x.j, "throttle", s->stats.throttle);
        json_begin_array(&x.j, "processes");
    } else {
        fputs("section,pid,comm,symbol,dso,samples,period,percent\n", f);
        for (size_t i = 0; i < n; i++) {
            const struct process *p = procs[i];
            fprintf(f, "summary,%d,", (int)p->pid);
            csv_field(f, p->comm, false);
            fprintf(f, ",,%" PRIu64 ",%" PRIu64 ",%.2f\n", process_samples(p),
                    process_period(p), pct(process_period(p), s->stats.period_total));
        }
    }
    for (size_t i = 0; i < n && !err; i++) {
        struct process *p = procs[i];
        bool detailed = report_process_shown(p, s, o);
        if (fmt == REPORT_JSON) {
            json_begin_object(&x.j, NULL);
            json_i64(&x.j, "pid", p->pid);
            json_str(&x.j, "comm", p->comm);
            json_u64(&x.j, "samples", process_samples(p));
            json_u64(&x.j, "user_samples", p->user_samples);
            json_u64(&x.j, "kernel_samples", p->kernel_samples);
            json_u64(&x.j, "user_period", p->user_period);
            json_u64(&x.j, "kernel_period", p->kernel_period);
            json_double(&x.j, "percent", pct(process_period(p), s->stats.period_total), 2);
            json_bool(&x.j, "detailed", detailed);
        }
        if (detailed)
            err = process_profiles(&x, p, ks);
        if (fmt == REPORT_JSON)
            json_end_object(&x.j);
    }
    if (fmt == REPORT_JSON)
        json_end_array(&x.j);
    profile_init(&global);
    if (!err)
        err = global_kernel_profile(s, ks, &global);
    if (!err) {
        profile_sort(&global);
        emit_profile(&x, &global, "global_kernel", "kernel_profile", NULL, s->stats.period_total);
    }
    profile_release(&global);
    if (fmt == REPORT_JSON) {
        json_end_object(&x.j);
        json_finish(&x.j);
    }
    free(procs);
    if (err)
        return err;
    return ferror(f) ? -EIO : 0;
}

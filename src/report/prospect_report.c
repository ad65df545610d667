/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "report/callgraph_out.h"
#include "report/profile.h"
#include "report/prospect_report.h"
#include "session/symbolize.h"
#include "symbol/dso.h"
#include "util/strutil.h"

#define RULE "------------------------------------------------------------------------------" \
             "----------------------"

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void heading(FILE *f, const char *title)
{
    fprintf(f, "\n%s\n%.*s\n", title, (int)strlen(title), RULE);
}

/* "1.234 s" for time events, else the raw event count. */
static void fmt_amount(char *buf, size_t len, const struct report_opts *o, uint64_t period)
{
    if (o->time_event)
        snprintf(buf, len, "%.4f s", (double)period / 1e9);
    else
        snprintf(buf, len, "%" PRIu64, period);
}

bool report_process_shown(const struct process *p, const struct session *s,
                          const struct report_opts *o)
{
    return process_shown(p, s->stats.period_total, &(struct show_limits){
                             .min_percent = o->min_percent, .min_time = o->min_time,
                             .time_event = o->time_event });
}

/* Text padded with spaces to `width` display columns (printf pads bytes: UTF-8 has more). */
static void put_padded(FILE *f, const char *text, size_t width)
{
    fputs(text, f);
    for (size_t w = str_width(text); w < width; w++)
        fputc(' ', f);
}

/* A "label  text" line of the statistics, wrapped at 100 columns under the text column. */
static void print_wrapped(FILE *f, const char *label, const char *text)
{
    const int width = 100 - 25;
    bool first = true;

    while (*text) {
        int n = (int)strlen(text);
        if (n > width) {
            n = width;
            while (n > 0 && text[n] != ' ')
                n--;
            if (n == 0)
                n = width;
        }
        fprintf(f, "  %-22s %.*s\n", first ? label : "", n, text);
        text += n;
        while (*text == ' ')
            text++;
        first = false;
    }
}

static void stats_section(FILE *f, const struct session *s, const struct report_opts *o,
                          size_t procs_seen, size_t procs_sampled, size_t procs_shown)
{
    const struct session_stats *st = &s->stats;
    uint64_t self = 0;
    char cb[1024];

    for (size_t i = 0; i < s->procs.n; i++)
        if (s->procs.v[i]->is_self)
            self += process_samples(s->procs.v[i]);
    self += s->released.self_samples;
    heading(f, "Statistics of Run");
    print_wrapped(f, "Event", str_printable(o->event ? o->event : "?", cb, sizeof(cb)));
    if (o->event_why)
        print_wrapped(f, "", o->event_why);
    if (o->freq_mode)
        fprintf(f, "  %-22s %" PRIu64 " Hz asked", "Sampling", o->freq);
    else
        fprintf(f, "  %-22s every %" PRIu64 " %s asked", "Sampling", o->period,
                o->time_event ? "ns" : "events");
    if (st->samples) {
        double mean = (double)st->period_total / (double)st->samples;
        if (o->time_event && mean > 0)
            fprintf(f, "; achieved %.0f Hz (mean period %.3f ms)", 1e9 / mean, mean / 1e6);
        else
            fprintf(f, "; achieved mean period %.0f events", mean);
    }
    fputc('\n', f);
    if (st->period_clamped)
        fprintf(f, "  %-22s %" PRIu64 " samples asked for less than the kernel's 10 us timer "
                "floor;\n  %-22s counted at 10 us each (the workload ran much slower)\n", "",
                st->period_clamped, "");
    /* A file its record left unfinished (killed) has no CPU count: none is made up. */
    if (o->duration > 0 && o->nr_cpus)
        fprintf(f, "  %-22s %.3f s elapsed on %zu CPUs\n", "Duration", o->duration, o->nr_cpus);
    else if (o->duration > 0)
        fprintf(f, "  %-22s %.3f s elapsed (the file records no CPU count)\n", "Duration",
                o->duration);
    fprintf(f, "  %-22s %" PRIu64 "\n", "Samples", st->samples);
    fprintf(f, "  %-22s %" PRIu64 " (%.1f%%)\n", "User hits", st->user, pct(st->user, st->samples));
    fprintf(f, "  %-22s %" PRIu64 " (%.1f%%)\n", "System hits", st->kernel,
            pct(st->kernel, st->samples));
    if (st->other)
        fprintf(f, "  %-22s %" PRIu64 " (guest, hypervisor or unknown mode)\n", "Other hits",
                st->other);
    fprintf(f, "  %-22s %" PRIu64 " in %" PRIu64 " LOST records", "Lost samples",
            st->lost + st->lost_samples, st->lost_records);
    if (o->lost_extra)
        fprintf(f, "; %" PRIu64 " unreadable records", o->lost_extra);
    if (st->bad_samples)
        fprintf(f, "; %" PRIu64 " malformed samples", st->bad_samples);
    fputc('\n', f);
    fprintf(f, "  %-22s %" PRIu64 " times\n", "Throttled", st->throttle);
    fprintf(f, "  %-22s %zu (%zu with samples, %zu shown", "Processes seen", procs_seen,
            procs_sampled, procs_shown);
    if (procs_sampled > procs_shown)
        fprintf(f, ", %zu below --min-percent/--min-time",
                procs_sampled - procs_shown);
    fprintf(f, ")\n");
    if (o->proc_note)
        print_wrapped(f, "", o->proc_note);
    if (o->system_wide)
        fprintf(f, "  %-22s %" PRIu64 " (%.1f%%)\n", "Prospect's own hits", self,
                pct(self, st->samples));
    else
        fprintf(f, "  %-22s not sampled (only the command's process tree is profiled)\n",
                "Prospect's own hits");
    if (o->kernel_note)
        print_wrapped(f, "Kernel", o->kernel_note);
    if (o->command)
        print_wrapped(f, "Command", str_printable(o->command, cb, sizeof(cb)));
    if (o->outcome)
        fprintf(f, "  %-22s %s\n", "Outcome", o->outcome);
}

static void summary_section(FILE *f, const struct session *s, const struct report_opts *o,
                            struct process **procs, size_t n)
{
    char ut[32], st[32], cb[40];

    heading(f, "Summary of Processes");
    fprintf(f, "  %8s  %-16s %10s %12s %10s %12s %8s\n", "PID", "Command", "User Hits",
            o->time_event ? "User Time" : "User Events", "Sys Hits",
            o->time_event ? "Sys Time" : "Sys Events", "Total");
    /* Released processes were all below the thresholds (session_release_exited). */
    uint64_t hidden = s->released.samples, hidden_period = s->released.period;
    size_t nhidden = s->released.sampled;

    for (size_t i = 0; i < n; i++) {
        const struct process *p = procs[i];
        if (!report_process_shown(p, s, o)) {
            hidden += process_samples(p);
            hidden_period += process_period(p);
            nhidden++;
            continue;
        }
        fmt_amount(ut, sizeof(ut), o, p->user_period);
        fmt_amount(st, sizeof(st), o, p->kernel_period);
        fprintf(f, "  %8d  %-16.16s %10" PRIu64 " %12s %10" PRIu64 " %12s %7.1f%%%s\n",
                (int)p->pid, str_printable(p->comm, cb, sizeof(cb)), p->user_samples, ut,
                p->kernel_samples, st,
                pct(process_period(p), s->stats.period_total), p->is_self ? "  (prospect)" : "");
    }
    if (nhidden)
        fprintf(f, "  %8s  %zu more processes below the thresholds: %" PRIu64 " hits (%.1f%%)\n",
                "", nhidden, hidden, pct(hidden_period, s->stats.period_total));
    if (!n && !s->released.sampled)
        fprintf(f, "  (no samples: the command ran for less than one sampling period)\n");
}

struct agg {
    const char *comm;
    size_t nproc;
    uint64_t samples, period;
};

static int cmp_agg(const void *x, const void *y)
{
    const struct agg *a = x, *b = y;
    if (a->period != b->period)
        return a->period > b->period ? -1 : 1;
    if (a->samples != b->samples)
        return a->samples > b->samples ? -1 : 1;
    return strcmp(a->comm, b->comm);
}

/* Processes grouped by command: short-lived processes stay separate rows above, and this
 * table shows what each command cost in all. */
static int by_command_section(FILE *f, const struct session *s, struct process **procs, size_t n)
{
    const struct released_procs *r = &s->released;
    struct agg *a = calloc(n + r->by_comm.n + 1, sizeof(*a));
    size_t na = 0;
    bool any_multi = false;

    if (!a)
        return -ENOMEM;
    for (size_t i = 0; i < n + r->by_comm.n; i++) {
        const struct comm_tally *t = i < n ? NULL : &r->by_comm.v[i - n];
        const char *comm = t ? t->comm : procs[i]->comm;
        size_t j;
        for (j = 0; j < na && strcmp(a[j].comm, comm); j++)
            ;
        if (j == na)
            a[na++].comm = comm;
        a[j].nproc += t ? t->nproc : 1;
        a[j].samples += t ? t->samples : process_samples(procs[i]);
        a[j].period += t ? t->period : process_period(procs[i]);
        any_multi |= a[j].nproc > 1;
    }
    if (any_multi) {
        qsort(a, na, sizeof(*a), cmp_agg);
        fprintf(f, "\n  %-16s %10s %10s %8s\n", "By command", "Processes", "Hits", "Total");
        for (size_t j = 0; j < na; j++) {
            char cb[40];
            fprintf(f, "  %-16.16s %10zu %10" PRIu64 " %7.1f%%\n",
                    str_printable(a[j].comm, cb, sizeof(cb)), a[j].nproc, a[j].samples,
                    pct(a[j].period, s->stats.period_total));
        }
    }
    free(a);
    return 0;
}

#define COLUMNS 100
#define FILE_COLUMNS 24     /* the File column's share of a row that must fit COLUMNS */

/* "(% of 1.2345 s of process time)" or "(% of 12345 process events)": what 100% is. */
static void fmt_base(char *buf, size_t len, const struct report_opts *o, uint64_t period,
                     const char *whose)
{
    if (o->time_event)
        snprintf(buf, len, "%.4f s of %s time", (double)period / 1e9, whose);
    else
        snprintf(buf, len, "%" PRIu64 " %s events", period, whose);
}

/* One profile. Hits are samples; % and Time/Events are the period (the events samples stand
 * for, as perf's overhead). Rows fit COLUMNS: long names and files are elided in the middle
 * unless o->wide. */
static void profile_table(FILE *f, const char *title, struct profile *pr, uint64_t total,
                          const char *whose, const struct report_opts *o, bool with_file)
{
    char amt[32], dbuf[64], addr[32], base[64], nb[4096], db[512], ne[512], de[128];
    size_t shown = pr->rows.n;

    if (o->top && shown > o->top)
        shown = o->top;
    fmt_base(base, sizeof(base), o, total, whose);
    fprintf(f, "\n  %s: %" PRIu64 " hits (%% of %s)\n", title, pr->samples, base);
    if (!pr->rows.n)
        return;
    fprintf(f, "  %10s %7s %12s  %-40s %s\n", "Hits", "%", o->time_event ? "Time" : "Events",
            "Routine", with_file ? "File" : "");
    for (size_t i = 0; i < shown; i++) {
        const struct prof_row *r = &pr->rows.v[i];
        const char *name = r->sym, *file = "";
        size_t name_cols;
        if (!name) {
            snprintf(addr, sizeof(addr), "0x%" PRIx64, r->addr);
            name = addr;
        }
        name = str_printable(name, nb, sizeof(nb));
        if (with_file)
            file = str_printable(prof_row_dso_name(r, dbuf, sizeof(dbuf)), db, sizeof(db));
        if (!o->wide) {
            /* 35 columns before the name, one space after it */
            file = str_elide(file, FILE_COLUMNS, de, sizeof(de));
            name_cols = COLUMNS - 36 - str_width(file);
            name = str_elide(name, name_cols, ne, sizeof(ne));
        }
        fmt_amount(amt, sizeof(amt), o, r->period);
        fprintf(f, "  %10" PRIu64 " %6.1f%% %12s  ", r->samples, pct(r->period, total), amt);
        put_padded(f, name, 40);
        fprintf(f, " %s\n", file);
    }
    if (shown < pr->rows.n) {
        uint64_t rest = 0, rest_period = 0;
        for (size_t i = shown; i < pr->rows.n; i++) {
            rest += pr->rows.v[i].samples;
            rest_period += pr->rows.v[i].period;
        }
        fprintf(f, "  %10" PRIu64 " %6.1f%%  ... %zu more routines\n", rest,
                pct(rest_period, total), pr->rows.n - shown);
    }
}

/* Which files the user hits fell in, their full paths and how well they could be symbolized:
 * the answer to "why is my symbol missing". */
static void files_table(FILE *f, const struct profile *user, const struct report_opts *o)
{
    struct dso *seen[64];
    size_t n = 0;

    for (size_t i = 0; i < user->rows.n && n < 64; i++) {
        struct dso *d = user->rows.v[i].dso;
        size_t j;
        if (!d)
            continue;
        for (j = 0; j < n && seen[j] != d; j++)
            ;
        if (j < n)
            continue;
        seen[n++] = d;
    }
    if (!n)
        return;
    fprintf(f, "\n  Files with user hits:\n");
    for (size_t i = 0; i < n; i++) {
        char nb[64], pb[4096], pe[512];
        enum dso_status st = dso_status(seen[i]);
        const char *path = dso_path(seen[i]), *status = dso_status_str(st);
        if (dso_kind(seen[i]) == DSO_ANON) {
            path = "anonymous memory";
            if (st == DSO_MISSING)
                status = "no /tmp/perf-PID.map: raw addresses";
        } else if (dso_kind(seen[i]) == DSO_VDSO) {
            path = "the kernel's vDSO";
        }
        const char *name = str_printable(dso_short_name(seen[i]), nb, sizeof(nb));
        size_t name_cols = str_width(name) > 20 ? str_width(name) : 20;
        path = str_printable(path, pb, sizeof(pb));
        if (!o->wide)           /* "    " name " " path "  [" status "]" */
            path = str_elide(path, COLUMNS - 9 - name_cols - strlen(status), pe, sizeof(pe));
        fprintf(f, "    ");
        put_padded(f, name, 20);
        fprintf(f, " %s  [%s]\n", path, status);
    }
}

static int process_section(FILE *f, struct process *p, const struct ksyms *ks,
                           const struct report_opts *o)
{
    struct profile user, kern;
    char title[96];
    int err;

    err = profile_process(&user, &kern, p, ks);
    if (!err) {
        char cb[40];
        snprintf(title, sizeof(title), "Process %d %s%s", (int)p->pid,
                 str_printable(p->comm, cb, sizeof(cb)), p->is_self ? " (Prospect itself)" : "");
        heading(f, title);
        profile_table(f, "USER profile", &user, process_period(p), "process", o, true);
        files_table(f, &user, o);
        profile_table(f, "KERNEL profile", &kern, process_period(p), "process", o, true);
        if (o->chains) {
            struct cg_section_opts co = { .top = o->top, .paths = 10, .wide = o->wide };
            err = report_cg_process(f, o->chains, o->chain_syms, p, &co);
        }
    }
    profile_release(&user);
    profile_release(&kern);
    return err;
}

static int global_kernel_section(FILE *f, struct session *s, const struct ksyms *ks,
                                 const struct report_opts *o)
{
    struct profile kern;
    int err;

    profile_init(&kern);
    err = global_kernel_profile(s, ks, &kern);
    if (!err) {
        profile_sort(&kern);
        heading(f, "Global KERNEL Profile");
        profile_table(f, "All system hits", &kern, s->stats.period_total, "all", o, true);
    }
    profile_release(&kern);
    return err;
}

int report_prospect(FILE *f, struct session *s, const struct ksyms *ks,
                    const struct report_opts *o)
{
    struct process **procs;
    long n = session_sampled_processes(s, &procs);
    size_t sampled, shown = 0;
    int err = 0;

    if (n < 0)
        return (int)n;
    sampled = (size_t)n;
    for (size_t i = 0; i < sampled; i++)
        shown += report_process_shown(procs[i], s, o);

    fprintf(f, "Prospect report\n");
    stats_section(f, s, o, s->procs.n + s->released.seen, sampled + s->released.sampled, shown);
    summary_section(f, s, o, procs, sampled);
    err = by_command_section(f, s, procs, sampled);
    if (!err) {
        size_t k = 0;   /* the shown ones, in order: procs is reused for them */
        struct process **shown_procs = procs;
        for (size_t i = 0; i < sampled; i++)
            if (report_process_shown(procs[i], s, o))
                shown_procs[k++] = procs[i];
        err = symbolize_load(shown_procs, k);
        for (size_t i = 0; i < k && !err; i++)
            err = process_section(f, shown_procs[i], ks, o);
    }
    if (!err && s->stats.kernel)
        err = global_kernel_section(f, s, ks, o);
    if (!err && o->offcpu) {
        struct cg_section_opts co = { .top = 10, .paths = 10, .wide = o->wide };
        err = report_offcpu_section(f, o->offcpu, o->offcpu_syms, o->offcpu_totals, &co);
    }
    free(procs);
    if (!err && ferror(f))
        err = -EIO;
    return err;
}

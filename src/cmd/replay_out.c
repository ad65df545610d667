/* SPDX-License-Identifier: MIT */
/* prospect replay's output: text, CSV, JSON, the dump and the SVG (replay_out.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/replay_out.h"
#include "prospect/cycles.h"
#include "util/outfile.h"
#include "util/strutil.h"

#define CMD "replay"

/* The executed calls, in the order the child ran them: reproducible, no timings. */
int replay_print_dump(const struct alloc_out *ao, const struct replay_prog *p,
                      const struct call_trace *t)
{
    size_t *by_seq = malloc(p->nops * sizeof(*by_seq));
    uint32_t tids[RP_MAX_THREADS];
    uint32_t ntids = 0;
    if (!by_seq)
        return -ENOMEM;
    for (size_t i = 0; i < p->nops; i++)
        by_seq[i] = SIZE_MAX;
    for (size_t i = 0; i < p->nops; i++) {
        uint32_t s = ao->res.dump[i].seq;
        if (s >= p->nops || by_seq[s] != SIZE_MAX) {
            free(by_seq);
            return -EPROTO;
        }
        by_seq[s] = i;
    }
    for (size_t s = 0; s < p->nops; s++) {
        size_t i = by_seq[s];
        const struct rp_dump *d = &ao->res.dump[i];
        const struct rp_op *op = &p->ops[i];
        const struct call_rec *r = &t->recs[p->op_rec[i]];
        uint32_t th = 0;
        while (th < ntids && tids[th] != d->tid)
            th++;
        if (th == ntids && ntids < RP_MAX_THREADS)
            tids[ntids++] = d->tid;
        printf("dump %s %zu rec=%zu thread=T%u task=%u %s", ao->a.name, s, p->op_rec[i], th,
               p->thread_tid[op->thread], replay_kind_name(op->kind));
        if (op->kind == RP_CALLOC)
            printf(" %llu %llu", (unsigned long long)op->a, (unsigned long long)op->b);
        else if (op->kind != RP_FREE)
            printf(" %llu", (unsigned long long)op->a);
        if (op->kind == RP_FREE || op->kind == RP_REALLOC) {
            if (d->src_op == RP_NONE)
                printf(" from=none ptr=0x0");
            else if (d->src_op < p->nops)
                printf(" from=%u ptr=0x%llx", ao->res.dump[d->src_op].seq,
                       (unsigned long long)r->args[0]);
        }
        if (op->kind != RP_FREE)
            printf(" ret=0x%llx", (unsigned long long)r->ret);
        putchar('\n');
    }
    free(by_seq);
    return 0;
}

static double ticks_ms(double ticks, double hz)
{
    return hz > 0 ? ticks * 1e3 / hz : 0;
}

/* The check verdict for the CPU (to stdout with text, to stderr beside CSV). */
void replay_print_check(FILE *f, const struct syscheck *sc)
{
    size_t nw = syscheck_count(sc, CHECK_WARN);
    fprintf(f, "check (CPU %d): %zu ok, %zu warn", sc->cpu, syscheck_count(sc, CHECK_OK), nw);
    if (nw) {
        fprintf(f, ":");
        size_t col = 30;
        for (size_t i = 0; i < sc->n; i++)
            if (sc->items[i].status == CHECK_WARN) {
                size_t w = strlen(sc->items[i].name) + 1;
                if (col + w > 98) {
                    fprintf(f, "\n   ");
                    col = 3;
                }
                fprintf(f, " %s", sc->items[i].name);
                col += w;
            }
        fprintf(f, "\n  -- noise on this CPU is in the curves; 'prospect check --cpu %d' says "
                   "what to do\n", sc->cpu);
    } else {
        fprintf(f, ": the CPU is quiet\n");
    }
    if (prospect_tsc_fallback())    /* the reads differ from the documented ones: say so once */
        fprintf(f, "  -- note: %s\n", prospect_tsc_fallback());
}

void replay_print_summary(const char *path, const struct replay_prog *p,
                          const struct replay_opts *o, int cpu)
{
    char pb[120];
    printf("Replay of %s: %zu calls (", str_printable(path, pb, sizeof(pb)), p->nops);
    bool first = true;
    for (unsigned k = 0; k < RP_NKINDS; k++)
        if (p->calls[k]) {
            printf("%s%s %zu", first ? "" : ", ", replay_kind_name(k), p->calls[k]);
            first = false;
        }
    printf(") in %u thread%s\n  on CPU %d, %u timed pass%s after %u untimed\n", p->nthreads,
           p->nthreads == 1 ? "" : "s", cpu, o->repeat, o->repeat == 1 ? "" : "es", o->warmup);
    if (p->unknown_free || p->unknown_realloc || p->failed_realloc || p->other_calls)
        printf("  skipped: %zu free, %zu realloc of unknown pointers; %zu failed realloc; "
               "%zu other calls\n", p->unknown_free, p->unknown_realloc, p->failed_realloc,
               p->other_calls);
    if (p->no_return || p->reused_ptr)
        printf("  note: %zu allocations never returned; %zu pointers returned again before "
               "a free\n", p->no_return, p->reused_ptr);
}

void replay_print_table(struct alloc_out *aos, size_t n, const struct replay_opts *o)
{
    const struct alloc_out *ref = NULL;
    for (size_t i = 0; i < n && !ref; i++)
        if (aos[i].ran)
            ref = &aos[i];
    if (!ref)
        return;
    /* Each child measures its own floor; they can differ by a step: say each one then. */
    bool same = true;
    for (size_t i = 0; i < n; i++)
        same &= !aos[i].ran || aos[i].res.hdr.floor == ref->res.hdr.floor;
    if (same) {
        printf("Ticks per call, net of the %llu-tick floor of the %s reads (step %u, TSC %.1f "
               "MHz):\n",
               (unsigned long long)ref->res.hdr.floor, ref->res.hdr.cpuid ? "cpuid" : "lfence",
               (unsigned)ref->step, ref->res.hdr.hz / 1e6);
    } else {
        printf("Ticks per call, net of each child's floor of the %s reads (step %u, TSC %.1f "
               "MHz):\n  floors:", ref->res.hdr.cpuid ? "cpuid" : "lfence", (unsigned)ref->step,
               ref->res.hdr.hz / 1e6);
        for (size_t i = 0, k = 0; i < n; i++)
            if (aos[i].ran)
                printf("%s %s %llu", k++ ? "," : "", aos[i].a.name,
                       (unsigned long long)aos[i].res.hdr.floor);
        printf(" ticks\n");
    }
    printf("%-10s %-8s %8s %6s %6s %7s %7s %9s %8s %10s %9s\n", "allocator", "function",
           "calls", "p50", "p90", "p99", "p99.9", "max", "mean", "total us", "peak RSS");
    for (size_t i = 0; i < n; i++) {
        struct alloc_out *ao = &aos[i];
        if (!ao->ran)
            continue;
        bool first = true;
        for (unsigned k = 0; k < RP_NKINDS; k++) {
            struct prospect_hist_stats st;
            if (prospect_hist_stats(ao->h[k], PROSPECT_KEEP_UNFLAGGED, &st))
                continue;
            printf("%-10s %-8s %8zu %6llu %6llu %7llu %7llu %9llu %8.1f %10.1f",
                   first ? ao->a.name : "", replay_kind_name(k), st.count,
                   (unsigned long long)st.p50, (unsigned long long)st.p90,
                   (unsigned long long)st.p99, (unsigned long long)st.p999,
                   (unsigned long long)st.max, st.mean,
                   1e3 * ticks_ms(st.mean * (double)st.count, ao->res.hdr.hz));
            if (first)
                printf(" %5.1f MiB", (double)ao->res.peak_rss_kb / 1024);
            putchar('\n');
            if (st.migrated)
                printf("%-10s   %zu calls migrated between CPUs, left out\n", "",
                       st.migrated);
            first = false;
        }
    }
}

void replay_print_csv(const char *path, struct alloc_out *aos, size_t n)
{
    printf("trace,allocator,function,calls,p50,p90,p99,p99.9,max,mean,total_ticks,total_ms,"
           "peak_rss_kb,migrated\n");
    for (size_t i = 0; i < n; i++) {
        struct alloc_out *ao = &aos[i];
        if (!ao->ran)
            continue;
        for (unsigned k = 0; k < RP_NKINDS; k++) {
            struct prospect_hist_stats st;
            if (prospect_hist_stats(ao->h[k], PROSPECT_KEEP_UNFLAGGED, &st))
                continue;
            putchar('"');
            for (const char *s = path; *s; s++) {
                char esc[5];
                size_t l = str_char_escape(s, esc);
                if (*s == '"')
                    fputs("\"\"", stdout);
                else if (esc[0])
                    fputs(esc, stdout);
                else
                    fwrite(s, 1, l, stdout);
                s += l - 1;
            }
            printf("\",%s,%s,%zu,%llu,%llu,%llu,%llu,%llu,%.2f,%.0f,%.6f,%llu,%zu\n", ao->a.name,
                   replay_kind_name(k), st.count, (unsigned long long)st.p50,
                   (unsigned long long)st.p90, (unsigned long long)st.p99,
                   (unsigned long long)st.p999, (unsigned long long)st.max, st.mean,
                   st.mean * (double)st.count,
                   ticks_ms(st.mean * (double)st.count, ao->res.hdr.hz),
                   (unsigned long long)ao->res.peak_rss_kb, st.migrated);
        }
    }
}

static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static unsigned json_traces;   /* objects printed in the array so far */

void replay_print_json(const char *path, const struct replay_prog *p, const struct replay_opts *o,
                       const struct syscheck *sc, struct alloc_out *aos, size_t n)
{
    printf("%s{\"trace\": ", json_traces++ ? ",\n" : "");
    json_str(path);
    printf(", \"cpu\": %d, \"repeat\": %u, \"warmup\": %u, \"threads\": %u, \"barrier\": \"%s\",\n",
           sc->cpu, o->repeat, o->warmup, p->nthreads, o->cpuid ? "cpuid" : "lfence");
    printf(" \"tsc_fallback\": ");
    if (prospect_tsc_fallback())
        json_str(prospect_tsc_fallback());
    else
        printf("null");
    printf(",\n \"calls\": {");
    for (unsigned k = 0; k < RP_NKINDS; k++)
        printf("%s\"%s\": %zu", k ? ", " : "", replay_kind_name(k), p->calls[k]);
    printf("},\n \"skipped\": {\"unknown_free\": %zu, \"unknown_realloc\": %zu, "
           "\"failed_realloc\": %zu, \"other_calls\": %zu, \"no_return\": %zu, "
           "\"reused_ptr\": %zu},\n", p->unknown_free, p->unknown_realloc, p->failed_realloc,
           p->other_calls, p->no_return, p->reused_ptr);
    printf(" \"check\": {\"ok\": %zu, \"warn\": %zu, \"na\": %zu, \"warned\": [",
           syscheck_count(sc, CHECK_OK), syscheck_count(sc, CHECK_WARN),
           syscheck_count(sc, CHECK_NA));
    bool first = true;
    for (size_t i = 0; i < sc->n; i++)
        if (sc->items[i].status == CHECK_WARN) {
            printf("%s", first ? "" : ", ");
            json_str(sc->items[i].name);
            first = false;
        }
    printf("]},\n \"allocators\": [");
    first = true;
    for (size_t i = 0; i < n; i++) {
        struct alloc_out *ao = &aos[i];
        printf("%s\n  {\"name\": ", first ? "" : ",");
        first = false;
        json_str(ao->a.name);
        printf(", \"library\": ");
        json_str(ao->a.lib[0] ? ao->a.lib : "libc");
        printf(", \"ran\": %s", ao->ran ? "true" : "false");
        if (!ao->ran) {
            printf("}");
            continue;
        }
        printf(", \"barrier\": \"%s\", \"malloc_from\": ",
               ao->res.hdr.cpuid ? "cpuid" : "lfence");
        json_str(ao->res.hdr.malloc_from);
        printf(", \"step\": %u, \"floor\": %llu, \"hz\": %.0f, \"peak_rss_kb\": %llu,"
               " \"base_rss_kb\": %llu,\n   \"functions\": [", (unsigned)ao->step,
               (unsigned long long)ao->res.hdr.floor, ao->res.hdr.hz,
               (unsigned long long)ao->res.peak_rss_kb,
               (unsigned long long)ao->res.hdr.base_rss_kb);
        bool f1 = true;
        for (unsigned k = 0; k < RP_NKINDS; k++) {
            struct prospect_hist_stats st;
            if (prospect_hist_stats(ao->h[k], PROSPECT_KEEP_UNFLAGGED, &st))
                continue;
            printf("%s\n    {\"function\": \"%s\", \"calls\": %zu, \"p50\": %llu, \"p90\": %llu,"
                   " \"p99\": %llu, \"p99.9\": %llu, \"max\": %llu, \"mean\": %.2f, "
                   "\"total_ticks\": %.0f, \"total_ms\": %.6f, \"migrated\": %zu}",
                   f1 ? "" : ",", replay_kind_name(k), st.count, (unsigned long long)st.p50,
                   (unsigned long long)st.p90, (unsigned long long)st.p99,
                   (unsigned long long)st.p999, (unsigned long long)st.max, st.mean,
                   st.mean * (double)st.count,
                   ticks_ms(st.mean * (double)st.count, ao->res.hdr.hz), st.migrated);
            f1 = false;
        }
        printf("]}");
    }
    printf("\n]}");
}

int replay_write_svg(const char *path, const char *trace, struct alloc_out *aos, size_t n,
                     const struct replay_opts *o, const struct syscheck *sc)
{
    struct prospect_hist *hs[16];
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (aos[i].ran)
            hs[m++] = o->plot < 0 ? aos[i].all : aos[i].h[o->plot];
    char title[200], pb[80];
    /* The check verdict goes with the chart: noise decides what the curves mean. */
    snprintf(title, sizeof(title), "%s: %s, ticks per call by percentile (CPU %d: check %zu ok, "
             "%zu warn)", str_printable(path_basename(trace), pb, sizeof(pb)),
             o->plot < 0 ? "all calls" : replay_kind_name((unsigned)o->plot), sc->cpu,
             syscheck_count(sc, CHECK_OK), syscheck_count(sc, CHECK_WARN));
    struct prospect_svg_opts so = {.title = title, .y_label = "TSC ticks per call",
                                   .keep = PROSPECT_KEEP_UNFLAGGED};
    struct outfile of;
    int err = outfile_open(&of, path, 0644);
    if (err) {
        cmd_error(CMD, "%s: %s", path, outfile_strerror(err));
        return 1;
    }
    err = o->log_y ? prospect_hist_write_svg_log(of.fp, hs, m, &so)
                   : prospect_hist_write_svg(of.fp, hs, m, &so);
    if (err) {
        outfile_abort(&of);
        cmd_error(CMD, "%s: %s", path, strerror(-err));
        return 1;
    }
    err = outfile_commit(&of);
    if (err) {
        cmd_error(CMD, "%s: %s", path, outfile_strerror(err));
        return 1;
    }
    return 0;
}


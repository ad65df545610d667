/* SPDX-License-Identifier: MIT */
/* `prospect lines` output: gprof's annotated listing (counts in the left margin), "Top 10
 * Lines" and "Execution Summary" per source file; CSV (file,line,count) and JSON. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lines/render.h"
#include "report/csv.h"
#include "report/json.h"
#include "util/file.h"
#include "util/strutil.h"

#define MAX_SOURCE (32u << 20)

/* A source file's text: a regular file only (no FIFO), at most MAX_SOURCE bytes. */
static char *read_source(const char *path, size_t *len)
{
    struct stat st;
    char *buf = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || file_read_fd(fd, &buf, len, MAX_SOURCE))
        buf = NULL;
    close(fd);
    return buf;
}

/* The file as DWARF names it, else under --source-dir (its path made relative, then its
 * name alone). */
char *lines_source_read(const char *path, const char *dir, size_t *len)
{
    char p[PATH_MAX];
    char *b = read_source(path, len);
    if (b || !dir)
        return b;
    while (*path == '/')
        path++;
    for (const char *rel = path; rel; rel = strchr(rel, '/')) {
        while (*rel == '/')
            rel++;
        snprintf(p, sizeof(p), "%s/%s", dir, rel);
        if ((b = read_source(p, len)))
            return b;
    }
    return NULL;
}

static const struct lines_count *find_count(const struct lines_count *c, size_t n,
                                            unsigned line)
{
    for (size_t i = 0; i < n; i++)
        if (c[i].line == line)
            return &c[i];
    return NULL;
}

/* "~" an upper bound, "?" optimized code's count (docs/lines.md), else nothing. */
static const char *mark(const struct lines_count *c)
{
    return c->approx ? "~" : c->optimized ? "?" : "";
}

static void margin(FILE *f, const struct lines_count *c)
{
    char num[32];
    if (!c) {
        fputs("                ", f);
        return;
    }
    if (!c->count)
        snprintf(num, sizeof(num), "#####");
    else
        snprintf(num, sizeof(num), "%s%llu", mark(c), (unsigned long long)c->count);
    fprintf(f, "%12s -> ", num);
}

/* Source text with control characters made visible (a hostile file cannot drive the
 * terminal). */
static void put_text(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '\r' && i + 1 == n)
            break;
        if (ch < 0x20 && ch != '\t')
            fprintf(f, "\\x%02x", ch);
        else
            fputc(ch, f);
    }
    fputc('\n', f);
}

static int by_count(const void *x, const void *y)
{
    const struct lines_count *a = x, *b = y;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return a->line < b->line ? -1 : a->line > b->line;
}

static void one_file(FILE *f, const struct lines_report *r, const struct lines_count *c,
                     size_t n)
{
    const char *path = r->plan->files.v[c[0].file].path;
    size_t len = 0, executed = 0;
    uint64_t total = 0;
    char *src = lines_source_read(path, r->source_dir, &len);
    struct lines_count top[10];
    size_t ntop = 0;

    char shown[PATH_MAX];
    /* The path comes from the program's DWARF: untrusted, never raw control characters. */
    fprintf(f, "\n*** File %s%s:\n", str_printable(path, shown, sizeof(shown)),
            src ? "" : " (source not found; --source-dir DIR tells where)");
    if (src) {
        unsigned line = 1;
        size_t i = 0;
        while (i < len) {
            const char *nl = memchr(src + i, '\n', len - i);
            size_t end = nl ? (size_t)(nl - src) : len;
            margin(f, find_count(c, n, line));
            put_text(f, src + i, end - i);
            i = end + 1;
            line++;
        }
        /* Lines past the file's end: the file is not the one compiled. */
        for (size_t k = 0; k < n; k++)
            if (c[k].line >= line) {
                fprintf(f, "  (the line table names line %u, past this file's end: is it the "
                        "source that was compiled?)\n", c[k].line);
                break;
            }
    } else {
        for (size_t k = 0; k < n; k++) {
            margin(f, &c[k]);
            fprintf(f, "line %u\n", c[k].line);
        }
    }
    free(src);
    for (size_t k = 0; k < n; k++) {
        total += c[k].count;
        executed += c[k].count > 0;
        if (ntop < 10)
            top[ntop++] = c[k];
        else if (by_count(&c[k], &top[9]) < 0)
            top[9] = c[k];
        qsort(top, ntop, sizeof(top[0]), by_count);
    }
    fprintf(f, "\n\nTop 10 Lines:\n\n     Line      Count\n\n");
    for (size_t k = 0; k < ntop; k++) {
        char num[32];
        snprintf(num, sizeof(num), "%s%llu", mark(&top[k]), (unsigned long long)top[k].count);
        fprintf(f, "%9u %10s\n", top[k].line, num);
    }
    fprintf(f, "\nExecution Summary:\n\n");
    fprintf(f, "%9zu   Executable lines in this file\n", n);
    fprintf(f, "%9zu   Lines executed\n", executed);
    fprintf(f, "%9.2f   Percent of the file executed\n\n", n ? 100.0 * (double)executed / (double)n
                                                         : 0.0);
    fprintf(f, "%9llu   Total number of line executions\n", (unsigned long long)total);
    fprintf(f, "%9.2f   Average executions per line\n", n ? (double)total / (double)n : 0.0);
}

/* Every block's executions, probed or derived. */
static uint64_t block_executions(const struct lines_plan *p)
{
    uint64_t n = 0;
    for (size_t i = 0; i < p->blocks.n; i++)
        n += p->blocks.v[i].count;
    return n;
}

static void header(FILE *f, const struct lines_report *r)
{
    const struct lines_cost *k = r->cost;
    uint64_t hits = k->hits[0] + k->hits[1] + k->hits[2] + k->hits[LINES_COST_INPROC];
    double ns = (double)k->hits[0] * k->ns[0] + (double)k->hits[1] * k->ns[1] +
                (double)k->hits[2] * k->ns[2] +
                (double)k->hits[LINES_COST_INPROC] * k->ns[LINES_COST_INPROC];
    bool approx = false, optimized = false;

    for (size_t i = 0; i < r->n; i++) {
        approx |= r->counts[i].approx;
        optimized |= r->counts[i].optimized;
    }
    char exe[PATH_MAX];
    fprintf(f, "# prospect lines: exact executions per source line of %s\n",
            str_printable(r->plan->exe, exe, sizeof(exe)));
    fprintf(f, "# count = gcov's: entries into the line from another line or function, plus "
               "the turns\n#   of loops within the line (docs/lines.md)\n");
    fprintf(f, "# %zu blocks, %zu counted (%zu in the process, %zu jump, %zu emulated, %zu "
               "single-stepped),\n#   the others summed from their predecessors\n",
            r->plan->blocks.n, k->probes[0] + k->probes[1] + k->probes[2] +
            k->probes[LINES_COST_INPROC], k->probes[LINES_COST_INPROC], k->probes[0],
            k->probes[1], k->probes[2]);
    fprintf(f, "# cost per counted execution (estimate, this VM): %.0f ns in the process, %.1f us "
               "by jump,\n#   %.1f us emulated, %.1f us single-stepped\n",
            k->ns[LINES_COST_INPROC], k->ns[0] / 1000, k->ns[1] / 1000, k->ns[2] / 1000);
    fprintf(f, "# this run: %llu counts for %llu block executions, ~%.1f ms of counting\n",
            (unsigned long long)hits, (unsigned long long)block_executions(r->plan), ns / 1e6);
    fprintf(f, "# ##### = executable, never run%s\n",
            approx ? "; ~N = upper bound (a transfer within the line could not be derived)"
                   : "");
    if (optimized)
        fprintf(f, "# ?N = optimized code whose count need not be the source line's (gcov's): "
                   "the machine\n#   code's (docs/lines.md, \"Optimized code\")\n");
}

void lines_render_text(FILE *f, const struct lines_report *r)
{
    header(f, r);
    if (!r->n)
        fprintf(f, "\n(no executable lines in the chosen code)\n");
    for (size_t i = 0, j; i < r->n; i = j) {
        for (j = i + 1; j < r->n && r->counts[j].file == r->counts[i].file; j++)
            ;
        one_file(f, r, r->counts + i, j - i);
    }
}

void lines_render_csv(FILE *f, const struct lines_report *r)
{
    fputs("file,line,count,mark\n", f);
    for (size_t i = 0; i < r->n; i++) {
        csv_field(f, r->plan->files.v[r->counts[i].file].path, false);
        csv_u64(f, r->counts[i].line, false);
        csv_u64(f, r->counts[i].count, false);
        csv_field(f, mark(&r->counts[i]), true);
    }
}

void lines_render_json(FILE *f, const struct lines_report *r)
{
    struct json j;
    const struct lines_cost *k = r->cost;

    json_init(&j, f);
    json_begin_object(&j, NULL);
    json_str(&j, "program", r->plan->exe);
    json_str(&j, "count_means", "gcov's: entries into the line from another line or "
             "function, plus the turns of loops within the line");
    json_begin_object(&j, "cost_ns_per_execution");
    json_double(&j, "in_process", k->ns[LINES_COST_INPROC], 0);
    json_double(&j, "jump", k->ns[0], 0);
    json_double(&j, "emulated", k->ns[1], 0);
    json_double(&j, "single_stepped", k->ns[2], 0);
    json_end_object(&j);
    json_begin_object(&j, "probes");
    json_u64(&j, "in_process", k->probes[LINES_COST_INPROC]);
    json_u64(&j, "jump", k->probes[0]);
    json_u64(&j, "emulated", k->probes[1]);
    json_u64(&j, "single_stepped", k->probes[2]);
    json_u64(&j, "hits_in_process", k->hits[LINES_COST_INPROC]);
    json_u64(&j, "hits_jump", k->hits[0]);
    json_u64(&j, "hits_emulated", k->hits[1]);
    json_u64(&j, "hits_single_stepped", k->hits[2]);
    json_u64(&j, "block_executions", block_executions(r->plan));
    json_end_object(&j);
    json_begin_array(&j, "files");
    for (size_t i = 0, e; i < r->n; i = e) {
        uint64_t total = 0;
        size_t executed = 0;
        for (e = i + 1; e < r->n && r->counts[e].file == r->counts[i].file; e++)
            ;
        json_begin_object(&j, NULL);
        json_str(&j, "file", r->plan->files.v[r->counts[i].file].path);
        json_begin_array(&j, "lines");
        for (size_t x = i; x < e; x++) {
            json_begin_object(&j, NULL);
            json_u64(&j, "line", r->counts[x].line);
            json_u64(&j, "count", r->counts[x].count);
            if (r->counts[x].approx)
                json_bool(&j, "upper_bound", true);
            if (r->counts[x].optimized)
                json_bool(&j, "optimized", true);
            json_end_object(&j);
            total += r->counts[x].count;
            executed += r->counts[x].count > 0;
        }
        json_end_array(&j);
        json_begin_object(&j, "summary");
        json_u64(&j, "executable_lines", e - i);
        json_u64(&j, "lines_executed", executed);
        json_double(&j, "percent_executed", 100.0 * (double)executed / (double)(e - i), 2);
        json_u64(&j, "total_line_executions", total);
        json_double(&j, "average_executions_per_line", (double)total / (double)(e - i), 2);
        json_end_object(&j);
        json_end_object(&j);
    }
    json_end_array(&j);
    json_end_object(&j);
    json_finish(&j);
}

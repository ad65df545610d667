/* FlameGraph's collapsed stacks, as stackcollapse-perf.pl --all writes them from perf script. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "callgraph/symstacks.h"
#include "report/callgraph_out.h"
#include "session/session.h"

struct line {
    size_t off;               /* in the text arena */
    uint64_t samples;
};

struct text {
    char *p;
    size_t n, cap;
};

static int text_reserve(struct text *t, size_t extra)
{
    size_t cap = t->cap ? t->cap : 4096;
    char *p;

    if (t->n + extra <= t->cap)
        return 0;
    while (cap < t->n + extra)
        cap *= 2;
    if (!(p = realloc(t->p, cap)))
        return -ENOMEM;
    t->p = p;
    t->cap = cap;
    return 0;
}

/* A frame's name as stackcollapse-perf.pl tidies it: ';' would split the frame, a C++
 * parameter list goes ("(anonymous namespace)" stays), spaces in a command become '_'. A
 * control character (a newline in a command name) would break the line format: '_' too.
 * A stripped file's bracket "lo(args)->hi(args)" keeps both ends: "lo->hi" (cut at the first
 * '(' it would read as the function lo itself). */
static int put_name(struct text *t, const char *s, bool params, bool spaces)
{
    size_t len = strlen(s);

    if (text_reserve(t, len + 6))
        return -ENOMEM;
    /* A bracket after a stripped DSO's last symbol, "a->(end)": not a parameter list. */
    if (len >= 7 && !strcmp(s + len - 7, "->(end)"))
        params = true;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!params && c == '(' && strncmp(s + i, "(anonymous namespace)", 21) && i) {
            size_t depth = 0, j = i;
            for (; j < len; j++) {      /* to the parameter list's closing ')' */
                depth += s[j] == '(';
                depth -= s[j] == ')';
                if (!depth)
                    break;
            }
            for (j++; j < len && s[j] != '(' && strncmp(s + j, "->", 2); j++)
                ;                       /* " const", "&&" ... */
            if (j >= len || strncmp(s + j, "->", 2))
                break;
            i = j + 1;                  /* on to the bracket's hi */
            t->p[t->n++] = '-';
            t->p[t->n++] = '>';
            continue;
        }
        if ((unsigned char)c < 0x20 || c == 0x7f || (spaces && c == ' '))
            c = '_';
        t->p[t->n++] = c == ';' ? ':' : c;
    }
    return 0;
}

static int cmp_line(const void *a, const void *b, void *arg)
{
    const char *base = arg;
    return strcmp(base + ((const struct line *)a)->off, base + ((const struct line *)b)->off);
}

int report_folded(FILE *f, const struct cg_store *cs, const struct cg_syms *cy)
{
    return report_folded_weighted(f, cs, cy, false);
}

/* Each symbol's tidied frame text, made once: a symbol recurs in many stacks. */
struct names {
    struct text t;
    size_t *off;              /* per symbol: in t, SIZE_MAX until made */
    uint32_t *len;
};

static int frame_text(struct names *nm, const struct cg_syms *cy, uint32_t idx,
                      const char **p, size_t *len)
{
    if (nm->off[idx] == SIZE_MAX) {
        const struct cg_sym *s = &cy->syms[idx];
        char buf[256];
        size_t start = nm->t.n;
        int err = put_name(&nm->t, cg_sym_name(s, buf, sizeof(buf)), false, false);
        if (err)
            return err;
        if (s->kernel) {
            memcpy(nm->t.p + nm->t.n, "_[k]", 4);
            nm->t.n += 4;
        }
        nm->off[idx] = start;
        nm->len[idx] = (uint32_t)(nm->t.n - start);
    }
    *p = nm->t.p + nm->off[idx];
    *len = nm->len[idx];
    return 0;
}

int report_folded_weighted(FILE *f, const struct cg_store *cs, const struct cg_syms *cy,
                           bool by_period)
{
    struct cg_symstack *ss;
    struct line *lines;
    struct text t = { 0 };
    struct names nm = { 0 };
    size_t nl = 0, nss;
    int err = cg_symstacks(cs, cy, true, &ss, &nss);

    if (err)
        return err;
    /* One line per stack in symbols (of one command): the text of fewer, merged stacks. */
    lines = malloc((nss ? nss : 1) * sizeof(*lines));
    nm.off = malloc((cy->nsyms ? cy->nsyms : 1) * sizeof(*nm.off));
    nm.len = malloc((cy->nsyms ? cy->nsyms : 1) * sizeof(*nm.len));
    if (!lines || !nm.off || !nm.len) {
        free(lines);
        free(nm.off);
        free(nm.len);
        free(ss);
        return -ENOMEM;
    }
    for (size_t i = 0; i < cy->nsyms; i++)
        nm.off[i] = SIZE_MAX;
    for (size_t i = 0; i < nss && !err; i++) {
        const struct cg_stack *st = &cs->stacks[ss[i].stack];
        if (!st->n || (by_period && !ss[i].period))
            continue;
        lines[nl] = (struct line){ .off = t.n, .samples = by_period ? ss[i].period
                                                                    : ss[i].samples };
        err = put_name(&t, st->proc->comm, true, true);
        for (uint32_t k = st->n; k-- > 0 && !err;) {
            const char *p;
            size_t len;
            if (!(err = frame_text(&nm, cy, cy->frame_sym[st->off + k], &p, &len)) &&
                !(err = text_reserve(&t, len + 1))) {
                t.p[t.n++] = ';';
                memcpy(t.p + t.n, p, len);
                t.n += len;
            }
        }
        if (!err && !(err = text_reserve(&t, 1)))
            t.p[t.n++] = '\0';
        nl++;
    }
    if (!err) {
        /* Different addresses of one function give one line: sort, then add up equal ones. */
        qsort_r(lines, nl, sizeof(*lines), cmp_line, t.p);
        for (size_t i = 0; i < nl; i++) {
            uint64_t n = lines[i].samples;
            while (i + 1 < nl && !strcmp(t.p + lines[i].off, t.p + lines[i + 1].off))
                n += lines[++i].samples;
            fprintf(f, "%s %" PRIu64 "\n", t.p + lines[i].off, n);
        }
        if (fflush(f) || ferror(f))
            err = -EIO;
    }
    free(lines);
    free(ss);
    free(t.p);
    free(nm.t.p);
    free(nm.off);
    free(nm.len);
    return err;
}

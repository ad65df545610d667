/* FlameGraph's collapsed stacks, as stackcollapse-perf.pl --all writes them from perf script. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "callgraph/symstacks.h"
#include "report/callgraph_out.h"
#include "session/session.h"
#include "util/strsort.h"

struct line {
    size_t off, len;          /* in the text arena */
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

/* "TEXT COUNT\n" lines into a buffer, written out in large chunks: 21k fprintf calls cost
 * more than building the text. */
struct outbuf {
    FILE *f;
    char b[65536];
    size_t n;
    bool failed;
};

static void out_flush(struct outbuf *o)
{
    if (o->n && fwrite(o->b, 1, o->n, o->f) != o->n)
        o->failed = true;
    o->n = 0;
}

static void out_line(struct outbuf *o, const char *s, size_t len, uint64_t n)
{
    char num[24];
    size_t k = sizeof(num);

    do
        num[--k] = (char)('0' + n % 10);
    while (n /= 10);
    if (o->n + len + 2 + sizeof(num) - k > sizeof(o->b)) {
        out_flush(o);
        if (len + 2 + sizeof(num) - k > sizeof(o->b)) {     /* a line longer than the buffer */
            if (fwrite(s, 1, len, o->f) != len)
                o->failed = true;
            len = 0;
        }
    }
    memcpy(o->b + o->n, s, len);
    o->n += len;
    o->b[o->n++] = ' ';
    memcpy(o->b + o->n, num + k, sizeof(num) - k);
    o->n += sizeof(num) - k;
    o->b[o->n++] = '\n';
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
        if (!err && !(err = text_reserve(&t, 1))) {
            lines[nl].len = t.n - lines[nl].off;
            t.p[t.n++] = '\0';
        }
        nl++;
    }
    struct strsort_item *v = NULL;
    struct outbuf *o = NULL;
    if (!err && (!(v = malloc((nl ? nl : 1) * sizeof(*v))) || !(o = malloc(sizeof(*o)))))
        err = -ENOMEM;
    if (!err) {
        /* Different addresses of one function give one line: sort, then add up equal ones. */
        for (size_t i = 0; i < nl; i++)
            v[i] = (struct strsort_item){ t.p + lines[i].off, lines[i].len, lines[i].samples };
        free(lines);
        lines = NULL;
        strsort(v, nl);
        o->f = f;
        o->n = 0;
        o->failed = false;
        for (size_t i = 0; i < nl; i++) {
            uint64_t n = v[i].val;
            while (i + 1 < nl && v[i].len == v[i + 1].len && !memcmp(v[i].s, v[i + 1].s, v[i].len))
                n += v[++i].val;
            out_line(o, v[i].s, v[i].len, n);
        }
        out_flush(o);
        if (o->failed || fflush(f) || ferror(f))
            err = -EIO;
    }
    free(o);
    free(v);
    free(lines);
    free(ss);
    free(t.p);
    free(nm.t.p);
    free(nm.off);
    free(nm.len);
    return err;
}

/* SPDX-License-Identifier: MIT */
/* FlameGraph's collapsed stacks, as stackcollapse-perf.pl --all writes them from perf script. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "callgraph/symstacks.h"
#include "model/process.h"
#include "report/callgraph_out.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/obuf.h"
#include "util/seqsort.h"

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

/* A frame's name as it goes into a line: ';' would split the frame, a control character (a
 * newline in a command name) would break the line format, so ':' and '_'; a command's spaces
 * become '_' as stackcollapse-perf.pl has them. C++ names come already short, as every output
 * shows them (symbol/shortname.h): nothing is cut here. */
static int put_name(struct text *t, const char *s, bool spaces)
{
    size_t len = strlen(s);

    if (text_reserve(t, len))
        return -ENOMEM;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if ((unsigned char)c < 0x20 || c == 0x7f || (spaces && c == ' '))
            c = '_';
        t->p[t->n++] = c == ';' ? ':' : c;
    }
    return 0;
}

int report_folded(FILE *f, const struct cg_store *cs, const struct cg_syms *cy)
{
    return report_folded_weighted(f, cs, cy, false);
}

/* The lines are sorted as strcmp sorts their text, without making that text: a line is the
 * sequence of its frames' texts (the command's first), and each distinct text gets two ranks
 * in one sorted list of keys, "TEXT;" for a frame with more after it and "TEXT" for the last.
 * Comparing the keys of the first frame where two lines differ is comparing the lines: no
 * text holds ';' (put_name), so a key is a prefix of another only when its line ends there,
 * and strcmp puts that line first too. Equal texts (two symbols of one name) share their
 * ranks, so their lines merge as the text would. */
struct tok {
    size_t off;               /* in the token text */
    uint32_t len;
    uint64_t hash;
};

struct toks {
    struct text t;            /* every distinct token's text, back to back */
    struct tok *v;
    size_t n, cap;
    uint32_t *table;          /* open addressing over v: index + 1 */
    size_t table_cap;
};

static int toks_grow_table(struct toks *k)
{
    size_t cap = k->table_cap ? k->table_cap * 2 : 1024;
    uint32_t *t = calloc(cap, sizeof(*t));

    if (!t)
        return -ENOMEM;
    for (size_t i = 0; i < k->n; i++) {
        size_t j = k->v[i].hash & (cap - 1);
        while (t[j])
            j = (j + 1) & (cap - 1);
        t[j] = (uint32_t)(i + 1);
    }
    free(k->table);
    k->table = t;
    k->table_cap = cap;
    return 0;
}

/* The token of the text just appended to k->t at `start`: an earlier equal one (the text is
 * dropped again) or a new one. */
static int tok_of(struct toks *k, size_t start, uint32_t *id)
{
    const char *s = k->t.p + start;
    size_t len = k->t.n - start, j;
    uint64_t h = hash_u64(hash_bytes(s, len));

    if ((k->n + 1) * 2 > k->table_cap && toks_grow_table(k))
        return -ENOMEM;
    for (j = h & (k->table_cap - 1); k->table[j]; j = (j + 1) & (k->table_cap - 1)) {
        const struct tok *o = &k->v[k->table[j] - 1];
        if (o->hash == h && o->len == len && !memcmp(k->t.p + o->off, s, len)) {
            k->t.n = start;
            *id = k->table[j] - 1;
            return 0;
        }
    }
    if (k->n == k->cap) {
        size_t cap = k->cap ? k->cap * 2 : 256;
        struct tok *v = realloc(k->v, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        k->v = v;
        k->cap = cap;
    }
    k->v[k->n] = (struct tok){ start, (uint32_t)len, h };
    k->table[j] = (uint32_t)++k->n;
    *id = (uint32_t)(k->n - 1);
    return 0;
}

/* The token of symbol idx (its tidied name, "_[k]" after a kernel one), made once. */
static int sym_tok(struct toks *k, uint32_t *of_sym, const struct cg_syms *cy, uint32_t idx,
                   uint32_t *id)
{
    if (of_sym[idx] == UINT32_MAX) {
        const struct cg_sym *s = &cy->syms[idx];
        char buf[256];
        size_t start = k->t.n;
        int err = put_name(&k->t, cg_sym_name(s, buf, sizeof(buf)), false);
        if (!err && s->kernel && !(err = text_reserve(&k->t, 4))) {
            memcpy(k->t.p + k->t.n, "_[k]", 4);
            k->t.n += 4;
        }
        if (err || (err = tok_of(k, start, &of_sym[idx])))
            return err;
    }
    *id = of_sym[idx];
    return 0;
}

/* A command's token, by process (lines of one process are not together). */
static int comm_tok(struct toks *k, struct hashmap *by_proc, const struct process *p,
                    uint32_t *id)
{
    uintptr_t known = (uintptr_t)hashmap_get(by_proc, (uint64_t)(uintptr_t)p);
    size_t start = k->t.n;
    int err;

    if (known) {
        *id = (uint32_t)(known - 1);
        return 0;
    }
    if ((err = put_name(&k->t, p->comm, true)) || (err = tok_of(k, start, id)))
        return err;
    return hashmap_put(by_proc, (uint64_t)(uintptr_t)p, (void *)(uintptr_t)(*id + 1));
}

struct key {
    uint32_t tok;
    bool more;                /* "TEXT;" */
};

static int cmp_key(const void *a, const void *b, void *arg)
{
    const struct toks *k = arg;
    const struct key *x = a, *y = b;
    const struct tok *s = &k->v[x->tok], *t = &k->v[y->tok];
    size_t n = s->len < t->len ? s->len : t->len;
    int c = memcmp(k->t.p + s->off, k->t.p + t->off, n);

    if (c)
        return c;
    /* One is a prefix of the other: the next bytes are ';' (more), the end, or text. */
    int cx = s->len > n ? (unsigned char)k->t.p[s->off + n] : x->more ? ';' : -1;
    int cy = t->len > n ? (unsigned char)k->t.p[t->off + n] : y->more ? ';' : -1;
    if (cx != cy)
        return cx < cy ? -1 : 1;
    if (s->len != t->len)     /* "ab" + ';' against "ab;...": cannot be, no text has ';' */
        return s->len < t->len ? -1 : 1;
    return x->more - y->more;
}

/* rank[2 * tok + more]: the key's place among the distinct keys, from 1. */
static int rank_keys(const struct toks *k, uint32_t *rank)
{
    struct key *v = malloc((k->n ? k->n : 1) * 2 * sizeof(*v));

    if (!v)
        return -ENOMEM;
    for (size_t i = 0; i < k->n * 2; i++)
        v[i] = (struct key){ (uint32_t)(i / 2), i & 1 };
    qsort_r(v, k->n * 2, sizeof(*v), cmp_key, (void *)k);
    for (size_t i = 0, r = 0; i < k->n * 2; i++) {
        if (!i || cmp_key(&v[i - 1], &v[i], (void *)k))
            r++;
        rank[2 * v[i].tok + v[i].more] = (uint32_t)r;
    }
    free(v);
    return 0;
}

int report_folded_weighted(FILE *f, const struct cg_store *cs, const struct cg_syms *cy,
                           bool by_period)
{
    struct cg_symstack *ss;
    struct toks k = { 0 };
    struct seqsort_item *lines = NULL;
    uint32_t *seq = NULL, *of_sym = NULL, *rank = NULL, *tok_of_rank = NULL;
    struct obuf *o = NULL;
    struct hashmap by_proc;   /* process -> its command's token + 1 */
    size_t nl = 0, nss, nseq = 0;
    int err = cg_symstacks(cs, cy, true, &ss, &nss);

    if (err)
        return err;
    hashmap_init(&by_proc);
    /* One line per stack in symbols (of one command), as token ids for now. */
    for (size_t i = 0; i < nss; i++)
        if (cs->stacks[ss[i].stack].n)
            nseq += cs->stacks[ss[i].stack].n + 1;
    lines = malloc((nss ? nss : 1) * sizeof(*lines));
    seq = malloc((nseq ? nseq : 1) * sizeof(*seq));
    of_sym = malloc((cy->nsyms ? cy->nsyms : 1) * sizeof(*of_sym));
    if (!lines || !seq || !of_sym)
        err = -ENOMEM;
    for (size_t i = 0; i < cy->nsyms && !err; i++)
        of_sym[i] = UINT32_MAX;
    nseq = 0;
    for (size_t i = 0; i < nss && !err; i++) {
        const struct cg_stack *st = &cs->stacks[ss[i].stack];
        if (!st->n || (by_period && !ss[i].period))
            continue;
        lines[nl] = (struct seqsort_item){ seq + nseq, st->n + 1,
                                           by_period ? ss[i].period : ss[i].samples };
        err = comm_tok(&k, &by_proc, st->proc, &seq[nseq++]);
        for (uint32_t j = st->n; j-- > 0 && !err;)
            err = sym_tok(&k, of_sym, cy, cy->frame_sym[st->off + j], &seq[nseq++]);
        nl++;
    }
    free(ss);
    free(of_sym);
    hashmap_release(&by_proc);
    /* Token ids -> ranks of their keys; every frame but the last has more after it. */
    if (!err && (!(rank = malloc((k.n ? k.n : 1) * 2 * sizeof(*rank))) ||
                 !(tok_of_rank = malloc((k.n * 2 + 1) * sizeof(*tok_of_rank))) ||
                 !(o = obuf_new(f))))
        err = -ENOMEM;
    if (!err)
        err = rank_keys(&k, rank);
    if (!err) {
        for (size_t i = 0; i < k.n * 2; i++)
            tok_of_rank[rank[i]] = (uint32_t)(i / 2);
        for (size_t i = 0; i < nl; i++) {
            uint32_t *q = lines[i].seq;
            for (uint32_t j = 0; j + 1 < lines[i].n; j++)
                q[j] = rank[2 * q[j] + 1];
            q[lines[i].n - 1] = rank[2 * q[lines[i].n - 1]];
        }
        /* Different addresses of one function give one line: sort, then add up equal ones. */
        seqsort(lines, nl);
        for (size_t i = 0; i < nl; i++) {
            uint64_t n = lines[i].val;
            while (i + 1 < nl && lines[i].n == lines[i + 1].n &&
                   !memcmp(lines[i].seq, lines[i + 1].seq, lines[i].n * sizeof(uint32_t)))
                n += lines[++i].val;
            for (uint32_t j = 0; j < lines[i].n; j++) {
                const struct tok *t = &k.v[tok_of_rank[lines[i].seq[j]]];
                if (j)
                    obuf_char(o, ';');
                obuf_put(o, k.t.p + t->off, t->len);
            }
            obuf_char(o, ' ');
            obuf_u64(o, n);
            obuf_char(o, '\n');
        }
    }
    if (!obuf_close(o) && !err)
        err = -EIO;
    if (!err && (fflush(f) || ferror(f)))
        err = -EIO;
    free(rank);
    free(tok_of_rank);
    free(lines);
    free(seq);
    free(k.t.p);
    free(k.v);
    free(k.table);
    return err;
}

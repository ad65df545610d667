/* SPDX-License-Identifier: MIT */
/* Stacks -> speedscope's "sampled" profiles; frames are the symbols, outermost first. Per
 * thread, the samples in time order (a run of one stack is one sample weighing the run), so
 * speedscope's Time Order view is chronological; else per process, each distinct stack one
 * sample weighing the samples (or nanoseconds) it stands for. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "flame/escape.h"
#include "model/process.h"
#include "report/speedscope.h"
#include "symbol/dso.h"
#include "util/hashmap.h"
#include "util/obuf.h"

struct proc_prof {
    const struct process *proc;
    uint64_t weight;
};

static int cmp_prof(const void *a, const void *b)
{
    const struct proc_prof *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight < y->weight ? 1 : -1;
    return x->proc->pid < y->proc->pid ? -1 : x->proc->pid > y->proc->pid;
}

static uint64_t weight(const struct cg_stack *st, bool time)
{
    return time ? st->period : st->samples;
}

struct by_proc {
    uint32_t stack;
    uint32_t rank;            /* the process's place in the output */
};

static int cmp_by_proc(const void *a, const void *b)
{
    const struct by_proc *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* The document's start: the name and the shared frames, up to the profiles' list. */
static void write_head(FILE *f, const struct cg_syms *cy, const struct speedscope_opts *o)
{
    char buf[256];

    fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
          "\"exporter\":\"prospect\",\"name\":", f);
    json_put(f, o->name ? o->name : "profile");
    fputs(",\"activeProfileIndex\":0,\n\"shared\":{\"frames\":[\n", f);
    for (size_t i = 0; i < cy->nsyms; i++) {
        const struct cg_sym *s = &cy->syms[i];
        fputs(i ? ",\n{\"name\":" : "{\"name\":", f);
        json_put(f, cg_sym_name(s, buf, sizeof(buf)));
        fputs(",\"file\":", f);
        json_put(f, s->kernel ? cg_sym_dso(s, buf, sizeof(buf))
                    : s->dso ? dso_path(s->dso) : "[unknown]");
        fputc('}', f);
    }
    fputs("]},\n\"profiles\":[", f);
}

/* A stack's frames, outermost first, as a JSON list. */
static void put_stack(struct obuf *ob, const struct cg_store *cs, const struct cg_syms *cy,
                      const struct cg_stack *st)
{
    obuf_char(ob, '[');
    for (uint32_t k = st->n; k-- > 0;) {
        if (k + 1 < st->n)
            obuf_char(ob, ',');
        obuf_u64(ob, cy->frame_sym[st->off + k]);
    }
    obuf_char(ob, ']');
}

struct thread_prof {
    uint32_t tid;
    const struct process *proc;
    uint64_t weight;
};

static int cmp_thread(const void *a, const void *b)
{
    const struct thread_prof *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight < y->weight ? 1 : -1;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The threads of the sequence's samples with stacks, heaviest first. NULL on -ENOMEM. */
static struct thread_prof *threads_of(const struct cg_store *cs, const struct sample_seq *q,
                                      bool time, size_t *nt)
{
    struct thread_prof *t = calloc(q->v.n ? q->v.n : 1, sizeof(*t));
    struct hashmap index;       /* tid -> its place in t + 1 */
    size_t n = 0;

    hashmap_init(&index);
    for (size_t i = 0; t && i < q->v.n; i++) {
        const struct seq_sample *s = &q->v.v[i];
        uintptr_t k = (uintptr_t)hashmap_get(&index, s->tid);
        if (!cs->stacks[s->stack].n)
            continue;
        if (!k) {
            t[n] = (struct thread_prof){ s->tid, cs->stacks[s->stack].proc, 0 };
            k = ++n;
            if (hashmap_put(&index, s->tid, (void *)k)) {
                free(t);
                t = NULL;
                break;
            }
        }
        t[k - 1].weight += time ? s->period : 1;
    }
    hashmap_release(&index);
    if (t)
        qsort(t, n, sizeof(*t), cmp_thread);
    *nt = n;
    return t;
}

/* One thread's profile: its samples in the order taken, a run of one stack merged. */
static void thread_profile(FILE *f, struct obuf *ob, const struct cg_store *cs,
                           const struct cg_syms *cy, const struct speedscope_opts *o,
                           const struct thread_prof *t, bool first)
{
    const struct sample_seq *q = o->seq;
    char name[96];
    size_t ns = 0;

    snprintf(name, sizeof(name), "%s (%d/%u)", sample_seq_thread_name(q, t->tid, t->proc),
             (int)t->proc->pid, t->tid);
    fputs(first ? "\n{\"type\":\"sampled\",\"name\":" : ",\n{\"type\":\"sampled\",\"name\":",
          f);
    json_put(f, name);
    fprintf(f, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64 ",\n\"samples\":[",
            o->time_event ? "nanoseconds" : "none", t->weight);
    for (int pass = 0; pass < 2; pass++) {
        uint64_t run = 0;
        uint32_t prev = UINT32_MAX;
        ns = 0;
        if (pass)
            obuf_put(ob, "],\n\"weights\":[", 14);
        for (size_t i = 0; i <= q->v.n; i++) {
            const struct seq_sample *s = i < q->v.n ? &q->v.v[i] : NULL;
            if (s && (s->tid != t->tid || !cs->stacks[s->stack].n))
                continue;
            if (prev != UINT32_MAX && (!s || s->stack != prev)) {
                if (ns++)
                    obuf_put(ob, ",\n", pass ? 1 : 2);
                if (pass)
                    obuf_u64(ob, run);
                else
                    put_stack(ob, cs, cy, &cs->stacks[prev]);
                run = 0;
            }
            if (!s)
                break;
            prev = s->stack;
            run += o->time_event ? s->period : 1;
        }
    }
    obuf_put(ob, "]}", 2);
    obuf_flush(ob);                    /* before the next profile's head, written to f */
}

static int speedscope_threads(FILE *f, const struct cg_store *cs, const struct cg_syms *cy,
                              const struct speedscope_opts *o)
{
    size_t nt;
    struct thread_prof *t = threads_of(cs, o->seq, o->time_event, &nt);
    struct obuf *ob = t ? obuf_new(f) : NULL;

    if (!ob) {
        free(t);
        return -ENOMEM;
    }
    write_head(f, cy, o);
    for (size_t i = 0; i < nt; i++)
        thread_profile(f, ob, cs, cy, o, &t[i], i == 0);
    bool ok = obuf_close(ob);
    fputs("]}\n", f);
    free(t);
    return !ok || fflush(f) || ferror(f) ? -EIO : 0;
}

/* One profile per process, each distinct stack one sample. */
static int speedscope_procs(FILE *f, const struct cg_store *cs, const struct cg_syms *cy,
                            const struct speedscope_opts *o)
{
    size_t cap = cs->nstacks ? cs->nstacks : 1, np = 0, nb = 0;
    struct proc_prof *procs = calloc(cap, sizeof(*procs));
    struct by_proc *order = calloc(cap, sizeof(*order));
    struct hashmap index;     /* process -> its place in procs + 1 */
    char name[96];
    int err = 0;

    hashmap_init(&index);
    if (!procs || !order)
        err = -ENOMEM;
    for (size_t i = 0; i < cs->nstacks && !err; i++) {
        const struct cg_stack *st = &cs->stacks[i];
        uint64_t key = (uint64_t)(uintptr_t)st->proc;
        uintptr_t k = (uintptr_t)hashmap_get(&index, key);
        if (!st->n)
            continue;
        if (!k) {
            procs[np].proc = st->proc;
            k = ++np;
            if ((err = hashmap_put(&index, key, (void *)k)))
                break;
        }
        procs[k - 1].weight += weight(st, o->time_event);
    }
    if (!err) {
        qsort(procs, np, sizeof(*procs), cmp_prof);
        for (size_t p = 0; p < np && !err; p++)
            err = hashmap_put(&index, (uint64_t)(uintptr_t)procs[p].proc, (void *)(p + 1));
    }
    for (size_t i = 0; i < cs->nstacks && !err; i++)
        if (cs->stacks[i].n)
            order[nb++] = (struct by_proc){ (uint32_t)i, (uint32_t)(uintptr_t)hashmap_get(
                                                &index, (uint64_t)(uintptr_t)cs->stacks[i].proc) };
    hashmap_release(&index);
    if (err) {
        free(procs);
        free(order);
        return err;
    }
    qsort(order, nb, sizeof(*order), cmp_by_proc);
    write_head(f, cy, o);
    struct obuf *ob = NULL;
    for (size_t p = 0, b = 0; p < np; p++) {
        const struct process *proc = procs[p].proc;
        size_t end = b;
        while (end < nb && order[end].rank == p + 1)
            end++;
        snprintf(name, sizeof(name), "%s (%d)", proc->comm, (int)proc->pid);
        fputs(p ? ",\n{\"type\":\"sampled\",\"name\":" : "\n{\"type\":\"sampled\",\"name\":", f);
        json_put(f, name);
        fprintf(f, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64 ",\n\"samples\":[",
                o->time_event ? "nanoseconds" : "none", procs[p].weight);
        /* The lists (most of the file) through one buffer, not an fprintf per number. */
        if (!ob && !(ob = obuf_new(f))) {
            free(procs);
            free(order);
            return -ENOMEM;
        }
        for (size_t i = b; i < end; i++) {
            if (i > b)
                obuf_put(ob, ",\n", 2);
            put_stack(ob, cs, cy, &cs->stacks[order[i].stack]);
        }
        obuf_put(ob, "],\n\"weights\":[", 14);
        for (size_t i = b; i < end; i++) {
            if (i > b)
                obuf_char(ob, ',');
            obuf_u64(ob, weight(&cs->stacks[order[i].stack], o->time_event));
        }
        obuf_put(ob, "]}", 2);
        obuf_flush(ob);                /* before the next profile's head, written to f */
        b = end;
    }
    bool ok = obuf_close(ob);
    fputs("]}\n", f);
    free(procs);
    free(order);
    return !ok || fflush(f) || ferror(f) ? -EIO : 0;
}

int report_speedscope(FILE *f, const struct cg_store *cs, const struct cg_syms *cy,
                      const struct speedscope_opts *o)
{
    return o->seq ? speedscope_threads(f, cs, cy, o) : speedscope_procs(f, cs, cy, o);
}

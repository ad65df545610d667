/* SPDX-License-Identifier: MIT */
/* Stacks -> speedscope's "sampled" profiles: each distinct stack is one sample, its weight
 * the samples (or nanoseconds) it stands for; frames are the symbols, outermost first. */
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

int report_speedscope(FILE *f, const struct cg_store *cs, const struct cg_syms *cy,
                      const struct speedscope_opts *o)
{
    size_t cap = cs->nstacks ? cs->nstacks : 1, np = 0, nb = 0;
    struct proc_prof *procs = calloc(cap, sizeof(*procs));
    struct by_proc *order = calloc(cap, sizeof(*order));
    struct hashmap index;     /* process -> its place in procs + 1 */
    char buf[256], name[96];
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
            const struct cg_stack *st = &cs->stacks[order[i].stack];
            obuf_put(ob, i > b ? ",\n[" : "[", i > b ? 3 : 1);
            for (uint32_t k = st->n; k-- > 0;) {
                if (k + 1 < st->n)
                    obuf_char(ob, ',');
                obuf_u64(ob, cy->frame_sym[st->off + k]);
            }
            obuf_char(ob, ']');
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

/* Stacks -> speedscope's "sampled" profiles: each distinct stack is one sample, its weight
 * the samples (or nanoseconds) it stands for; frames are the symbols, outermost first. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "flame/escape.h"
#include "report/speedscope.h"
#include "session/session.h"
#include "symbol/dso.h"

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

int report_speedscope(FILE *f, const struct cg_store *cs, const struct cg_syms *cy,
                      const struct speedscope_opts *o)
{
    struct proc_prof *procs = calloc(cs->nstacks ? cs->nstacks : 1, sizeof(*procs));
    size_t np = 0;
    char buf[256], name[96];

    if (!procs)
        return -ENOMEM;
    /* The processes, by their stacks (few processes: a linear search per stack of a new
     * process, then the last one found is usually the next one's). */
    for (size_t i = 0, last = 0; i < cs->nstacks; i++) {
        const struct cg_stack *st = &cs->stacks[i];
        if (!st->n)
            continue;
        if (!np || procs[last].proc != st->proc) {
            for (last = 0; last < np && procs[last].proc != st->proc; last++)
                ;
            if (last == np)
                procs[np++].proc = st->proc;
        }
        procs[last].weight += weight(st, o->time_event);
    }
    qsort(procs, np, sizeof(*procs), cmp_prof);
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
    for (size_t p = 0; p < np; p++) {
        const struct process *proc = procs[p].proc;
        bool first = true;
        snprintf(name, sizeof(name), "%s (%d)", proc->comm, (int)proc->pid);
        fputs(p ? ",\n{\"type\":\"sampled\",\"name\":" : "\n{\"type\":\"sampled\",\"name\":", f);
        json_put(f, name);
        fprintf(f, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64 ",\n\"samples\":[",
                o->time_event ? "nanoseconds" : "none", procs[p].weight);
        for (size_t i = 0; i < cs->nstacks; i++) {
            const struct cg_stack *st = &cs->stacks[i];
            if (st->proc != proc || !st->n)
                continue;
            fputs(first ? "[" : ",\n[", f);
            first = false;
            for (uint32_t k = st->n; k-- > 0;)
                fprintf(f, k + 1 < st->n ? ",%" PRIu32 : "%" PRIu32, cy->frame_sym[st->off + k]);
            fputc(']', f);
        }
        fputs("],\n\"weights\":[", f);
        first = true;
        for (size_t i = 0; i < cs->nstacks; i++) {
            const struct cg_stack *st = &cs->stacks[i];
            if (st->proc != proc || !st->n)
                continue;
            fprintf(f, first ? "%" PRIu64 : ",%" PRIu64, weight(st, o->time_event));
            first = false;
        }
        fputs("]}", f);
    }
    fputs("]}\n", f);
    free(procs);
    return fflush(f) || ferror(f) ? -EIO : 0;
}

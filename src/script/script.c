/* SPDX-License-Identifier: MIT */
/* perf script's line: "comm tid [cpu] time: period event: " then the tracepoint's fields and
 * the code address (or the call chain below), with perf's widths, field by field. */
#include "script/script.h"
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "perf/evlist.h"
#include "perf/perfdata.h"
#include "perf/record.h"
#include "script/script_priv.h"
#include "script/tracefmt.h"
#include "session/session.h"
#include "symbol/ksyms.h"
#include "unwind/unwind.h"

/* Whether v is one of the comma-separated values of list. */
static bool in_list(const char *list, const char *v)
{
    size_t len = strlen(v);

    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (n == len && !strncmp(p, v, n))
            return true;
        p += n;
        p += *p == ',';
    }
    return false;
}

static bool in_id_list(const char *list, uint32_t id)
{
    char b[16];

    snprintf(b, sizeof(b), "%u", id);
    return in_list(list, b);
}

static const char *thread_comm(const struct script *sc, uint32_t tid, char *buf, size_t len)
{
    const char *c = hashmap_get(&sc->comms, tid);

    if (c)
        return c;
    /* perf's names: the idle task, and a thread it never saw named. */
    if (tid == 0)
        return "swapper";
    snprintf(buf, len, ":%d", (int)tid);
    return buf;
}

static int set_comm(struct script *sc, uint32_t tid, const char *comm)
{
    char *old = hashmap_get(&sc->comms, tid), *c = strdup(comm);

    if (!c || hashmap_put(&sc->comms, tid, c)) {
        free(c);
        return -ENOMEM;
    }
    free(old);
    return 0;
}

int script_record(struct script *sc, const struct perf_event_header *h)
{
    const char *name;

    switch (h->type) {
    case PERF_RECORD_COMM: {
        const struct rec_comm *c = (const struct rec_comm *)h;
        struct process *old;
        if (h->size < sizeof(*c) || !(name = record_string(h)))
            return 0;
        /* perf keeps the old image's maps past an exec until new ones cover them: the user
         * frames of samples taken during the exec are named in them */
        if ((h->misc & PERF_RECORD_MISC_COMM_EXEC) &&
            (old = session_find_process(sc->session, (pid_t)c->pid)) &&
            hashmap_put(&sc->before_exec, c->pid, old))
            return -ENOMEM;
        return set_comm(sc, c->tid, name);
    }
    case PERF_RECORD_FORK: {
        const struct rec_fork *f = (const struct rec_fork *)h;
        const char *parent;
        if (h->size < sizeof(*f) || !(parent = hashmap_get(&sc->comms, f->ptid)) ||
            f->tid == f->ptid)
            return 0;
        return set_comm(sc, f->tid, parent);   /* a new thread has its parent's name */
    }
    case PERF_RECORD_MMAP:
        if (h->size >= sizeof(struct rec_mmap) && (name = record_string(h)) &&
            !strcmp(name, "[kernel.kallsyms]_text"))
            sc->ktext = ((const struct rec_mmap *)h)->pgoff;
        return 0;
    default:
        return 0;
    }
}

static bool wanted(const struct script *sc, const struct sample *smp, const char *comm)
{
    const struct script_opts *o = sc->o;

    return timerange_has(&o->time, smp->time) &&
           (!o->pids || in_id_list(o->pids, smp->pid)) &&
           (!o->tids || in_id_list(o->tids, smp->tid)) &&
           (!o->cpu_filter || (smp->cpu < CPU_SETSIZE && CPU_ISSET(smp->cpu, &o->cpus))) &&
           (!o->comms || in_list(o->comms, comm));
}

/* s right-aligned in width columns (left-aligned when width < 0), as printf's "%*s". */
static void put_pad(struct obuf *o, const char *s, size_t len, int width)
{
    size_t w = (size_t)(width < 0 ? -width : width);

    if (width < 0)
        obuf_put(o, s, len);
    for (size_t i = len; i < w; i++)
        obuf_char(o, ' ');
    if (width >= 0)
        obuf_put(o, s, len);
}

/* v in decimal, zero-padded to at least `zeros` digits, into b (ends at b + 24): the start. */
static char *dec(uint64_t v, int zeros, char b[24])
{
    char *p = b + 24;
    int n = 0;

    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
        n++;
    } while (v || n < zeros);
    return p;
}

static void put_dec(struct obuf *o, uint64_t v, int width, int zeros)
{
    char b[24], *p = dec(v, zeros, b);

    put_pad(o, p, (size_t)(b + 24 - p), width);
}

static void put_sdec(struct obuf *o, int32_t v, int width)
{
    char b[25], *p = dec(v < 0 ? (uint64_t)-(int64_t)v : (uint64_t)v, 1, b);

    if (v < 0)
        *--p = '-';
    put_pad(o, p, (size_t)(b + 24 - p), width);
}

/* "SEC.USEC" (perf's default, the microseconds cut, not rounded) or "SEC.NSEC" (--ns). */
static void put_time(struct obuf *o, uint64_t t, bool ns)
{
    char b[48], d[24], *p;
    size_t n;

    p = dec(t / 1000000000ull, 1, d);
    n = (size_t)(d + 24 - p);
    memcpy(b, p, n);
    b[n++] = '.';
    p = ns ? dec(t % 1000000000ull, 9, d) : dec(t % 1000000000ull / 1000, 6, d);
    memcpy(b + n, p, (size_t)(d + 24 - p));
    n += (size_t)(d + 24 - p);
    put_pad(o, b, n, ns ? 15 : 12);   /* perf: "%5lu.%09llu", "%12s" */
    obuf_put(o, ": ", 2);
}

/* comm, pid/tid, cpu, time: perf's fprintf_start. */
static void put_start(struct script *sc, unsigned f, const struct sample *smp, const char *comm)
{
    struct obuf *o = sc->out;

    if (f & SF_BIT(SF_COMM)) {
        /* perf does not pad the name of a sample whose chain follows */
        bool chain = (f & SF_BIT(SF_IP)) && sc->chains &&
                     (smp->evsel->attr.sample_type & PERF_SAMPLE_CALLCHAIN);
        put_pad(o, comm, strlen(comm), chain ? 0 : 16);
        obuf_char(o, ' ');
    }
    if ((f & SF_BIT(SF_PID)) && (f & SF_BIT(SF_TID))) {
        put_sdec(o, (int32_t)smp->pid, 5);
        obuf_char(o, '/');
        put_sdec(o, (int32_t)smp->tid, -5);
        obuf_char(o, ' ');
    } else if (f & (SF_BIT(SF_PID) | SF_BIT(SF_TID))) {
        put_sdec(o, (int32_t)(f & SF_BIT(SF_PID) ? smp->pid : smp->tid), 5);
        obuf_char(o, ' ');
    }
    if (f & SF_BIT(SF_CPU)) {
        obuf_char(o, '[');
        put_dec(o, smp->cpu, 0, 3);
        obuf_put(o, "] ", 2);
    }
    if (f & SF_BIT(SF_TIME))
        put_time(o, smp->time, sc->o->ns);
}

static int on_sample(void *arg, struct process *p, const struct sample *smp, uint64_t period)
{
    struct script *sc = arg;
    const struct evsel *sel = smp->evsel;
    unsigned f = sc->fields[sel->idx];
    char cb[24];
    const char *comm = thread_comm(sc, smp->tid, cb, sizeof(cb));

    (void)period;                 /* perf prints the sample's own, unclamped */
    if (!wanted(sc, smp, comm))
        return 0;
    put_start(sc, f, smp, comm);
    if (f & SF_BIT(SF_PERIOD)) {
        put_dec(sc->out, (sel->attr.sample_type & PERF_SAMPLE_PERIOD) ? smp->period :
                sel->attr.freq ? 0 : (uint64_t)sel->attr.sample_period, 10, 1);
        obuf_char(sc->out, ' ');
    }
    if (f & SF_BIT(SF_EVENT)) {
        put_pad(sc->out, sel->name, strlen(sel->name), sc->name_width);
        obuf_put(sc->out, ": ", 2);
    }
    if ((f & SF_BIT(SF_TRACE)) && smp->raw && sc->trace) {
        char t[4096];
        size_t n = tracefmt_print(sc->trace, smp->raw, smp->raw_size, (int)smp->cpu, t,
                                  sizeof(t));
        obuf_put(sc->out, t, n < sizeof(t) ? n : sizeof(t) - 1);
    }
    sc->printed++;
    if (f & (SF_BIT(SF_IP) | SF_BIT(SF_SYM) | SF_BIT(SF_SYMOFF) | SF_BIT(SF_DSO) |
             SF_BIT(SF_SRCLINE)))
        return script_print_code(sc, f, p, smp);
    obuf_char(sc->out, '\n');
    return 0;
}

struct sample_sink script_sink(struct script *sc)
{
    return (struct sample_sink){ .sample = on_sample, .arg = sc };
}

static void kernel_build_id(struct script *sc, const struct perfdata_info *in)
{
    for (size_t i = 0; i < in->nr_build_ids; i++) {
        const struct perfdata_build_id_entry *b = &in->build_ids[i];
        if (!strcmp(b->path, "[kernel.kallsyms]") && b->size && b->size <= sizeof(sc->kbid)) {
            memcpy(sc->kbid, b->id, b->size);
            sc->kbid_len = b->size;
        }
    }
}

/* Per event: its fields, the name column's width, its tracepoint format. */
static int setup_events(struct script *sc, const struct perfdata_info *in, char *why,
                        size_t len)
{
    const struct evlist *evl = sc->evl;
    bool dwarf = false;

    for (size_t i = 0; i < evl->nr; i++)
        sc->chains |= (evl->sel[i].attr.sample_type & PERF_SAMPLE_CALLCHAIN) != 0;
    for (size_t i = 0; i < evl->nr; i++) {
        const struct evsel *e = &evl->sel[i];
        int err = script_fields_for(e, sc->chains, &sc->o->fields, &sc->fields[e->idx], why,
                                    len);
        if (err)
            return err;
        if ((int)strlen(e->name) > sc->name_width)
            sc->name_width = (int)strlen(e->name);
        dwarf |= (e->attr.sample_type & PERF_SAMPLE_STACK_USER) != 0;
        if (e->attr.type != PERF_TYPE_TRACEPOINT || !(sc->fields[e->idx] & SF_BIT(SF_TRACE)))
            continue;
        if (!sc->trace && !(sc->trace = tracefmt_new()))
            return -ENOMEM;
        if ((err = tracefmt_add(sc->trace, in, e->name)) == -ENOMEM)
            return err;
    }
    if (dwarf && !(sc->uw = unwinder_new()))
        return -ENOMEM;
    return 0;
}

int script_new(const struct script_opts *o, struct session *s, const struct evlist *evl,
               const struct perfdata_info *in, FILE *out, struct script **scp, char *why,
               size_t len)
{
    struct script *sc = calloc(1, sizeof(*sc));
    int err = -ENOMEM;

    snprintf(why, len, "out of memory");
    if (!sc)
        return -ENOMEM;
    sc->o = o;
    sc->evl = evl;
    sc->session = s;
    hashmap_init(&sc->before_exec);
    sc->kallsyms = o->kallsyms;
    hashmap_init(&sc->comms);
    hashmap_init(&sc->short_names);
    kernel_build_id(sc, in);
    int maxidx = 0;
    for (size_t i = 0; i < evl->nr; i++)
        maxidx = evl->sel[i].idx > maxidx ? evl->sel[i].idx : maxidx;
    if ((sc->fields = calloc((size_t)maxidx + 1, sizeof(*sc->fields))) &&
        (sc->out = obuf_new(out)))
        err = setup_events(sc, in, why, len);
    if (err) {
        script_free(sc);
        return err;
    }
    *scp = sc;
    return 0;
}

int script_free(struct script *sc)
{
    bool ok;

    if (!sc)
        return 0;
    ok = obuf_close(sc->out);
    for (size_t i = 0; i < sc->comms.cap; i++)
        free(sc->comms.vals[i]);
    hashmap_release(&sc->comms);
    hashmap_release(&sc->before_exec);
    for (size_t i = 0; i < sc->short_names.cap; i++)
        free(sc->short_names.vals[i]);
    hashmap_release(&sc->short_names);
    tracefmt_free(sc->trace);
    ksyms_free(sc->ks);
    unwinder_free(sc->uw);
    free(sc->frames);
    ann_src_cache_release(&sc->src);
    free(sc->fields);
    free(sc);
    return ok ? 0 : -EIO;
}

uint64_t script_printed(const struct script *sc)
{
    return sc->printed;
}

const char *script_kernel_note(const struct script *sc)
{
    return sc->knote;
}

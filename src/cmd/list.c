/* SPDX-License-Identifier: MIT */
/* prospect list: the events that really open on this machine (each one is probe-opened), with
 * a description, optionally only those matching globs. */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "lazylib/lazylib.h"
#include "perf/event.h"
#include "perf/event_pfm.h"
#include "util/file.h"
#include "util/strutil.h"
#include "util/tracefs.h"

static const struct optdecl list_opts[] = {
    OPTD_HELP,
    { 0 },
};

const struct cmd_decl cmd_list_decl = {
    .name = "list",
    .synopsis = "[hardware|software|cache|tracepoint|pmu]... [GLOB]...",
    .intro =
"\n"
"Lists the events that open on this machine, with a short description: every event is\n"
"opened once (and closed) to check, so names that the kernel or the hardware refuses are not\n"
"shown. Without a kind all kinds are listed. A GLOB ('sched:*', 'page*') shows only the\n"
"events whose name it matches; a word without * ? [ matches names that contain it.\n"
"Tracepoints come from tracefs (SUBSYSTEM:EVENT), described by their fields: one is opened\n"
"to check that tracepoint events work (each open costs tens of milliseconds), the others\n"
"must have a readable id. PMUs come from /sys/bus/event_source/devices; 'pmu' also lists\n"
"the CPU's PMU model as libpfm4 knows it, with every event, its description and unit masks\n"
"(as oprofile's ophelp), even where the counters cannot be opened (then it says so once).\n"
"Those names work with -e as NAME, NAME:UMASK, pmu::NAME:UMASK:u or oprofile's\n"
"NAME:PERIOD:UNITMASK (docs/events.md).\n"
"\n",
    .outro =
"\n"
"Exit status: 0, or 1 when a GLOB was given and no event matches.\n",
    .opts = list_opts,
    .flags = 0,
};

#define WIDTH 100      /* output columns */
#define NAME_W 28      /* the name column (longer names push their description right) */

struct list_state {
    char *const *globs;
    size_t nglobs;
    size_t shown, tried, matched;
};

static bool matches(const struct list_state *st, const char *name)
{
    if (!st->nglobs)
        return true;
    for (size_t i = 0; i < st->nglobs; i++) {
        const char *g = st->globs[i];
        if (strpbrk(g, "*?[") ? !fnmatch(g, name, 0) : strstr(name, g) != NULL)
            return true;
    }
    return false;
}

/* "  NAME   description", the description cut to fit WIDTH columns. */
static void print_event(const char *name, const char *desc)
{
    int used = printf("  %-*s", NAME_W, name);
    size_t room = used + 2 < WIDTH ? (size_t)(WIDTH - used - 2) : 0;
    size_t dl = strlen(desc);

    if (dl && room > 3)
        printf("  %.*s%s", (int)(dl > room ? room - 3 : dl), desc, dl > room ? "..." : "");
    putchar('\n');
}

static int count_match(void *arg, const char *name, const struct perf_event_attr *attr)
{
    struct list_state *st = arg;
    (void)attr;
    st->matched += matches(st, name);
    return 0;
}

static int show_if_open(void *arg, const char *name, const struct perf_event_attr *attr)
{
    struct list_state *st = arg;
    char desc[128];

    if (!matches(st, name))
        return 0;
    st->tried++;
    if (event_available(attr)) {
        event_describe(name, desc, sizeof(desc));
        print_event(name, desc);
        st->shown++;
    }
    return 0;
}

static void list_generic(const char *kind, struct list_state *all)
{
    struct list_state st = { .globs = all->globs, .nglobs = all->nglobs };
    /* With globs, a kind without a matching name is left out altogether. */
    if (all->nglobs) {
        struct list_state probe = st;
        event_foreach_generic(kind, count_match, &probe);
        if (!probe.matched)
            return;
    }
    printf("%s events:\n", kind);
    event_foreach_generic(kind, show_if_open, &st);
    if (!st.shown && strcmp(kind, "software"))
        printf("  (none of the %zu %s events opens here: this machine exposes no hardware\n"
               "   performance counters, as is common in VMs; use software events such as "
               "task-clock)\n", st.tried, kind);
    all->matched += st.tried;
    printf("\n");
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "tracepoint: prev_comm prev_pid ..." from tracefs's format file (the event's own fields,
 * not the common_ ones); just "tracepoint" when it cannot be read. */
static void tracepoint_desc(const char *dir, const char *name, char *buf, size_t len)
{
    char path[1200], *fmt, *p;
    const char *colon = strchr(name, ':');
    size_t used;

    used = (size_t)snprintf(buf, len, "tracepoint");
    snprintf(path, sizeof(path), "%s/%.*s/%s/format", dir, (int)(colon - name), name, colon + 1);
    if (file_read_all(path, &fmt, NULL, 64 * 1024))
        return;
    for (p = fmt; (p = strstr(p, "field:")) && used + 1 < len; p++) {
        char *semi = strchr(p, ';'), *end, *start;
        if (!semi)
            break;
        /* "field:unsigned int common_type;" or "field:char prev_comm[16];": the last word. */
        end = semi;
        while (end > p && end[-1] == ']') {
            while (end > p && end[-1] != '[')
                end--;
            if (end > p)
                end--;
        }
        start = end;
        while (start > p && start[-1] != ' ' && start[-1] != ':' && start[-1] != '*')
            start--;
        if (end > start && strncmp(start, "common_", 7))
            used += (size_t)snprintf(buf + used, len - used, "%s%.*s", used == 10 ? ": " : " ",
                                     (int)(end - start), start);
    }
    free(fmt);
}

static void list_tracepoints(struct list_state *st)
{
    const char *dir = event_tracefs_dir();
    size_t n = 0, cap = 0;
    char **names = NULL;
    bool probed = false, works = false;
    struct dirent *sub;
    DIR *d;

    if (!dir || !(d = opendir(dir))) {
        const char *advice = tracefs_advice(errno);
        printf("tracepoint events:\n  (%s)\n\n", advice);
        return;
    }
    while ((sub = readdir(d))) {
        char p[1024];
        struct dirent *ev;
        DIR *sd;
        if (sub->d_name[0] == '.' || str_starts(sub->d_name, "prospect_"))
            continue;
        snprintf(p, sizeof(p), "%s/%s", dir, sub->d_name);
        if (!(sd = opendir(p)))
            continue;
        while ((ev = readdir(sd))) {
            char name[600];
            struct event_spec es;
            char err[128];
            if (ev->d_name[0] == '.' || ev->d_type != DT_DIR)
                continue;
            snprintf(name, sizeof(name), "%s:%s", sub->d_name, ev->d_name);
            if (!matches(st, name))
                continue;
            /* Opening a tracepoint costs tens of milliseconds (registration and an RCU
             * grace period on close), and there are thousands: one is probe-opened to check
             * that tracepoint events work at all; the others need a readable id. */
            if (event_parse(name, &es, err, sizeof(err)))
                continue;
            if (!probed) {
                probed = true;
                works = event_available(&es.attr);
            }
            if (n == cap) {
                size_t nc = cap ? cap * 2 : 256;
                char **nn = realloc(names, nc * sizeof(*nn));
                if (!nn)
                    break;
                names = nn;
                cap = nc;
            }
            if ((names[n] = strdup(name)))
                n++;
        }
        closedir(sd);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof(*names), cmp_str);
    st->matched += n;
    if (n || !st->nglobs)
        printf("tracepoint events:\n");
    for (size_t i = 0; i < n; i++) {
        if (works) {
            char desc[256];
            tracepoint_desc(dir, names[i], desc, sizeof(desc));
            print_event(names[i], desc);
        }
        free(names[i]);
    }
    free(names);
    if (!st->nglobs && (!n || !works))
        printf("  (none opens here%s)\n", n ? ": perf_event_open refuses tracepoints" : "");
    else if (n && !works)
        printf("  (%zu match%s, but none opens here: perf_event_open refuses tracepoints)\n", n,
               n == 1 ? "es" : "");
    if (n || !st->nglobs)
        printf("\n");
}

static void list_pmus(struct list_state *st)
{
    const char *base = "/sys/bus/event_source/devices";
    struct dirent *de;
    DIR *d = opendir(base);
    bool head = false;

    if (!d) {
        if (!st->nglobs)
            printf("PMUs (perf_event_attr.type):\n  (%s is not readable)\n\n", base);
        return;
    }
    while ((de = readdir(d))) {
        char p[600], *buf;
        if (de->d_name[0] == '.' || !matches(st, de->d_name))
            continue;
        snprintf(p, sizeof(p), "%s/%s/type", base, de->d_name);
        if (file_read_all(p, &buf, NULL, 64))
            continue;
        buf[strcspn(buf, "\n")] = '\0';
        if (!head)
            printf("PMUs (perf_event_attr.type):\n");
        head = true;
        printf("  %-16s type %s\n", de->d_name, buf);
        st->matched++;
        free(buf);
    }
    closedir(d);
    if (head || !st->nglobs)
        printf("%s\n", head ? "" : "PMUs (perf_event_attr.type):");
}

/* A libpfm4 name matches a glob case-insensitively, alone or as pmu::NAME. */
static bool pfm_matches(const struct list_state *st, const char *pmu, const char *name)
{
    char full[256];
    if (!st->nglobs)
        return true;
    snprintf(full, sizeof(full), "%s::%s", pmu, name);
    for (size_t i = 0; i < st->nglobs; i++) {
        const char *g = st->globs[i];
        if (strpbrk(g, "*?[") ? !fnmatch(g, name, FNM_CASEFOLD) || !fnmatch(g, full, FNM_CASEFOLD)
                              : strcasestr(full, g) != NULL)
            return true;
    }
    return false;
}

struct pfm_list {
    struct list_state *st;
    size_t shown;
};

static int show_pfm_event(void *arg, const struct pfm_event_listing *ev)
{
    struct pfm_list *pl = arg;
    char head[64];

    if (!pfm_matches(pl->st, ev->pmu, ev->name))
        return 0;
    print_event(ev->name, ev->desc);
    for (size_t i = 0; i < ev->nr_umasks; i++) {
        const struct pfm_umask_info *u = &ev->umasks[i];
        char desc[200];
        snprintf(head, sizeof(head), "  :%s", u->name);
        snprintf(desc, sizeof(desc), "0x%02llx %s%s", u->code, u->desc,
                 u->is_default ? " (default)" : "");
        print_event(head, desc);
    }
    pl->shown++;
    return 0;
}

static int show_pfm_pmu(void *arg, const char *pmu, const char *desc, int nevents)
{
    struct pfm_list *pl = arg;
    struct pfm_list mine = { .st = pl->st };
    const char *note = event_pfm_model_note();
    const char *core = event_pfm_model();

    printf("PMU model %s (%s, %d events, libpfm4)%s\n", pmu, desc, nevents,
           core && !strcmp(core, pmu) && note[0] ? ":" : "");
    if (core && !strcmp(core, pmu) && note[0])
        printf("  (%s)\n", note);
    event_pfm_foreach_event(pmu, show_pfm_event, &mine);
    if (!mine.shown)
        printf("  (no event matches)\n");
    pl->shown += mine.shown;
    return 0;
}

static int count_pfm_event(void *arg, const struct pfm_event_listing *ev)
{
    struct pfm_list *pl = arg;
    pl->shown += pfm_matches(pl->st, ev->pmu, ev->name);
    return 0;
}

static int count_pfm_pmu(void *arg, const char *pmu, const char *desc, int nevents)
{
    (void)desc;
    (void)nevents;
    return event_pfm_foreach_event(pmu, count_pfm_event, arg) > 0;
}

/* The CPU's PMU models and their events, as oprofile's ophelp lists them. */
static void list_pfm(struct list_state *st)
{
    struct pfm_list pl = { .st = st };

    /* With globs, nothing at all when no event of the models matches. */
    if (st->nglobs && event_pfm_model()) {
        struct pfm_list count = { .st = st };
        event_pfm_foreach_pmu(count_pfm_pmu, &count);
        if (!count.shown)
            return;
    }

    if (!event_pfm_model()) {
        const char *why = lazylib_pfm_missing();
        if (!st->nglobs) {
            if (why)
                printf("PMU models (libpfm4):\n  (libpfm4 cannot be loaded: %.70s)\n\n", why);
            else
                printf("PMU models (libpfm4):\n  (libpfm4 knows no PMU model for this CPU)\n\n");
        }
        return;
    }
    if (!event_pmu_exposed())
        printf("Hardware counters cannot be opened here: the kernel exposes no CPU PMU (a VM "
               "without a\nvirtual PMU). The names below are this CPU's; -e with them fails "
               "until the PMU is\nenabled for the guest (KVM/QEMU: -cpu host,pmu=on).\n\n");
    event_pfm_foreach_pmu(show_pfm_pmu, &pl);
    st->matched += pl.shown;
    printf("\n");
}

int cmd_list(int argc, char **argv)
{
    static const char *const kinds[] = { "hardware", "software", "cache", "tracepoint", "pmu" };
    struct list_state st = { 0 };
    bool want[5] = { false };
    bool any = false;
    char **globs = calloc((size_t)argc + 1, sizeof(*globs));

    if (!globs)
        return 1;
    int c;

    optind = 1;
    opterr = 0;
    while ((c = cmd_getopt(&cmd_list_decl, argc, argv)) != -1) {
        free(globs);
        if (c == 'h')
            return cmd_help("list");
        return cmd_bad_option("list", argv, optind, optopt, c);
    }
    for (int i = optind; i < argc; i++) {
        bool ok = false;
        for (size_t k = 0; k < 5; k++)
            if (!strcmp(argv[i], kinds[k]) || (k == 3 && !strcmp(argv[i], "trace"))) {
                want[k] = ok = any = true;
            }
        if (!ok)
            globs[st.nglobs++] = argv[i];
    }
    st.globs = globs;
    for (size_t k = 0; k < 5; k++) {
        if (any && !want[k])
            continue;
        if (k < 3)
            list_generic(kinds[k], &st);
        else if (k == 3)
            list_tracepoints(&st);
        else {
            list_pmus(&st);
            list_pfm(&st);
        }
    }
    if (st.nglobs && !st.matched) {
        cmd_error("list", "no event matches %s'%s'%s (kinds: hardware, software, cache, "
                  "tracepoint, pmu)", st.nglobs > 1 ? "any of " : "", st.globs[0],
                  st.nglobs > 1 ? ", ..." : "");
        free(globs);
        return 1;
    }
    free(globs);
    return 0;
}

/* prospect list: the events that really open on this machine (each one is probe-opened). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cmd.h"
#include "perf/event.h"
#include "util/file.h"
#include "util/strutil.h"
#include "util/tracefs.h"

const char cmd_list_usage[] =
"usage: prospect list [hardware|software|cache|tracepoint|pmu]...\n"
"\n"
"Lists the events that open on this machine: every event is opened once (and closed) to\n"
"check, so names that the kernel or the hardware refuses are not shown. Without an argument\n"
"all kinds are listed. Tracepoints come from tracefs (SUBSYSTEM:EVENT): one is opened to\n"
"check that tracepoint events work (each open costs tens of milliseconds), the others must\n"
"have a readable id. PMUs come from /sys/bus/event_source/devices.\n";

struct list_state {
    size_t shown, tried;
};

static int show_if_open(void *arg, const char *name, const struct perf_event_attr *attr)
{
    struct list_state *st = arg;
    st->tried++;
    if (event_available(attr)) {
        printf("  %s\n", name);
        st->shown++;
    }
    return 0;
}

static void list_generic(const char *kind)
{
    struct list_state st = { 0 };
    printf("%s events:\n", kind);
    event_foreach_generic(kind, show_if_open, &st);
    if (!st.shown && strcmp(kind, "software"))
        printf("  (none of the %zu %s events opens here: this machine exposes no hardware "
               "performance counters, as is common in VMs; use software events such as "
               "task-clock)\n", st.tried, kind);
    printf("\n");
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_tracepoints(void)
{
    const char *dir = event_tracefs_dir();
    size_t n = 0, cap = 0;
    char **names = NULL;
    bool probed = false, works = false;
    struct dirent *sub;
    DIR *d;

    printf("tracepoint events:\n");
    if (!dir || !(d = opendir(dir))) {
        printf("  (%s)\n\n", tracefs_advice(errno));
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
    for (size_t i = 0; i < n; i++) {
        if (works)
            printf("  %s\n", names[i]);
        free(names[i]);
    }
    free(names);
    if (!n || !works)
        printf("  (none opens here%s)\n", n ? ": perf_event_open refuses tracepoints" : "");
    printf("\n");
}

static void list_pmus(void)
{
    const char *base = "/sys/bus/event_source/devices";
    struct dirent *de;
    DIR *d = opendir(base);

    printf("PMUs (perf_event_attr.type):\n");
    if (!d) {
        printf("  (%s is not readable)\n\n", base);
        return;
    }
    while ((de = readdir(d))) {
        char p[600], *buf;
        if (de->d_name[0] == '.')
            continue;
        snprintf(p, sizeof(p), "%s/%s/type", base, de->d_name);
        if (file_read_all(p, &buf, NULL, 64))
            continue;
        buf[strcspn(buf, "\n")] = '\0';
        printf("  %-16s type %s\n", de->d_name, buf);
        free(buf);
    }
    closedir(d);
    printf("\n");
}

int cmd_list(int argc, char **argv)
{
    static const char *const kinds[] = { "hardware", "software", "cache", "tracepoint", "pmu" };
    bool want[5] = { false };
    bool any = false;

    for (int i = 1; i < argc; i++) {
        bool ok = false;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return cmd_help("list");
        for (size_t k = 0; k < 5; k++)
            if (!strcmp(argv[i], kinds[k]) || (k == 3 && !strcmp(argv[i], "trace"))) {
                want[k] = ok = any = true;
            }
        if (!ok)
            return cmd_usage_error("list", "unknown event kind '%s' (hardware, software, cache, "
                                   "tracepoint, pmu)", argv[i]);
    }
    for (size_t k = 0; k < 5; k++) {
        if (any && !want[k])
            continue;
        if (k < 3)
            list_generic(kinds[k]);
        else if (k == 3)
            list_tracepoints();
        else
            list_pmus();
    }
    return 0;
}

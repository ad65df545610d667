/* SPDX-License-Identifier: MIT */
/* /proc synthesis over a fixture tree: what exists becomes COMM/MMAP2 records, what cannot be
 * read is counted and named. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "test.h"
#include "perf/proc_synth.h"
#include "perf/record.h"

struct seen { int comms, mmaps; char last_path[256]; uint32_t last_tid; };

static int on_rec(void *arg, const struct perf_event_header *h)
{
    struct seen *s = arg;
    if (h->size % 8 || !record_string(h))
        return -1;                            /* every synthesized record must be well formed */
    if (h->type == PERF_RECORD_COMM) {
        s->comms++;
        s->last_tid = ((const struct rec_comm *)h)->tid;
    } else if (h->type == PERF_RECORD_MMAP2) {
        s->mmaps++;
        snprintf(s->last_path, sizeof(s->last_path), "%s", record_string(h));
    }
    return 0;
}

static void put(const char *dir, const char *name, const char *text)
{
    char p[512];
    FILE *f;
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    f = fopen(p, "w");
    fputs(text, f);
    fclose(f);
}

TEST(fixture_proc_tree)
{
    char root[] = "/tmp/prospect-proc.XXXXXX", d[600];
    struct perf_event_attr attr;
    struct proc_synth_stats st;
    struct seen s = {0};
    CHECK(mkdtemp(root));
    snprintf(d, sizeof(d), "%s/100", root); mkdir(d, 0755);
    put(d, "comm", "server\n");
    put(d, "maps", "00400000-00401000 r-xp 00000000 08:01 77 /usr/bin/server\n"
                   "00600000-00601000 rw-p 00000000 08:01 77 /usr/bin/server\n"
                   "7fff0000-7fff2000 r-xp 00000000 00:00 0 [vdso]\n"
                   "this line is garbage\n");
    snprintf(d, sizeof(d), "%s/100/task", root); mkdir(d, 0755);
    snprintf(d, sizeof(d), "%s/100/task/101", root); mkdir(d, 0755);
    put(d, "comm", "worker\n");
    snprintf(d, sizeof(d), "%s/200", root); mkdir(d, 0755);   /* comm but no maps: unreadable */
    put(d, "comm", "secret\n");
    snprintf(d, sizeof(d), "%s/self", root); mkdir(d, 0755);  /* not a pid */
    memset(&attr, 0, sizeof(attr));
    attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER;
    attr.sample_id_all = 1;
    CHECK(proc_synthesize(root, -1, &attr, on_rec, &s, &st) == 0);
    CHECK_EQ_U64(st.processes, 2);
    CHECK_EQ_U64(st.threads, 1);
    CHECK_EQ_U64(st.maps, 2);                 /* the executable maps only */
    CHECK_EQ_U64(st.unreadable, 1);
    CHECK(st.first_unreadable == 200);
    CHECK(s.comms == 3 && s.mmaps == 2);    /* 200 keeps its name although its maps are unreadable */
    CHECK_STR(s.last_path, "[vdso]");
    {
        char cmd[700];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
        CHECK(system(cmd) == 0);
    }
}

int main(void)
{
    RUN(fixture_proc_tree);
    return 0;
}

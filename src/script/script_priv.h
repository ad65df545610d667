/* SPDX-License-Identifier: MIT */
/* Internal to src/script/: the printer's state, shared by its line (script.c) and its frames
 * (frames.c). */
#ifndef PROSPECT_SCRIPT_PRIV_H
#define PROSPECT_SCRIPT_PRIV_H
#include "annotate/srcline.h"
#include "script/script.h"
#include "util/hashmap.h"
#include "util/obuf.h"

struct frame;
struct ksyms;
struct map;
struct process;
struct sample;
struct tracefmt;
struct unwinder;

struct script {
    const struct script_opts *o;
    const struct evlist *evl;
    struct obuf *out;
    unsigned *fields;             /* per evsel index: SF_BIT()s */
    int name_width;               /* the longest event name (perf aligns them) */
    bool chains;                  /* some event has call chains: perf's use_callchain */
    struct hashmap comms;         /* tid -> malloc'd thread name */
    struct session *session;      /* the model the samples are named in */
    struct hashmap before_exec;   /* pid -> its process before its last exec */
    struct hashmap short_names;   /* a DSO's demangled name -> its short form (malloc'd) */
    struct tracefmt *trace;       /* NULL: no tracepoint in the file */
    const char *kallsyms;         /* --kallsyms, or NULL */
    uint8_t kbid[20];             /* the file's kernel build-id, for the kallsyms cache */
    size_t kbid_len;
    uint64_t ktext;               /* _text when recorded ("[kernel.kallsyms]_text" map) */
    struct ksyms *ks;             /* loaded at the first kernel frame */
    char modname[72];             /* "[module]" of the last kernel frame named */
    char anon_name[40];           /* "/tmp/perf-PID.map" of the last anonymous frame named */
    bool ks_tried;
    char knote[256];
    struct unwinder *uw;          /* DWARF call graphs (samples with a user stack copy) */
    struct frame *frames;
    size_t cap_frames;
    struct ann_src_cache src;     /* srcline: each DSO's DWARF */
    uint64_t printed;
};

/* One code address as perf script names it. */
struct frame_name {
    uint64_t shown;               /* the address printed */
    const char *sym;              /* NULL: [unknown] */
    uint64_t off;
    const char *dso;              /* NULL: [unknown] */
    const struct map *map;        /* user map, for srcline */
    uint64_t vaddr;               /* the address in the DSO's ELF (user maps) */
    bool absolute;                /* anonymous memory: shown at its address in memory */
};

/* Names the address ip, taken in cpumode (PERF_RECORD_MISC_KERNEL/USER) in process p. */
void script_name_frame(struct script *sc, struct process *p, uint64_t ip, bool kernel,
                       struct frame_name *fn);
/* The sample's ip, symbol and DSO (fields), or its call chain below the line. 0 or -ENOMEM. */
int script_print_code(struct script *sc, unsigned fields, struct process *p,
                      const struct sample *smp);
#endif

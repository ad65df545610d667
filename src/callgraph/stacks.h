/* Call stacks of samples (from the kernel's frame-pointer call chains): every distinct
 * (process, frames) once, with its samples and period. Frames are kept as addresses in the map
 * they were in when the sample was taken (maps change), and symbolized only at report time,
 * once per distinct frame (callgraph/resolve.h). Reports (folded stacks, the Children/Self
 * table) walk the distinct stacks, never the samples. */
#ifndef PROSPECT_CALLGRAPH_STACKS_H
#define PROSPECT_CALLGRAPH_STACKS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct map;
struct process;
struct sample;
struct unwinder;

/* The map of kernel frames (kernel addresses resolve through kallsyms). */
extern const struct map cg_kernel_map;

struct cg_frame {
    uint64_t addr;            /* the sampled ip for the leaf, return address - 1 for callers */
    const struct map *map;    /* &cg_kernel_map, the user map, or NULL (outside every map) */
};

struct cg_stack {
    const struct process *proc;
    uint64_t hash;
    size_t off;               /* first frame (the leaf) in cg_store.frames */
    uint32_t n;               /* frames, leaf first */
    uint64_t samples, period;
};

struct cg_store {
    struct cg_frame *frames;  /* every distinct stack's frames, back to back */
    size_t nframes, cap_frames;
    struct cg_stack *stacks;
    size_t nstacks, cap_stacks;
    uint64_t *table;          /* open addressing: hash's high half << 32 | stack index + 1,
                                 0 empty (the tag spares a visit to stacks on a miss) */
    size_t table_cap;
    struct unwinder *unwind;  /* when set, user frames are unwound or completed there
                                 (src/unwind/): owned by the caller */
    struct cg_frame *scratch; /* the sample being added */
    size_t cap_scratch;
    uint64_t samples, period;
    size_t last;              /* the stack the latest add went to (index in stacks) */
};

void cg_store_init(struct cg_store *cs);
void cg_store_release(struct cg_store *cs);

/* Adds one sample of process p, weighing `period`: its call chain (context markers switch
 * between kernel and user frames; hypervisor and guest frames are left out), or its ip alone
 * when it has none. 0 or -ENOMEM. */
int cg_store_add(struct cg_store *cs, struct process *p, const struct sample *smp,
                 uint64_t period);

/* Adds n frames (leaf first) as one sample: the core of cg_store_add, for tests. */
int cg_store_add_frames(struct cg_store *cs, const struct process *p, const struct cg_frame *f,
                        uint32_t n, uint64_t period);

/* perf's --max-stack N: a copy of `in` whose stacks keep at most max frames, equal results
 * merged. outer: the sampled frame and the max outermost callers (perf report's Children and
 * caller trees), else the max innermost frames (perf script's). 0 or -ENOMEM. */
int cg_store_truncate(const struct cg_store *in, uint32_t max, bool outer, struct cg_store *out);

static inline const struct cg_frame *cg_stack_frames(const struct cg_store *cs,
                                                     const struct cg_stack *st)
{
    return cs->frames + st->off;
}
#endif

/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include "callgraph/capture.h"
#include "callgraph/resolve.h"
#include "callgraph/stacks.h"
#include "report/callgraph_out.h"
#include "report/pprof.h"
#include "session/session.h"
#include "unwind/unwind.h"
#include "callgraph_report.h"

/* The reports' output goes nowhere; opened once (each open would cost a descriptor). */
static FILE *sink(void)
{
    static FILE *f;
    if (!f)
        f = fopen("/dev/null", "w");
    return f;
}

/* The stored stacks through the renderers (--children with its trees, --no-children with
 * fractal callee trees), and through --max-stack's cut. */
static void render(struct cg_store *cs)
{
    struct chain_params graph = { .mode = CHAIN_GRAPH, .min_percent = 0.5 };
    struct chain_params fractal = { .mode = CHAIN_FRACTAL, .callee = true };
    struct children_opts co = { .event = "fuzz", .chains = &graph };
    struct children_opts cn = { .event = "fuzz", .chains = &fractal, .no_children = true };
    struct pprof_opts po = { .event = "fuzz", .period = 1 };
    struct cg_store cut;
    struct cg_syms cy;

    cg_store_seal(cs);
    if (!cg_resolve_lean(cs, NULL, &cy)) {
        (void)report_pprof(sink(), cs, &cy, &po);
        (void)report_folded(sink(), cs, &cy);
        (void)report_children(sink(), cs, &cy, &co);
        (void)report_children(sink(), cs, &cy, &cn);
        cg_syms_release(&cy);
    }
    cg_store_init(&cut);
    if (!cg_store_truncate(cs, 3, true, &cut) && !cg_resolve_lean(&cut, NULL, &cy)) {
        (void)report_folded(sink(), &cut, &cy);
        cg_syms_release(&cy);
    }
    cg_store_release(&cut);
}

void fuzz_callgraph_report(struct perfdata *pd)
{
    struct perfdata_error err;
    struct session s;
    struct cg_store cs;
    struct cg_capture cap;

    if (!sink())
        return;
    cg_store_init(&cs);
    cg_capture_init(&cap, &cs, unwinder_new());
    if (cap.unwind && session_init(&s) == 0) {
        (void)session_add_sink(&s, cg_capture_sink(&cap));   /* room for one */
        s.stacks_only = true;
        if (perfdata_process(pd, session_record, &s, 0, &err) == 0)
            render(&cs);
        session_release(&s);
    }
    unwinder_free(cap.unwind);
    cg_capture_release(&cap);
    cg_store_release(&cs);
}

/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include "callgraph/stacks.h"
#include "cmd/sinks.h"
#include "offcpu/offcpu.h"
#include "session/session.h"
#include "unwind/unwind.h"

int profile_sinks_wire(struct profile_sinks *ps, struct session *s, struct cg_store *chains,
                       struct offcpu *oc, bool unwind)
{
    int err;

    memset(ps, 0, sizeof(*ps));
    if (unwind && !(ps->unwind = unwinder_new()))
        return -ENOMEM;
    cg_capture_init(&ps->chains, chains, ps->unwind);
    if (chains && (err = session_add_sink(s, cg_capture_sink(&ps->chains))))
        return err;
    if (oc) {
        oc->capture.unwind = ps->unwind;
        if ((err = session_add_sink(s, offcpu_sink(oc))))
            return err;
    }
    return 0;
}

void profile_sinks_done(struct profile_sinks *ps)
{
    unwinder_drop_cfi(ps->unwind);
}

void profile_sinks_release(struct profile_sinks *ps)
{
    cg_capture_release(&ps->chains);
    unwinder_free(ps->unwind);
    ps->unwind = NULL;
}

const char *profile_sinks_strerror(int err)
{
    return err == -ENOSPC ? "too many sample sinks" : "out of memory";
}

/* SPDX-License-Identifier: MIT */
/* The probe-cost estimate of region_cost.h. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "probe/region_cost.h"

/* docs/stat.md "Cost and skew", medians on the development VM (kernel 6.18): the task-clock a
 * crossing of an almost empty region shows, and the whole cost per crossing against a run
 * without probes. */
static const struct { double inside_ns, per_crossing_ns; } reference[] = {
    [REGION_ENTRY_JUMP] = { 900, 2200 },
    [REGION_ENTRY_EMULATED] = { 750, 3000 },
    [REGION_ENTRY_STEPPED] = { 12500, 13500 },
};

const char *region_entry_kind_name(enum region_entry_kind kind)
{
    return kind == REGION_ENTRY_JUMP ? "entered by a jump" :
           kind == REGION_ENTRY_EMULATED ? "emulated uprobe" : "single-stepped uprobe";
}

/* Whether x86's uprobe code emulates the instruction at code (arch/x86/kernel/uprobes.c:
 * push of a register, call/jmp rel, jcc, nop); anything else is single-stepped. */
static bool kernel_emulates(const uint8_t *c, size_t n)
{
    size_t i = 0;

    if (n >= 2 && c[0] == 0x66 && c[1] == 0x90)
        return true;
    if (n >= 1 && c[0] >= 0x40 && c[0] <= 0x4f)       /* REX prefix (push r8..r15) */
        i = 1;
    if (i < n && c[i] >= 0x50 && c[i] <= 0x57)
        return true;
    if (i)
        return false;
    if (n >= 1 && (c[0] == 0xe8 || c[0] == 0xe9 || c[0] == 0xeb || c[0] == 0x90 ||
                   (c[0] >= 0x70 && c[0] <= 0x7f)))
        return true;
    return n >= 2 && c[0] == 0x0f && ((c[1] >= 0x80 && c[1] <= 0x8f) || c[1] == 0x1f);
}

enum region_entry_kind region_probe_kind(const struct probe_point *p)
{
    uint8_t code[4];
    ssize_t n = -1;
    int fd;

    if (p->jump)
        return REGION_ENTRY_JUMP;
    fd = open(p->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd >= 0) {
        n = pread(fd, code, sizeof(code), (off_t)p->offset);
        close(fd);
    }
    /* Unreadable: assume the cheaper kind, so the note never overstates the cost. */
    if (n <= 0)
        return REGION_ENTRY_EMULATED;
    return kernel_emulates(code, (size_t)n) ? REGION_ENTRY_EMULATED : REGION_ENTRY_STEPPED;
}

enum region_entry_kind region_entry_kind(const struct region_list *rl, int region)
{
    enum region_entry_kind kind = REGION_ENTRY_JUMP;
    bool any = false;

    for (size_t i = 0; i < rl->probes.n; i++) {
        const struct probe_point *p = &rl->probes.v[i];
        enum region_entry_kind k;
        if (p->region != region || p->role != RC_ENTER)
            continue;
        k = region_probe_kind(p);
        if (!any || reference[k].inside_ns > reference[kind].inside_ns)
            kind = k;
        any = true;
    }
    return any ? kind : REGION_ENTRY_EMULATED;
}

bool region_cost_estimate(enum region_entry_kind kind, double mean_ns, double min_ns,
                          struct region_cost *out)
{
    double inside = reference[kind].inside_ns;

    memset(out, 0, sizeof(*out));
    out->kind = kind;
    if (!(mean_ns > 0) || !(min_ns >= 0))
        return false;
    /* No crossing holds more probe handling than its own measured time: on a faster machine
     * the shortest crossing caps the reference. */
    if (min_ns < inside)
        inside = min_ns;
    out->inside_ns = inside;
    out->per_crossing_ns = reference[kind].per_crossing_ns - (reference[kind].inside_ns - inside);
    out->share = inside / mean_ns;
    return out->share >= REGION_COST_NOTE_SHARE;
}

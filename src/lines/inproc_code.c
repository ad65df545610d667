/* SPDX-License-Identifier: MIT */
/* The in-process engine's code side (inproc_priv.h): the program's code read once, the
 * functions that code outside them enters elsewhere than at their entry, the relocation. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lines/inproc_priv.h"
#include "probe/jump_code.h"

int inproc_read_code(struct inproc_code *c, const char *exe)
{
    int fd = open(exe, O_RDONLY | O_CLOEXEC), e = 0;
    if (fd < 0)
        return -errno;
    if (!(c->bytes = calloc(c->prog.ncode + 1, sizeof(*c->bytes)))) {
        close(fd);
        return -ENOMEM;
    }
    for (size_t i = 0; i < c->prog.ncode && !e; i++) {
        const struct code_seg *s = &c->prog.code[i];
        if (!(c->bytes[i] = malloc(s->size + 1)))
            e = -ENOMEM;
        else if (pread(fd, c->bytes[i], s->size, (off_t)s->off) != (ssize_t)s->size)
            e = -EIO;
    }
    close(fd);
    return e;
}

void inproc_code_release(struct inproc_code *c)
{
    for (size_t i = 0; c->bytes && i < c->prog.ncode; i++)
        free(c->bytes[i]);
    free(c->bytes);
    elf_program_release(&c->prog);
}

const uint8_t *inproc_code_at(const struct inproc_code *c, uint64_t vaddr, uint64_t n)
{
    for (size_t i = 0; i < c->prog.ncode; i++) {
        const struct code_seg *s = &c->prog.code[i];
        if (vaddr >= s->vaddr && vaddr + n <= s->vaddr + s->size)
            return c->bytes[i] + (vaddr - s->vaddr);
    }
    return NULL;
}

struct sweep {
    const struct lines_plan *p;
    const size_t *order;          /* functions sorted by start */
    size_t n;
    long cur;                     /* the function swept, -1 between functions */
    bool *entered;                /* per function: entered elsewhere than its entry */
};

static long func_holding(const struct sweep *s, uint64_t a)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const struct lines_func *f = &s->p->funcs.v[s->order[mid]];
        if (a < f->start)
            hi = mid;
        else if (a >= f->start + f->size)
            lo = mid + 1;
        else
            return (long)s->order[mid];
    }
    return -1;
}

static void on_target(void *arg, uint64_t t)
{
    struct sweep *s = arg;
    long f = func_holding(s, t);
    if (f >= 0 && f != s->cur && t != s->p->funcs.v[f].start)
        s->entered[f] = true;
}

static const struct lines_plan *cmp_plan;
static int by_start(const void *a, const void *b)
{
    uint64_t x = cmp_plan->funcs.v[*(const size_t *)a].start;
    uint64_t y = cmp_plan->funcs.v[*(const size_t *)b].start;
    return x < y ? -1 : x > y;
}

/* Sweeps every code segment, a function at a time and the gaps between them. */
static int sweep_segment(struct sweep *s, const struct inproc_code *c, size_t seg)
{
    const struct code_seg *cs = &c->prog.code[seg];
    uint64_t at = cs->vaddr, end = cs->vaddr + cs->size;
    int e = 0;
    for (size_t k = 0; k <= s->n && !e && at < end; k++) {
        const struct lines_func *f = k < s->n ? &s->p->funcs.v[s->order[k]] : NULL;
        uint64_t gap_end = f && f->start < end ? f->start : end;
        if (f && f->start + f->size <= at)
            continue;
        if (gap_end > at) {
            s->cur = -1;
            e = jump_code_branch_targets(c->bytes[seg] + (at - cs->vaddr), gap_end - at, at,
                                         on_target, s);
            at = gap_end;
        }
        if (f && f->start >= cs->vaddr && f->start + f->size <= end && !e) {
            s->cur = (long)s->order[k];
            e = jump_code_branch_targets(c->bytes[seg] + (f->start - cs->vaddr), f->size,
                                         f->start, on_target, s);
            at = f->start + f->size;
        }
    }
    return e;
}

int inproc_entered(const struct lines_plan *p, const struct inproc_code *c, bool *entered)
{
    struct sweep s = { .p = p, .n = p->funcs.n, .entered = entered };
    size_t *order = malloc((p->funcs.n + 1) * sizeof(*order));
    int e = 0;
    if (!order)
        return -ENOMEM;
    for (size_t i = 0; i < p->funcs.n; i++)
        order[i] = i;
    cmp_plan = p;
    qsort(order, p->funcs.n, sizeof(*order), by_start);
    s.order = order;
    for (size_t i = 0; i < c->prog.ncode && !e; i++)
        e = sweep_segment(&s, c, i);
    free(order);
    return e;
}

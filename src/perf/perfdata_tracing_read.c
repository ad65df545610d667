/* SPDX-License-Identifier: MIT */
/* Reading HEADER_TRACING_DATA (layout in perfdata_tracing.c): the format text of one
 * tracepoint, so that its samples' raw fields are read where this file's kernel put them. The
 * section is untrusted: every length is checked against what is left. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "perf/perfdata.h"
#include "perf/perfdata_tracing.h"
#include "perf/tp_format.h"

struct cur {
    const uint8_t *p;
    size_t left;
};

static int skip(struct cur *c, uint64_t n)
{
    if (n > c->left)
        return -EINVAL;
    c->p += n;
    c->left -= (size_t)n;
    return 0;
}

static int take(struct cur *c, void *out, size_t n)
{
    if (n > c->left)
        return -EINVAL;
    memcpy(out, c->p, n);
    return skip(c, n);
}

/* A NUL-terminated string; *s points at it. */
static int string(struct cur *c, const char **s)
{
    const uint8_t *nul = memchr(c->p, 0, c->left);
    if (!nul)
        return -EINVAL;
    *s = (const char *)c->p;
    return skip(c, (size_t)(nul - c->p) + 1);
}

/* "NAME\0", a u64 size and that many bytes (header_page, header_event). */
static int named_file(struct cur *c, const char *name)
{
    const char *s;
    uint64_t n;
    int err = string(c, &s);
    if (err || strcmp(s, name))
        return -EINVAL;
    return take(c, &n, 8) ? -EINVAL : skip(c, n);
}

int perfdata_tracing_format(const uint8_t *data, size_t len, const char *system,
                            const char *event, char **out)
{
    static const uint8_t magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
    struct cur c = { data, len };
    uint32_t nftrace, nsys;
    const char *s;
    uint8_t flags[2];
    uint32_t page;

    *out = NULL;
    if (len < sizeof(magic) || memcmp(data, magic, sizeof(magic)))
        return -EINVAL;
    skip(&c, sizeof(magic));
    if (string(&c, &s) || take(&c, flags, 2) || flags[0] || take(&c, &page, 4))
        return -EINVAL;                 /* flags[0]: a big-endian file's data */
    if (named_file(&c, "header_page") || named_file(&c, "header_event") ||
        take(&c, &nftrace, 4))
        return -EINVAL;
    for (uint32_t i = 0; i < nftrace; i++) {
        uint64_t n;
        if (take(&c, &n, 8) || skip(&c, n))
            return -EINVAL;
    }
    if (take(&c, &nsys, 4))
        return -EINVAL;
    for (uint32_t i = 0; i < nsys; i++) {
        uint32_t nev;
        bool wanted;
        if (string(&c, &s) || take(&c, &nev, 4))
            return -EINVAL;
        wanted = !strcmp(s, system);
        for (uint32_t k = 0; k < nev; k++) {
            uint64_t n;
            if (take(&c, &n, 8) || n > c.left)
                return -EINVAL;
            if (wanted && tp_format_is((const char *)c.p, (size_t)n, event)) {
                if (!(*out = malloc((size_t)n + 1)))
                    return -ENOMEM;
                memcpy(*out, c.p, (size_t)n);
                (*out)[n] = '\0';
                return 0;
            }
            skip(&c, n);
        }
    }
    return -ENOENT;
}

int perfdata_tracepoint_format(const struct perfdata_info *in, const char *system,
                               const char *event, char **out)
{
    if (!in->tracing_data)
        return -ENOENT;
    return perfdata_tracing_format(in->tracing_data, in->tracing_size, system, event, out);
}

/* SPDX-License-Identifier: MIT */
/* /proc/kallsyms: read in chunks, each line parsed in place and only text symbols kept (their
 * names copied into one arena), one sort. ksyms_parse parses a whole text in place instead. */
#define LOG_PREFIX "ksyms"
#include <errno.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "symbol/ksyms.h"
#include "symbol/ksyms_priv.h"
#include "symbol/symfile.h"
#include "util/log.h"

#define KALLSYMS_MAX (256u << 20)

/* Digit values + 1 (0: not a hex digit): one load per character of 122k addresses. */
static const uint8_t hex1[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
    ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15,
    ['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static int hexval(char c)
{
    return (int)hex1[(unsigned char)c] - 1;
}

/* Parses one NUL-terminated line in place. Returns 1 if kept, 0 if skipped (not text), -1 if
 * malformed. */
static int parse_line(char *p, struct ksym *out, bool *nonzero, size_t *name_len)
{
    uint64_t addr = 0;
    int digits = 0, h;
    char *name, *mod = NULL;

    for (; (h = hexval(*p)) >= 0; p++, digits++) {
        if (digits == 16)
            return -1;
        addr = addr << 4 | (uint64_t)h;
    }
    if (!digits || *p != ' ' || !p[1] || p[2] != ' ')
        return -1;
    out->type = p[1];
    name = p + 3;
    /* Plain loops: names are short, and strcspn/strspn's setup cost more per line. */
    for (p = name; *p && *p != ' ' && *p != '\t'; p++)
        ;
    if (p == name)
        return -1;
    *name_len = (size_t)(p - name);
    if (*p) {
        *p++ = '\0';
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '[') {
            char *end = strchr(p, ']');
            if (!end || end == p + 1)
                return -1;
            *end = '\0';
            mod = p + 1;
        } else if (*p) {
            return -1;
        }
    }
    if (addr)
        *nonzero = true;
    if (out->type != 't' && out->type != 'T' && out->type != 'w' && out->type != 'W')
        return 0;
    out->addr = addr;
    out->name = name;
    out->module = mod;
    return 1;
}

static int ksym_cmp(const void *pa, const void *pb)
{
    const struct ksym *a = pa, *b = pb;
    if (a->addr != b->addr)
        return a->addr < b->addr ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* Sorts (when needed) and answers for a parsed table: -EACCES when every address was zero. */
static int finish(struct ksyms *ks, size_t lines, bool nonzero, struct ksyms **out)
{
    if (lines > ks->bad && !nonzero) {
        ksyms_free(ks);
        return -EACCES;   /* kptr_restrict hides the addresses */
    }
    /* Stable by line order: of several names at one address the last line's is the one found
     * (the others keep an empty range), which is what perf 6.1 reports for kallsyms. */
    for (size_t i = 1; i < ks->n; i++) {
        if (ks->v[i].addr < ks->v[i - 1].addr) {   /* the kernel lists text in order: rare */
            qsort(ks->v, ks->n, sizeof(*ks->v), ksym_cmp);
            break;
        }
    }
    *out = ks;
    return 0;
}

int ksyms_parse(char *text, size_t len, struct ksyms **out)
{
    struct ksyms *ks;
    size_t cap = 0, lines = 0;
    bool nonzero = false;
    char *line;

    *out = NULL;
    ks = calloc(1, sizeof(*ks));
    if (!ks) {
        free(text);
        return -ENOMEM;
    }
    ks->buf = text;
    text[len] = '\0';
    /* One allocation sized by the line count (an upper bound on symbols). */
    for (char *p = text; (p = memchr(p, '\n', len - (size_t)(p - text))); p++)
        cap++;
    cap++;
    ks->v = malloc(cap * sizeof(*ks->v));
    if (!ks->v) {
        ksyms_free(ks);
        return -ENOMEM;
    }
    for (line = text; line && line < text + len;) {
        char *eol = memchr(line, '\n', len - (size_t)(line - text));
        int r;
        if (eol)
            *eol = '\0';
        if (*line) {
            lines++;
            size_t nl;
            r = parse_line(line, &ks->v[ks->n], &nonzero, &nl);
            if (r < 0)
                ks->bad++;
            else if (r > 0) {
                ks->v[ks->n].order = (uint32_t)ks->n;
                ks->n++;
            }
        }
        line = eol ? eol + 1 : NULL;
    }
    return finish(ks, lines, nonzero, out);
}

/* Keeps one parsed text symbol: its name into the arena (an offset until the arena stops
 * moving), its module interned. 0 or -ENOMEM. */
static int keep(struct ksyms *ks, struct ksym *k, size_t name_len, size_t *cap_v,
                size_t *arena_n, size_t *arena_cap)
{
    size_t len = name_len + 1;

    if (ks->n == *cap_v) {
        size_t cap = *cap_v ? *cap_v * 2 : 4096;
        struct ksym *v = realloc(ks->v, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        ks->v = v;
        *cap_v = cap;
    }
    if (*arena_n + len > *arena_cap) {
        size_t cap = *arena_cap ? *arena_cap * 2 : 64 * 1024;
        char *a;
        while (cap < *arena_n + len)
            cap *= 2;
        if (!(a = realloc(ks->buf, cap)))
            return -ENOMEM;
        ks->buf = a;
        *arena_cap = cap;
    }
    memcpy(ks->buf + *arena_n, k->name, len);
    k->name = (const char *)(uintptr_t)*arena_n;
    *arena_n += len;
    if (k->module) {
        size_t m;
        for (m = ks->nmods; m-- > 0 && strcmp(ks->mods[m], k->module);)
            ;
        if (m == (size_t)-1) {
            char **v = realloc(ks->mods, (ks->nmods + 1) * sizeof(*v));
            if (!v)
                return -ENOMEM;
            ks->mods = v;
            if (!(v[ks->nmods] = strdup(k->module)))
                return -ENOMEM;
            m = ks->nmods++;
        }
        k->module = ks->mods[m];
    }
    k->order = (uint32_t)ks->n;
    ks->v[ks->n++] = *k;
    return 0;
}

/* Asks for transparent huge pages over the 2 MiB-aligned inside of a large array: one fault
 * per 2 MiB instead of per 4 KiB page. A hint only. */
static void huge(void *p, size_t len)
{
    uintptr_t a = ((uintptr_t)p + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1);
    uintptr_t e = ((uintptr_t)p + len) & ~(uintptr_t)((2u << 20) - 1);
    if (e > a)
        (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
}

/* A regular file (a cached copy) gives its size: sizing the arrays for it up front saves the
 * copies and page faults of growing them (most of the load's cost after the parse). The pages
 * never written are never touched. Best effort: the growth in keep() still applies. */
static void presize(int fd, struct ksyms *ks, size_t *cap_v, size_t *arena_cap)
{
    struct stat st;
    size_t lines;

    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        (uint64_t)st.st_size > KALLSYMS_MAX)
        return;
    lines = (size_t)st.st_size / 20 + 1;     /* a line is at least "16 hex, type, name\n" */
    if ((ks->v = malloc(lines * sizeof(*ks->v)))) {
        *cap_v = lines;
        huge(ks->v, lines * sizeof(*ks->v));
    }
    if ((ks->buf = malloc((size_t)st.st_size + 1))) {
        *arena_cap = (size_t)st.st_size + 1;
        huge(ks->buf, *arena_cap);
    }
}

/* Streams the file: memory is the text symbols' names and entries, not the whole text (8 MB
 * here, most of it data symbols and addresses). */
static int load_stream(int fd, struct ksyms **out)
{
    enum { CHUNK = 64 * 1024 };
    struct ksyms *ks = calloc(1, sizeof(*ks));
    char *chunk = malloc(CHUNK + 1);
    size_t have = 0, total = 0, lines = 0, cap_v = 0, arena_n = 0, arena_cap = 0;
    bool nonzero = false, eof = false;
    int err = 0;

    if (!ks || !chunk) {
        free(ks);
        free(chunk);
        return -ENOMEM;
    }
    presize(fd, ks, &cap_v, &arena_cap);
    while (!err && (!eof || have)) {
        char *line = chunk, *eol;
        if (!eof) {
            ssize_t r = read(fd, chunk + have, CHUNK - have);
            if (r < 0) {
                err = -errno;
                break;
            }
            eof = r == 0;
            have += (size_t)r;
            if ((total += (size_t)r) > KALLSYMS_MAX) {
                err = -EFBIG;
                break;
            }
        }
        chunk[have] = '\0';
        while (!err && ((eol = memchr(line, '\n', have - (size_t)(line - chunk))) ||
                        (eof && line < chunk + have))) {
            struct ksym k;
            size_t nl;
            int r;
            if (eol)
                *eol = '\0';
            if (*line) {
                lines++;
                r = parse_line(line, &k, &nonzero, &nl);
                if (r < 0)
                    ks->bad++;
                else if (r > 0)
                    err = keep(ks, &k, nl, &cap_v, &arena_n, &arena_cap);
            }
            line = eol ? eol + 1 : chunk + have;
        }
        have -= (size_t)(line - chunk);
        memmove(chunk, line, have);
        if (have == CHUNK) {          /* a line longer than a chunk: not kallsyms */
            ks->bad++;
            have = 0;
        }
    }
    free(chunk);
    if (err) {
        ksyms_free(ks);
        return err;
    }
    for (size_t i = 0; i < ks->n; i++)
        ks->v[i].name = ks->buf + (uintptr_t)ks->v[i].name;
    return finish(ks, lines, nonzero, out);
}

int ksyms_load(const char *path, struct ksyms **out)
{
    int fd, err;

    *out = NULL;
    fd = symfile_open(path, false, NULL);
    err = fd < 0 ? fd : load_stream(fd, out);
    if (fd >= 0)
        close(fd);
    if (err)
        pr_debug("%s: %s", path, symfile_strerror(err));
    else
        pr_debug("%s: %zu kernel text symbols", path, (*out)->n);
    return err;
}

void ksyms_free(struct ksyms *ks)
{
    if (!ks)
        return;
    for (size_t i = 0; i < ks->nmods; i++)
        free(ks->mods[i]);
    free(ks->mods);
    ksyms_bin_release(ks);
    free(ks->v);
    free(ks->buf);
    free(ks);
}

size_t ksyms_count(const struct ksyms *ks)
{
    return ks->n;
}

size_t ksyms_bad_lines(const struct ksyms *ks)
{
    return ks->bad;
}

/* The i-th symbol's address, name and module, from the parsed table or a binary form. */
static uint64_t addr_at(const struct ksyms *ks, size_t i)
{
    return !ks->map ? ks->v[i].addr : ks->addr[i];
}

static const char *name_at(const struct ksyms *ks, size_t i)
{
    return !ks->map ? ks->v[i].name : ks->blob + ks->name_off[i];
}

static const char *module_at(const struct ksyms *ks, size_t i)
{
    if (!ks->map)
        return ks->v[i].module;
    return ks->mod[i] ? ks->blob + ks->mod_off[ks->mod[i] - 1] : NULL;
}

int ksyms_resolve(const struct ksyms *ks, uint64_t addr, struct ksym_res *out)
{
    size_t lo = 0, hi = ks->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (addr_at(ks, mid) <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    memset(out, 0, sizeof(*out));
    if (!lo)
        return 0;
    out->name = name_at(ks, lo - 1);
    out->module = module_at(ks, lo - 1);
    out->start = addr_at(ks, lo - 1);
    out->end = lo < ks->n ? addr_at(ks, lo) : 0;
    return 0;
}

uint64_t ksyms_lookup(const struct ksyms *ks, const char *name)
{
    for (size_t i = 0; i < ks->n; i++)
        if (!strcmp(name_at(ks, i), name))
            return addr_at(ks, i);
    return 0;
}

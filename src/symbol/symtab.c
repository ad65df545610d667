/* SPDX-License-Identifier: MIT */
/* Sorted function-symbol arrays: alias choice, zero-size fixup, lookup, brackets, name search. */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbol/symtab.h"

void symtab_builder_release(struct symtab_builder *b)
{
    vec_free(&b->c);
    free(b->arena);
    b->arena = NULL;
    b->len = b->cap = 0;
    free(b->strtab);
    b->strtab = NULL;
    b->strtab_len = 0;
    b->adopted = false;
    free(b->raw);
    b->raw = NULL;
    b->raw_len = 0;
}

/* Room for n more bytes in the arena. 0, -EOVERFLOW or -ENOMEM. */
static int arena_reserve(struct symtab_builder *b, size_t n)
{
    /* offsets stay below SYM_PLT_DEMANGLE */
    if (b->strtab_len + b->len >= UINT32_MAX || n >= UINT32_MAX - b->strtab_len - b->len)
        return -EOVERFLOW;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        char *a = realloc(b->arena, cap);
        if (!a)
            return -ENOMEM;
        b->arena = a;
        b->cap = cap;
    }
    return 0;
}

/* Appends a NUL-terminated string (not one in the arena) to the arena; returns its offset
 * through *off. */
static int arena_add(struct symtab_builder *b, const char *s, size_t n, uint32_t *off)
{
    int err = arena_reserve(b, n + 1);

    if (err)
        return err;
    memcpy(b->arena + b->len, s, n);
    b->arena[b->len + n] = '\0';
    *off = (uint32_t)(b->strtab_len + b->len);
    b->len += n + 1;
    return 0;
}

void symtab_builder_adopt(struct symtab_builder *b, char *strtab, size_t len)
{
    b->strtab = strtab;
    b->strtab_len = len;
    b->adopted = true;
}

int symtab_add_at(struct symtab_builder *b, uint32_t off, uint64_t start, uint64_t size,
                  int bind)
{
    struct sym_cand c = { .start = start, .size = size, .name = off, .raw = off,
                          .bind = (uint8_t)bind };

    if (b->c.n >= UINT32_MAX)
        return -EOVERFLOW;
    c.order = (uint32_t)b->c.n;
    return vec_push(&b->c, c);
}

int symtab_add_named(struct symtab_builder *b, const char *raw, const char *display,
                     uint64_t start, uint64_t size, int bind)
{
    struct sym_cand c = { .start = start, .size = size, .bind = (uint8_t)bind };
    int err;

    if (b->c.n >= UINT32_MAX)
        return -EOVERFLOW;
    c.order = (uint32_t)b->c.n;
    err = arena_add(b, raw, strlen(raw), &c.raw);
    if (err)
        return err;
    c.name = c.raw;
    if (display && strcmp(display, raw)) {
        err = arena_add(b, display, strlen(display), &c.name);
        if (err)
            return err;
    }
    return vec_push(&b->c, c);
}

int symtab_add_plt(struct symtab_builder *b, const char *raw_plt, uint64_t start,
                   uint64_t size)
{
    struct sym_cand c = { .start = start, .size = size, .bind = STB_GLOBAL,
                          .name = SYM_PLT_DEMANGLE };
    int err;

    if (b->c.n >= UINT32_MAX)
        return -EOVERFLOW;
    c.order = (uint32_t)b->c.n;
    err = arena_add(b, raw_plt, strlen(raw_plt), &c.raw);
    return err ? err : vec_push(&b->c, c);
}

int symtab_add(struct symtab_builder *b, const char *raw, uint64_t start, uint64_t size,
               int bind)
{
    /* Demangling every symbol of a large C++ library costs more than a whole report; it
     * waits until a name is shown (symtab_display). */
    return symtab_add_named(b, raw, NULL, start, size, bind);
}

/* Marks a name whose demangling failed or was not needed: show the raw name. */
static char raw_marker[1];

static bool looks_mangled(const char *s)
{
    return s[0] == '_' && (s[1] == 'Z' || s[1] == 'R');
}

/* "target@plt" -> the target demangled, plus "@plt" (in at most 1023 bytes, as the slot's
 * name always was); NULL when the target does not demangle or memory runs out. */
static char *plt_display(const char *raw_plt)
{
    size_t len = strlen(raw_plt) - 4;   /* without "@plt" */
    char *target = strndup(raw_plt, len), *dem = target ? symbol_demangle(target) : NULL, *d;

    free(target);
    if (!dem)
        return NULL;
    d = malloc(1024);
    if (d)
        snprintf(d, 1024, "%s@plt", dem);
    free(dem);
    return d;
}

/* The display name of v[idx] (a sym of t->syms or t->aliases), demangled on first use and
 * cached in *cache. Falls back to the raw name when memory or demangling fails. */
static const char *symtab_display(struct symtab *t, char ***cache, size_t n, const struct sym *v,
                                  size_t idx)
{
    const struct sym *s = &v[idx];
    const char *raw = symtab_str(t, s->raw);
    char *d;

    if (s->name != SYM_PLT_DEMANGLE && (s->name != s->raw || !looks_mangled(raw)))
        return symtab_str(t, s->name);
    if (!*cache && !(*cache = calloc(n, sizeof(**cache))))
        return raw;
    if (!(*cache)[idx]) {
        d = s->name == SYM_PLT_DEMANGLE ? plt_display(raw) : symbol_demangle(raw);
        (*cache)[idx] = d ? d : raw_marker;
    }
    return (*cache)[idx] == raw_marker ? raw : (*cache)[idx];
}

int symtab_load_names(struct symtab *t)
{
    char *buf;
    int err;

    if (t->strtab || !t->strtab_len)
        return 0;
    if (!t->reload)
        return -ENOENT;
    if (!(buf = malloc(t->strtab_len)))
        return -ENOMEM;
    if ((err = t->reload(t->reload_arg, buf, t->strtab_len))) {
        free(buf);
        return err;
    }
    t->strtab = buf;
    return 0;
}

void symtab_drop_names(struct symtab *t)
{
    if (!t->reload)
        return;
    free(t->strtab);
    t->strtab = NULL;
}

/* The display name of syms[idx] for resolution results, which outlive the string table: a
 * name in it is copied on first use (only the names of symbols with hits are kept). NULL when
 * the table cannot be read again or memory runs out. */
static const char *sym_name(struct symtab *t, size_t idx)
{
    const struct sym *s = &t->syms[idx];
    const char *d;
    char *copy;

    if (s->name >= t->strtab_len)   /* in the arena: stays */
        return symtab_display(t, &t->dem, t->n, t->syms, idx);
    if ((d = hashmap_get(&t->shown, idx)))
        return d;
    if (symtab_load_names(t))
        return NULL;
    d = symtab_display(t, &t->dem, t->n, t->syms, idx);
    if (d >= t->strtab && d < t->strtab + t->strtab_len) {
        if (t->ncopies == t->cap_copies) {
            size_t cap = t->cap_copies ? t->cap_copies * 2 : 64;
            char **v = realloc(t->copies, cap * sizeof(*v));
            if (!v)
                return NULL;
            t->copies = v;
            t->cap_copies = cap;
        }
        if (!(copy = strdup(d)))
            return NULL;
        t->copies[t->ncopies++] = copy;
        d = copy;
    }
    return hashmap_put(&t->shown, idx, (void *)d) ? NULL : d;
}

static int cand_cmp(const void *pa, const void *pb)
{
    const struct sym_cand *a = pa, *b = pb;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* Sorts by cand_cmp. cand_cmp is a total order (ties broken by order), so the result is unique:
 * an already sorted table (as linkers often write them) is left alone, and a table still in
 * insertion order gets a stable radix sort by start (no comparator calls: qsort of a large
 * library's symbols was ~8% of a report), which gives the same array. */
static void sort_cands(struct sym_cand *v, size_t n)
{
    struct sym_cand *tmp, *src = v, *dst;
    bool sorted = true, in_order = true;
    uint64_t all_or = 0, all_and = ~0ULL;

    for (size_t i = 0; i < n; i++) {
        if (i && cand_cmp(&v[i - 1], &v[i]) >= 0)
            sorted = false;
        if (i && v[i - 1].order >= v[i].order)
            in_order = false;
        all_or |= v[i].start;
        all_and &= v[i].start;
    }
    if (sorted)
        return;
    if (!in_order || n < 256 || !(tmp = malloc(n * sizeof(*tmp)))) {
        qsort(v, n, sizeof(*v), cand_cmp);
        return;
    }
    dst = tmp;
    for (unsigned shift = 0; shift < 64; shift += 8) {
        size_t count[256] = { 0 }, pos = 0;
        if (!(((all_or ^ all_and) >> shift) & 0xff))
            continue;              /* this byte is the same in every start */
        for (size_t i = 0; i < n; i++)
            count[(src[i].start >> shift) & 0xff]++;
        for (size_t d = 0; d < 256; d++) {
            size_t c = count[d];
            count[d] = pos;
            pos += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[count[(src[i].start >> shift) & 0xff]++] = src[i];
        struct sym_cand *t = src;
        src = dst;
        dst = t;
    }
    if (src != v)
        memcpy(v, src, n * sizeof(*v));
    free(tmp);
}

static size_t leading_underscores(const char *s)
{
    size_t n = 0;
    while (s[n] == '_')
        n++;
    return n;
}

/* perf's documented preference between aliases at one address (perf 6.1, choose_best_symbol):
 * non-zero size, then non-weak, then global, then fewer leading underscores, then the longer
 * name (C++ names demangled, as perf's are); on a full tie the earlier symbol stays. Returns true if b beats a. */
static const char *bstr(const struct symtab_builder *b, uint32_t off)
{
    return off < b->strtab_len ? b->strtab + off : b->arena + (off - b->strtab_len);
}

/* A candidate's display name for the alias choice: a PLT slot's is made here (rarely needed:
 * a slot seldom shares its address). *tmp is freed by the caller. */
static const char *cand_name(const struct symtab_builder *bl, const struct sym_cand *c,
                             char **tmp)
{
    if (c->name != SYM_PLT_DEMANGLE)
        return bstr(bl, c->name);
    *tmp = plt_display(bstr(bl, c->raw));
    return *tmp ? *tmp : bstr(bl, c->raw);
}

static bool alias_better(const struct symtab_builder *bld, const struct sym_cand *a,
                         const struct sym_cand *b)
{
    bool aw, bw, ag, bg, r;
    size_t au, bu, al, bl;
    char *ta = NULL, *tb = NULL;
    const char *an, *bn;

    if ((a->size == 0) != (b->size == 0))
        return b->size != 0;
    aw = a->bind == STB_WEAK;
    bw = b->bind == STB_WEAK;
    if (aw != bw)
        return aw;
    ag = a->bind == STB_GLOBAL;
    bg = b->bind == STB_GLOBAL;
    if (ag != bg)
        return bg;
    an = cand_name(bld, a, &ta);
    bn = cand_name(bld, b, &tb);
    /* perf compares the demangled names: "operator delete[]" beats "cfree" */
    char *da = !strncmp(an, "_Z", 2) ? symbol_demangle(an) : NULL;
    char *db = !strncmp(bn, "_Z", 2) ? symbol_demangle(bn) : NULL;
    if (da)
        an = da;
    if (db)
        bn = db;
    au = leading_underscores(an);
    bu = leading_underscores(bn);
    al = strlen(an);
    bl = strlen(bn);
    free(da);
    free(db);
    free(ta);
    free(tb);
    r = au != bu ? bu < au : bl > al;
    return r;
}

int symtab_finish(struct symtab_builder *b, struct symtab *out, bool brackets)
{
    size_t n = b->c.n, i, ns = 0, na = 0;
    struct sym *syms = NULL, *aliases = NULL;

    memset(out, 0, sizeof(*out));
    free(b->raw);              /* the PLT reader is done with it */
    b->raw = NULL;
    if (n) {
        size_t nsyms = 0;
        sort_cands(b->c.v, n);
        for (i = 0; i < n; i++)
            nsyms += !i || b->c.v[i].start != b->c.v[i - 1].start;
        /* Exact sizes: these arrays live as long as the report. */
        syms = malloc(nsyms * sizeof(*syms));
        aliases = n > nsyms ? malloc((n - nsyms) * sizeof(*aliases)) : NULL;
        if (!syms || (n > nsyms && !aliases)) {
            free(syms);
            free(aliases);
            return -ENOMEM;
        }
    }
    for (i = 0; i < n;) {
        size_t j, best = i;
        for (j = i + 1; j < n && b->c.v[j].start == b->c.v[i].start; j++)
            if (alias_better(b, &b->c.v[best], &b->c.v[j]))
                best = j;
        for (size_t k = i; k < j; k++) {
            const struct sym_cand *c = &b->c.v[k];
            struct sym s = { c->start, c->size, c->name, c->raw };
            if (k == best)
                syms[ns++] = s;
            else
                aliases[na++] = s;
        }
        i = j;
    }
    /* Zero-size symbols (assembly, some dynsyms) end where the next one starts, as in perf;
     * the last one gets the rest of its page plus one. */
    for (i = 0; i < ns; i++) {
        if (syms[i].size)
            continue;
        if (i + 1 < ns)
            syms[i].size = syms[i + 1].start - syms[i].start;
        else
            syms[i].size = ((syms[i].start + 4095) & ~4095ULL) + 4096 - syms[i].start;
    }
    for (i = 0; i < na; i++) {
        long k = symtab_index(&(struct symtab){ .syms = syms, .n = ns }, aliases[i].start);
        if (!aliases[i].size && k >= 0)
            aliases[i].size = syms[k].size;
    }
    out->syms = syms;
    out->n = ns;
    out->aliases = aliases;
    out->naliases = na;
    out->strtab = b->strtab;
    out->strtab_len = b->strtab_len;
    out->strtab_off = b->strtab_off;
    out->arena = b->arena;
    if (b->len < b->cap) {     /* the rest of the last doubling */
        char *a = realloc(b->arena, b->len ? b->len : 1);
        if (a)
            out->arena = a;
    }
    b->strtab = NULL;
    out->brackets = brackets;
    b->arena = NULL;
    symtab_builder_release(b);
    return 0;
}

static void free_names(char **v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        if (v[i] != raw_marker)
            free(v[i]);
    free(v);
}

void symtab_release(struct symtab *t)
{
    if (t->gaps) {
        for (size_t i = 0; i <= t->n; i++)
            free(t->gaps[i]);
        free(t->gaps);
    }
    symtab_release_parts(t);
    free_names(t->dem, t->n);
    free_names(t->dem_aliases, t->naliases);
    for (size_t i = 0; i < t->ncopies; i++)
        free(t->copies[i]);
    free(t->copies);
    hashmap_release(&t->shown);
    free(t->syms);
    free(t->aliases);
    free(t->strtab);
    free(t->arena);
    memset(t, 0, sizeof(*t));
}

long symtab_index(const struct symtab *t, uint64_t addr)
{
    size_t lo = 0, hi = t->n;   /* answer: count of symbols with start <= addr, minus one */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->syms[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (long)lo - 1;
}

/* The interned bracket for the gap after symbol idx (idx -1: before the first symbol). */
static const char *gap_name(struct symtab *t, long idx)
{
    size_t g = (size_t)(idx + 1);
    const char *lo, *hi;
    size_t len;

    if (!t->gaps) {
        t->gaps = calloc(t->n + 1, sizeof(*t->gaps));
        if (!t->gaps)
            return NULL;
    }
    if (t->gaps[g])
        return t->gaps[g];
    lo = idx < 0 ? "(start)" : sym_name(t, (size_t)idx);
    hi = g >= t->n ? "(end)" : sym_name(t, g);
    if (!lo || !hi)
        return NULL;
    len = strlen(lo) + strlen(hi) + 3;
    t->gaps[g] = malloc(len);
    if (t->gaps[g])
        snprintf(t->gaps[g], len, "%s->%s", lo, hi);
    return t->gaps[g];
}

/* Was syms[idx]'s display name demangled (it is then in the demangling cache)? */
static bool sym_demangled(const struct symtab *t, long idx)
{
    return idx >= 0 && (size_t)idx < t->n && t->dem && t->dem[idx] && t->dem[idx] != raw_marker;
}

int symtab_resolve_at(struct symtab *t, long idx, uint64_t addr, struct symres *out)
{
    memset(out, 0, sizeof(*out));
    if (idx >= 0) {
        const struct sym *s = &t->syms[idx];
        if (addr - s->start < s->size) {
            out->name = sym_name(t, (size_t)idx);
            out->demangled = sym_demangled(t, idx);
            out->start = s->start;
            out->size = s->size;
            return 0;
        }
    }
    if (!t->brackets || !t->n)
        return 0;
    out->name = gap_name(t, idx);
    if (!out->name)
        return -ENOMEM;
    out->bracket = true;
    out->demangled = sym_demangled(t, idx) || sym_demangled(t, idx + 1);
    out->start = idx >= 0 ? t->syms[idx].start : 0;
    out->gap_start = idx >= 0 ? t->syms[idx].start + t->syms[idx].size : 0;
    out->gap_end = (size_t)(idx + 1) < t->n ? t->syms[idx + 1].start : 0;
    return t->nparts ? symtab_bracket_part(t, idx, addr, out) : 0;
}

/* "ns::func" matches the demangled "ns::func(int) const". */
static bool name_matches(const struct symtab *t, const struct sym *s, const char *dem,
                         const char *name, size_t len)
{
    if (!strcmp(symtab_str(t, s->raw), name) || !strcmp(dem, name))
        return true;
    return dem != symtab_str(t, s->raw) && !strncmp(dem, name, len) && dem[len] == '(';
}

size_t symtab_find(struct symtab *t, const char *name, struct symbol_match *out, size_t max)
{
    size_t len = strlen(name), found = 0;

    if (symtab_load_names(t))
        return 0;
    for (int pass = 0; pass < 2; pass++) {
        const struct sym *v = pass ? t->aliases : t->syms;
        size_t n = pass ? t->naliases : t->n;
        for (size_t i = 0; i < n && found < max; i++) {
            const char *dem = symtab_display(t, pass ? &t->dem_aliases : &t->dem, n, v, i);
            if (!name_matches(t, &v[i], dem, name, len))
                continue;
            out[found].name = dem;
            out[found].start = v[i].start;
            out[found].size = v[i].size;
            found++;
        }
    }
    return found;
}

void symtab_foreach(struct symtab *t, void (*fn)(void *arg, const struct symbol_match *m),
                    void *arg)
{
    if (symtab_load_names(t))
        return;
    for (size_t i = 0; i < t->n; i++) {
        struct symbol_match m = { symtab_display(t, &t->dem, t->n, t->syms, i),
                                  t->syms[i].start, t->syms[i].size };
        fn(arg, &m);
    }
}

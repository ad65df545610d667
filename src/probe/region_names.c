/* SPDX-License-Identifier: MIT */
/* Region names -> function symbols: exact, partly qualified C++, gcc clones, suggestions. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "probe/region.h"
#include "util/editdist.h"
#include "probe/region_names.h"
#include "util/strutil.h"

#define NAME_LEN 1024
#define NEAR_MAX 5

/* The words gcc (and clang's ThinLTO) append to a function it copied or split:
 * "busy.isra.0", "f.constprop.0.isra.0", "g.part.0", "h.cold", "k.lto_priv.0". */
static const char *const clone_words[] = { "isra", "constprop", "part", "cold", "lto_priv",
                                           "localalias", "clone", "llvm" };

static bool is_clone_suffix(const char *s)
{
    if (!*s)
        return false;
    while (*s) {
        size_t i, w = 0, nw = sizeof(clone_words) / sizeof(*clone_words);
        if (*s++ != '.')
            return false;
        for (i = 0; i < nw; i++) {
            w = strlen(clone_words[i]);
            if (!strncmp(s, clone_words[i], w) && (s[w] == '.' || !s[w]))
                break;
        }
        if (i == nw)
            return false;
        s += w;
        while (s[0] == '.' && isdigit((unsigned char)s[1]))
            for (s++; isdigit((unsigned char)*s); s++)
                ;
    }
    return true;
}

bool region_name_unclone(const char *name, char *out, size_t len)
{
    const char *cut = strstr(name, " [clone .");
    size_t n;

    if (!cut && !strchr(name, '(')) {
        cut = strchr(name, '.');
        if (cut && (cut == name || !is_clone_suffix(cut)))
            cut = NULL;
    }
    n = cut ? (size_t)(cut - name) : strlen(name);
    if (n >= len)
        n = len - 1;
    memcpy(out, name, n);
    out[n] = '\0';
    return cut != NULL;
}

static bool ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* At s[i] an "operator" token ("operator<<", "operator()", "operator new", "operator int")?
 * Returns the index after it, else i: its punctuation must not count as brackets. */
static size_t skip_operator(const char *s, size_t i)
{
    size_t j = i + 8;
    if (strncmp(s + i, "operator", 8) || (i && ident_char(s[i - 1])) || ident_char(s[j]))
        return i;
    if ((s[j] == '(' && s[j + 1] == ')') || (s[j] == '[' && s[j + 1] == ']'))
        return j + 2;
    if (s[j] == ' ' && ident_char(s[j + 1])) {
        for (j++; ident_char(s[j]); j++)
            ;
        return j;
    }
    while (s[j] && strchr("<>=!+-*/%^&|~,", s[j]))
        j++;
    return j;
}

/* "void app::work<app::Parser>(app::Parser&) const" -> "app::work<app::Parser>": the name
 * between the return type and the parameters, spaces removed (users write "a<b,c>"). */
static void qualified_name(const char *s, char *out, size_t len)
{
    size_t i = 0, start = 0, end = strlen(s), k = 0;
    int depth = 0;

    while (s[i]) {
        size_t j = skip_operator(s, i);
        if (j != i) {
            i = j;
            continue;
        }
        if (!strncmp(s + i, "(anonymous namespace)", 21)) {
            i += 21;
            continue;
        }
        if (s[i] == '<' || s[i] == '{')
            depth++;
        else if ((s[i] == '>' || s[i] == '}') && depth > 0)
            depth--;
        else if (!depth && s[i] == ' ')
            start = i + 1;
        else if (!depth && s[i] == '(') {
            end = i;
            break;
        }
        i++;
    }
    for (i = start; i < end && k + 1 < len; i++)
        if (s[i] != ' ')
            out[k++] = s[i];
    out[k] = '\0';
}

/* "app::Box<int>::get" -> "app::Box::get" (in place). */
static void strip_templates(char *s)
{
    size_t i = 0, k = 0;
    int depth = 0;
    while (s[i]) {
        size_t j = skip_operator(s, i);
        if (j != i) {
            for (; i < j; i++)
                if (!depth)
                    s[k++] = s[i];
            continue;
        }
        if (s[i] == '<')
            depth++;
        else if (s[i] == '>' && depth > 0)
            depth--;
        else if (!depth)
            s[k++] = s[i];
        i++;
    }
    s[k] = '\0';
}

/* q is want, or ends with "::" + want. */
static bool ends_qualified(const char *q, const char *want)
{
    size_t lq = strlen(q), lw = strlen(want);
    if (lq < lw || strcmp(q + lq - lw, want))
        return false;
    return lq == lw || (lq - lw >= 2 && q[lq - lw - 1] == ':' && q[lq - lw - 2] == ':');
}

struct scan {
    char want[NAME_LEN];        /* spaces removed */
    bool want_templates;        /* the user wrote template arguments: compare them too */
    struct symbol_match m[REGION_NAME_MAX_MATCHES];
    size_t n;
    struct { char name[256]; size_t score; } near[NEAR_MAX];
    char ids[REGION_NAME_MAX_MATCHES][NAME_LEN];    /* the functions matched, unclone'd */
};

static void add_match(struct symbol_match *m, size_t *n, const struct symbol_match *s)
{
    for (size_t i = 0; i < *n; i++)
        if (m[i].start == s->start)
            return;
    if (*n < REGION_NAME_MAX_MATCHES)
        m[(*n)++] = *s;
}

/* Keeps the NEAR_MAX closest names, best first, each once. */
static void suggest(struct scan *s, const char *name, size_t score)
{
    size_t i;
    for (i = 0; i < NEAR_MAX && s->near[i].name[0]; i++)
        if (!strcmp(s->near[i].name, name))
            return;
    for (i = 0; i < NEAR_MAX; i++)
        if (!s->near[i].name[0] || score < s->near[i].score)
            break;
    if (i == NEAR_MAX)
        return;
    memmove(&s->near[i + 1], &s->near[i], (NEAR_MAX - 1 - i) * sizeof(s->near[0]));
    str_copy(s->near[i].name, sizeof(s->near[i].name), name);
    s->near[i].score = score;
}

static void scan_cb(void *arg, const struct symbol_match *m)
{
    struct scan *s = arg;
    char base[NAME_LEN], q[NAME_LEN], bare[NAME_LEN];
    const char *last;
    size_t wl = strlen(s->want), cap = wl / 3 + 2, d;

    region_name_unclone(m->name, base, sizeof(base));
    qualified_name(base, q, sizeof(q));
    str_copy(bare, sizeof(bare), q);
    strip_templates(bare);
    if (ends_qualified(q, s->want) || (!s->want_templates && ends_qualified(bare, s->want))) {
        add_match(s->m, &s->n, m);
        return;
    }
    if (symbol_is_cold_part(m->name))
        return;
    last = strrchr(bare, ':') ? strrchr(bare, ':') + 1 : bare;
    d = edit_distance(s->want, q, cap);
    if (edit_distance(s->want, last, cap) < d)
        d = edit_distance(s->want, last, cap);
    /* A substring either way ("parse" for "parse_header", "fibb" for "fib") is as close as
     * one edit. */
    if (wl >= 3 && strlen(last) >= 3 && (strcasestr(q, s->want) || strcasestr(s->want, last)))
        d = d > 1 ? 1 : d;
    if (d < cap)
        suggest(s, base, d);
}

/* Is m one of the names in ids (display names without clone suffixes)? */
static bool same_function(const struct symbol_match *m, char ids[][NAME_LEN], size_t nids)
{
    char base[NAME_LEN];
    region_name_unclone(m->name, base, sizeof(base));
    for (size_t i = 0; i < nids; i++)
        if (!strcmp(ids[i], base))
            return true;
    return false;
}

static void not_found(const struct scan *s, const char *path, const char *want, char *err,
                      size_t errlen)
{
    size_t used = (size_t)snprintf(err, errlen, "no function '%s' in %s", want, path);
    for (size_t i = 0; i < NEAR_MAX && s->near[i].name[0] && used < errlen; i++)
        used += (size_t)snprintf(err + used, errlen - used, "%s %s",
                                 i ? "," : "; did you mean", s->near[i].name);
}

long region_names_find(struct dso *dso, const char *path, const char *want,
                       struct symbol_match *out, char *note, size_t notelen, char *err,
                       size_t errlen)
{
    struct symbol_match ex[REGION_NAME_MAX_MATCHES];
    struct scan *s = calloc(1, sizeof(*s));
    char (*ids)[NAME_LEN];
    size_t nex = 0, n = 0, nids = 0, hot = 0, originals = 0, clones = 0, used;
    long ret;

    note[0] = err[0] = '\0';
    if (!s)
        return -ENOMEM;
    ids = s->ids;
    for (size_t i = 0, k = 0; want[i] && k + 1 < sizeof(s->want); i++)
        if (want[i] != ' ')
            s->want[k++] = want[i];
    s->want_templates = strchr(want, '<') != NULL;
    {
        struct symbol_match tmp[REGION_NAME_MAX_MATCHES];
        size_t nt = dso_find_symbols(dso, want, tmp, REGION_NAME_MAX_MATCHES);
        for (size_t i = 0; i < nt; i++)
            add_match(ex, &nex, &tmp[i]);
    }
    dso_foreach_symbol(dso, scan_cb, s);
    /* An exact name wins over partial ones; it brings its own clones along. */
    for (size_t i = 0; i < nex && nids < REGION_NAME_MAX_MATCHES; i++)
        region_name_unclone(ex[i].name, ids[nids++], NAME_LEN);
    for (size_t i = 0; i < nex; i++)
        add_match(out, &n, &ex[i]);
    for (size_t i = 0; i < s->n; i++)
        if (!nex || same_function(&s->m[i], ids, nids))
            add_match(out, &n, &s->m[i]);
    /* A function's cold part runs inside the function's crossings. */
    for (size_t i = 0; i < n; i++)
        hot += !symbol_is_cold_part(out[i].name);
    if (hot && hot < n) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (!symbol_is_cold_part(out[i].name))
                out[k++] = out[i];
        n = k;
    }
    /* One function: one name without clone suffixes, and at most one symbol that is not a
     * clone (two static functions of the same name are two functions). */
    nids = 0;
    for (size_t i = 0; i < n; i++) {
        char base[NAME_LEN];
        bool cl = region_name_unclone(out[i].name, base, sizeof(base)) &&
                  !symbol_is_cold_part(out[i].name);
        clones += cl;
        originals += !cl;
        if (!same_function(&out[i], ids, nids))
            str_copy(ids[nids++], NAME_LEN, base);
    }
    if (n == 0) {
        not_found(s, path, want, err, errlen);
        ret = 0;
    } else if (nids > 1 || originals > 1) {
        used = (size_t)snprintf(err, errlen, "'%s' is ambiguous in %s; candidates:", want, path);
        for (size_t i = 0; i < n && used < errlen; i++)
            used += (size_t)snprintf(err + used, errlen - used, "%s %s (0x%llx)", i ? "," : "",
                                     out[i].name, (unsigned long long)out[i].start);
        ret = -ENOTUNIQ;
    } else {
        if (clones) {
            used = (size_t)snprintf(note, notelen, "%s ->", want);
            for (size_t i = 0; i < n && used < notelen; i++)
                used += (size_t)snprintf(note + used, notelen - used, "%s %s", i ? "," : "",
                                         out[i].name);
            if (used < notelen)
                snprintf(note + used, notelen - used, " (gcc clone%s)", clones > 1 ? "s" : "");
        }
        ret = (long)n;
    }
    free(s);
    return ret;
}

/* SPDX-License-Identifier: MIT */
/* ltrace.conf-syntax prototypes (see protoconf.h). */
#include "calltrace/protoconf.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "intarget/calltrace_abi.h"
#include "util/file.h"

extern const char prospect_protos_conf[];

#define NAME_MAX_LEN 128
#define MAX_PROTOS 65536

struct named { char name[NAME_MAX_LEN]; struct ct_uproto p; uint8_t type; };

static struct named *protos, *aliases;
static size_t nprotos, naliases;

/* The interposer's compiled prototypes, and the table's declaration of each built-in (NULL:
 * none), refreshed after every change so that lookups while tracing only read. */
static const struct ct_uproto compiled[CT_NFUNCS] = {
#define U_(n, r, na, a0, a1, a2) { r, na, { a0, a1, a2, 0 } },
    CT_PROTOS(U_)
#undef U_
};
static const struct ct_uproto *declared[CT_NFUNCS];
static const char *const builtin_names[CT_NFUNCS] = {
#define N_(n, r, na, a0, a1, a2) #n,
    CT_PROTOS(N_)
#undef N_
};

static void refresh_declared(void)
{
    for (unsigned f = 0; f < CT_NFUNCS; f++)
        declared[f] = ct_protoconf_find(builtin_names[f]);
}

void ct_protoconf_reset(void)
{
    free(protos);
    free(aliases);
    protos = aliases = NULL;
    nprotos = naliases = 0;
    refresh_declared();
}

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
    return s;
}

/* An identifier at s into out: its end, or NULL. */
static const char *ident(const char *s, char out[NAME_MAX_LEN])
{
    size_t n = 0;
    if (!isalpha((unsigned char)*s) && *s != '_')
        return NULL;
    while ((isalnum((unsigned char)*s) || *s == '_') && n + 1 < NAME_MAX_LEN)
        out[n++] = *s++;
    out[n] = 0;
    return isalnum((unsigned char)*s) || *s == '_' ? NULL : s;
}

/* Past the bracketed group at s (s at its opener), or NULL when it is not closed. */
static const char *skip_group(const char *s)
{
    int depth = 0;
    for (; *s && *s != '\n'; s++) {
        if (*s == '(' || *s == '[')
            depth++;
        else if ((*s == ')' || *s == ']') && --depth == 0)
            return s + 1;
    }
    return NULL;
}

static int base_type(const char *name, uint8_t *t)
{
    static const struct { const char *n; uint8_t t; } map[] = {
        { "void", CT_T_VOID }, { "int", CT_T_INT }, { "short", CT_T_INT }, { "bool", CT_T_INT },
        { "long", CT_T_LONG }, { "uint", CT_T_ULONG }, { "ushort", CT_T_ULONG },
        { "ulong", CT_T_ULONG }, { "octal", CT_T_OCTAL }, { "oct", CT_T_OCTAL },
        { "char", CT_T_CHAR }, { "addr", CT_T_ADDR }, { "file", CT_T_ADDR }, { "hex", CT_T_ADDR },
        { "array", CT_T_ADDR }, { "struct", CT_T_ADDR }, { "bitvec", CT_T_ADDR },
        { "float", CT_T_ADDR }, { "double", CT_T_ADDR }, { "enum", CT_T_INT },
        { "string", CT_T_STR }, { "format", CT_T_STR },
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (!strcmp(name, map[i].n)) {
            *t = map[i].t;      /* oct(int) octal, hex(...) hex, string(...) a string */
            return 0;
        }
    if (!strncmp(name, "string", 6) && isdigit((unsigned char)name[6])) {
        *t = CT_T_STR;          /* string3: bounded by the third argument */
        return 0;
    }
    for (size_t i = 0; i < naliases; i++)
        if (!strcmp(aliases[i].name, name)) {
            *t = aliases[i].type;
            return 0;
        }
    return -EINVAL;
}

/* A type at *s (moved past it) into *t; why on failure. */
static int parse_type(const char **s, uint8_t *t, const char **why)
{
    char name[NAME_MAX_LEN];
    const char *p = skip_ws(*s), *group = NULL;
    if (*p == '+')
        p = skip_ws(p + 1);
    if (!(p = ident(p, name))) {
        *why = "a type name expected";
        return -EINVAL;
    }
    if (*p == '(' || *p == '[') {
        group = p;
        if (!(p = skip_group(p))) {
            *why = "unbalanced brackets";
            return -EINVAL;
        }
    }
    if (base_type(name, t)) {
        *why = "unknown type";
        return -EINVAL;
    }
    for (p = skip_ws(p); *p == '*'; p = skip_ws(p + 1))
        *t = *t == CT_T_CHAR ? CT_T_STR : (*t == CT_T_STR && group) ? CT_T_STR : CT_T_ADDR;
    *s = p;
    return 0;
}

static int push(struct named **v, size_t *n, const struct named *x)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*v)[i].name, x->name)) {
            (*v)[i] = *x;       /* a later file wins */
            return 0;
        }
    if (*n >= MAX_PROTOS)
        return -E2BIG;
    struct named *nv = realloc(*v, (*n + 1) * sizeof(*nv));
    if (!nv)
        return -ENOMEM;
    *v = nv;
    nv[(*n)++] = *x;
    return 0;
}

/* "typedef NAME = TYPE;" after the keyword. */
static int parse_typedef(const char *p, const char **why)
{
    struct named a = { 0 };
    if (!(p = ident(skip_ws(p), a.name)) || *(p = skip_ws(p)) != '=') {
        *why = "typedef NAME = TYPE; expected";
        return -EINVAL;
    }
    p++;
    if (parse_type(&p, &a.type, why))
        return -EINVAL;
    return push(&aliases, &naliases, &a);
}

/* "RET NAME(ARG, ...);" */
static int parse_proto(const char *p, const char **why)
{
    struct named x = { 0 };
    uint8_t t;
    if (parse_type(&p, &x.p.ret, why))
        return -EINVAL;
    if (!(p = ident(skip_ws(p), x.name)) || *(p = skip_ws(p)) != '(') {
        *why = "NAME( expected after the return type";
        return -EINVAL;
    }
    p = skip_ws(p + 1);
    for (unsigned i = 0; *p != ')'; i++) {
        if (parse_type(&p, &t, why))
            return -EINVAL;
        if (i < CT_ANY_NARGS && !(i == 0 && t == CT_T_VOID && *skip_ws(p) == ')'))
            x.p.arg[x.p.nargs++] = t;
        p = skip_ws(p);
        if (*p == ',')
            p = skip_ws(p + 1);
        else if (*p != ')') {
            *why = "',' or ')' expected";
            return -EINVAL;
        }
    }
    if (*skip_ws(p + 1) != ';') {
        *why = "';' expected after ')'";
        return -EINVAL;
    }
    return push(&protos, &nprotos, &x);
}

static int add_text(const char *text, const char *file, char *err, size_t errlen)
{
    unsigned line = 1;
    for (const char *p = text; *p; line++) {
        const char *eol = strchr(p, '\n'), *s = skip_ws(p), *why = "";
        int e = 0;
        if (*s != ';' && *s != '\n' && *s) {
            e = !strncmp(s, "typedef", 7) && !isalnum((unsigned char)s[7])
                    ? parse_typedef(s + 7, &why) : parse_proto(s, &why);
        }
        if (e == -EINVAL) {
            snprintf(err, errlen, "%s:%u: %s", file, line, why);
            return e;
        }
        if (e) {
            snprintf(err, errlen, "%s:%u: %s", file, line, strerror(-e));
            return e;
        }
        if (!eol)
            break;
        p = eol + 1;
    }
    return 0;
}

int ct_protoconf_add(const char *text, const char *file, char *err, size_t errlen)
{
    int e = add_text(text, file, err, errlen);
    refresh_declared();
    return e;
}

int ct_protoconf_builtin(char *err, size_t errlen)
{
    return ct_protoconf_add(prospect_protos_conf, "(built-in protos.conf)", err, errlen);
}

int ct_protoconf_file(const char *path, char *err, size_t errlen)
{
    int fd = file_open_regular(path);
    char *buf;
    size_t len;
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, fd == -EINVAL ? "not a regular file"
                                                            : strerror(-fd));
        return fd;
    }
    int e = file_read_fd(fd, &buf, &len, 16u << 20);
    close(fd);
    if (e < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(-e));
        return e;
    }
    if (memchr(buf, 0, len)) {
        snprintf(err, errlen, "%s:%zu: a NUL byte", path, (size_t)((char *)memchr(buf, 0, len) - buf));
        free(buf);
        return -EINVAL;
    }
    e = ct_protoconf_add(buf, path, err, errlen);
    free(buf);
    return e;
}

const struct ct_uproto *ct_protoconf_find(const char *name)
{
    for (size_t i = 0; name && i < nprotos; i++)
        if (!strcmp(protos[i].name, name))
            return &protos[i].p;
    return NULL;
}

const struct ct_uproto *ct_any_proto(unsigned id)
{
    return id >= CT_NFUNCS ? ct_protoconf_find(ct_any_name(id)) : NULL;
}

const struct ct_uproto *ct_call_proto(unsigned id)
{
    if (id >= CT_NFUNCS)
        return ct_any_proto(id);
    return declared[id] ? declared[id] : &compiled[id];
}

static bool is_string(uint8_t t)
{
    return t == CT_T_STR || t == CT_T_STRN;
}

unsigned ct_builtin_extra_strings(unsigned f)
{
    const struct ct_uproto *d = f < CT_NFUNCS ? declared[f] : NULL, *c = &compiled[f];
    unsigned bits = 0;
    for (unsigned a = 0; d && a < d->nargs && a < 3; a++)
        if (is_string(d->arg[a]) && !(a < c->nargs && is_string(c->arg[a])))
            bits |= 1u << a;
    if (d && d->ret == CT_T_STR && c->ret != CT_T_STR)
        bits |= CT_XSTR_RET;
    return bits;
}

void ct_builtin_strings_field(char *out)
{
    for (unsigned f = 0; f < CT_NFUNCS; f++)
        out[f] = "0123456789abcdef"[ct_builtin_extra_strings(f) & 15];
    out[CT_NFUNCS] = 0;
}

/* The string arguments (bit i) and whether the return is one, of p, into *bits / *ret. */
static void proto_strings(const struct ct_uproto *p, unsigned *bits, bool *ret)
{
    for (unsigned a = 0; p && a < p->nargs; a++)
        if (p->arg[a] == CT_T_STR || p->arg[a] == CT_T_STRN)
            *bits |= 1u << a;
    if (p && p->ret == CT_T_STR)
        *ret = true;
}

unsigned ct_proto_string_args(uint64_t builtin, bool *ret)
{
    unsigned n, bits = 0;
    *ret = false;
    ct_any_fns(&n);
    for (unsigned i = 0; i < n; i++)
        proto_strings(ct_any_proto(CT_NFUNCS + i), &bits, ret);
    for (unsigned f = 0; f < CT_NFUNCS; f++)
        if (builtin & (1ull << f))
            proto_strings(ct_call_proto(f), &bits, ret);
    return bits;
}

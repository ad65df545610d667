/* SPDX-License-Identifier: MIT */
/* ltrace-like text of calls (see callfmt.h). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "calltrace/anyfunc.h"
#include "calltrace/callfmt.h"
#include "calltrace/protoconf.h"
#include "calltrace/uprobe_str.h"
#include "intarget/calltrace_abi.h"

static const struct ct_proto protos[CT_NFUNCS] = {
#define P_(n, r, na, a0, a1, a2) { #n, r, na, { a0, a1, a2 } },
    CT_PROTOS(P_)
#undef P_
};

const char *ct_func_name(unsigned id)
{
    return id < CT_NFUNCS ? protos[id].name : ct_any_name(id);
}

unsigned ct_func_count(void)
{
    return CT_NFUNCS;
}

int ct_alloc_size(const struct ct_call *k, uint64_t *size)
{
    switch (k->func) {
    case CT_F_malloc: case CT_F_valloc:
        *size = k->args[0];
        return 1;
    case CT_F_calloc:
        *size = k->args[0] * k->args[1];
        return 1;
    case CT_F_realloc: case CT_F_aligned_alloc: case CT_F_memalign:
        *size = k->args[1];
        return 1;
    case CT_F_posix_memalign:
        *size = k->args[2];
        return 1;
    default:
        return 0;
    }
}

void ct_escape(const uint8_t *s, size_t n, char *buf, size_t len)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 5 < len; i++) {
        uint8_t c = s[i];
        const char *e = NULL;
        switch (c) {
        case '\n': e = "\\n"; break;
        case '\t': e = "\\t"; break;
        case '\r': e = "\\r"; break;
        case '\b': e = "\\b"; break;
        case '\f': e = "\\f"; break;
        case '\v': e = "\\v"; break;
        case '\a': e = "\\a"; break;
        case '\0': e = "\\0"; break;
        case '\\': e = "\\\\"; break;
        default: break;
        }
        if (e) {
            memcpy(buf + o, e, 2);
            o += 2;
        } else if (c < 0x20 || c >= 0x7f) {
            o += (size_t)snprintf(buf + o, len - o, "\\%03o", c);
        } else {
            buf[o++] = (char)c;
        }
    }
    buf[o < len ? o : len - 1] = 0;
}

static size_t put(char *buf, size_t len, size_t o, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static size_t put(char *buf, size_t len, size_t o, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (o >= len)
        return o;
    va_start(ap, fmt);
    n = vsnprintf(buf + o, len - o, fmt, ap);
    va_end(ap);
    if (n < 0)
        return o;
    return o + (size_t)n < len ? o + (size_t)n : len - 1;
}

/* Fast appenders for the numbers of every line (printf was most of the text output's cost). */
static size_t put_raw(char *buf, size_t len, size_t o, const char *src, size_t n)
{
    if (o + n >= len)
        n = o + 1 < len ? len - o - 1 : 0;
    memcpy(buf + o, src, n);
    buf[o + n] = 0;
    return o + n;
}

static size_t put_udec(char *buf, size_t len, size_t o, uint64_t v, bool neg)
{
    char tmp[24];
    size_t n = sizeof(tmp);
    do
        tmp[--n] = (char)('0' + v % 10);
    while (v /= 10);
    if (neg)
        tmp[--n] = '-';
    return put_raw(buf, len, o, tmp + n, sizeof(tmp) - n);
}

static size_t put_sdec(char *buf, size_t len, size_t o, int64_t v)
{
    return v < 0 ? put_udec(buf, len, o, 0 - (uint64_t)v, true)
                 : put_udec(buf, len, o, (uint64_t)v, false);
}

static size_t put_hex(char *buf, size_t len, size_t o, uint64_t v)
{
    char tmp[20];
    size_t n = sizeof(tmp);
    do
        tmp[--n] = "0123456789abcdef"[v & 15];
    while (v >>= 4);
    tmp[--n] = 'x';
    tmp[--n] = '0';
    return put_raw(buf, len, o, tmp + n, sizeof(tmp) - n);
}

static size_t put_str(char *buf, size_t len, size_t o, const uint8_t *f)
{
    char esc[CT_STR_MAX * 4 + 1];
    if (f[0] == 0xff)
        return put(buf, len, o, "nil");
    unsigned n = f[0] & 0x7f;
    if (n > CT_STR_MAX)
        n = CT_STR_MAX;         /* the program wrote the ring: never trust a length */
    ct_escape(f + 1, n, esc, sizeof(esc));
    return put(buf, len, o, "\"%s\"%s", esc, (f[0] & 0x80) ? "..." : "");
}

static size_t put_char(char *buf, size_t len, size_t o, uint64_t v)
{
    uint8_t c = (uint8_t)v;
    char esc[8];
    if (c == '\'')
        return put(buf, len, o, "'\\''");
    ct_escape(&c, 1, esc, sizeof(esc));
    return put(buf, len, o, "'%s'", esc);
}

static size_t put_value(char *buf, size_t len, size_t o, unsigned type, uint64_t v)
{
    switch (type) {
    case CT_T_INT:
        return put_sdec(buf, len, o, (int)v);
    case CT_T_LONG:
        return put_sdec(buf, len, o, (int64_t)v);
    case CT_T_ULONG:
        return put_udec(buf, len, o, v, false);
    case CT_T_OCTAL:            /* ltrace's oct(int): the register's low 32 bits */
        return put(buf, len, o, "0%o", (unsigned)(uint32_t)v);
    case CT_T_CHAR:
        return put_char(buf, len, o, v);
    case CT_T_ADDR:
    default:
        return v ? put_hex(buf, len, o, v) : put_raw(buf, len, o, "0", 1);
    }
}

/* A value without a prototype, as ltrace shows one: small integers in decimal (an int's -1
 * too, whatever the register's upper half), anything else (addresses) in hex. */
static size_t put_int(char *buf, size_t len, size_t o, uint64_t v)
{
    int64_t sv = (int64_t)v;
    if (sv > -0x100000 && sv < 0x100000)
        return put_sdec(buf, len, o, sv);
    if (!(v >> 32) && (int32_t)v < 0 && (int32_t)v > -0x100000)
        return put_sdec(buf, len, o, (int32_t)v);
    return put_hex(buf, len, o, v);
}

/* A string-typed value: the text kept for it (slot, may be NULL), else its address. */
static size_t put_string_value(char *buf, size_t len, size_t o, const uint8_t *slot,
                               uint64_t v)
{
    if (slot && slot[0] != CT_USTR_UNREADABLE)
        return put_str(buf, len, o, slot);
    return v ? put_value(buf, len, o, CT_T_ADDR, v) : put_raw(buf, len, o, "nil", 3);
}

/* The string kept for argument i (k->strarg: which arguments have one, in order), or NULL. */
static const uint8_t *arg_string(const struct ct_call *k, unsigned i)
{
    if (!(k->strarg & (1u << i)))
        return NULL;
    unsigned s = (unsigned)__builtin_popcount(k->strarg & ((1u << i) - 1));
    return s < k->nstr ? k->str[s] : NULL;
}

/* Arguments by the prototype's types. */
static void format_typed(const struct ct_call *k, const struct ct_uproto *p, char *buf,
                         size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (unsigned i = 0; i < p->nargs; i++) {
        unsigned t = p->arg[i];
        if (i)
            o = put_raw(buf, len, o, ", ", 2);
        if (t == CT_T_STR || t == CT_T_STRN)
            o = put_string_value(buf, len, o, arg_string(k, i), k->args[i]);
        else
            o = put_value(buf, len, o, t, k->args[i]);
    }
}

void ct_format_args(const struct ct_call *k, char *buf, size_t len)
{
    const struct ct_uproto *p = ct_call_proto(k->func);
    if (p) {
        format_typed(k, p, buf, len);
    } else {
        size_t o = 0;
        buf[0] = 0;
        for (unsigned i = 0; i < CT_ANY_NARGS; i++) {
            if (i)
                o = put_raw(buf, len, o, ", ", 2);
            o = put_int(buf, len, o, k->args[i]);
        }
    }
}

void ct_format_ret(const struct ct_call *k, char *buf, size_t len)
{
    const struct ct_uproto *p = ct_call_proto(k->func);
    buf[0] = 0;
    if (!p)
        put_int(buf, len, 0, k->ret);
    else if (p->ret == CT_T_VOID)
        put_raw(buf, len, 0, "<void>", 6);
    else if (p->ret == CT_T_STR)
        put_string_value(buf, len, 0, k->has_rstr ? k->rstr : NULL, k->ret);
    else
        put_value(buf, len, 0, p->ret, k->ret);
}

static const char *type_name(unsigned t)
{
    static const char *const names[] = { "", "void", "int", "long", "ulong", "addr", "string",
                                         "char", "octal", "string(n)" };
    return t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}

const char *ct_func_proto(unsigned id)
{
    static char buf[128];
    const struct ct_proto *p = &protos[id < CT_NFUNCS ? id : 0];
    size_t o = put(buf, sizeof(buf), 0, "%s %s(", type_name(p->ret), p->name);
    for (unsigned i = 0; i < p->nargs; i++)
        o = put(buf, sizeof(buf), o, "%s%s", i ? ", " : "", type_name(p->arg[i]));
    put(buf, sizeof(buf), o, ")");
    return buf;
}

size_t ct_format_line(const struct ct_call *k, const char *obj, const char *sym, uint64_t dur_ns,
                      unsigned indent, char *buf, size_t len)
{
    const char *name = ct_func_name(k->func);
    size_t o = put_udec(buf, len, 0, k->tid, false);
    o = put_raw(buf, len, o, " ", 1);
    while (indent-- && o + 1 < len)
        buf[o++] = ' ';
    o = put_raw(buf, len, o, obj, strlen(obj));
    if (sym && *sym) {
        o = put_raw(buf, len, o, "(", 1);
        o = put_raw(buf, len, o, sym, strlen(sym));
        o = put_raw(buf, len, o, ")", 1);
    }
    o = put_raw(buf, len, o, "->", 2);
    o = put_raw(buf, len, o, name ? name : "?", name ? strlen(name) : 1);
    o = put_raw(buf, len, o, "(", 1);
    ct_format_args(k, buf + o, len - o);
    o += strlen(buf + o);
    o = put_raw(buf, len, o, ")", 1);
    while (o < 48 && o + 1 < len)       /* ltrace's layout: " = " at column 49 */
        buf[o++] = ' ';
    o = put_raw(buf, len, o, " = ", 3);
    ct_format_ret(k, buf + o, len - o);
    o += strlen(buf + o);
    o = put_raw(buf, len, o, " <", 2);
    o = put_udec(buf, len, o, dur_ns / 1000000000ull, false);
    char frac[11];
    uint64_t ns = dur_ns % 1000000000ull;
    frac[0] = '.';
    for (int i = 9; i >= 1; i--, ns /= 10)
        frac[i] = (char)('0' + ns % 10);
    frac[10] = '>';
    o = put_raw(buf, len, o, frac, sizeof(frac));
    return put_raw(buf, len, o, "\n", 1);
}

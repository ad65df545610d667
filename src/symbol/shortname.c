/* SPDX-License-Identifier: MIT */
/* The name reports show for a demangled C++ name: perf's (libiberty without DMGL_PARAMS), made
 * from the full demangled text, which is what the symbol tables keep. */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include "symbol/shortname.h"

static bool ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/* s + i starts the keyword "operator" (not a longer identifier): the end of the operator's
 * own text ("<<", "()", "[]", "new"...), after which no space is a return type's. */
static size_t operator_end(const char *s, size_t i, size_t n)
{
    if (n - i < 8 || strncmp(s + i, "operator", 8) || (i && ident_char(s[i - 1])) ||
        (i + 8 < n && ident_char(s[i + 8])))
        return 0;
    i += 8;
    if (i + 1 < n && (!strncmp(s + i, "()", 2) || !strncmp(s + i, "[]", 2)))
        return i + 2;
    while (i < n && strchr("<>=!+-*/%^&|~,\"", s[i]))
        i++;
    return i;
}

/* The index of the ')' closing the '(' at s + i, or n. */
static size_t group_end(const char *s, size_t i, size_t n)
{
    size_t depth = 0;
    for (; i < n; i++) {
        depth += s[i] == '(';
        if (s[i] == ')' && --depth == 0)
            return i;
    }
    return n;
}

/* A conversion operator ("operator int", "operator void (X::*)()"): its type runs to the
 * last parameter list, which is empty. */
static bool conversion_at(const char *s, size_t op, size_t n)
{
    return op < n && s[op] == ' ' && strncmp(s + op, " new", 4) && strncmp(s + op, " delete", 7);
}

/* Past a member function's qualifiers (" const", " volatile", " &", " &&") from s + i. */
static size_t after_qualifiers(const char *s, size_t i, size_t n)
{
    static const char *const q[] = { " const", " volatile", " &&", " &" };
    for (size_t k = 0; k < 4 && i < n; k++) {
        size_t l = strlen(q[k]);
        if (n - i >= l && !strncmp(s + i, q[k], l)) {
            i += l;
            k = (size_t)-1;       /* again from the first */
        }
    }
    return i;
}

/* The last '(' at depth 0 in s[i, n), or n. */
static size_t last_group(const char *s, size_t i, size_t n)
{
    size_t depth = 0, last = n;
    for (; i < n; i++) {
        if (!depth && s[i] == '(')
            last = i;
        if (strchr("<([{", s[i]))
            depth++;
        else if (strchr(">)]}", s[i]) && depth)
            depth--;
    }
    return last;
}

/* One demangled name s[0, n): [*start, *end) is the part shown. Returns where the name's text
 * stops: n, or a bracket's "->" at depth 0. */
static size_t short_span(const char *s, size_t n, size_t *start, size_t *end)
{
    size_t depth = 0, i = 0, op;
    bool frozen = false;          /* after "operator": no return type spaces any more */

    *start = 0;
    *end = (size_t)-1;
    while (i < n) {
        char c = s[i];
        if (!depth && *end == (size_t)-1 && (op = operator_end(s, i, n))) {
            frozen = true;
            i = op;
            if (conversion_at(s, op, n)) {
                *end = last_group(s, op, n);
                i = n;
            }
        } else if (!depth && c == '(' && !strncmp(s + i, "(anonymous namespace)", 21)) {
            i += 21;
        } else if (!depth && c == '(' && *end == (size_t)-1 && (s[i + 1] == '*' ||
                                                                  s[i + 1] == '&')) {
            /* A function returning a function pointer: "void (*f<int>(long))(int)". */
            size_t j = group_end(s, i, n), a, b;
            short_span(s + i + 2, j - i - 2, &a, &b);
            *start = i + 2 + a;
            *end = i + 2 + b;
            i = j < n ? j + 1 : n;
        } else if (!depth && c == '(' && i >= 9 && !strncmp(s + i - 9, "decltype ", 9)) {
            i = group_end(s, i, n) + 1;   /* a return type's "decltype (expr)" */
        } else if (!depth && c == '(') {
            size_t j = group_end(s, i, n), k = after_qualifiers(s, j + 1, n);
            if (k + 2 <= n && !strncmp(s + k, "::", 2)) {
                i = k;            /* a local entity's enclosing function: kept, as perf */
                continue;
            }
            if (*end == (size_t)-1)
                *end = i;         /* the parameter list: it and what follows go */
            i = j < n ? j + 1 : n;
        } else if (!depth && c == '-' && i + 1 < n && s[i + 1] == '>') {
            break;                /* a bracket's two ends */
        } else {
            if (strchr("<([{", c))
                depth++;
            else if (strchr(">)]}", c) && depth)
                depth--;
            else if (!depth && c == ' ' && !frozen && *end == (size_t)-1)
                *start = i + 1;   /* what came before was the return type */
            i++;
        }
    }
    if (*end == (size_t)-1 || *end > i)
        *end = i;
    if (*start > *end)
        *start = *end;
    return i;
}

/* The Itanium ABI's special names ("non-virtual thunk to f(int)", "guard variable for x",
 * "transaction clone for f()"): libiberty prints them whole with or without parameters, so
 * perf shows them so too. Their prefix is plain words, which no C++ return type ends with. */
static bool special_name(const char *s)
{
    for (size_t i = 0; s[i]; i++) {
        if (!strncmp(s + i, " for ", 5) || !strncmp(s + i, " to ", 4))
            return i > 0;
        if (!isalnum((unsigned char)s[i]) && !strchr(" -#", s[i]))
            return false;
    }
    return false;
}

/* Where a bracket part's "+0xOFF" begins (symtab.h: symtab_bracket_part), else n. */
static size_t part_suffix(const char *s, size_t n)
{
    size_t i = n;

    while (i > 0 && isxdigit((unsigned char)s[i - 1]))
        i--;
    return i < n && i >= 3 && !strncmp(s + i - 3, "+0x", 3) ? i - 3 : n;
}

void symbol_short_name(const char *full, bool bracket, char *out)
{
    size_t n = strlen(full), pos = 0, o = 0, whole = n;

    if (!bracket && special_name(full)) {
        memcpy(out, full, n + 1);
        return;
    }
    if (!bracket && n > 4 && !strcmp(full + n - 4, "@plt"))
        n -= 4;                   /* "f(int)@plt": "f@plt" */
    if (bracket)
        n = part_suffix(full, n);
    while (pos <= n) {
        const char *s = full + pos;
        size_t start, end, stop;
        bool end_mark = n - pos == 5 && !strncmp(s, "(end)", 5);
        if (bracket && (!strncmp(s, "(start)", 7) || end_mark)) {
            start = 0;
            stop = end = !strncmp(s, "(start)", 7) ? 7 : 5;
        } else {
            stop = short_span(s, n - pos, &start, &end);
        }
        memcpy(out + o, s + start, end - start);
        o += end - start;
        if (!bracket || pos + stop >= n)
            break;
        memcpy(out + o, "->", 2);     /* stop is at the bracket's "->" */
        o += 2;
        pos += stop + 2;
    }
    if (n < whole) {              /* "@plt", or a bracket part's "+0xOFF" */
        memcpy(out + o, full + n, whole - n);
        o += whole - n;
    }
    out[o] = '\0';
}

/* SPDX-License-Identifier: MIT */
/* Parsing and --help from a command's option table (cmd/options.h). */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "cmd/options.h"
#include "util/editdist.h"

#define MAX_OPTS 96
#define HELP_COL 25     /* where help text starts; a longer label pushes it right */

struct built {
    const struct cmd_decl *decl;
    struct option longs[MAX_OPTS + 1];
    char shorts[3 * MAX_OPTS + 3];
};

static void build(struct built *b, const struct cmd_decl *d)
{
    size_t nl = 0, ns = 0;

    memset(b, 0, sizeof(*b));
    b->decl = d;
    if (d->flags & OPTD_STOP_AT_COMMAND)
        b->shorts[ns++] = '+';
    b->shorts[ns++] = ':';
    for (const struct optdecl *o = d->opts; o->key && nl < MAX_OPTS; o++) {
        int has = !o->arg ? no_argument : o->arg[0] == '[' ? optional_argument : required_argument;
        if (o->name)
            b->longs[nl++] = (struct option){ o->name, has, NULL, o->key };
        if (o->key < 256 && !(o->flags & OPTD_LONG_ONLY)) {
            b->shorts[ns++] = (char)o->key;
            if (has != no_argument)
                b->shorts[ns++] = ':';
            if (has == optional_argument)
                b->shorts[ns++] = ':';
        }
    }
}

int cmd_getopt(const struct cmd_decl *d, int argc, char **argv)
{
    static struct built b;

    if (b.decl != d)
        build(&b, d);
    return getopt_long(argc, argv, b.shorts, b.longs, NULL);
}

const struct optdecl *cmd_option_find(const struct cmd_decl *d, int key)
{
    for (const struct optdecl *o = d->opts; o->key; o++)
        if (o->key == key)
            return o;
    return NULL;
}

const char *cmd_option_suggest(const struct cmd_decl *d, const char *name)
{
    size_t len = strlen(name);
    struct nearest_name n;

    /* A prefix getopt found ambiguous, or a typo. */
    nearest_name_init(&n, name, len < 6 ? 1 : len < 12 ? 2 : 3, 3);
    for (const struct optdecl *o = d->opts; o->key; o++)
        if (o->name)
            nearest_name_offer(&n, o->name);
    return n.best;
}

void cmd_option_label(const struct optdecl *o, char *buf, size_t len)
{
    bool short_ok = o->key < 256 && !(o->flags & OPTD_LONG_ONLY);
    const char *sep = !o->arg ? "" : o->arg[0] == '[' ? "" : " ";

    if (o->name)
        snprintf(buf, len, "%c%c%s--%s%s%s", short_ok ? '-' : ' ', short_ok ? o->key : ' ',
                 short_ok ? ", " : "  ", o->name, sep, o->arg ? o->arg : "");
    else
        snprintf(buf, len, "-%c%s%s", o->key, sep, o->arg ? o->arg : "");
}

static void print_option(const struct optdecl *o, FILE *f)
{
    char label[128];
    const char *h = o->help, *nl;
    int w;

    cmd_option_label(o, label, sizeof(label));
    w = fprintf(f, "  %s", label);
    fprintf(f, "%*s", w + 2 <= HELP_COL ? HELP_COL - w : 2, "");
    for (;;) {
        nl = strchr(h, '\n');
        fprintf(f, "%.*s\n", nl ? (int)(nl - h) : (int)strlen(h), h);
        if (!nl)
            break;
        h = nl + 1;
        fprintf(f, "%*s", HELP_COL, "");
    }
}

void cmd_decl_print_help(const struct cmd_decl *d, FILE *f)
{
    fprintf(f, "usage: prospect %s %s\n%s", d->name, d->synopsis, d->intro);
    for (const struct optdecl *o = d->opts; o->key; o++)
        print_option(o, f);
    fputs(d->outro, f);
}

/* SPDX-License-Identifier: MIT */
/* Man pages from the command tables: `prospect help --man [COMMAND]` prints roff, which
 * `make install` writes as prospect.1 and prospect-COMMAND.1. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "cmd/cmd.h"
#include "cmd/options.h"

/* Text as roff: backslashes and hyphens escaped, a line starting with '.' or '\'' guarded. */
static void roff_text(FILE *f, const char *s, size_t n)
{
    bool line_start = true;

    for (size_t i = 0; i < n && s[i]; i++) {
        char c = s[i];
        if (line_start && (c == '.' || c == '\''))
            fputs("\\&", f);
        if (c == '\\')
            fputs("\\e", f);
        else if (c == '-')
            fputs("\\-", f);
        else
            fputc(c, f);
        line_start = c == '\n';
    }
}

static void roff_block(FILE *f, const char *s)
{
    fputs(".nf\n", f);
    roff_text(f, s, strlen(s));
    if (*s && s[strlen(s) - 1] != '\n')
        fputc('\n', f);
    fputs(".fi\n", f);
}

static void man_options(FILE *f, const struct cmd_decl *d)
{
    char label[128];

    fputs(".SH OPTIONS\n", f);
    for (const struct optdecl *o = d->opts; o->key; o++) {
        cmd_option_label(o, label, sizeof(label));
        fputs(".TP\n.B ", f);
        const char *l = label;
        while (*l == ' ')
            l++;
        roff_text(f, l, strlen(l));
        fputs("\n", f);
        roff_text(f, o->help, strlen(o->help));
        fputs("\n", f);
    }
}

static void man_command(FILE *f, const struct command *c)
{
    const struct cmd_decl *d = c->decl;

    fputs(".TH PROSPECT\\-", f);
    for (const char *n = d->name; *n; n++)
        fputc(toupper((unsigned char)*n), f);
    fprintf(f, " 1 \"\" \"prospect %s\" \"Prospect Manual\"\n", PROSPECT_VERSION);
    fprintf(f, ".SH NAME\nprospect\\-%s \\- ", d->name);
    roff_text(f, c->summary, strlen(c->summary));
    fputs("\n.SH SYNOPSIS\n.nf\n", f);
    fprintf(f, "prospect %s ", d->name);
    roff_text(f, d->synopsis, strlen(d->synopsis));
    fputs("\n.fi\n.SH DESCRIPTION\n", f);
    roff_block(f, d->intro);
    man_options(f, d);
    if (*d->outro) {
        fputs(".SH NOTES\n", f);
        roff_block(f, d->outro);
    }
    fputs(".SH SEE ALSO\n.BR prospect (1)\n", f);
}

static void man_top(FILE *f)
{
    fprintf(f, ".TH PROSPECT 1 \"\" \"prospect %s\" \"Prospect Manual\"\n", PROSPECT_VERSION);
    fputs(".SH NAME\nprospect \\- a sampling system profiler and performance toolkit for Linux\n"
          ".SH SYNOPSIS\n.B prospect\n[\\-\\-version] [\\-\\-help] COMMAND [ARGS]\n"
          ".SH COMMANDS\n", f);
    for (const struct command *c = prospect_commands; c->name; c++) {
        fprintf(f, ".TP\n.BR prospect\\-%s (1)\n", c->name);
        roff_text(f, c->summary, strlen(c->summary));
        fputc('\n', f);
    }
    fputs(".SH SEE ALSO\n.BR perf (1)\n", f);
}

int cmd_man(const char *name)
{
    const struct command *c;

    if (!name) {
        man_top(stdout);
        return 0;
    }
    if (!(c = command_find(name))) {
        fprintf(stderr, "prospect help: unknown command '%s'\n", name);
        return EXIT_USAGE;
    }
    man_command(stdout, c);
    return 0;
}

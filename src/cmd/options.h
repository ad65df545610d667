/* SPDX-License-Identifier: MIT */
/* Commands declared once: each command's options in one table (struct optdecl), from which
 * come its getopt parsing, its --help, its man page and its shell completion. Options that
 * several commands share are declared once here as OPTD_* entries. */
#ifndef PROSPECT_CMD_OPTIONS_H
#define PROSPECT_CMD_OPTIONS_H
#include <stdio.h>

/* What a shell completes as an option's value. */
enum optd_complete {
    OPTD_COMPLETE_NONE,
    OPTD_COMPLETE_FILE,
    OPTD_COMPLETE_DIR,
    OPTD_COMPLETE_EVENT,     /* names from `prospect list` */
    OPTD_COMPLETE_FUNC,      /* function names of the command's program */
    OPTD_COMPLETE_PID,
    OPTD_COMPLETE_CHOICE,    /* one of .choices */
};

#define OPTD_LONG_ONLY 1u    /* the key is a letter, but -letter is not accepted */

struct optdecl {
    int key;                 /* the short letter, or an id >= 256 for a long-only option; 0 ends */
    const char *name;        /* the long name without "--", or NULL for a short-only option */
    const char *arg;         /* the value's name in help ("FILE"), NULL for a flag */
    const char *help;        /* help lines, '\n' between them */
    enum optd_complete complete;
    const char *choices;     /* space-separated values, for OPTD_COMPLETE_CHOICE */
    unsigned flags;
};

/* Getopt stops at the first non-option (the measured command's own arguments follow). */
#define OPTD_STOP_AT_COMMAND 1u

struct cmd_decl {
    const char *name;        /* "report" */
    const char *synopsis;    /* after "usage: prospect NAME " */
    const char *intro;       /* the text between the usage line and the options */
    const char *outro;       /* the text after the options (examples, exit status) */
    const struct optdecl *opts;
    unsigned flags;          /* OPTD_STOP_AT_COMMAND */
};

/* Options with one meaning everywhere. */
#define OPTD_HELP { 'h', "help", NULL, "this help", OPTD_COMPLETE_NONE, NULL, 0 }
#define OPTD_OUTPUT(text) { 'o', "output", "FILE", text, OPTD_COMPLETE_FILE, NULL, 0 }
#define OPTD_INPUT(text) { 'i', "input", "FILE", text, OPTD_COMPLETE_FILE, NULL, 0 }
#define OPTD_EVENT(text) { 'e', "event", "NAME", text, OPTD_COMPLETE_EVENT, NULL, 0 }
#define OPTD_FORMAT(key, arg, choices, text) \
    { key, "format", arg, text, OPTD_COMPLETE_CHOICE, choices, 0 }
#define OPTD_HTML_SOURCE_TOP(key) \
    { key, "html-source-top", "N", \
        "html: source and assembly of the N hottest functions (by self\n" \
        "samples; default 50, 0 none), from annotate's engine", 0, NULL, 0 }

/* The next option's key as getopt_long returns it ('?' unknown, ':' value missing, -1 at the
 * end), from the table: the caller sets optind and opterr as for getopt_long. */
int cmd_getopt(const struct cmd_decl *d, int argc, char **argv);
/* The table entry for a key, or NULL. */
const struct optdecl *cmd_option_find(const struct cmd_decl *d, int key);
/* The long option closest to NAME (without "--") by edit distance, if close enough. */
const char *cmd_option_suggest(const struct cmd_decl *d, const char *name);

/* --help: the usage line, intro, the options' column, outro. */
void cmd_decl_print_help(const struct cmd_decl *d, FILE *f);
/* The option's first help column ("-o, --output FILE") into buf. */
void cmd_option_label(const struct optdecl *o, char *buf, size_t len);
#endif

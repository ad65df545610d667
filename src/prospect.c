/* SPDX-License-Identifier: MIT */
/* main(): dispatch to the commands of src/cmd/commands.c, nothing else. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "cmd/cmd.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: prospect [--version] [--help] COMMAND [ARGS]\n\n"
               "Prospect: a sampling system profiler and performance toolkit for Linux.\n\n"
               "Commands:\n");
    for (const struct command *c = prospect_commands; c->name; c++)
        fprintf(f, "  %-10s %s\n", c->name, c->summary);
    fprintf(f, "  %-10s %s\n", "help", "show help for a command ('prospect help run'; "
               "--man: its man page in roff)");
    fprintf(f, "\nRun 'prospect COMMAND --help' for the options of a command.\n");
}

static int dispatch(int argc, char **argv, const char **name)
{
    const struct command *c;

    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("prospect %s\n", PROSPECT_VERSION);
        return 0;
    }
    if (!strcmp(argv[1], "__complete"))
        return cmd_complete(argc - 2, argv + 2);
    if (!strcmp(argv[1], "help")) {
        if (argc >= 3 && !strcmp(argv[2], "--man"))
            return cmd_man(argc >= 4 ? argv[3] : NULL);
        if (argc < 3 || !strcmp(argv[2], "help")) {
            usage(stdout);
            return 0;
        }
        if (!command_find(argv[2])) {
            fprintf(stderr, "prospect: unknown command '%s'\n", argv[2]);
            return 2;
        }
        return cmd_help(argv[2]);
    }
    if (argv[1][0] == '-') {
        fprintf(stderr, "prospect: unknown option '%s'\n", argv[1]);
        usage(stderr);
        return 2;
    }
    c = command_find(argv[1]);
    if (!c) {
        const struct command *near = command_suggest(argv[1]);
        if (near)
            fprintf(stderr, "prospect: unknown command '%s'; did you mean '%s'?\n", argv[1],
                    near->name);
        else
            fprintf(stderr, "prospect: unknown command '%s'\n", argv[1]);
        usage(stderr);
        return 2;
    }
    *name = c->name;
    cmd_begin(c->name);
    return c->fn(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
    const char *name = NULL;
    int status;

    if (cmd_stdout_setup()) {
        fprintf(stderr, "prospect: out of memory\n");
        return 1;
    }
    status = dispatch(argc, argv, &name);

    /* Every write to stdout is checked here, the help and version texts' too. */
    status = cmd_finish_stdout(name, status);
    if (cmd_exit_signal) {
        signal(cmd_exit_signal, SIG_DFL);
        raise(cmd_exit_signal);
    }
    return status;
}

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "probe/region.h"

const struct command *command_find(const char *name)
{
    for (const struct command *c = prospect_commands; c->name; c++)
        if (!strcmp(c->name, name))
            return c;
    return NULL;
}

const struct command *command_suggest(const char *name)
{
    const struct command *best = NULL;
    size_t best_d = 3;

    for (const struct command *c = prospect_commands; c->name; c++) {
        size_t d = edit_distance(name, c->name, 3);
        if (strlen(name) >= 2 && !strncmp(c->name, name, strlen(name)))
            d = 0;
        if (d < best_d) {
            best = c;
            best_d = d;
        }
    }
    return best;
}

void cmd_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "prospect %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "prospect %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'prospect %s --help' for more information.\n", cmd);
    return EXIT_USAGE;
}

int cmd_help(const char *cmd)
{
    const struct command *c = command_find(cmd);
    if (c)
        cmd_decl_print_help(c->decl, stdout);
    return 0;
}

int cmd_bad_option(const char *cmd, char **argv, int optind_now, int optopt_now, int c)
{
    const char *arg = optind_now > 0 ? argv[optind_now - 1] : "";
    char shortopt[3] = { '-', (char)optopt_now, '\0' };

    /* For a bundled or unknown short option, argv holds more than the option itself. */
    if (optopt_now && (arg[0] != '-' || arg[1] != '-'))
        arg = shortopt;
    const struct command *command = command_find(cmd);
    const char *near = NULL;

    if (c == ':')
        return cmd_usage_error(cmd, "option '%s' needs a value", arg);
    if (command && arg[0] == '-' && arg[1] == '-' && arg[2]) {
        char name[128];
        snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
        near = cmd_option_suggest(command->decl, name);
    }
    if (near)
        return cmd_usage_error(cmd, "unknown option '%s'; did you mean '--%s'?", arg, near);
    return cmd_usage_error(cmd, "unknown option '%s'", arg);
}

int cmd_stream_errno(FILE *f)
{
    errno = 0;
    if (fflush(f) == 0 && !ferror(f))
        return 0;
    /* glibc keeps the bytes a failed write could not pass on: flushing again repeats that
     * write and its errno (ENOSPC rather than a vague EIO). */
    if (errno == 0)
        fflush(f);
    return errno ? errno : EIO;
}

int cmd_finish_stdout(const char *cmd, int status)
{
    int e = cmd_stream_errno(stdout);

    if (!e)
        return status;
    fprintf(stderr, "prospect%s%s: writing standard output: %s\n", cmd ? " " : "",
            cmd ? cmd : "", strerror(e));
    return status ? status : 1;
}

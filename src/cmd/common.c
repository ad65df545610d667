/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "util/editdist.h"
#include "symbol/dso.h"

const struct command *command_find(const char *name)
{
    for (const struct command *c = prospect_commands; c->name; c++)
        if (!strcmp(c->name, name))
            return c;
    return NULL;
}

const struct command *command_suggest(const char *name)
{
    struct nearest_name n;

    nearest_name_init(&n, name, 2, 2);
    for (const struct command *c = prospect_commands; c->name; c++)
        nearest_name_offer(&n, c->name);
    return n.best ? command_find(n.best) : NULL;
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

static const char *current_cmd = "";

/* A debuginfod lookup that waits: said, so a silent pause is not taken for a hang. */
static void say_waiting(const char *msg)
{
    fprintf(stderr, "prospect %s: note: %s\n", current_cmd, msg);
}

void cmd_begin(const char *name)
{
    current_cmd = name;
    symbol_debuginfod_on_wait(say_waiting);
}

int cmd_exit_signal;

void cmd_exit_by_sigint(int stop_signal, int status)
{
    if (stop_signal == SIGINT && status == 128 + SIGINT)
        cmd_exit_signal = SIGINT;
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

/* Standard output's first write error, and whether a command has taken (and said) it. */
static int stdout_errno;
static bool stdout_error_taken;

static ssize_t stdout_write(void *cookie, const char *buf, size_t len)
{
    ssize_t n;
    (void)cookie;
    while ((n = write(STDOUT_FILENO, buf, len)) < 0 && errno == EINTR)
        continue;
    if (n < 0 && !stdout_errno)
        stdout_errno = errno;
    return n;
}

int cmd_stdout_setup(void)
{
    /* stdio keeps a failed write's errno nowhere: by the time a renderer sees ferror(), errno
     * is another call's. stdout through this writer remembers it ("No space left on device",
     * not a vague EIO); stdout is assignable in glibc for this. */
    static const cookie_io_functions_t io = { .write = stdout_write };
    FILE *f = fopencookie(NULL, "w", io);

    if (!f)
        return -errno;
    if (setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ)) {
        fclose(f);
        return -ENOMEM;
    }
    stdout = f;
    return 0;
}

static int cmd_stream_errno_of(FILE *f)
{
    errno = 0;
    if (fflush(f) == 0 && !ferror(f))
        return 0;
    if (f == stdout && stdout_errno)
        return stdout_errno;
    /* glibc keeps the bytes a failed write could not pass on: flushing again repeats that
     * write and its errno (ENOSPC rather than a vague EIO). */
    if (errno == 0)
        fflush(f);
    return errno ? errno : EIO;
}

int cmd_stream_errno(FILE *f)
{
    int e = cmd_stream_errno_of(f);

    if (e && f == stdout)
        stdout_error_taken = true;
    return e;
}

int cmd_finish_stdout(const char *cmd, int status)
{
    bool said = stdout_error_taken;
    int e = cmd_stream_errno(stdout);

    if (!e)
        return status;
    if (said)               /* the command said it already: one error, not two */
        return status ? status : 1;
    fprintf(stderr, "prospect%s%s: writing standard output: %s\n", cmd ? " " : "",
            cmd ? cmd : "", strerror(e));
    return status ? status : 1;
}

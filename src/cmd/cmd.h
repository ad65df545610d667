/* SPDX-License-Identifier: MIT */
/* The command layer: one cmd_<name>() per subcommand, each in src/cmd/<name>.c. Only this layer
 * prints to the user and chooses exit statuses. */
#ifndef PROSPECT_CMD_H
#define PROSPECT_CMD_H
#include <stdio.h>

#define PROSPECT_VERSION "0.1.0"

/* Exit status for usage errors (unknown option, bad value), as most Unix tools use. */
#define EXIT_USAGE 2

struct cmd_decl;

struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
    const struct cmd_decl *decl;    /* its options, --help, man page, completion (options.h) */
};

/* The command table (src/cmd/commands.c), ended by a NULL name. */
extern const struct command prospect_commands[];
const struct command *command_find(const char *name);

/* Prints "prospect CMD: <message>" and a usage hint to stderr; returns EXIT_USAGE. */
int cmd_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* For getopt's '?' or ':' (optstring starting with "+:" or ":", opterr = 0): names the unknown
 * option (with the closest of the command's options, if one is close), or the one missing its
 * value, in one line plus the usage hint; returns EXIT_USAGE.
 * Call as cmd_bad_option(cmd, argv, optind, optopt, c). */
int cmd_bad_option(const char *cmd, char **argv, int optind_now, int optopt_now, int c);
/* Prints "prospect CMD: <message>" to stderr. */
void cmd_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The errno of a failed write to f (after flushing it), or 0. For stdout, the errno of its
 * first failed write; a command that gets it non-zero says the error itself. */
int cmd_stream_errno(FILE *f);
/* Puts stdout through a writer that remembers its first write's errno (main(), first). */
int cmd_stdout_setup(void);
/* Warns on stderr when the program a command launches is set-user-ID, set-group-ID or has file
 * capabilities (of another owner, not on a nosuid mount): the kernel detaches perf events at
 * such an exec. `consequence` says what that does to this command's results. */
void cmd_warn_setid(const char *cmd, const char *program, const char *consequence);
/* Flushes stdout at the end of a command (cmd: NULL outside one): a write error, e.g. "No space
 * left on device" for `> /dev/full`, is printed (unless the command said it already) and
 * makes a 0 status 1. Returns the status. */
int cmd_finish_stdout(const char *cmd, int status);
/* Before a command runs (its name, for the notes said while it runs). */
void cmd_begin(const char *name);
/* The signal main() dies of after the command returned and stdout was flushed (0: none). */
extern int cmd_exit_signal;
/* A command stopped by Ctrl-C whose status is 128+SIGINT (its command died of it) dies of
 * SIGINT too, as `run` and `record` do: a shell loop around it then stops. */
void cmd_exit_by_sigint(int stop_signal, int status);
/* Prints the command's --help text to stdout; returns 0. */
int cmd_help(const char *cmd);
/* `prospect help --man [COMMAND]`: the man page in roff on stdout (src/cmd/manpage.c). */
int cmd_man(const char *name);
/* `prospect __complete INDEX WORDS...`: the shell's candidates, one a line (complete.c). */
int cmd_complete(int argc, char **argv);
/* The command closest to a mistyped name, or NULL. */
const struct command *command_suggest(const char *name);

struct evlist;
struct evsel;
/* The event whose samples a report of a perf.data file shows: NAME, else the first that samples
 * (not perf's side-band "dummy"); NULL if there is no such event (src/cmd/report.c). */
const struct evsel *pick_evsel(const struct evlist *evl, const char *name);

int cmd_run(int argc, char **argv);
extern const struct cmd_decl cmd_run_decl;
int cmd_record(int argc, char **argv);
extern const struct cmd_decl cmd_record_decl;
int cmd_report(int argc, char **argv);
extern const struct cmd_decl cmd_report_decl;
int cmd_script(int argc, char **argv);
extern const struct cmd_decl cmd_script_decl;
int cmd_check(int argc, char **argv);
extern const struct cmd_decl cmd_check_decl;
int cmd_stat(int argc, char **argv);
extern const struct cmd_decl cmd_stat_decl;
int cmd_list(int argc, char **argv);
extern const struct cmd_decl cmd_list_decl;
int cmd_diff(int argc, char **argv);
extern const struct cmd_decl cmd_diff_decl;
int cmd_annotate(int argc, char **argv);
extern const struct cmd_decl cmd_annotate_decl;
int cmd_replay(int argc, char **argv);
extern const struct cmd_decl cmd_replay_decl;
int cmd_trace(int argc, char **argv);
extern const struct cmd_decl cmd_trace_decl;
int cmd_lines(int argc, char **argv);
extern const struct cmd_decl cmd_lines_decl;
#endif

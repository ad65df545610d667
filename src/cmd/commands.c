/* SPDX-License-Identifier: MIT */
/* The command table: dispatch (src/prospect.c), help, "did you mean", man pages and completion
 * all read it here. */
#include <stddef.h>
#include "cmd/cmd.h"

const struct command prospect_commands[] = {
    { "run", cmd_run, "profile a command (or the whole system) and print the report", &cmd_run_decl },
    { "record", cmd_record, "profile like run, but write a perf.data file", &cmd_record_decl },
    { "report", cmd_report, "read a perf.data file and report it", &cmd_report_decl },
    { "script", cmd_script, "print every sample of a perf.data file, one line each (perf script)", &cmd_script_decl },
    { "diff", cmd_diff, "compare two perf.data files per symbol (perf diff), or as a differential flame graph", &cmd_diff_decl },
    { "annotate", cmd_annotate, "hits per instruction of a perf.data file's functions, source lines interleaved", &cmd_annotate_decl },
    { "trace", cmd_trace, "trace a program's library calls (malloc, free, ...), like ltrace", &cmd_trace_decl },
    { "lines", cmd_lines, "exact executions per source line of a command (gprof's listing)", &cmd_lines_decl },
    { "stat", cmd_stat, "count events over a program or over regions of it (-r)", &cmd_stat_decl },
    { "list", cmd_list, "list the events that open on this machine", &cmd_list_decl },
    { "replay", cmd_replay, "replay a malloc trace (trace -w file or ltrace log) against allocators, timed", &cmd_replay_decl },
    { "check", cmd_check, "is this machine quiet enough to measure? (isolation, IRQs, frequency, ...)", &cmd_check_decl },
    { NULL, NULL, NULL, NULL },
};

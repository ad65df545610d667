/* SPDX-License-Identifier: MIT */
/* The -i of report, script and diff: given once or more, each a file or a quoted glob
 * ('perf.data.*', the parts of `record --switch-output`, in name order: time order for
 * them), read as one by perfdata_open_many. */
#ifndef PROSPECT_CMD_INPUTS_H
#define PROSPECT_CMD_INPUTS_H
#include <stddef.h>
#include "perf/perfdata.h"

struct cmd_inputs {
    char **v;
    size_t n;
};

/* Adds arg: the file itself when it exists or has no glob characters, else the files the
 * pattern matches. 0, or 1 with the error printed for cmd (no match, out of memory). */
int cmd_inputs_add(struct cmd_inputs *in, const char *cmd, const char *arg);
/* The inputs as one, or dflt when none was given. 0 or as perfdata_open_many. */
int cmd_inputs_open(const struct cmd_inputs *in, const char *dflt, struct perfdata **pd,
                    struct perfdata_error *err);
/* The first input's name (for messages), or dflt. */
const char *cmd_inputs_first(const struct cmd_inputs *in, const char *dflt);
void cmd_inputs_release(struct cmd_inputs *in);
#endif

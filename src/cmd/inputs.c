/* SPDX-License-Identifier: MIT */
#include "cmd/inputs.h"
#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cmd/cmd.h"

static int push(struct cmd_inputs *in, const char *path)
{
    char *copy = strdup(path), **n;

    if (!copy)
        return -ENOMEM;
    if (!(n = realloc(in->v, (in->n + 1) * sizeof(*n)))) {
        free(copy);
        return -ENOMEM;
    }
    in->v = n;
    in->v[in->n++] = copy;
    return 0;
}

int cmd_inputs_add(struct cmd_inputs *in, const char *cmd, const char *arg)
{
    struct stat st;
    glob_t g;
    int ret = 0;

    if (!strpbrk(arg, "*?[") || !lstat(arg, &st)) {
        ret = push(in, arg);
    } else {
        switch (glob(arg, 0, NULL, &g)) {
        case 0:
            for (size_t i = 0; i < g.gl_pathc && !ret; i++)
                ret = push(in, g.gl_pathv[i]);
            globfree(&g);
            break;
        case GLOB_NOMATCH:
            cmd_error(cmd, "%s: no file matches the pattern", arg);
            return 1;
        default:
            ret = -ENOMEM;
        }
    }
    if (ret)
        cmd_error(cmd, "%s: %s", arg, strerror(-ret));
    return ret ? 1 : 0;
}

int cmd_inputs_open(const struct cmd_inputs *in, const char *dflt, struct perfdata **pd,
                    struct perfdata_error *err)
{
    if (!in->n)
        return perfdata_open(dflt, pd, err);
    return perfdata_open_many((const char *const *)in->v, in->n, pd, err);
}

const char *cmd_inputs_first(const struct cmd_inputs *in, const char *dflt)
{
    return in->n ? in->v[0] : dflt;
}

void cmd_inputs_release(struct cmd_inputs *in)
{
    for (size_t i = 0; i < in->n; i++)
        free(in->v[i]);
    free(in->v);
    in->v = NULL;
    in->n = 0;
}

/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include "util/proc_tasks.h"
#include "util/strutil.h"
#include "util/vec.h"

int proc_task_ids(pid_t pid, pid_t **out, size_t *n)
{
    VEC(pid_t) v = { 0 };
    char dir[64];
    struct dirent *de;
    DIR *d;

    *out = NULL;
    *n = 0;
    snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
    if (!(d = opendir(dir)))
        return -errno;
    while ((de = readdir(d))) {
        uint64_t tid;
        if (parse_u64(de->d_name, &tid) || tid == 0 || tid > 0x7fffffff)
            continue;
        if (vec_push(&v, (pid_t)tid)) {
            closedir(d);
            vec_free(&v);
            return -ENOMEM;
        }
    }
    closedir(d);
    if (!v.n)
        return -ESRCH;
    *out = v.v;
    *n = v.n;
    return 0;
}

/* SPDX-License-Identifier: MIT */
/* Writing and removing the interposer's file (see preload.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "calltrace/preload.h"
#include "probe/jump_files.h"
#include "util/launch.h"
#include <fcntl.h>
#include <gelf.h>

extern const unsigned char prospect_calltrace_preload_so[];
extern const unsigned long prospect_calltrace_preload_so_len;

#define SO_NAME "calltrace_preload.so"

int ct_preload_setup(struct ct_preload *p)
{
    const char *pre = getenv("LD_PRELOAD");
    int e;
    p->env = NULL;
    p->dir[0] = 0;
    if ((e = jump_make_dir(p->dir, sizeof(p->dir)))) {
        p->dir[0] = 0;
        return e;
    }
    if ((e = jump_write_file(p->dir, SO_NAME, prospect_calltrace_preload_so,
                             prospect_calltrace_preload_so_len, 0700))) {
        ct_preload_remove(p);
        return e;
    }
    /* Ours first: the program's own LD_PRELOAD (an allocator, say) is what we call through. */
    if (asprintf(&p->env, "LD_PRELOAD=%s/%s%s%s", p->dir, SO_NAME, pre && *pre ? ":" : "",
                 pre && *pre ? pre : "") < 0) {
        p->env = NULL;
        ct_preload_remove(p);
        return -ENOMEM;
    }
    return 0;
}

void ct_preload_remove(struct ct_preload *p)
{
    char path[PATH_MAX];
    if (p->dir[0]) {
        snprintf(path, sizeof(path), "%s/%s", p->dir, SO_NAME);
        unlink(path);
        rmdir(p->dir);
        p->dir[0] = 0;
    }
    free(p->env);
    p->env = NULL;
}

int ct_static_note(const char *cmd)
{
    char path[PATH_MAX];
    size_t n = 0;
    int is_static = 0, fd;
    Elf *e;
    if (launch_resolve(cmd, path, sizeof(path)) || elf_version(EV_CURRENT) == EV_NONE)
        return 0;
    if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
        return 0;
    /* libelf checks the headers against the file; a non-ELF (a script) is "not static". */
    if ((e = elf_begin(fd, ELF_C_READ, NULL)) && elf_kind(e) == ELF_K_ELF &&
        !elf_getphdrnum(e, &n) && n) {
        is_static = 1;
        for (size_t i = 0; i < n; i++) {
            GElf_Phdr ph;
            if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP)
                is_static = 0;
        }
    }
    if (e)
        elf_end(e);
    close(fd);
    return is_static;
}

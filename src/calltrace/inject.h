/* SPDX-License-Identifier: MIT */
/* `trace -p` through the GOT: load the interposer into a running process and let it point the
 * process's GOT entries of the traced functions at its wrappers (restored on detach; see
 * src/intarget/calltrace_preload.c's attach section). Loading takes one ptrace stop of one
 * thread, for one dlopen call; the other threads run on. */
#ifndef PROSPECT_CALLTRACE_INJECT_H
#define PROSPECT_CALLTRACE_INJECT_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct ct_inject {
    char dir[512];          /* private directory: the library, attach.conf, the socket */
    int listen_fd;
};

/* Writes the files and listens. 0 or -errno. */
int ct_inject_prepare(struct ct_inject *in, uint64_t mask, bool follow);
/* Makes process pid dlopen the interposer. 0 or -errno with a one-line reason in err. */
int ct_inject_load(struct ct_inject *in, pid_t pid, char *err, size_t errlen);
/* The interposer's connection (made during the load): a descriptor, or -errno. */
int ct_inject_accept(struct ct_inject *in);
/* Removes the files (the library stays mapped in the process). */
void ct_inject_remove(struct ct_inject *in);
#endif

/* SPDX-License-Identifier: MIT */
/* Does the program start threads the hook's wrappers do not see (inproc_priv.h)? It imports
 * a function that makes one without pthread_create, thrd_create or fork: `clone` itself, or
 * glibc's calls that start helper threads inside the library (POSIX AIO, a SIGEV_THREAD
 * timer or message queue notification, getaddrinfo_a). Its counters are then `lock`ed from
 * the start, since such a thread may run counted code while they would still be plain. */
#include <gelf.h>
#include <string.h>
#include "lines/inproc_priv.h"
#include "symbol/elf_dynsym.h"

static const char *const starters[] = {
    "clone", "clone3", "__clone", "aio_read", "aio_write", "aio_fsync", "aio_read64",
    "aio_write64", "aio_fsync64", "lio_listio", "lio_listio64", "timer_create", "mq_notify",
    "getaddrinfo_a",
};

/* An imported starter: stops the walk with its index + 1. */
static int imported_starter(void *arg, const GElf_Sym *s, const char *name)
{
    (void)arg;
    for (size_t i = 0; s->st_shndx == SHN_UNDEF && i < sizeof(starters) / sizeof(*starters); i++)
        if (!strcmp(name, starters[i]))
            return (int)i + 1;
    return 0;
}

const char *inproc_hidden_threads(Elf *elf)
{
    int hit = elf_dynsym_each(elf, imported_starter, NULL);
    return hit ? starters[hit - 1] : NULL;
}

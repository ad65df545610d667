/* SPDX-License-Identifier: MIT */
/* Does the program start threads the hook's wrappers do not see (inproc_priv.h)? It imports
 * a function that makes one without pthread_create, thrd_create or fork: `clone` itself, or
 * glibc's calls that start helper threads inside the library (POSIX AIO, a SIGEV_THREAD
 * timer or message queue notification, getaddrinfo_a). Its counters are then `lock`ed from
 * the start, since such a thread may run counted code while they would still be plain. */
#include <gelf.h>
#include <string.h>
#include "lines/inproc_priv.h"

static const char *const starters[] = {
    "clone", "clone3", "__clone", "aio_read", "aio_write", "aio_fsync", "aio_read64",
    "aio_write64", "aio_fsync64", "lio_listio", "lio_listio64", "timer_create", "mq_notify",
    "getaddrinfo_a",
};

static const char *starter(const char *name)
{
    for (size_t i = 0; i < sizeof(starters) / sizeof(*starters); i++)
        if (!strcmp(name, starters[i]))
            return starters[i];
    return NULL;
}

const char *inproc_hidden_threads(Elf *elf)
{
    Elf_Scn *scn = NULL;
    while (elf && (scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        Elf_Data *d;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize ||
            !(d = elf_getdata(scn, NULL)))
            continue;
        for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Sym s;
            const char *name, *hit;
            if (gelf_getsym(d, (int)i, &s) && s.st_shndx == SHN_UNDEF && s.st_name &&
                (name = elf_strptr(elf, sh.sh_link, s.st_name)) && (hit = starter(name)))
                return hit;
        }
    }
    return NULL;
}

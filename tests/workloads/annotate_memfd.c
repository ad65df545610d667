/* Code run from a memfd mapping (as sealed loaders do): the map's path is
 * "/memfd:spin (deleted)", a file no tool can open afterwards. With argv[2] "jit", from
 * anonymous memory named in /tmp/perf-PID.map as a JIT does (its path printed on stdout; the
 * caller removes it). argv[1] scales the work. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* mov %edi,%ecx; 1: dec %ecx; jnz 1b; ret */
static const unsigned char spin[] = { 0x89, 0xf9, 0xff, 0xc9, 0x75, 0xfc, 0xc3 };

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 200;
    long page = sysconf(_SC_PAGESIZE);
    int fd = memfd_create("spin", MFD_CLOEXEC);
    void *code;

    if (argc > 2 && !strcmp(argv[2], "jit")) {
        char path[64];
        FILE *map;
        code = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE | PROT_EXEC,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (code == MAP_FAILED)
            return 1;
        memcpy(code, spin, sizeof(spin));
        snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
        if (!(map = fopen(path, "w")))
            return 1;
        fprintf(map, "%lx %zx spin_jit\n", (unsigned long)code, sizeof(spin));
        fclose(map);
        printf("%s\n", path);
        fflush(stdout);
        for (unsigned long i = 0; i < n; i++)
            ((void (*)(int))code)(1000000);
        return 0;
    }
    if (fd < 0 || ftruncate(fd, page))
        return 1;
    if (pwrite(fd, spin, sizeof(spin), 0) != (ssize_t)sizeof(spin))
        return 1;
    code = mmap(NULL, (size_t)page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
    if (code == MAP_FAILED)
        return 1;
    for (unsigned long i = 0; i < n; i++)
        ((void (*)(int))code)(1000000);
    return 0;
}
/* SPDX-License-Identifier: MIT */

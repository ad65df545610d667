/* A tiny "JIT": copies a counting loop into anonymous executable memory, announces it in
 * /tmp/perf-PID.map (the perf JIT convention) and runs it. With "hostile" as argv[2] the name
 * it announces is made of terminal escapes, invalid UTF-8 and 5000 letters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    /* mov rcx, 200000000; 1: dec rcx; jnz 1b; ret */
    static const unsigned char code[] = { 0x48, 0xc7, 0xc1, 0x00, 0xc2, 0xeb, 0x0b,
                                          0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3 };
    unsigned char *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char path[64];
    FILE *f;
    int rounds = argc > 1 ? atoi(argv[1]) : 3;

    if (mem == MAP_FAILED)
        return 1;
    memcpy(mem, code, sizeof(code));
    snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
    f = fopen(path, "w");
    if (!f)
        return 1;
    if (argc > 2 && !strcmp(argv[2], "hostile")) {
        fprintf(f, "%lx %zx \x1b[2J\x07" "evil\xff\xfe", (unsigned long)mem, sizeof(code));
        for (int i = 0; i < 5000; i++)
            fputc('A' + i % 26, f);
        fputc('\n', f);
    } else {
        fprintf(f, "%lx %zx jitted_count_loop\n", (unsigned long)mem, sizeof(code));
    }
    fclose(f);
    for (int i = 0; i < rounds; i++)
        ((void (*)(void))mem)();
    printf("jit done\n");
    /* The map file stays: the profiler reads it after we exit (perf's convention too); the
     * test removes it. */
    return 0;
}
/* SPDX-License-Identifier: MIT */

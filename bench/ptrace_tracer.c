/* SPDX-License-Identifier: MIT */
/* A minimal region tracer with Perforator's mechanism, for comparison in `make bench`:
 * ptrace, an int3 at the region's start; on the hit, restore the byte, read the return
 * address from the stack and put an int3 there; on the return hit, restore it and re-arm the
 * start. A software counter (task-clock of the child) is read at every crossing.
 *   usage: ptrace_tracer START_FILE_OFFSET_HEX PROGRAM [ARGS]   (prints crossings on stderr)
 * The start address is found from the PIE load base in /proc/PID/maps. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

static uint64_t load_base(pid_t pid, const char *prog)
{
    char path[64], line[512], real[4096];
    uint64_t base = 0;
    FILE *f;

    if (!realpath(prog, real))
        return 0;
    snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
    f = fopen(path, "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f)) {
        unsigned long lo, off;
        char *p = strchr(line, '/');
        if (!p)
            continue;
        p[strcspn(p, "\n")] = '\0';
        if (sscanf(line, "%lx-%*lx %*s %lx", &lo, &off) == 2 && !strcmp(p, real) && off == 0) {
            base = lo;
            break;
        }
    }
    fclose(f);
    return base;
}

static long poke_int3(pid_t pid, uint64_t addr, long *orig)
{
    errno = 0;
    *orig = ptrace(PTRACE_PEEKTEXT, pid, (void *)addr, NULL);
    if (errno)
        return -1;
    return ptrace(PTRACE_POKETEXT, pid, (void *)addr, (void *)((*orig & ~0xffL) | 0xcc));
}

int main(int argc, char **argv)
{
    struct perf_event_attr a;
    struct user_regs_struct regs;
    uint64_t start, ret_addr = 0, counter, total = 0, before = 0;
    long orig_start, orig_ret = 0, crossings = 0;
    int status, fd;
    pid_t pid;

    if (argc < 3) {
        fprintf(stderr, "usage: %s START_OFFSET_HEX PROGRAM [ARGS]\n", argv[0]);
        return 2;
    }
    pid = fork();
    if (pid == 0) {
        ptrace(PTRACE_TRACEME, 0, NULL, NULL);
        execv(argv[2], argv + 2);
        _exit(127);
    }
    waitpid(pid, &status, 0);   /* stopped at exec */
    start = load_base(pid, argv[2]) + strtoull(argv[1], NULL, 16);
    memset(&a, 0, sizeof(a));
    a.size = sizeof(a);
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    fd = (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, 0);
    if (fd < 0 || poke_int3(pid, start, &orig_start)) {
        perror("setup");
        kill(pid, SIGKILL);
        return 1;
    }
    for (;;) {
        ptrace(PTRACE_CONT, pid, NULL, NULL);
        if (waitpid(pid, &status, 0) < 0 || WIFEXITED(status) || WIFSIGNALED(status))
            break;
        if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGTRAP)
            continue;
        ptrace(PTRACE_GETREGS, pid, NULL, &regs);
        if (regs.rip - 1 == start) {
            /* Entry: restore the byte, re-execute it, trap the return address. */
            ptrace(PTRACE_POKETEXT, pid, (void *)start, (void *)orig_start);
            regs.rip = start;
            ptrace(PTRACE_SETREGS, pid, NULL, &regs);
            errno = 0;
            ret_addr = (uint64_t)ptrace(PTRACE_PEEKDATA, pid, (void *)regs.rsp, NULL);
            poke_int3(pid, ret_addr, &orig_ret);
            if (read(fd, &before, sizeof(before)) != sizeof(before))
                break;
        } else if (ret_addr && regs.rip - 1 == ret_addr) {
            if (read(fd, &counter, sizeof(counter)) != sizeof(counter))
                break;
            total += counter - before;
            crossings++;
            ptrace(PTRACE_POKETEXT, pid, (void *)ret_addr, (void *)orig_ret);
            regs.rip = ret_addr;
            ptrace(PTRACE_SETREGS, pid, NULL, &regs);
            poke_int3(pid, start, &orig_start);
            ret_addr = 0;
        }
    }
    fprintf(stderr, "crossings %ld task-clock %llu ns\n", crossings, (unsigned long long)total);
    return 0;
}

/* For `record --switch-output=signal`: PARTS phases of CALLS getppid system calls each (a
 * tracepoint fired an exact number of times: 1 + PARTS * CALLS in all, the first finds the
 * recorder). Between two phases it sends the recorder (its parent) SIGUSR2 and waits until the
 * recorder's output FILE is a new file (the finished part was renamed), so that each phase
 * lands in parts of its own. With PARTS 1 no signal: the same calls for an uninterrupted
 * recording. */
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The inode of the recorder's current output, 0 while there is none. */
static ino_t output_inode(const char *path)
{
    struct stat st;
    return stat(path, &st) ? 0 : st.st_ino;
}

__attribute__((noinline)) void phase(long calls)
{
    for (long i = 0; i < calls; i++)
        syscall(SYS_getppid);
}

int main(int argc, char **argv)
{
    const struct timespec ms = { 0, 1000000 };
    pid_t recorder = (pid_t)syscall(SYS_getppid);
    long parts, calls;

    if (argc != 4)
        return 2;
    parts = strtol(argv[2], NULL, 0);
    calls = strtol(argv[3], NULL, 0);
    for (long p = 0; p < parts; p++) {
        ino_t before = output_inode(argv[1]);
        phase(calls);
        if (p + 1 == parts)
            break;
        kill(recorder, SIGUSR2);
        for (ino_t now; !(now = output_inode(argv[1])) || now == before; )
            nanosleep(&ms, NULL);      /* waits for the rotation, not for a time */
    }
    return 0;
}
/* SPDX-License-Identifier: MIT */

/* prospect lines -p with the in-process counters: commands on stdin, one byte each, answered
 * by a line on stdout once done. At the attach its main thread waits in a read(2) made by
 * its own code (raw_read: that function holds a thread's pc), another thread in libc's
 * read(2) and, after 'c', a forked child in another; 's' starts a thread that loops in
 * spin() until 'q' (it runs in the copy when Prospect detaches). A read that fails (EINTR:
 * a system call not restarted as the kernel would) ends it with status 3.
 *   r: rounds(1000)   c: fork the child   s: start the spinner   p: wait for 1000 more spins
 *   q: stop the spinner, release the waiter and the child, exit 0 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long sink;
static volatile long spun;      /* written by the spinner only (no lock prefix: a uprobe
                                 * cannot go on a locked instruction) */
static atomic_int stop;
static int wake[2], child_wake[2];

/* read(2) made here, not in libc: while a thread waits in it, its pc is in this function. */
static long raw_read(int fd, void *buf, long n)
{
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_read), "D"((long)fd), "S"(buf), "d"(n)
                     : "rcx", "r11", "memory");
    return r;                                       /* L:raw_ret */
}

static void rounds(int n)
{
    for (int i = 0; i < n; i++)                     /* L:rounds_for */
        sink += i;                                  /* L:rounds_body */
}

static void *spin(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop))                     /* L:spin_while */
        spun = spun + 1;                            /* L:spin_add */
    return NULL;
}

/* Blocked in libc's read until 'q'; a failure there (EINTR, an -ERESTART* value) would be
 * Prospect's doing. */
static void *waiter(void *arg)
{
    char c;
    (void)arg;
    if (read(wake[0], &c, 1) != 1) {
        printf("the waiter's read failed: %s\n", strerror(errno));
        exit(3);
    }
    return NULL;
}

static pid_t fork_child(void)
{
    pid_t pid = fork();
    char c;
    if (pid)
        return pid;
    if (read(child_wake[0], &c, 1) != 1)
        _exit(3);
    rounds(7);
    _exit(0);
}

static int finish(pthread_t spinner, int spinning, pthread_t w, pid_t child)
{
    int st = 0;
    atomic_store(&stop, 1);
    if (spinning)
        pthread_join(spinner, NULL);
    if (write(wake[1], "q", 1) != 1 || (child && write(child_wake[1], "q", 1) != 1))
        return 1;
    pthread_join(w, NULL);
    if (child && (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st)))
        return puts("the child failed"), 3;
    puts("done");
    return 0;
}

int main(void)
{
    pthread_t w, spinner;
    int spinning = 0;
    pid_t child = 0;
    char c;
    long r;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (pipe(wake) || pipe(child_wake) || pthread_create(&w, NULL, waiter, NULL))
        return 1;
    puts("ready");
    while ((r = raw_read(0, &c, 1)) == 1) {         /* L:main_read */
        if (c == 'r') {
            rounds(1000);                           /* L:main_rounds */
            puts("rounds");
        } else if (c == 'c') {
            child = fork_child();
            printf("child %d\n", (int)child);
        } else if (c == 's' && !spinning) {
            spinning = !pthread_create(&spinner, NULL, spin, NULL);
            while (spinning && spun < 1000) /* L:wait_spun */
                ;
            puts("spinning");
        } else if (c == 'p') {
            for (long to = spun + 1000; spinning && spun < to;)
                ;                                   /* L:wait_progress */
            puts("progress");
        } else if (c == 'q') {
            return finish(spinner, spinning, w, child);
        }
    }
    printf("main's read failed: %s\n", strerror((int)-r));
    return 3;
}
/* SPDX-License-Identifier: MIT */

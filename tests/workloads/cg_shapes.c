/* Call-stack shapes for call-graph tests and bench (issue 10), built -O0
 * -fno-omit-frame-pointer so every frame is in the frame-pointer chain:
 *   cg_shapes deep ROUNDS MAXDEPTH [fixed]
 *                                    recursion through four functions (d0 > d1 > d2 > d3 > d0
 *                                    ...), each round MAXDEPTH deep (fixed) or 16..MAXDEPTH
 *                                    (pseudo-random), the work in work()
 *   cg_shapes chain ROUNDS           48 distinct functions c0 > c1 > ... > c47 > work, each
 *                                    round entering at a pseudo-random c1..c32: 16-47 frames
 *                                    of distinct functions (bench/)
 *   cg_shapes threads ROUNDS         two threads, one in thread_a -> work, one in thread_b
 *   cg_shapes napspin                a thread naps 200 ms in nap() and spins 200 ms in spin()
 *   cg_shapes fork ROUNDS [PROG]     the parent works in parent_work, then forks a child that
 *                                    execs "PROG child ROUNDS" (default itself; work under
 *                                    child_work): a copy under another name gets its own comm */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void work(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        sink += i;
}

static unsigned rnd_state = 12345;
static unsigned rnd(void)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return rnd_state >> 16;
}

__attribute__((noinline)) static void d0(int n);
__attribute__((noinline)) static void d1(int n);
__attribute__((noinline)) static void d2(int n);
__attribute__((noinline)) static void d3(int n);
#define DEEP(me, next) \
    static void me(int n) { if (n > 0) next(n - 1); else work(20000); sink++; }
DEEP(d0, d1)
DEEP(d1, d2)
DEEP(d2, d3)
DEEP(d3, d0)

#define CHAIN(me, next) \
    __attribute__((noinline)) static void me(void) { next(); sink++; }
__attribute__((noinline)) static void c47(void) { work(20000); sink++; }
CHAIN(c46, c47)
CHAIN(c45, c46)
CHAIN(c44, c45)
CHAIN(c43, c44)
CHAIN(c42, c43)
CHAIN(c41, c42)
CHAIN(c40, c41)
CHAIN(c39, c40)
CHAIN(c38, c39)
CHAIN(c37, c38)
CHAIN(c36, c37)
CHAIN(c35, c36)
CHAIN(c34, c35)
CHAIN(c33, c34)
CHAIN(c32, c33)
CHAIN(c31, c32)
CHAIN(c30, c31)
CHAIN(c29, c30)
CHAIN(c28, c29)
CHAIN(c27, c28)
CHAIN(c26, c27)
CHAIN(c25, c26)
CHAIN(c24, c25)
CHAIN(c23, c24)
CHAIN(c22, c23)
CHAIN(c21, c22)
CHAIN(c20, c21)
CHAIN(c19, c20)
CHAIN(c18, c19)
CHAIN(c17, c18)
CHAIN(c16, c17)
CHAIN(c15, c16)
CHAIN(c14, c15)
CHAIN(c13, c14)
CHAIN(c12, c13)
CHAIN(c11, c12)
CHAIN(c10, c11)
CHAIN(c9, c10)
CHAIN(c8, c9)
CHAIN(c7, c8)
CHAIN(c6, c7)
CHAIN(c5, c6)
CHAIN(c4, c5)
CHAIN(c3, c4)
CHAIN(c2, c3)
CHAIN(c1, c2)
CHAIN(c0, c1)
static void (*const chain_entry[32])(void) = {
    c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19, c20,
    c21, c22, c23, c24, c25, c26, c27, c28, c29, c30, c31, c32
};

__attribute__((noinline)) static void thread_a(void) { work(400000000ul); }
__attribute__((noinline)) static void thread_b(void) { work(400000000ul); }
static void *run_a(void *arg) { (void)arg; thread_a(); return NULL; }
static void *run_b(void *arg) { (void)arg; thread_b(); return NULL; }

/* The sleep is a raw syscall made here, so the user part of the switch-out's stack starts in
 * nap itself (libc's wrapper has no frame pointer: its caller would be skipped). */
__attribute__((noinline)) static void nap(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    long ret;
    do
        __asm__ volatile("syscall" : "=a"(ret) : "0"(35L), "D"(&ts), "S"(&ts)
                         : "rcx", "r11", "memory");
    while (ret == -4);      /* EINTR: the rest of the time is in ts */
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 200 ms of this thread's CPU time, however busy the machine is. */
__attribute__((noinline)) static void spin(double sec)
{
    double end = now() + sec;
    while (now() < end)
        work(10000);
}

static void *napspin(void *arg)
{
    (void)arg;
    nap(200);
    spin(0.2);
    return NULL;
}

__attribute__((noinline)) static void parent_work(long r) { work((unsigned long)r * 1000000); }
__attribute__((noinline)) static void child_work(long r) { work((unsigned long)r * 1000000); }

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    long rounds = argc > 2 ? atol(argv[2]) : 100;

    if (!strcmp(mode, "deep")) {
        int maxd = argc > 3 ? atoi(argv[3]) : 47;
        int fixed = argc > 4 && !strcmp(argv[4], "fixed");
        for (long r = 0; r < rounds; r++)
            d0(fixed || maxd <= 16 ? maxd : 16 + (int)(rnd() % (unsigned)(maxd - 15)));
    } else if (!strcmp(mode, "chain")) {
        for (long r = 0; r < rounds; r++)
            chain_entry[rnd() % 32]();
    } else if (!strcmp(mode, "threads")) {
        pthread_t a, b;
        if (pthread_create(&a, NULL, run_a, NULL) || pthread_create(&b, NULL, run_b, NULL))
            return 1;
        pthread_join(a, NULL);
        pthread_join(b, NULL);
    } else if (!strcmp(mode, "napspin")) {
        pthread_t t;
        if (pthread_create(&t, NULL, napspin, NULL))
            return 1;
        pthread_join(t, NULL);
    } else if (!strcmp(mode, "fork")) {
        char self[4096], rs[32];
        ssize_t n = argc > 3 ? (ssize_t)strlen(argv[3]) : readlink("/proc/self/exe", self,
                                                                  sizeof(self) - 1);
        pid_t pid;
        int st;
        if (n <= 0)
            return 1;
        if (argc > 3)
            snprintf(self, sizeof(self), "%s", argv[3]);
        self[n < (ssize_t)sizeof(self) ? n : (ssize_t)sizeof(self) - 1] = '\0';
        snprintf(rs, sizeof(rs), "%ld", rounds);
        parent_work(rounds);
        pid = fork();
        if (pid == 0) {
            execl(self, self, "child", rs, (char *)NULL);
            _exit(127);
        }
        if (pid < 0 || waitpid(pid, &st, 0) != pid)
            return 1;
        return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
    } else if (!strcmp(mode, "child")) {
        child_work(rounds);
    } else {
        fprintf(stderr, "usage: cg_shapes deep|chain|threads|napspin|fork|child [ROUNDS ...]\n");
        return 2;
    }
    return 0;
}
/* SPDX-License-Identifier: MIT */

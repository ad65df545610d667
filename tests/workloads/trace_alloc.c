/* The workload of `prospect trace`'s tests (tests/e2e/trace.sh), one mode per argument:
 *   threads   issue 12's: 3 threads, each 1,000 x malloc(144), 500 x malloc(128), 250 x
 *             calloc(5, 8), every block freed; prints "done" on stdout
 *   forkexec  5 x malloc(100); a child does 7 x malloc(200) then execs "child" (10 x
 *             malloc(33), exit 5); the parent prints "child 5"
 *   signal    20,000 x malloc(16); a SIGUSR1 handler raised every 1,000 calls does malloc(77)
 *   none      no call to any traced function (write(2) by syscall); exit 7
 *   one       single-threaded mix for the comparison with ltrace
 *   segv      malloc(1), then dies of SIGSEGV
 *   dlsym     5 x dlsym(RTLD_DEFAULT, "malloc"), malloc(150), free; prints "dlsym"
 *   attach    for -p: prints "ready" on stdout, then per line read on stdin ("go N") does N x
 *             malloc(144)/free and answers "did N"; "fork N": a child does N x malloc(145)
 *             and exits 3, answer "forked 3"; ends at EOF (built -no-pie with
 *             -DTAKE_FREE_ADDRESS too: free's address is taken)
 *   sigint    as attach, and each SIGINT is answered "sigint" on stdout instead of ending it */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void *volatile sink;
#ifdef TAKE_FREE_ADDRESS
/* free's address, taken in code: built -no-pie -fno-pic, the program then defines `free` as
 * its PLT stub (trace -p must still find libc's). Not in the default build: ltrace would miss
 * the calls made through the GOT slot the address shares. */
static void (*volatile free_fp)(void *);
#endif

static void *work(void *a)
{
    (void)a;
    for (int i = 0; i < 1000; i++) { sink = malloc(144); free(sink); }
    for (int i = 0; i < 500; i++) { sink = malloc(128); free(sink); }
    for (int i = 0; i < 250; i++) { sink = calloc(5, 8); free(sink); }
    return NULL;
}

static void on_int(int s)
{
    (void)s;
    write(1, "sigint\n", 7);
}

static void on_usr1(int s)
{
    (void)s;
    sink = malloc(77);
    free(sink);
}

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "threads";
    if (!strcmp(m, "threads")) {
        pthread_t t[3];
        for (int i = 0; i < 3; i++)
            pthread_create(&t[i], NULL, work, NULL);
        for (int i = 0; i < 3; i++)
            pthread_join(t[i], NULL);
        puts("done");
    } else if (!strcmp(m, "child")) {
        for (int i = 0; i < 10; i++) { sink = malloc(33); free(sink); }
        return 5;
    } else if (!strcmp(m, "forkexec")) {
        for (int i = 0; i < 5; i++) { sink = malloc(100); free(sink); }
        fflush(stdout);
        pid_t p = fork();
        if (!p) {
            for (int i = 0; i < 7; i++) { sink = malloc(200); free(sink); }
            execl("/proc/self/exe", argv[0], "child", (char *)NULL);
            _exit(99);
        }
        int st = 0;
        waitpid(p, &st, 0);
        printf("child %d\n", WEXITSTATUS(st));
    } else if (!strcmp(m, "signal")) {
        signal(SIGUSR1, on_usr1);
        for (int i = 0; i < 20000; i++) {
            sink = malloc(16);
            free(sink);
            if (i % 1000 == 0)
                raise(SIGUSR1);
        }
    } else if (!strcmp(m, "dlsym")) {
        for (int i = 0; i < 5; i++) {
            sink = dlsym(RTLD_DEFAULT, "malloc");
            sink = malloc(150);
            free(sink);
        }
        puts("dlsym");
    } else if (!strcmp(m, "none")) {
        syscall(SYS_write, 1, "quiet\n", 6);
        return 7;
    } else if (!strcmp(m, "one")) {
        char *p, *q, *s;
        sink = malloc(144); p = sink;
        sink = calloc(5, 8); q = sink;
        sink = realloc(p, 300); p = sink;
        free(q);
        sink = strdup("hello \"world\"\n\t"); s = sink;
        sink = (void *)strlen(s);
        free(s);
        free(p);
        sink = malloc(0);
        free(sink);
        puts("one");
    } else if (!strcmp(m, "segv")) {
        sink = malloc(1);
        raise(SIGSEGV);
    } else if (!strcmp(m, "attach") || !strcmp(m, "sigint")) {
        char line[64];
        int n;
        if (m[0] == 's')
            signal(SIGINT, on_int);
        setvbuf(stdout, NULL, _IONBF, 0);   /* its buffer is allocated before "ready" */
#ifdef TAKE_FREE_ADDRESS
        free_fp = free;
        free_fp(malloc(8));
#endif
        printf("ready %d\n", (int)getpid());
        while (fgets(line, sizeof(line), stdin)) {
            if (sscanf(line, "fork %d", &n) == 1) {
                /* A child that allocates malloc(145) n times, then exits 3. */
                pid_t p = fork();
                if (!p) {
                    for (int i = 0; i < n; i++) { sink = malloc(145); free(sink); }
                    _exit(3);
                }
                int st = 0;
                waitpid(p, &st, 0);
                printf("forked %d\n", WEXITSTATUS(st));
                continue;
            }
            if (sscanf(line, "go %d", &n) != 1)
                break;
            for (int i = 0; i < n; i++) { sink = malloc(144); free(sink); }
            printf("did %d\n", n);
        }
    }
    return 0;
}
/* SPDX-License-Identifier: MIT */

/* prospect lines -p on a thread inside a signal handler: main runs busy()'s loop (no call in
 * it) until a helper thread, seeing it there, sends it SIGUSR1; the handler says "handler"
 * and waits in read(2) for one byte of stdin, so Prospect attaches while the pc it
 * interrupted (in busy) is only in the signal frame. Then busy ends, "spun"; one more byte,
 * "done", status 7. argv[1] "alt": the handler runs on a sigaltstack. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile sig_atomic_t released;
static volatile long spins;
static atomic_int in_loop;

static void say(const char *s)
{
    if (write(1, s, strlen(s)) < 0)
        _exit(2);
}

static void on_usr1(int sig)
{
    char c;
    (void)sig;
    say("handler\n");
    if (read(0, &c, 1) == 1)
        released = 1;
}

/* Sends the signal once main is in busy()'s loop: the pc it interrupts is there. */
static void *signaller(void *arg)
{
    while (!atomic_load(&in_loop))
        ;
    pthread_kill(*(pthread_t *)arg, SIGUSR1);
    return NULL;
}

static void busy(void)
{
    atomic_store(&in_loop, 1);
    while (!released)
        spins++;                                    /* L:busy_loop */
}

static int handle_usr1(int alt)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_RESTART | (alt ? SA_ONSTACK : 0);
    if (alt) {
        stack_t ss = { .ss_size = 65536 };
        ss.ss_sp = mmap(NULL, ss.ss_size, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (ss.ss_sp == MAP_FAILED || sigaltstack(&ss, NULL))
            return -1;
    }
    return sigaction(SIGUSR1, &sa, NULL);
}

int main(int argc, char **argv)
{
    pthread_t self = pthread_self(), t;
    char c;
    if (handle_usr1(argc > 1 && !strcmp(argv[1], "alt")) ||
        pthread_create(&t, NULL, signaller, &self))
        return 1;
    busy();
    pthread_join(t, NULL);
    say("spun\n");
    if (read(0, &c, 1) != 1)
        return 3;
    say("done\n");
    return 7;
}
/* SPDX-License-Identifier: MIT */

/* Stacks for the unwinding tests (tests/e2e/callgraph_unwind.sh), built -O2
 * -fno-omit-frame-pointer, so gcc leaves the frame pointer out of the leaf only:
 *   split ROUNDS  main -> via_a -> leaf three times out of five, main -> via_b -> leaf twice
 *   rec ROUNDS    main -> rec (5 deep) -> leaf
 *   sig ROUNDS    main -> raiser -> raise(SIGUSR1): the handler on_sig -> leaf runs on the
 *                 signal frame (__restore_rt) above raise
 *   thread ROUNDS main -> pthread_create; the thread: start_thread -> worker -> leaf
 *   vdso ROUNDS   main -> ticker -> clock_gettime -> the vDSO's __vdso_clock_gettime
 *   lib ROUNDS    main -> lib_work (libunwlib.so, stripped, no frame pointers) -> its static
 *                 helper, named only as a dynamic-symbol bracket */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void leaf(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        sink += i;
}

/* The empty asm after the call keeps it a call (not a tail jump): via_a keeps its frame. A
 * round is about 6 µs, far shorter than a sampling period; its calls come in a random order
 * (below), so samples do not alias with it. */
__attribute__((noinline)) void via_a(void) { leaf(5000); __asm__ volatile(""); }
__attribute__((noinline)) void via_b(void) { leaf(5000); __asm__ volatile(""); }

__attribute__((noinline)) void rec(int depth)
{
    if (depth)
        rec(depth - 1);
    else
        leaf(200000);
    __asm__ volatile("");
}

__attribute__((noinline)) void on_sig(int sig)
{
    (void)sig;
    leaf(200000);
    __asm__ volatile("");
}

__attribute__((noinline)) void raiser(void)
{
    raise(SIGUSR1);
    __asm__ volatile("");
}

__attribute__((noinline)) void ticker(void)
{
    struct timespec ts;
    for (int i = 0; i < 1000; i++) {
        clock_gettime(CLOCK_MONOTONIC, &ts);
        sink += (unsigned long)ts.tv_nsec;
    }
}

__attribute__((noinline)) void *worker(void *arg)
{
    long rounds = *(long *)arg;
    for (long r = 0; r < rounds; r++)
        leaf(200000);
    __asm__ volatile("");
    return NULL;
}

#ifdef WITH_LIB
void lib_work(unsigned long n);
#endif

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "split";
    long rounds = argc > 2 ? atol(argv[2]) : 1000;

    signal(SIGUSR1, on_sig);
    if (!strcmp(mode, "thread")) {
        pthread_t t;
        if (pthread_create(&t, NULL, worker, &rounds))
            return 1;
        pthread_join(t, NULL);
        return 0;
    }
    for (long r = 0; r < rounds; r++) {
        if (!strcmp(mode, "rec")) {
            rec(5);
        } else if (!strcmp(mode, "sig")) {
            raiser();
        } else if (!strcmp(mode, "vdso")) {
            ticker();
#ifdef WITH_LIB
        } else if (!strcmp(mode, "lib")) {
            lib_work(200000);
#endif
        } else {
            /* Three via_a and two via_b in an order drawn anew each round: a sampling
             * period that is a near multiple of a round would otherwise keep landing in the
             * same call for many samples in a row (seen: 57/43 in one run). */
            static const unsigned char orders[10] = { 0x07, 0x0b, 0x0d, 0x0e, 0x13, 0x15,
                                                      0x16, 0x19, 0x1a, 0x1c };
            static unsigned long x = 88172645463325252ul;
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            unsigned char o = orders[x % 10];
            for (int k = 0; k < 5; k++)
                (o >> k & 1) ? via_a() : via_b();
        }
    }
    return 0;
}
/* SPDX-License-Identifier: MIT */

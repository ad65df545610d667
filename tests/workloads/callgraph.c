/* A known call structure for call-graph reports: main -> via_a -> leaf three times out of five,
 * main -> via_b -> leaf twice; with "rec", main -> rec (5 deep, recursive) -> leaf. Built -O0
 * -fno-omit-frame-pointer so every frame is in the frame-pointer chain.
 * With "nap", each round ends in a 1 ms nanosleep made by a raw syscall from nap() itself, so
 * the process is switched out at a known user frame (sched_switch call chains) with no libc frame.
 * usage: callgraph ROUNDS [rec|nap] */
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void leaf(void)
{
    for (unsigned long i = 0; i < 200000; i++)
        sink += i;
}

__attribute__((noinline)) static void via_a(void) { leaf(); }
__attribute__((noinline)) static void via_b(void) { leaf(); }

__attribute__((noinline)) static void rec(int depth)
{
    if (depth)
        rec(depth - 1);
    else
        leaf();
}

__attribute__((noinline)) static void nap(void)
{
    struct timespec ts = {0, 1000000};
    long rc;
    __asm__ volatile("syscall" : "=a"(rc) : "0"((long)SYS_nanosleep), "D"(&ts), "S"(0L)
                     : "rcx", "r11", "memory");
    (void)rc;
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 1000;
    int recursive = argc > 2 && !strcmp(argv[2], "rec");
    int napping = argc > 2 && !strcmp(argv[2], "nap");

    for (long r = 0; r < rounds; r++) {
        if (recursive) {
            rec(5);
            continue;
        }
        via_a(); via_a(); via_a();
        via_b(); via_b();
        if (napping)
            nap();
    }
    return 0;
}
/* SPDX-License-Identifier: MIT */

/* A known call structure for call-graph reports: main -> via_a -> leaf three times out of five,
 * main -> via_b -> leaf twice; with "rec", main -> rec (5 deep, recursive) -> leaf. Built -O0
 * -fno-omit-frame-pointer so every frame is in the frame-pointer chain.
 * usage: callgraph ROUNDS [rec] */
#include <stdlib.h>
#include <string.h>

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

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 1000;
    int recursive = argc > 2 && !strcmp(argv[2], "rec");

    for (long r = 0; r < rounds; r++) {
        if (recursive) {
            rec(5);
            continue;
        }
        via_a(); via_a(); via_a();
        via_b(); via_b();
    }
    return 0;
}
/* SPDX-License-Identifier: MIT */

// work() is inlined into main and catches what step() throws inside its loop. At -O1 gcc puts
// the landing pad right at the end of one of work's address ranges and the catch handler in
// another range that jumps back into the loop: the landing pad must not look like work's exit
// (then the handler looked like a new call: 120 calls counted for 30). 30 calls, 3 throws each.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

volatile int sink;

__attribute__((noinline)) int step(int x)
{
    if (x % 100 == 7)
        throw std::runtime_error("seven");
    sink += x;
    return x & 3;
}

static inline __attribute__((always_inline)) long work(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++) {
        try {
            s += step(i);
        } catch (const std::exception &) {
            s -= 1;
        }
    }
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? std::atoi(argv[1]) : 30;
    long t = 0;
    for (int k = 0; k < n; k++)
        t += work(300);
    std::printf("%ld\n", t);
    return 0;
}
/* SPDX-License-Identifier: MIT */

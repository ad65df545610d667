// C++ exceptions thrown through measured functions: thrower(i) throws for every i % 3 == 1
// (through mid(), caught in main); nest(d) recurses and throws at the bottom, caught two
// levels up inside nest itself. Prints what it computed; exits 3 so a changed status shows.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

volatile int sink;

__attribute__((noinline)) int thrower(int x)
{
    if (x % 3 == 1)
        throw std::runtime_error("odd one");
    sink += x;
    return x;
}

__attribute__((noinline)) int mid(int x) { return thrower(x) + 1; }

int nest(int d);
static int (*volatile nest_again)(int) = nest;   // real recursion, not a loop gcc makes of it

__attribute__((noinline)) int nest(int d)
{
    if (d == 0)
        throw std::out_of_range("bottom");
    if (d == 2) {
        try {
            return nest_again(d - 1) + 1;
        } catch (const std::out_of_range &) {
            return 100;
        }
    }
    return nest_again(d - 1) + 1;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? std::atoi(argv[1]) : 30;
    long s = 0, caught = 0;
    for (int i = 0; i < n; i++) {
        try {
            s += mid(i);
        } catch (const std::exception &) {
            caught++;
        }
    }
    s += nest(4);
    std::printf("%ld %ld\n", s, caught);
    return 3;
}
/* SPDX-License-Identifier: MIT */

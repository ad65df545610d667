// C++ exceptions through functions prospect lines counts in the process: leaf() throws three
// types, with_guard() has a local whose destructor runs during unwinding, rethrower() catches
// by type and rethrows, catch_all() catches everything and rethrows, catch_here() catches an
// int itself, main() catches the rest by type. Prints what it computed; exits 7 so a changed
// status shows.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

static int guards, rethrown, seen_all;

struct Guard {
    int id;
    explicit Guard(int i) : id(i) {}
    ~Guard() { guards += id % 7; }
};

__attribute__((noinline)) int leaf(int i)
{
    if (i % 5 == 1)
        throw std::out_of_range("one");
    if (i % 5 == 2)
        throw std::runtime_error("two");
    if (i % 5 == 3)
        throw i;
    return i * 2;
}

__attribute__((noinline)) int with_guard(int i)
{
    Guard g(i);
    int r = leaf(i);
    return r + g.id;     /* L:split: the destructor call sits inside this line's code */
}

__attribute__((noinline)) int rethrower(int i)
{
    try {
        return with_guard(i);
    } catch (const std::out_of_range &) {
        rethrown++;
        throw;
    }
}

__attribute__((noinline)) int catch_all(int i)
{
    try {
        return rethrower(i);
    } catch (...) {
        seen_all++;
        throw;
    }
}

__attribute__((noinline)) int catch_here(int i)
{
    try {
        return catch_all(i);
    } catch (int v) {
        return -v;
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? std::atoi(argv[1]) : 200;
    long s = 0, ranges = 0, others = 0;
    for (int i = 0; i < n; i++) {
        try {
            s += catch_here(i);
        } catch (const std::out_of_range &) {
            ranges++;
        } catch (const std::exception &) {
            others++;
        }
    }
    std::printf("%ld %ld %ld %d %d %d\n", s, ranges, others, guards, rethrown, seen_all);
    return 7;
}
/* SPDX-License-Identifier: MIT */

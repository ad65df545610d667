// Partly qualified C++ names for `prospect stat -r`: a function template and a class template in
// a namespace, 10 calls each: app::work<app::Parser>, app::Parser::run, app::Box<long>::get.
#include <cstdio>
#include <cstdlib>

namespace app {
struct Parser {
    long base;
    __attribute__((noinline)) long run(long x) { return base + x * 3; }
};

template <class T> __attribute__((noinline)) long work(T &t, long x)
{
    return t.run(x) + 1;
}

template <class T> struct Box {
    T v;
    __attribute__((noinline)) T get() const { return v * 2; }
};
}

int main(int argc, char **)
{
    app::Parser p{ argc };
    app::Box<long> b{ argc };
    long s = 0;
    for (long i = 0; i < 10; i++) {
        s += app::work(p, i) + b.get();
        b.v += i;
    }
    std::printf("%ld\n", s);
    return 0;
}
/* SPDX-License-Identifier: MIT */

// C++ names for `prospect stat -r`: ns::work(int) and ns::K::work(long), 10 calls each;
// a bare "work" is ambiguous.
#include <cstdio>

namespace ns {
struct K {
    __attribute__((noinline)) long work(long x) { return x * 3 + 1; }
};
__attribute__((noinline)) long work(int x) { return x + 1; }
}

int main()
{
    ns::K k;
    long s = 0;
    for (int i = 0; i < 10; i++)
        s += ns::work(i) + k.work(i);
    std::printf("%ld\n", s);
    return 0;
}
/* SPDX-License-Identifier: MIT */

// C++ names must be demangled in the report.
#include <cstdio>
#include <cstdlib>

namespace geometry {
template <typename T> struct Grid {
    __attribute__((noinline)) T relax(unsigned long n) const
    {
        volatile T x = 1;
        for (unsigned long i = 0; i < n; i++)
            x = x * (T)1.000001 + (T)i;
        return x;
    }
};
}

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? std::strtoul(argv[1], nullptr, 0) : 100000000;
    geometry::Grid<double> g;
    std::printf("%d\n", (int)g.relax(n) & 1);
    return 0;
}
/* SPDX-License-Identifier: MIT */

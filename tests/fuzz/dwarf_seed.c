/* SPDX-License-Identifier: MIT */
/* A seed for fuzz_symbols' DWARF paths: line rows and inlined instances of leaf() and work(),
 * the names the target asks for. Built -O2 -g by fuzz-symbols.sh. */
static inline __attribute__((always_inline)) int leaf(int x)
{
    return x * 3 + 1;
}

static inline __attribute__((always_inline)) int work(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += leaf(i);
    return s;
}

int main(int argc, char **argv)
{
    (void)argv;
    return work(argc) + leaf(argc);
}

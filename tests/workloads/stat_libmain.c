/* Calls lib_work() of libstatlib.so: 5 times through the dynamic linker, then (when given a
 * path) 3 times more through dlopen of that path. */
#include <dlfcn.h>
#include <stdio.h>

void lib_work(long n);

int main(int argc, char **argv)
{
    for (int i = 0; i < 5; i++)
        lib_work(100);
    if (argc > 1) {
        void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
        void (*fn)(long) = h ? (void (*)(long))dlsym(h, "lib_work") : NULL;
        if (!fn) {
            fprintf(stderr, "dlopen: %s\n", dlerror());
            return 1;
        }
        for (int i = 0; i < 3; i++)
            fn(100);
        dlclose(h);
    }
    return 0;
}
/* SPDX-License-Identifier: MIT */

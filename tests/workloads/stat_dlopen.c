/* Loads a library only with dlopen (after start) and calls its lib_work() 4 times. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
    void (*fn)(long) = h ? (void (*)(long))dlsym(h, "lib_work") : NULL;
    if (!fn) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    for (int i = 0; i < 4; i++)
        fn(100);
    dlclose(h);
    return 0;
}
/* SPDX-License-Identifier: MIT */

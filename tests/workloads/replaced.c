/* Maps the library argv[1] (dlopen), says "ready" on the FIFO argv[2], waits until the test
 * has replaced the library file on disk (it writes "go" on the FIFO argv[3]), then spends its
 * time in the library's code as it was mapped. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    unsigned long (*hot_hi)(unsigned long);
    char buf[8];
    void *h;
    int out, in;

    if (argc < 4 || !(h = dlopen(argv[1], RTLD_NOW)))
        return 1;
    hot_hi = (unsigned long (*)(unsigned long))dlsym(h, "hot_hi");
    out = open(argv[2], O_WRONLY);
    if (!hot_hi || out < 0 || write(out, "ready\n", 6) != 6)
        return 1;
    close(out);
    in = open(argv[3], O_RDONLY);
    if (in < 0 || read(in, buf, sizeof(buf)) <= 0)
        return 1;
    close(in);
    for (int i = 0; i < 150; i++)
        hot_hi(1000000);
    printf("replaced: done\n");
    return 0;
}
/* SPDX-License-Identifier: MIT */

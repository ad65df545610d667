/* prospect lines' in-process counters are plain `ds incq` while the program has one thread
 * and become `lock incq` before a second thread runs (tests/e2e/lines_inproc.sh): this
 * program finds the hook's mapping of its relocated copies (the plan directory's "code" file in
 * /proc/self/maps) and prints how many increments of each kind it holds, before and after
 * pthread_create. Without that mapping (not run under prospect lines) it prints "no copies". */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static volatile long sink;

static void *worker(void *arg)
{
    for (long i = 0; i < (long)arg; i++)
        sink += i;
    return NULL;
}

/* Counts `PREFIX 48 ff 05` (incq disp32(%rip)) with each prefix in the copies' mapping. */
static int scan(const char *when)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    unsigned long lo, hi, plain = 0, locked = 0;
    int found = 0;

    while (f && fgets(line, sizeof(line), f)) {
        const char *path = strchr(line, '/');
        if (!path || !strstr(path, "prospect-jump-") || strcmp(strrchr(path, '/'), "/code\n") ||
            !strstr(line, "r-xp") || sscanf(line, "%lx-%lx", &lo, &hi) != 2)
            continue;
        found = 1;
        for (const unsigned char *p = (const unsigned char *)lo; p + 4 <= (unsigned char *)hi; p++)
            if (p[1] == 0x48 && p[2] == 0xff && p[3] == 0x05) {
                plain += p[0] == 0x3e;
                locked += p[0] == 0xf0;
            }
    }
    if (f)
        fclose(f);
    if (!found)
        printf("%s: no copies\n", when);
    else
        printf("%s: plain %s, locked %s\n", when, plain ? "some" : "none", locked ? "some" : "none");
    return found;
}

int main(void)
{
    pthread_t t;
    scan("one thread");
    pthread_create(&t, NULL, worker, (void *)1000L);
    pthread_join(t, NULL);
    scan("after a thread");
    return 0;
}
/* SPDX-License-Identifier: MIT */

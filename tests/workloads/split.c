/* Three noinline functions doing 50/30/20 of the work: the report's shares must match. */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

#define SPIN(n) do { unsigned long x = sink; for (unsigned long i = 0; i < (n); i++) \
                     x = x * 6364136223846793005UL + i; sink = x; } while (0)

__attribute__((noinline)) void work_fifty(unsigned long n) { SPIN(n * 5); }
__attribute__((noinline)) void work_thirty(unsigned long n) { SPIN(n * 3); }
__attribute__((noinline)) void work_twenty(unsigned long n) { SPIN(n * 2); }

int main(int argc, char **argv)
{
    /* Units of work: the default takes about 3 s of CPU here. */
    unsigned long units = argc > 1 ? strtoul(argv[1], NULL, 0) : 300;
    for (unsigned long u = 0; u < units; u++) {
        work_fifty(200000);
        work_thirty(200000);
        work_twenty(200000);
    }
    printf("done %lu\n", sink & 1);
    return 0;
}

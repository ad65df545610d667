/* bench_markers.sh's target: unit() is one region, marked in the code and also a function
 * `stat -r unit` can probe; it runs N times (argv[1]). */
#include <stdlib.h>
#include <prospect/region.h>

static volatile unsigned long sink;

__attribute__((noinline)) void unit(void);
__attribute__((noinline)) void unit(void)
{
    prospect_region_begin("unit");
    sink++;
    prospect_region_end("unit");
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1;
    for (long i = 0; i < n; i++)
        unit();
    return 0;
}

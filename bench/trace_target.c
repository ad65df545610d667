/* SPDX-License-Identifier: MIT */
/* The target of bench_trace.sh: malloc(144)/free pairs timed by the program itself.
 *   trace_target loop N     N pairs, then "wall_ns_per_call W cpu_ns_per_call C" on stderr
 *   trace_target attach     "ready PID" on stdout; per "go N" line on stdin, N pairs and
 *                           "did N W C" (per-call wall and thread-cpu ns); ends at EOF */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *volatile sink;

static double now(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void pairs(long n, double *wall, double *cpu)
{
    double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
    for (long i = 0; i < n; i++) {
        sink = malloc(144);
        free(sink);
    }
    *wall = (now(CLOCK_MONOTONIC) - t0) / (2.0 * (double)n);
    *cpu = (now(CLOCK_THREAD_CPUTIME_ID) - c0) / (2.0 * (double)n);
}

int main(int argc, char **argv)
{
    double w, c;
    if (argc > 2 && !strcmp(argv[1], "loop")) {
        pairs(atol(argv[2]), &w, &c);
        fprintf(stderr, "wall_ns_per_call %.2f cpu_ns_per_call %.2f\n", w, c);
        return 0;
    }
    char line[64];
    long n;
    setvbuf(stdout, NULL, _IONBF, 0);
    printf("ready %d\n", (int)getpid());
    while (fgets(line, sizeof(line), stdin) && sscanf(line, "go %ld", &n) == 1 && n > 0) {
        pairs(n, &w, &c);
        printf("did %ld %.2f %.2f\n", n, w, c);
    }
    return 0;
}

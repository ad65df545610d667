/* Runs until killed, calling tick() in a loop: a target for `prospect stat -p`. Prints its
 * pid and "ready" once running; the parent of the test kills it. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

volatile long sink;

__attribute__((noinline)) void tick(long x)
{
    sink += x;
}

int main(void)
{
    struct timespec ts = { 0, 1000000 };   /* 1 ms between calls: keeps the CPU mostly idle */
    printf("ready %d\n", (int)getpid());
    fflush(stdout);
    for (long i = 0;; i++) {
        tick(i);
        nanosleep(&ts, NULL);
    }
}

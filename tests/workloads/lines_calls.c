/* prospect lines --format gcov -b against gcov -b on calls: calls that return once, a call
 * that never returns (exit in a helper, longjmp), one that returns twice (setjmp, fork), a
 * call through a pointer, calls in a loop's condition and nested in another's arguments,
 * calls gcov lists no line for (strlen, a pure built-in) and a helper called but never
 * run to its end. Exit status 0; prints one line. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static jmp_buf back;
static volatile long sink;

static int twice(int x) { return 2 * x; }

static int below(int x, int lim)
{
    return x < lim;
}

static void unwind(int depth)
{
    if (depth == 0)
        longjmp(back, 7);
    unwind(depth - 1);
    sink++;
}

static void leave(int code)
{
    if (code > 100)
        sink--;
    exit(code);
}

static int run_child(void)
{
    pid_t pid = fork();
    int st = 0;
    if (pid == 0)
        leave(0);
    waitpid(pid, &st, 0);
    return WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
    int (*op)(int) = twice;
    int i = 0, r;
    (void)argv;
    while (below(i, 5))
        i = twice(op(i) / 2) + 1;
    sink += (long)strlen("eleven char");
    r = setjmp(back);
    if (r == 0)
        unwind(3);
    sink += r;
    sink += run_child();
    if (argc > 3)
        leave(3);
    printf("%d %ld\n", i, sink);
    return 0;
}
/* SPDX-License-Identifier: MIT */

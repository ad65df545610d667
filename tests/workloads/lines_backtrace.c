/* A program that inspects its own stack from inside counted functions: backtrace() and
 * backtrace_symbols() (built with -rdynamic, so its functions have names there), called at
 * the bottom of a chain of calls, in a recursion, in a signal handler and in the handler of
 * a fault inside a counted function. It prints each frame's function name (no offsets: the
 * same with and without Prospect is the point; for the fault, the frame count and the
 * handler's two names), so tests/e2e/lines_inproc.sh compares its output with and without
 * `prospect lines`. */
#include <execinfo.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The name inside "prog(NAME+0x1f) [0x...]", or "?" when it has none. */
static void frame_name(const char *sym, char *out, size_t len)
{
    const char *open = strchr(sym, '('), *end = open ? strpbrk(open, "+)") : NULL;
    size_t n = open && end ? (size_t)(end - open - 1) : 0;
    if (!n || n >= len) {
        snprintf(out, len, "?");
        return;
    }
    memcpy(out, open + 1, n);
    out[n] = '\0';
}

void show(const char *where)
{
    void *pc[64];
    int n = backtrace(pc, 64);
    char **syms = backtrace_symbols(pc, n);
    printf("%s: %d frames:", where, n);
    if (!strcmp(where, "fault")) {   /* the faulting frame's pc is inside a copy: no name */
        n = n > 2 ? 2 : n;
        printf(" (first two)");
    }
    for (int i = 0; syms && i < n; i++) {
        char name[128];
        frame_name(syms[i], name, sizeof(name));
        if (!strcmp(name, "main")) {             /* what follows is libc's start-up */
            printf(" main");
            break;
        }
        printf(" %s", name);
    }
    printf("\n");
    free(syms);
}

int leaf(int x)
{
    if (x % 3 == 0)                      /* L:leaf_if */
        show("leaf");
    return x * 2;
}

int middle(int x)
{
    int s = 0;
    for (int i = 0; i < 3; i++)          /* L:middle_for */
        s += leaf(x + i);
    return s;
}

int down(int n)
{
    if (n == 0) {
        show("recursion");
        return 0;
    }
    return 1 + down(n - 1);              /* L:down_step */
}

void on_signal(int sig)
{
    (void)sig;
    show("handler");
}

static sigjmp_buf back;

void on_fault(int sig)
{
    (void)sig;
    show("fault");
    siglongjmp(back, 1);
}

/* Faults at a known instruction of its own: the handler's backtrace goes through the
 * interrupted frame (with Prospect, the copy's: its unwind table is the copy's own). */
void poke(volatile int *p)
{
    *p = 1;                              /* L:poke */
}

int top(void)
{
    signal(SIGUSR1, on_signal);
    raise(SIGUSR1);
    signal(SIGSEGV, on_fault);
    if (!sigsetjmp(back, 1))
        poke(NULL);
    signal(SIGSEGV, SIG_DFL);
    return middle(1) + down(4);
}

int main(void)
{
    int r = top();
    printf("result %d\n", r);
    return r == 16 ? 4 : 1;
}
/* SPDX-License-Identifier: MIT */

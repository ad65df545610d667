/* prospect lines against gcov: switch (a jump table), do-while, break, continue, goto,
 * short-circuit conditions and a conditional expression on one line, a loop on one line. */
#include <stdio.h>

static volatile long sink;

static int classify(int x)
{
    switch (x % 7) {
    case 0:
        return 10;
    case 1:
        sink++;
        /* fall through */
    case 2:
        return 20;
    case 3:
        return 30;
    case 4:
        sink += 2;
        break;
    case 5:
        return 50;
    default:
        return -1;
    }
    return 40;
}

int main(void)
{
    long acc = 0;
    int i = 0, j;

    do {
        acc += classify(i);
        i++;
    } while (i < 100);
    for (i = 0; i < 50; i++) {
        if (i % 3 == 0)
            continue;
        if (i > 40)
            break;
        acc += (i & 1) ? i : -i;
        if (i > 5 && i < 20 && (i & 2))
            acc++;
    }
    for (j = 0; j < 30; j++) acc += j;
    i = 0;
again:
    i++;
    if (i < 4)
        goto again;
    printf("%ld\n", acc + sink);
    return 0;
}
/* SPDX-License-Identifier: MIT */

/* prospect lines -p: waits for a line on stdin (the test sends it once Prospect counts), then
 * runs known trip counts in itself and in two threads it starts, and exits. */
#include <pthread.h>
#include <stdio.h>

static volatile long sink;

static void spin(int n)
{
    for (int i = 0; i < n; i++)         /* L:spin_for */
        sink += i;                      /* L:spin_body */
}

static void *worker(void *arg)
{
    spin((int)(long)arg);               /* L:worker */
    return NULL;
}

int main(void)
{
    char buf[16];
    pthread_t t[2];

    if (!fgets(buf, sizeof(buf), stdin))
        return 1;
    spin(50);                           /* L:main_spin */
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, (void *)25L);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    return 0;
}
/* SPDX-License-Identifier: MIT */

/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "util/mapguard.h"

#define SLOTS 4096   /* ranges guarded at once: one per DSO with CFI (else its CFI is copied) */

/* Read by the handler without a lock: start is set last and cleared first. */
static struct {
    _Atomic uintptr_t start;
    _Atomic size_t len;
    _Atomic bool damaged;
} slots[SLOTS];

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool installed;
static uintptr_t pagesz;           /* sysconf is not for a signal handler */
static struct sigaction prev;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    uintptr_t a = (uintptr_t)si->si_addr;
    int saved = errno;

    if (si->si_code > 0) {           /* a fault, not a kill(2) */
        for (size_t i = 0; i < SLOTS; i++) {
            uintptr_t s = atomic_load(&slots[i].start);
            if (!s || a < s || a - s >= atomic_load(&slots[i].len))
                continue;
            if (mmap((void *)(a & ~(pagesz - 1)), pagesz, PROT_READ,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
                break;                  /* cannot repair: as if it were not ours */
            atomic_store(&slots[i].damaged, true);
            errno = saved;
            return;                     /* the read is retried and sees zeros */
        }
    }
    errno = saved;
    if (prev.sa_flags & SA_SIGINFO) {
        if (prev.sa_sigaction) {
            prev.sa_sigaction(sig, si, uc);
            return;
        }
    } else if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
        prev.sa_handler(sig);
        return;
    }
    /* The default action: the fault recurs on return and ends the process as without us. */
    sigaction(SIGBUS, &prev, NULL);
    if (si->si_code <= 0)
        raise(sig);
}

int mapguard_add(const void *addr, size_t len)
{
    int ret = -ENOSPC;

    pthread_mutex_lock(&lock);
    if (!installed) {
        struct sigaction sa;
        pagesz = (uintptr_t)sysconf(_SC_PAGESIZE);
        memset(&sa, 0, sizeof(sa));
        sa.sa_sigaction = on_sigbus;
        sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGBUS, &sa, &prev)) {
            ret = -errno;
            goto out;
        }
        installed = true;
    }
    for (int i = 0; i < SLOTS; i++) {
        if (atomic_load(&slots[i].start))
            continue;
        atomic_store(&slots[i].len, len);
        atomic_store(&slots[i].damaged, false);
        atomic_store(&slots[i].start, (uintptr_t)addr);
        ret = i;
        break;
    }
out:
    pthread_mutex_unlock(&lock);
    return ret;
}

bool mapguard_damaged(int slot)
{
    return atomic_load(&slots[slot].damaged);
}

void mapguard_remove(int slot)
{
    pthread_mutex_lock(&lock);
    atomic_store(&slots[slot].start, 0);
    pthread_mutex_unlock(&lock);
}

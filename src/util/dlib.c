/* SPDX-License-Identifier: MIT */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include "util/dlib.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int load(struct dlib *l)
{
    void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
    const char *e;

    if (!h) {
        e = dlerror();
        snprintf(l->why, sizeof(l->why), "%s", e ? e : l->soname);
        return -ENOENT;
    }
    for (size_t i = 0; i < l->n; i++) {
        if (!(l->fns[i] = dlsym(h, l->names[i]))) {
            e = dlerror();
            snprintf(l->why, sizeof(l->why), "%s", e ? e : l->names[i]);
            dlclose(h);
            return -ENOENT;
        }
    }
    l->handle = h;
    return 1;
}

int dlib_open(struct dlib *l)
{
    int s = __atomic_load_n(&l->state, __ATOMIC_ACQUIRE);

    if (!s) {                       /* first use: load under the lock, publish the outcome */
        pthread_mutex_lock(&lock);
        if (!(s = l->state))
            __atomic_store_n(&l->state, s = load(l), __ATOMIC_RELEASE);
        pthread_mutex_unlock(&lock);
    }
    return s > 0 ? 0 : s;
}

void dlib_close(struct dlib *l)
{
    pthread_mutex_lock(&lock);
    if (l->state > 0) {
        for (size_t i = 0; i < l->n; i++)
            l->fns[i] = NULL;
        dlclose(l->handle);
        l->handle = NULL;
        __atomic_store_n(&l->state, 0, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&lock);
}

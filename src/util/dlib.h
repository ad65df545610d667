/* SPDX-License-Identifier: MIT */
/* Optional shared libraries loaded with dlopen on first use instead of at startup: a library
 * linked at build time is mapped and relocated by every run, even `prospect version` (libpfm4's
 * event tables are ~41k relocations; libdebuginfod pulls libcurl and its TLS
 * chain). elfutils' libdw loads its own debuginfod client the same way. */
#ifndef PROSPECT_UTIL_DLIB_H
#define PROSPECT_UTIL_DLIB_H
#include <stddef.h>

struct dlib {
    const char *soname;            /* e.g. "libZydis.so.4.0" */
    const char *const *names;      /* the functions wanted, in the order of fns */
    void **fns;                    /* filled by dlib_open */
    size_t n;
    int state;                     /* 0 not tried, 1 loaded, -ENOENT (library or a name missing) */
    char why[256];                 /* dlerror()'s text when err */
    void *handle;                  /* dlopen's, while loaded */
};

#define DLIB_INIT(so, nm, fn) { (so), (nm), (void **)(fn), sizeof(nm) / sizeof((nm)[0]), 0, "", NULL }

/* Loads the library once (thread-safe) and resolves every name: 0, or -ENOENT with l->why
 * set. Tried once: a library missing at the first call stays missing for the run. */
int dlib_open(struct dlib *l);
/* Unloads a loaded library (its pages leave the RSS); the next dlib_open loads it again. Only
 * when no function of it is in use or about to be called. */
void dlib_close(struct dlib *l);
#endif

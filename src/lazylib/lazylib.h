/* SPDX-License-Identifier: MIT */
/* Libraries loaded on first use (this folder, util/dlib.c): why one could not be loaded,
 * for the commands that say so. */
#ifndef PROSPECT_LAZYLIB_H
#define PROSPECT_LAZYLIB_H

/* dlerror()'s text when libpfm4 was needed and could not be loaded, else NULL. */
const char *lazylib_pfm_missing(void);
#endif

/* SPDX-License-Identifier: MIT */
#include <stdint.h>
#include "util/vec.h"

int vec_reserve_(void **v, size_t *cap, size_t n, size_t extra, size_t elem)
{
    size_t want, ncap;
    void *p;

    if (extra > SIZE_MAX / elem - n)
        return -ENOMEM;
    want = n + extra;
    if (want <= *cap)
        return 0;
    ncap = *cap ? *cap : 8;
    while (ncap < want)
        ncap = ncap > SIZE_MAX / 2 / elem ? want : ncap * 2;
    p = realloc(*v, ncap * elem);
    if (!p)
        return -ENOMEM;
    *v = p;
    *cap = ncap;
    return 0;
}

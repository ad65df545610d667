/* SPDX-License-Identifier: MIT */
/* Growable arrays: VEC(int) v = {0}; if (vec_push(&v, 3)) return -ENOMEM; ... vec_free(&v); */
#ifndef PROSPECT_UTIL_VEC_H
#define PROSPECT_UTIL_VEC_H
#include <errno.h>
#include <stdlib.h>

#define VEC(type) struct { type *v; size_t n, cap; }

/* Ensures room for `extra` more elements; returns 0 or -ENOMEM. */
int vec_reserve_(void **v, size_t *cap, size_t n, size_t extra, size_t elem);
#define vec_reserve(vec, extra) \
    vec_reserve_((void **)&(vec)->v, &(vec)->cap, (vec)->n, (extra), sizeof(*(vec)->v))
/* Appends one element; evaluates to 0 or -ENOMEM. */
#define vec_push(vec, item) \
    (vec_reserve(vec, 1) ? -ENOMEM : ((vec)->v[(vec)->n++] = (item), 0))
#define vec_free(vec) do { free((vec)->v); (vec)->v = NULL; (vec)->n = (vec)->cap = 0; } while (0)
#endif

/* The reader's mapped file, safe against truncation while it is read (perfdata_internal.h). */
#define LOG_PREFIX "perfdata"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "perf/perfdata_internal.h"
#include "util/log.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define PAGE 4096u
#define WINDOW (4u << 20)       /* pinned ahead of the walk in one call */
#define RELEASE_STEP (8u << 20)

int perfdata_map_file(struct perfdata *pd, int fd, uint64_t size, struct perfdata_error *err)
{
    /* Writable only so that pages can become private copies; nothing writes to them. */
    void *map = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);

    if (map == MAP_FAILED)
        return perfdata_set_error(err, pd->path, -errno, false, 0, "cannot map the file: %s",
                                  strerror(errno));
    pd->map = map;
    pd->size = size;
    pd->own_map = true;
    pd->fd = fd;
    return 0;
}

int perfdata_pin(struct perfdata *pd, uint64_t off, uint64_t len)
{
    uint64_t from;

    if (!pd->own_map || pd->no_pin || off >= pd->size || len == 0)
        return 0;
    if (len > pd->size - off)
        len = pd->size - off;
    from = off / PAGE * PAGE;
    while (madvise((void *)(pd->map + from), off + len - from, MADV_POPULATE_WRITE) < 0) {
        if (errno == EINTR || errno == EAGAIN)
            continue;
        if (errno == EINVAL) {
            /* Linux before 5.14: read the file's own pages, as before (no truncation guard). */
            pr_debug("no MADV_POPULATE_WRITE: reading the mapped file directly\n");
            pd->no_pin = true;
            return 0;
        }
        return -EFAULT;
    }
    return 0;
}

int perfdata_shrank(struct perfdata *pd, struct perfdata_error *err, uint64_t off)
{
    struct stat st;

    if (pd->fd >= 0 && fstat(pd->fd, &st) == 0 && (uint64_t)st.st_size < pd->size)
        return perfdata_set_error(err, pd->path, -EIO, true, off,
                                  "the file shrank to %llu bytes while being read (it had %llu)",
                                  (unsigned long long)st.st_size, (unsigned long long)pd->size);
    return perfdata_set_error(err, pd->path, -EIO, true, off,
                              "the file could not be read here (did it shrink while being read?)");
}

int perfdata_pin_ahead(struct perfdata *pd, uint64_t off)
{
    uint64_t from = pd->populated > off ? pd->populated : off, to;

    if (!pd->own_map || off + WINDOW / 2 < pd->populated || from >= pd->data_end)
        return 0;
    from = from / PAGE * PAGE;
    to = from + WINDOW < pd->data_end ? from + WINDOW : pd->data_end;
    if (perfdata_pin(pd, from, to - from)) {
        struct stat st;
        /* Shrunk under us: read what is still there, then stop where it ends. */
        if (pd->fd < 0 || fstat(pd->fd, &st) < 0 || (uint64_t)st.st_size >= pd->data_end)
            return -EFAULT;
        pd->shrunk_to = (uint64_t)st.st_size;
        pd->data_end_was = pd->data_end;
        pd->data_end = pd->shrunk_to > off ? pd->shrunk_to : off;
        to = pd->data_end;
        if (to > from && perfdata_pin(pd, from, to - from))
            return -EFAULT;
    }
    pd->populated = to;
    return 0;
}

void perfdata_release_behind(struct perfdata *pd, struct ordered_queue *q, uint64_t *prev_round,
                             uint64_t round_end)
{
    uint64_t from = pd->released, to = *prev_round / PAGE * PAGE;

    *prev_round = round_end;
    if (!pd->own_map || to <= from + RELEASE_STEP)
        return;         /* in steps of 8 MiB: few system calls */
    /* A dropped page would come back from the file (which may have shrunk since): records
     * still queued from there (rare: newer than the previous round's end) keep a copy. */
    if (q && ordered_own_range(q, pd->map + from, pd->map + to))
        return;
    if (madvise((void *)(pd->map + from), to - from, MADV_DONTNEED) == 0)
        pd->released = to;
}

void perfdata_unmap(struct perfdata *pd)
{
    if (pd->own_map)
        munmap((void *)pd->map, pd->size);
    if (pd->own_buf)
        free((void *)pd->map);
    if (pd->fd >= 0)
        close(pd->fd);
    pd->own_map = pd->own_buf = false;
    pd->fd = -1;
}

/* SPDX-License-Identifier: MIT */
/* The reader's view of the file, safe against truncation while it is read (perfdata_internal.h). */
#define LOG_PREFIX "perfdata"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "perf/perfdata_internal.h"
#include "util/mapguard.h"
#include "util/log.h"


#define PAGE 4096u
#define WINDOW (2u << 20)       /* pinned ahead of the walk in one call */
#define RELEASE_STEP (2u << 20)  /* one huge page: memory stays a few MiB whatever the file */

/* The file itself, read-only, its range guarded: no copy of the bytes into fresh memory (that
 * pread was a sixth of a call-graph report's time). 0, or -1 to fall back to pread. */
static int map_the_file(struct perfdata *pd, int fd, uint64_t size)
{
    void *map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
    int slot;

    if (map == MAP_FAILED)
        return -1;
    if ((slot = mapguard_add(map, (size_t)size)) < 0) {
        munmap(map, (size_t)size);
        return -1;
    }
    pd->map = map;
    pd->size = size;
    pd->own_map = pd->file_mapped = true;
    pd->guard = slot;
    pd->fd = fd;
    return 0;
}

int perfdata_map_file(struct perfdata *pd, int fd, uint64_t size, struct perfdata_error *err)
{
    void *map;

    if (!map_the_file(pd, fd, size))
        return 0;
    /* Anonymous memory the size of the file, filled by pread as the reader goes: truncating
     * the file can shorten a read but never fault a page. */
    map = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

    if (map == MAP_FAILED)
        return perfdata_set_error(err, pd->path, -errno, false, 0, "cannot map the file: %s",
                                  strerror(errno));
    madvise(map, (size_t)size, MADV_HUGEPAGE);     /* fewer faults; a hint only */
    pd->map = map;
    pd->size = size;
    pd->own_map = true;
    pd->fd = fd;
    return 0;
}

int perfdata_pin(struct perfdata *pd, uint64_t off, uint64_t len)
{
    uint8_t *p;

    if (!pd->own_map || off >= pd->size || len == 0)
        return 0;
    if (len > pd->size - off)
        len = pd->size - off;
    if (pd->file_mapped) {
        /* Page tables filled in one call; it fails, rather than raising SIGBUS, where the
         * file no longer reaches (kernels before 5.14: checked by size). */
        uintptr_t a = (uintptr_t)pd->map + off, from = a / PAGE * PAGE;
        struct stat st;
        if (mapguard_damaged(pd->guard))
            return -EFAULT;
        if (madvise((void *)from, a + len - from, MADV_POPULATE_READ) == 0)
            return 0;
        if (errno == EFAULT)
            return -EFAULT;     /* it would have faulted: the file no longer reaches */
        /* Not done for another reason (an older kernel, a signal, memory): ask the size. */
        return fstat(pd->fd, &st) || (uint64_t)st.st_size < off + len ? -EFAULT : 0;
    }
    p = (uint8_t *)pd->map + off;
    while (len) {
        ssize_t r = pread(pd->fd, p, len, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -EFAULT;     /* past the file's end now (or unreadable) */
        p += r;
        off += (uint64_t)r;
        len -= (uint64_t)r;
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
    /* A dropped page reads back as zeros: records still queued from there (rare: newer than
     * the previous round's end) get a copy first. */
    if (q && ordered_own_range(q, pd->map + from, pd->map + to))
        return;
    if (madvise((void *)(pd->map + from), to - from, MADV_DONTNEED) == 0)
        pd->released = to;
}

bool perfdata_map_damaged(struct perfdata *pd)
{
    struct stat st;

    if (!pd->file_mapped || !mapguard_damaged(pd->guard))
        return false;
    if (!pd->shrunk_to && pd->fd >= 0 && !fstat(pd->fd, &st) &&
        (uint64_t)st.st_size < pd->data_end) {
        pd->shrunk_to = (uint64_t)st.st_size;
        pd->data_end_was = pd->data_end;
    }
    return true;
}

void perfdata_unmap(struct perfdata *pd)
{
    if (pd->file_mapped)
        mapguard_remove(pd->guard);
    if (pd->own_map)
        munmap((void *)pd->map, pd->size);
    if (pd->own_buf)
        free((void *)pd->map);
    if (pd->fd >= 0)
        close(pd->fd);
    pd->own_map = pd->own_buf = pd->file_mapped = false;
    pd->fd = -1;
}

/* SPDX-License-Identifier: MIT */
/* Where the program is in a running process, and the copies mapped into it (inproc_pid.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include "lines/inproc_pid.h"
#include "util/strutil.h"
#include "util/vec.h"

#define PAGE 4096UL
#define REACH 0x7ff00000LL            /* rel32, with room for the code's own size */

struct map_line {
    uint64_t start, end, off, ino;
    unsigned maj, min;
    char perms[8];
};

static bool parse_line(const char *s, struct map_line *m)
{
    unsigned long long a, b, off, ino;
    if (sscanf(s, "%llx-%llx %7s %llx %x:%x %llu", &a, &b, m->perms, &off, &m->maj, &m->min,
               &ino) != 7)
        return false;
    m->start = a;
    m->end = b;
    m->off = off;
    m->ino = ino;
    return true;
}

static bool is_file(const struct map_line *m, const struct stat *st)
{
    return m->ino == (uint64_t)st->st_ino && m->maj == major(st->st_dev) &&
           m->min == minor(st->st_dev);
}

/* One mapping line into lay; *last_end: where the program's last mapping ended. */
static void add_line(const struct map_line *m, const struct stat *exe,
                     const struct code_seg *seg, struct pid_layout *lay, uint64_t *last_end)
{
    if (!is_file(m, exe)) {
        if (!m->ino && m->start == *last_end && *last_end)
            lay->hi = m->end;               /* its .bss */
        *last_end = 0;
        return;
    }
    lay->lo = m->start < lay->lo ? m->start : lay->lo;
    lay->hi = m->end > lay->hi ? m->end : lay->hi;
    *last_end = m->end;
    if (strchr(m->perms, 'x') && seg->off >= m->off && seg->off < m->off + (m->end - m->start)) {
        lay->bias = m->start + (seg->off - m->off) - seg->vaddr;
        lay->site = lay->bias + seg->vaddr;
    }
}

int pid_read_layout(pid_t pid, const struct stat *exe, const struct code_seg *seg,
                    struct pid_layout *lay)
{
    char path[64], line[4096];
    uint64_t last_end = 0;
    FILE *f;

    memset(lay, 0, sizeof(*lay));
    lay->lo = UINT64_MAX;
    snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
    if (!(f = fopen(path, "re")))
        return -errno;
    while (fgets(line, sizeof(line), f)) {
        struct map_line m;
        if (parse_line(line, &m))
            add_line(&m, exe, seg, lay, &last_end);
    }
    fclose(f);
    return lay->site ? 0 : -ENOENT;
}

static bool near(uint64_t a, uint64_t b)
{
    int64_t d = (int64_t)(a - b);
    return d > -REACH && d < REACH;
}

/* A system call in the process; its result, -errno, or -EIO when ptrace failed. */
static int64_t call(struct pt_world *w, const struct pid_layout *lay, long nr,
                    const uint64_t *a, int n)
{
    int64_t r;
    if (pt_syscall(w, lay->site, nr, a, n, &r))
        return -EIO;
    return r;
}

static bool failed(int64_t r)
{
    return r < 0 && r >= -4095;
}

/* size bytes of address space within reach of all the program: an address, or 0. */
static uint64_t reserve(struct pt_world *w, const struct pid_layout *lay, uint64_t size)
{
    for (int i = 0; i < 128; i++) {
        uint64_t step = (uint64_t)(i / 2 + 1) << 21;
        uint64_t at = i % 2 ? (lay->hi + step + PAGE - 1) & ~(PAGE - 1)
                            : (lay->lo - size - step) & ~(PAGE - 1);
        uint64_t a[6] = { at, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
                          MAP_FIXED_NOREPLACE, (uint64_t)-1, 0 };
        int64_t r;
        if (!(i % 2) && lay->lo < size + step + 0x10000)
            continue;
        if (failed(r = call(w, lay, SYS_mmap, a, 6)))
            continue;
        if (near((uint64_t)r, lay->lo) && near((uint64_t)r + size, lay->hi))
            return (uint64_t)r;
        pid_unmap_copies(w, lay, (uint64_t)r, size);
    }
    return 0;
}

/* Opens the two files in the process (their paths written below thread 0's stack, its
 * bytes there put back). fd[0] code, fd[1] counters; -1 where not open. */
static int open_files(struct pt_world *w, const struct pid_layout *lay, const char *dir,
                      int64_t fd[2])
{
    uint64_t at = (w->threads.v[0].regs.rsp - 2048) & ~15UL;
    char paths[1024], saved[1024];
    int len = snprintf(paths, sizeof(paths), "%s/code%c%s/counters", dir, 0, dir);
    size_t first = strlen(dir) + 6;
    int e;

    fd[0] = fd[1] = -1;
    if (len < 0 || (size_t)len >= sizeof(paths))
        return -ENAMETOOLONG;
    if ((e = pt_read(w, at, saved, (size_t)len + 1)) ||
        (e = pt_write(w, at, paths, (size_t)len + 1)))
        return e;
    {
        uint64_t a0[4] = { (uint64_t)AT_FDCWD, at, O_RDONLY | O_CLOEXEC, 0 };
        uint64_t a1[4] = { (uint64_t)AT_FDCWD, at + first, O_RDWR | O_CLOEXEC, 0 };
        fd[0] = call(w, lay, SYS_openat, a0, 4);
        fd[1] = call(w, lay, SYS_openat, a1, 4);
    }
    if (pt_write(w, at, saved, (size_t)len + 1))
        e = -EIO;
    if (failed(fd[0]) || failed(fd[1]))
        e = e ? e : (int)(failed(fd[0]) ? fd[0] : fd[1]);
    return e;
}

static void close_files(struct pt_world *w, const struct pid_layout *lay, const int64_t fd[2])
{
    for (int i = 0; i < 2; i++)
        if (fd[i] >= 0) {
            uint64_t a[1] = { (uint64_t)fd[i] };
            call(w, lay, SYS_close, a, 1);
        }
}

int pid_map_copies(struct pt_world *w, const struct pid_layout *lay, const char *dir,
                   uint64_t csize, uint64_t nsize, uint64_t *base)
{
    int64_t fd[2], r = 0;
    int e = open_files(w, lay, dir, fd);
    uint64_t at = 0;

    if (!e && !(at = reserve(w, lay, csize + nsize)))
        e = -ERANGE;
    if (!e) {
        uint64_t a[6] = { at, csize, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED,
                          (uint64_t)fd[0], 0 };
        uint64_t b[6] = { at + csize, nsize, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                          (uint64_t)fd[1], PAGE };
        if (failed(r = call(w, lay, SYS_mmap, a, 6)) ||
            failed(r = call(w, lay, SYS_mmap, b, 6))) {
            e = (int)r;
            pid_unmap_copies(w, lay, at, csize + nsize);
        }
    }
    close_files(w, lay, fd);
    *base = e ? 0 : at;
    return e;
}

void pid_unmap_copies(struct pt_world *w, const struct pid_layout *lay, uint64_t base,
                      uint64_t size)
{
    uint64_t a[2] = { base, size };
    call(w, lay, SYS_munmap, a, 2);
}

/* Does process pid map the file? */
static bool maps_file(pid_t pid, const struct stat *st)
{
    char path[64], line[4096];
    bool found = false;
    FILE *f;
    snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
    if (!(f = fopen(path, "re")))
        return false;
    while (!found && fgets(line, sizeof(line), f)) {
        struct map_line m;
        found = parse_line(line, &m) && is_file(&m, st);
    }
    fclose(f);
    return found;
}

int pid_find_mappers(const struct stat *code, pid_t **out, size_t *n)
{
    VEC(pid_t) v = { 0 };
    DIR *d = opendir("/proc");
    struct dirent *de;
    int e = 0;

    *out = NULL;
    *n = 0;
    if (!d)
        return -errno;
    while (!e && (de = readdir(d))) {
        uint64_t pid;
        if (!parse_u64(de->d_name, &pid) && pid > 0 && pid <= 0x7fffffff &&
            maps_file((pid_t)pid, code))
            e = vec_push(&v, (pid_t)pid);
    }
    closedir(d);
    *out = v.v;
    *n = v.n;
    return e;
}

bool pid_filtered(pid_t pid)
{
    char path[64], line[256];
    bool filtered = true;                  /* unreadable: assume the worst */
    FILE *f;
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    if (!(f = fopen(path, "re")))
        return true;
    while (fgets(line, sizeof(line), f))
        if (!strncmp(line, "Seccomp:", 8))
            filtered = strtol(line + 8, NULL, 10) != 0;
    fclose(f);
    return filtered;
}

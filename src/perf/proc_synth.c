/* SPDX-License-Identifier: MIT */
#define LOG_PREFIX "proc"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "perf/proc_synth.h"
#include "perf/record.h"
#include "util/file.h"
#include "util/log.h"
#include "util/strutil.h"

#define MAPS_MAX (64u << 20)   /* a /proc/PID/maps larger than this is not believed */

static size_t id_trailer_size(const struct perf_event_attr *attr)
{
    uint64_t st = attr->sample_type;
    if (!attr->sample_id_all)
        return 0;
    return 8 * (size_t)(!!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) +
                        !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) +
                        !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_IDENTIFIER));
}

/* Writes pid/tid into the trailer's TID slot (the first one when present). */
static void fill_trailer(uint8_t *trailer, const struct perf_event_attr *attr, uint32_t pid,
                         uint32_t tid)
{
    if (attr->sample_id_all && (attr->sample_type & PERF_SAMPLE_TID)) {
        uint64_t v = pid | ((uint64_t)tid << 32);
        memcpy(trailer, &v, 8);
    }
}

static int emit_comm(const struct perf_event_attr *attr, uint32_t pid, uint32_t tid,
                     const char *comm, synth_fn fn, void *arg)
{
    uint8_t buf[sizeof(struct rec_comm) + 32 + 64] = {0};
    struct rec_comm *r = (void *)buf;
    size_t clen = strnlen(comm, 15) + 1, body = (sizeof(*r) + clen + 7) & ~(size_t)7;
    size_t size = body + id_trailer_size(attr);

    r->h.type = PERF_RECORD_COMM;
    r->h.size = (uint16_t)size;
    r->pid = pid;
    r->tid = tid;
    memcpy(r->comm, comm, clen - 1);
    fill_trailer(buf + body, attr, pid, tid);
    return fn(arg, &r->h);
}

static int emit_mmap2(const struct perf_event_attr *attr, uint32_t pid, uint64_t start,
                      uint64_t end, uint64_t pgoff, uint32_t maj, uint32_t min, uint64_t ino,
                      uint32_t prot, const char *path, synth_fn fn, void *arg)
{
    uint8_t buf[sizeof(struct rec_mmap2) + 4096 + 64] = {0};
    struct rec_mmap2 *r = (void *)buf;
    size_t plen = strnlen(path, 4095) + 1, body = (sizeof(*r) + plen + 7) & ~(size_t)7;
    size_t size = body + id_trailer_size(attr);

    r->h.type = PERF_RECORD_MMAP2;
    r->h.misc = PERF_RECORD_MISC_USER;
    r->h.size = (uint16_t)size;
    r->pid = r->tid = pid;
    r->start = start;
    r->len = end - start;
    r->pgoff = pgoff;
    r->maj = maj;
    r->min = min;
    r->ino = ino;
    r->prot = prot;
    r->flags = MAP_PRIVATE;
    memcpy(r->filename, path, plen - 1);
    fill_trailer(buf + body, attr, pid, pid);
    return fn(arg, &r->h);
}

int proc_parse_maps_line(const char *line, uint64_t *start, uint64_t *end, uint32_t *prot,
                         uint64_t *pgoff, uint32_t *maj, uint32_t *min, uint64_t *ino,
                         const char **path)
{
    char perms[5];
    unsigned int ma, mi;
    unsigned long long s, e, off, in;
    int n = 0;

    if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu%n", &s, &e, perms, &off, &ma, &mi, &in,
               &n) != 7 || e <= s || strlen(perms) != 4)
        return -EINVAL;
    line += n;
    while (*line == ' ' || *line == '\t')
        line++;
    *start = s;
    *end = e;
    *pgoff = off;
    *maj = ma;
    *min = mi;
    *ino = in;
    *prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
            (perms[2] == 'x' ? PROT_EXEC : 0);
    *path = line;
    return 0;
}

static int read_comm(const char *dir, char *comm, size_t len)
{
    char path[512], *buf;
    int err;

    snprintf(path, sizeof(path), "%s/comm", dir);
    err = file_read_all(path, &buf, NULL, 256);
    if (err)
        return err;
    buf[strcspn(buf, "\n")] = '\0';
    str_copy(comm, len, buf);
    free(buf);
    return 0;
}

static int synth_maps(const char *pdir, const struct perf_event_attr *attr, uint32_t pid,
                      synth_fn fn, void *arg, struct proc_synth_stats *st)
{
    char path[512], *buf, *line, *next;
    int err;

    snprintf(path, sizeof(path), "%s/maps", pdir);
    err = file_read_all(path, &buf, NULL, MAPS_MAX);
    if (err)
        return err;
    for (line = buf; line && *line; line = next) {
        uint64_t s, e, off, ino;
        uint32_t prot, maj, min;
        const char *p;

        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (proc_parse_maps_line(line, &s, &e, &prot, &off, &maj, &min, &ino, &p))
            continue;
        /* Data maps of files only when the attr asks (DWARF mode: perf reads CFI there). */
        if ((!(prot & PROT_EXEC) && !(attr->mmap_data && *p == '/')) || !strcmp(p, "[vsyscall]"))
            continue;
        err = emit_mmap2(attr, pid, s, e, off, maj, min, ino, prot, *p ? p : "//anon", fn, arg);
        if (err < 0)
            break;
        st->maps++;
    }
    free(buf);
    return err < 0 ? err : 0;
}

static int synth_one(const char *procdir, pid_t pid, const struct perf_event_attr *attr,
                     synth_fn fn, void *arg, struct proc_synth_stats *st)
{
    char pdir[256], tdir[300], comm[64];
    DIR *d;
    struct dirent *de;
    int err;

    snprintf(pdir, sizeof(pdir), "%s/%d", procdir, (int)pid);
    if (read_comm(pdir, comm, sizeof(comm)))
        return -ENOENT;
    err = emit_comm(attr, (uint32_t)pid, (uint32_t)pid, comm, fn, arg);
    if (err < 0)
        return err;
    st->processes++;
    err = synth_maps(pdir, attr, (uint32_t)pid, fn, arg, st);
    if (err < 0 && err != -ENOENT && err != -EACCES && err != -EPERM && err != -ESRCH)
        return err;
    if (err < 0)
        return -EACCES;
    /* Threads: a COMM per thread lets samples of any tid find their process. */
    snprintf(tdir, sizeof(tdir), "%s/task", pdir);
    d = opendir(tdir);
    if (!d)
        return 0;
    while ((de = readdir(d))) {
        char tpath[600], tcomm[64];
        uint64_t tid;
        if (parse_u64(de->d_name, &tid) || tid == (uint64_t)pid || tid > INT32_MAX)
            continue;
        snprintf(tpath, sizeof(tpath), "%s/%s", tdir, de->d_name);
        if (read_comm(tpath, tcomm, sizeof(tcomm)))
            continue;
        err = emit_comm(attr, (uint32_t)pid, (uint32_t)tid, tcomm, fn, arg);
        if (err < 0)
            break;
        st->threads++;
    }
    closedir(d);
    return err < 0 ? err : 0;
}

int proc_synthesize(const char *procdir, pid_t pid, const struct perf_event_attr *attr,
                    synth_fn fn, void *arg, struct proc_synth_stats *stats)
{
    DIR *d;
    struct dirent *de;
    int err = 0;

    memset(stats, 0, sizeof(*stats));
    if (pid >= 0)
        return synth_one(procdir, pid, attr, fn, arg, stats);
    d = opendir(procdir);
    if (!d)
        return -errno;
    while ((de = readdir(d))) {
        uint64_t p;
        if (parse_u64(de->d_name, &p) || p > INT32_MAX || de->d_name[0] == '0')
            continue;
        err = synth_one(procdir, (pid_t)p, attr, fn, arg, stats);
        if (err == -ENOENT) {          /* exited meanwhile */
            err = 0;
            continue;
        }
        if (err == -EACCES) {
            if (!stats->unreadable)
                stats->first_unreadable = (pid_t)p;
            stats->unreadable++;
            err = 0;
            continue;
        }
        if (err < 0)
            break;
    }
    closedir(d);
    return err;
}

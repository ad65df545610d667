/* SPDX-License-Identifier: MIT */
/* The files of jump entries: a private directory the command can load code from, the
 * trampoline's bytes, and the removal of directories left by a killed prospect. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "probe/jump_files.h"

int jump_write_file(const char *dir, const char *name, const void *data, size_t len,
                    mode_t mode)
{
    char path[PATH_MAX];
    int fd, e = 0;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    if (len && write(fd, data, len) != (ssize_t)len)
        e = -EIO;
    if (!e && fchmod(fd, mode))
        e = -errno;
    if (close(fd) && !e)
        e = -EIO;
    return e;
}

void jump_trampoline_fill(uint8_t *t)
{
    memset(t, 0xcc, JUMP_TRAMP_SIZE);
    for (unsigned i = 0; i < JUMP_MAX_SLOTS; i++) {
        uint8_t *s = t + i * JUMP_SLOT_SIZE;
        int32_t disp = (int32_t)(JUMP_TRAMP_SIZE + 8 * i) - (int32_t)(i * JUMP_SLOT_SIZE + 11);
        /* One-byte nops: the probe is on the first. Not a 5-byte nop: kernel 6.18 "optimizes"
         * a uprobe on one into a call, and a child forked after that died at the slot
         * (SIGSEGV, measured); one-byte nops are emulated just as fast. */
        memset(s, 0x90, 5);
        s[5] = 0xff;            /* jmp *disp32(%rip) */
        s[6] = 0x25;
        memcpy(s + 7, &disp, 4);
    }
}

/* Removes the jump directory `name` in the directory open as `parent`, if it is one Prospect
 * made: a real directory (not a symlink), ours, mode 0700. Only the files Prospect writes there
 * are removed, by unlinkat in a descriptor of that very directory: nothing is followed. 0 or
 * -errno. */
static int remove_dir_at(int parent, const char *name)
{
    static const char *const files[] = { "plan", "trampoline", "entry_hook.so", "log",
                                         "calltrace_preload.so", "attach.conf", "sock",
                                         "reloc", "code", "counters" };
    struct stat st, dst;
    int fd;

    if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW))
        return -errno;
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 07777) != 0700)
        return -EPERM;
    fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    if (fstat(fd, &dst) || dst.st_dev != st.st_dev || dst.st_ino != st.st_ino) {
        close(fd);
        return -EPERM;      /* replaced since fstatat */
    }
    for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++)
        unlinkat(fd, files[i], 0);
    close(fd);
    return unlinkat(parent, name, AT_REMOVEDIR) ? -errno : 0;
}

/* Removes the directories of Prospect processes that no longer run from `tmp` (a killed
 * prospect cannot clean up), only those remove_dir_at recognizes as ours. Returns how many. */
static int cleanup_stale(const char *tmp)
{
    DIR *d = opendir(tmp);
    struct dirent *de;
    int n = 0;

    if (!d)
        return 0;
    while ((de = readdir(d))) {
        int pid = 0, used = 0;
        if (sscanf(de->d_name, "prospect-jump-%d-%*6[A-Za-z0-9]%n", &pid, &used) != 1 ||
            de->d_name[used] || pid <= 0 || (kill(pid, 0) && errno == ESRCH) == 0)
            continue;
        n += remove_dir_at(dirfd(d), de->d_name) == 0;
    }
    closedir(d);
    return n;
}

/* A fresh private directory (mode 0700, mkdtemp's) the command can load the hook from: $TMPDIR,
 * else the usual temporary directories, skipping those mounted noexec (ld.so could not map the
 * hook from there). The name carries our pid so a directory left by a killed prospect can be
 * recognized. */
int jump_make_dir(char *dir, size_t len)
{
    const char *cand[] = { getenv("TMPDIR"), "/tmp", "/var/tmp", "/dev/shm" };
    int e = -ENOENT;

    for (size_t i = 0; i < sizeof(cand) / sizeof(*cand); i++) {
        const char *t = cand[i];
        struct statvfs vfs;
        /* LD_PRELOAD splits on ':' and white space, tracefs on white space. */
        if (!t || t[0] != '/' || strpbrk(t, ": \t\n") || strlen(t) > 200)
            continue;
        cleanup_stale(t);
        snprintf(dir, len, "%s/prospect-jump-%d-XXXXXX", t, (int)getpid());
        if (!mkdtemp(dir)) {
            e = -errno;
            continue;
        }
        if (statvfs(dir, &vfs) == 0 && !(vfs.f_flag & ST_NOEXEC))
            return 0;
        e = -EPERM;
        rmdir(dir);
    }
    dir[0] = '\0';
    return e;
}

void jump_remove_dir(const char *dir)
{
    char parent[PATH_MAX];
    const char *slash = strrchr(dir, '/');
    int fd;

    if (!slash || (size_t)(slash - dir) >= sizeof(parent))
        return;
    snprintf(parent, sizeof(parent), "%.*s", slash == dir ? 1 : (int)(slash - dir), dir);
    fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    remove_dir_at(fd, slash + 1);
    close(fd);
}

/* SPDX-License-Identifier: MIT */
#define LOG_PREFIX "tracefs"
#include <dirent.h>
#include <errno.h>
#include <mntent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "util/file.h"
#include "util/log.h"
#include "util/tracefs.h"

#define TRACEFS_MAGIC_NR 0x74726163

static bool is_tracefs(const char *dir)
{
    struct statfs sf;
    return statfs(dir, &sf) == 0 && (unsigned long)sf.f_type == TRACEFS_MAGIC_NR;
}

/* Whether the running kernel offers tracefs ("nodev\ttracefs" in /proc/filesystems). */
static bool kernel_has_tracefs(void)
{
    char *buf = NULL;
    bool has = false;

    if (file_read_all("/proc/filesystems", &buf, NULL, 1 << 16) == 0) {
        for (char *line = strtok(buf, "\n"); line && !has; line = strtok(NULL, "\n")) {
            char *name = strrchr(line, '\t');
            has = !strcmp(name ? name + 1 : line, "tracefs");
        }
        free(buf);
    }
    return has;
}

/* Mounting over files would hide them: only an empty directory is a mount point for us. */
static bool dir_is_empty(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    bool empty = true;

    if (!d)
        return false;
    while (empty && (de = readdir(d)))
        empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
    closedir(d);
    return empty;
}

static const char *find_or_mount(int *err)
{
    /* Accessing debugfs's tracing directory makes the kernel automount tracefs there. */
    static const char *const dirs[] = { TRACEFS_MOUNT_POINT, "/sys/kernel/debug/tracing" };

    for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++) {
        if (!is_tracefs(dirs[i]))
            continue;
        if (access(dirs[i], R_OK | X_OK) == 0)
            return dirs[i];
        *err = EACCES;
        return NULL;
    }
    if (!kernel_has_tracefs() || access(TRACEFS_MOUNT_POINT, F_OK) != 0) {
        *err = ENOENT;
        return NULL;
    }
    if (!dir_is_empty(TRACEFS_MOUNT_POINT)) {
        *err = EBUSY;
        return NULL;
    }
    if (mount("nodev", TRACEFS_MOUNT_POINT, "tracefs", 0, NULL) != 0) {
        pr_debug("cannot mount tracefs at %s: %s", TRACEFS_MOUNT_POINT, strerror(errno));
        *err = EPERM;
        return NULL;
    }
    pr_debug("mounted tracefs at %s", TRACEFS_MOUNT_POINT);
    return TRACEFS_MOUNT_POINT;
}

const char *tracefs_dir(void)
{
    static bool done;
    static const char *dir;
    static int err;

    if (!done) {
        dir = find_or_mount(&err);
        done = true;
    }
    if (!dir)
        errno = err;
    return dir;
}

const char *tracefs_mounted_dir(void)
{
    static char dir[256];
    FILE *f = setmntent("/proc/self/mounts", "r");
    struct mntent *m;
    bool found = false;

    if (!f)
        return NULL;
    /* The usual mount point first, else the first tracefs mount listed. */
    while ((m = getmntent(f)))
        if (!strcmp(m->mnt_type, "tracefs") &&
            (!found || !strcmp(m->mnt_dir, TRACEFS_MOUNT_POINT)) &&
            strlen(m->mnt_dir) < sizeof(dir)) {
            snprintf(dir, sizeof(dir), "%s", m->mnt_dir);
            found = true;
        }
    endmntent(f);
    return found && access(dir, R_OK | X_OK) == 0 ? dir : NULL;
}

const char *tracefs_advice(int err)
{
    switch (err) {
    case ENOENT:
        return "this kernel has no tracefs (CONFIG_TRACING) or no " TRACEFS_MOUNT_POINT;
    case EPERM:
        return "tracefs is not mounted and this user may not mount it: as root run "
               "'mount -t tracefs nodev " TRACEFS_MOUNT_POINT "'";
    case EBUSY:
        return "tracefs is not mounted and " TRACEFS_MOUNT_POINT " holds other files, which "
               "Prospect does not mount over: as root run 'mount -t tracefs nodev "
               TRACEFS_MOUNT_POINT "' if that is right";
    case EACCES:
        return "tracefs is not readable for this user: run as root (or give this user "
               "access to " TRACEFS_MOUNT_POINT ")";
    default:
        return strerror(err);
    }
}

/* SPDX-License-Identifier: MIT */
#define LOG_PREFIX "uprobe"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "probe/uprobe.h"
#include "util/file.h"
#include "util/log.h"
#include "util/strutil.h"
#include "util/tracefs.h"
#include "util/vec.h"

struct probe {
    char *path;
    char *fetch;          /* fetch arguments ("a0=%di:u64 ..."), NULL for none */
    uint64_t offset;
    bool ret;
    uint64_t id;
    char name[32];
};

struct uprobe_set {
    char group[48];
    VEC(struct probe) probes;
};

const char *uprobe_tracefs(void)
{
    const char *dir = tracefs_dir();
    char p[128];

    if (!dir)
        return NULL;
    snprintf(p, sizeof(p), "%s/uprobe_events", dir);
    if (access(p, W_OK) == 0)
        return dir;
    errno = errno == ENOENT ? ENOTSUP : EACCES;
    return NULL;
}

const char *uprobe_advice(int err)
{
    if (err == ENOTSUP)
        return "this kernel has no uprobe_events in tracefs (CONFIG_UPROBE_EVENTS)";
    if (err == EACCES)
        return "uprobe_events is not writable: region tracing needs root or CAP_SYS_ADMIN";
    return tracefs_advice(err);
}

/* Appends one command line to uprobe_events (O_APPEND: never truncates others' probes). */
static int write_cmd(const char *cmd)
{
    const char *dir = uprobe_tracefs();
    char p[128];
    int fd, err = 0;
    size_t len = strlen(cmd);

    if (!dir)
        return -ENOENT;
    snprintf(p, sizeof(p), "%s/uprobe_events", dir);
    fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    if (write(fd, cmd, len) != (ssize_t)len)
        err = -errno;
    close(fd);
    if (err)
        pr_debug("'%s' failed: %s", cmd, strerror(-err));
    return err;
}

struct uprobe_set *uprobe_set_new(void)
{
    struct uprobe_set *s;

    if (!uprobe_tracefs())
        return NULL;
    uprobe_cleanup_stale();
    s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    snprintf(s->group, sizeof(s->group), "prospect_%ld", (long)getpid());
    return s;
}

int uprobe_set_add(struct uprobe_set *s, const char *path, uint64_t offset, bool ret,
                   uint64_t *tp_id)
{
    return uprobe_set_add_fetch(s, path, offset, ret, NULL, tp_id);
}

int uprobe_set_add_fetch(struct uprobe_set *s, const char *path, uint64_t offset, bool ret,
                         const char *fetch, uint64_t *tp_id)
{
    char cmd[4200], idpath[256], *buf;
    struct probe p = { 0 };
    int err;

    for (size_t i = 0; i < s->probes.n; i++) {
        struct probe *q = &s->probes.v[i];
        if (q->offset == offset && q->ret == ret && !strcmp(q->path, path) &&
            !q->fetch == !fetch && (!fetch || !strcmp(q->fetch, fetch))) {
            *tp_id = q->id;
            return 0;
        }
    }
    /* tracefs splits the command on white space: such paths cannot be probed. */
    if (strpbrk(path, " \t\n") || strlen(path) >= 4000 || (fetch && strlen(fetch) >= 150))
        return -EINVAL;
    snprintf(p.name, sizeof(p.name), "p%zu", s->probes.n);
    snprintf(cmd, sizeof(cmd), "%c:%s/%s %s:0x%llx%s%s\n", ret ? 'r' : 'p', s->group, p.name,
             path, (unsigned long long)offset, fetch ? " " : "", fetch ? fetch : "");
    err = write_cmd(cmd);
    if (err)
        return err;
    snprintf(idpath, sizeof(idpath), "%s/events/%s/%s/id", uprobe_tracefs(), s->group, p.name);
    err = file_read_all(idpath, &buf, NULL, 64);
    if (!err) {
        buf[strcspn(buf, "\n")] = '\0';
        err = parse_u64(buf, &p.id);
        free(buf);
    }
    p.path = strdup(path);
    p.fetch = fetch ? strdup(fetch) : NULL;
    p.offset = offset;
    p.ret = ret;
    if (err || !p.path || (fetch && !p.fetch) || vec_push(&s->probes, p)) {
        snprintf(cmd, sizeof(cmd), "-:%s/%s\n", s->group, p.name);
        write_cmd(cmd);
        free(p.path);
        free(p.fetch);
        return err ? err : -ENOMEM;
    }
    pr_debug2("%s/%s = %s:0x%llx%s (id %llu)", s->group, p.name, path,
              (unsigned long long)offset, ret ? " return" : "", (unsigned long long)p.id);
    *tp_id = p.id;
    return 0;
}

static const struct probe *find_event(const struct uprobe_set *s, const char *event)
{
    for (size_t i = 0; i < s->probes.n; i++)
        if (!strcmp(s->probes.v[i].name, event))
            return &s->probes.v[i];
    return NULL;
}

int uprobe_set_append(struct uprobe_set *s, const char *event, const char *path,
                      uint64_t offset, bool ret, const char *fetch, uint64_t *tp_id)
{
    char cmd[4200], idpath[256], *buf;
    const struct probe *ev = find_event(s, event);
    struct probe p = { 0 };
    int err = 0;

    for (size_t i = 0; i < s->probes.n; i++) {
        const struct probe *q = &s->probes.v[i];
        if (!strcmp(q->name, event) && q->offset == offset && !strcmp(q->path, path))
            return -EEXIST;
    }
    if (strpbrk(path, " \t\n") || strlen(path) >= 4000 || strlen(event) >= sizeof(p.name) ||
        (fetch && strlen(fetch) >= 150))
        return -EINVAL;
    snprintf(p.name, sizeof(p.name), "%s", event);
    snprintf(cmd, sizeof(cmd), "%c:%s/%s %s:0x%llx%s%s\n", ret ? 'r' : 'p', s->group, event,
             path, (unsigned long long)offset, fetch ? " " : "", fetch ? fetch : "");
    if ((err = write_cmd(cmd)))
        return err;
    if (ev) {
        p.id = ev->id;
    } else {
        snprintf(idpath, sizeof(idpath), "%s/events/%s/%s/id", uprobe_tracefs(), s->group,
                 event);
        if (!(err = file_read_all(idpath, &buf, NULL, 64))) {
            buf[strcspn(buf, "\n")] = '\0';
            err = parse_u64(buf, &p.id);
            free(buf);
        }
    }
    p.path = strdup(path);
    p.offset = offset;
    p.ret = ret;
    if (err || !p.path || vec_push(&s->probes, p)) {
        /* Only a new event is removed whole; an appended probe stays until the set goes. */
        if (!ev) {
            snprintf(cmd, sizeof(cmd), "-:%s/%s\n", s->group, event);
            write_cmd(cmd);
        }
        free(p.path);
        return err ? err : -ENOMEM;
    }
    *tp_id = p.id;
    return 0;
}

/* Every "-:group/event" line of the set (once per event) in one write, which the kernel runs
 * in turn: one open and write, not one per probe. One line at a time when the batch fails (a
 * busy event must not keep the others in). */
static void delete_probes(const struct uprobe_set *s)
{
    char line[96], *cmds;
    size_t len = 0, cap = s->probes.n * sizeof(line) + 1;
    if (!s->probes.n)
        return;
    if ((cmds = malloc(cap))) {
        for (size_t i = 0; i < s->probes.n; i++)
            if (find_event(s, s->probes.v[i].name) == &s->probes.v[i])
                len += (size_t)snprintf(cmds + len, cap - len, "-:%s/%s\n", s->group,
                                        s->probes.v[i].name);
        if (!write_cmd(cmds)) {
            free(cmds);
            return;
        }
        free(cmds);
    }
    for (size_t i = 0; i < s->probes.n; i++) {
        if (find_event(s, s->probes.v[i].name) != &s->probes.v[i])
            continue;
        snprintf(line, sizeof(line), "-:%s/%s\n", s->group, s->probes.v[i].name);
        write_cmd(line);
    }
}

void uprobe_set_free(struct uprobe_set *s)
{
    if (!s)
        return;
    delete_probes(s);
    for (size_t i = 0; i < s->probes.n; i++) {
        free(s->probes.v[i].path);
        free(s->probes.v[i].fetch);
    }
    vec_free(&s->probes);
    free(s);
}

/* Deletes every event of a tracefs group (one "-:group/event" per event directory). */
static int delete_group(const char *events_dir, const char *group)
{
    char p[600], cmd[600];
    struct dirent *de;
    DIR *d;
    int n = 0;

    snprintf(p, sizeof(p), "%s/%s", events_dir, group);
    d = opendir(p);
    if (!d)
        return 0;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.' || de->d_type != DT_DIR)
            continue;
        snprintf(cmd, sizeof(cmd), "-:%s/%s\n", group, de->d_name);
        n += write_cmd(cmd) == 0;
    }
    closedir(d);
    return n;
}

int uprobe_cleanup_stale(void)
{
    const char *dir = uprobe_tracefs();
    char p[160];
    struct dirent *de;
    DIR *d;
    int n = 0;

    if (!dir)
        return 0;
    snprintf(p, sizeof(p), "%s/events", dir);
    d = opendir(p);
    if (!d)
        return 0;
    while ((de = readdir(d))) {
        uint64_t pid;
        if (!str_starts(de->d_name, "prospect_") || parse_u64(de->d_name + 9, &pid) ||
            pid == 0 || pid > 0x7fffffff)
            continue;
        if ((pid_t)pid == getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        n += delete_group(p, de->d_name);
    }
    closedir(d);
    return n;
}

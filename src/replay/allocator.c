/* SPDX-License-Identifier: MIT */
/* Allocator names -> libraries to preload (allocator.h). */
#include "replay/allocator.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEB_LIB "/usr/lib/x86_64-linux-gnu/"

static const struct known {
    const char *name, *lib, *package;
} known[] = {
    {"glibc", "", "libc6"},
    {"jemalloc", DEB_LIB "libjemalloc.so.2", "libjemalloc2"},
    {"tcmalloc", DEB_LIB "libtcmalloc_minimal.so.4", "libtcmalloc-minimal4"},
    {"mimalloc", DEB_LIB "libmimalloc.so.2", "libmimalloc2.0"},
};

const char replay_alloc_default[] = "glibc,jemalloc,tcmalloc,mimalloc";

int replay_alloc_parse(const char *s, struct replay_alloc *a)
{
    memset(a, 0, sizeof(*a));
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (!strcmp(s, known[i].name)) {
            snprintf(a->name, sizeof(a->name), "%s", known[i].name);
            snprintf(a->lib, sizeof(a->lib), "%s", known[i].lib);
            return 0;
        }
    const char *eq = strchr(s, '=');
    if (!eq || eq == s || (size_t)(eq - s) >= sizeof(a->name) || eq[1] != '/' ||
        strlen(eq + 1) >= sizeof(a->lib) || strpbrk(eq + 1, ": "))
        return -EINVAL;
    for (const char *p = s; p < eq; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '-' || *p == '.'))
            return -EINVAL;
    snprintf(a->name, sizeof(a->name), "%.*s", (int)(eq - s), s);
    snprintf(a->lib, sizeof(a->lib), "%s", eq + 1);
    return 0;
}

bool replay_alloc_installed(const struct replay_alloc *a)
{
    struct stat st;
    return !a->lib[0] || (stat(a->lib, &st) == 0 && S_ISREG(st.st_mode) && !access(a->lib, R_OK));
}

const char *replay_alloc_package(const struct replay_alloc *a)
{
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (!strcmp(a->name, known[i].name) && !strcmp(a->lib, known[i].lib))
            return known[i].package;
    return "";
}

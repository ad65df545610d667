/* SPDX-License-Identifier: MIT */
/* [vdso]: every process on this kernel maps the same vdso image, so the symbols come from a
 * copy of our own (found through /proc/self/maps), parsed from memory. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbol/dso_internal.h"
#include "util/file.h"

#define LOG_PREFIX "symbol"
#include "util/log.h"

#define VDSO_MAX (1u << 20)

/* Finds the [vdso] range in a maps text. 0 or -ENOENT. */
static int find_vdso(const char *maps, uint64_t *start, uint64_t *end)
{
    const char *line = maps;
    while (line && *line) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        if (len > 6 && !memcmp(line + len - 6, "[vdso]", 6) &&
            sscanf(line, "%" SCNx64 "-%" SCNx64, start, end) == 2 && *end > *start)
            return 0;
        line = eol ? eol + 1 : NULL;
    }
    return -ENOENT;
}

int dso_load_vdso(struct dso *dso)
{
    char *maps;
    uint64_t start, end;
    void *img;
    size_t len;
    struct elf_file ef;
    int err;

    err = file_read_all("/proc/self/maps", &maps, NULL, 16u << 20);
    if (err) {
        dso->status = DSO_MISSING;
        return err == -ENOMEM ? err : 0;
    }
    err = find_vdso(maps, &start, &end);
    free(maps);
    if (err || end - start > VDSO_MAX) {
        dso->status = DSO_MISSING;
        return 0;
    }
    len = (size_t)(end - start);
    img = malloc(len);
    if (!img)
        return -ENOMEM;
    memcpy(img, (const void *)(uintptr_t)start, len);
    err = elf_file_open_mem(img, len, &ef);
    if (err) {
        free(img);
        dso->status = DSO_BAD_ELF;
        return 0;
    }
    if (elf_read_build_id(ef.elf, dso->fbid, sizeof(dso->fbid), &dso->fbid_len))
        dso->fbid_len = 0;
    err = dso_load_elf(dso, &ef, "[vdso]");
    elf_file_close(&ef);
    free(img);
    return err;
}

/* SPDX-License-Identifier: MIT */
/* The kernel's build id, from the ELF notes the kernel exports (untrusted bytes). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "perf/perfdata_write.h"
#include "util/file.h"

#define NT_GNU_BUILD_ID_ 3

int perfdata_kernel_build_id(const char *notes_path, uint8_t *out, size_t *len)
{
    char *buf;
    size_t n, off = 0;
    int ret = -ENOENT;

    ret = file_read_all(notes_path, &buf, &n, 1 << 20);
    if (ret)
        return ret;
    ret = -ENOENT;
    /* Elf_Nhdr: u32 namesz, descsz, type; name and desc each padded to 4 bytes. */
    while (n - off >= 12) {
        uint32_t namesz, descsz, type;
        size_t name_pad, desc_pad;

        memcpy(&namesz, buf + off, 4);
        memcpy(&descsz, buf + off + 4, 4);
        memcpy(&type, buf + off + 8, 4);
        off += 12;
        name_pad = ((size_t)namesz + 3) & ~(size_t)3;
        desc_pad = ((size_t)descsz + 3) & ~(size_t)3;
        if (name_pad > n - off || desc_pad > n - off - name_pad)
            break;
        if (type == NT_GNU_BUILD_ID_ && namesz == 4 && !memcmp(buf + off, "GNU", 4) &&
            descsz > 0 && descsz <= *len) {
            memcpy(out, buf + off + name_pad, descsz);
            *len = descsz;
            ret = 0;
            break;
        }
        off += name_pad + desc_pad;
    }
    free(buf);
    return ret;
}

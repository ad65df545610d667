/* SPDX-License-Identifier: MIT */
/* Kernel code bytes for `prospect annotate`: from a vmlinux image the user gives (its link
 * addresses moved by the KASLR offset, the running kernel's _stext minus the image's), else
 * from /proc/kcore (root; the live kernel's memory as ELF segments). */
#ifndef PROSPECT_ANNOTATE_KCODE_H
#define PROSPECT_ANNOTATE_KCODE_H
#include <stddef.h>
#include <stdint.h>

struct ksyms;

#define ANN_KCORE "/proc/kcore"

/* Reads size bytes of kernel code at the running kernel's address addr into a malloc'd *out;
 * *from names the file read. 0, or -errno with a one-line reason in err (-ENOENT: no kcore and
 * no vmlinux, -EACCES, -ERANGE: not in the image, -ENOMEM). */
int ann_kernel_code(const char *vmlinux, const struct ksyms *ks, uint64_t addr, uint64_t size,
                    uint8_t **out, const char **from, char *err, size_t errlen);
#endif

/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "symbol/elf_file.h"
#include "unwind/ehview.h"
#include "util/mapguard.h"

/* The view's section names, at the offsets its section headers give. */
static const char names[] = "\0.shstrtab\0.eh_frame_hdr\0.eh_frame";
#define NAME_SHSTRTAB 1
#define NAME_HDR 11
#define NAME_EH 25
#define NAMES_OFF sizeof(Elf64_Ehdr)
#define SHDRS_OFF 128

struct sect {
    bool found;
    GElf_Shdr sh;
};

/* The first .eh_frame and .eh_frame_hdr wherever they are listed. */
static int find_sections(Elf *e, struct sect *eh, struct sect *hdr)
{
    size_t shstrndx;
    Elf_Scn *scn = NULL;

    if (elf_getshdrstrndx(e, &shstrndx) || !shstrndx)
        return -ENOENT;
    while ((scn = elf_nextscn(e, scn))) {
        GElf_Shdr sh;
        const char *name;
        if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name)))
            continue;
        if (!eh->found && !strcmp(name, ".eh_frame"))
            *eh = (struct sect){ true, sh };
        else if (!hdr->found && !strcmp(name, ".eh_frame_hdr"))
            *hdr = (struct sect){ true, sh };
    }
    return 0;
}

static bool has_bytes(const struct sect *s, uint64_t size)
{
    return s->found && s->sh.sh_type != SHT_NOBITS && s->sh.sh_size &&
           s->sh.sh_offset <= size && s->sh.sh_size <= size - s->sh.sh_offset;
}

/* Section header i of the view: the original's, moved to the window's offset. */
static void put_shdr(Elf64_Shdr *out, const struct sect *s, uint32_t name, uint64_t off)
{
    *out = (Elf64_Shdr){ .sh_name = name, .sh_type = s->sh.sh_type, .sh_flags = s->sh.sh_flags,
                         .sh_addr = s->sh.sh_addr, .sh_offset = off, .sh_size = s->sh.sh_size,
                         .sh_addralign = s->sh.sh_addralign, .sh_entsize = s->sh.sh_entsize };
}

int eh_view_open(const struct elf_file *ef, struct eh_view *v)
{
    const Elf64_Ehdr *oe = elf64_getehdr(ef->elf);
    struct sect eh = { 0 }, hdr = { 0 };
    size_t page = (size_t)sysconf(_SC_PAGESIZE), nsh;
    uint64_t lo, hi;

    memset(v, 0, sizeof(*v));
    v->guard = -1;
    if (ef->fd < 0 || !oe || oe->e_ident[EI_DATA] != ELFDATA2LSB ||
        find_sections(ef->elf, &eh, &hdr) || !has_bytes(&eh, ef->size))
        return -ENOENT;
    hdr.found = has_bytes(&hdr, ef->size);
    lo = eh.sh.sh_offset;
    hi = eh.sh.sh_offset + eh.sh.sh_size;
    if (hdr.found) {
        lo = hdr.sh.sh_offset < lo ? hdr.sh.sh_offset : lo;
        hi = hdr.sh.sh_offset + hdr.sh.sh_size > hi ? hdr.sh.sh_offset + hdr.sh.sh_size : hi;
    }
    lo &= ~(uint64_t)(page - 1);
    if (hi - lo > SIZE_MAX - 2 * page)
        return -ENOENT;
    v->len = page + ((hi - lo + page - 1) & ~(uint64_t)(page - 1));
    v->base = mmap(NULL, v->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (v->base == MAP_FAILED) {
        v->base = NULL;
        return -ENOENT;
    }
    if (mmap((char *)v->base + page, hi - lo, PROT_READ, MAP_PRIVATE | MAP_FIXED, ef->fd,
             (off_t)lo) == MAP_FAILED ||
        (v->guard = mapguard_add((char *)v->base + page, v->len - page)) < 0)
        goto fail;

    /* The headers: .shstrtab, .eh_frame_hdr (when there is one), .eh_frame. */
    Elf64_Ehdr *e = v->base;
    Elf64_Shdr *sh = (Elf64_Shdr *)((char *)v->base + SHDRS_OFF);
    nsh = 0;
    memcpy((char *)v->base + NAMES_OFF, names, sizeof(names));
    sh[nsh++] = (Elf64_Shdr){ 0 };
    sh[nsh++] = (Elf64_Shdr){ .sh_name = NAME_SHSTRTAB, .sh_type = SHT_STRTAB,
                              .sh_offset = NAMES_OFF, .sh_size = sizeof(names),
                              .sh_addralign = 1 };
    if (hdr.found)
        put_shdr(&sh[nsh++], &hdr, NAME_HDR, page + hdr.sh.sh_offset - lo);
    put_shdr(&sh[nsh++], &eh, NAME_EH, page + eh.sh.sh_offset - lo);
    memcpy(e->e_ident, oe->e_ident, EI_NIDENT);
    e->e_type = oe->e_type;
    e->e_machine = oe->e_machine;
    e->e_version = oe->e_version;
    e->e_flags = oe->e_flags;
    e->e_ehsize = sizeof(*e);
    e->e_shoff = SHDRS_OFF;
    e->e_shentsize = sizeof(*sh);
    e->e_shnum = (Elf64_Half)nsh;
    e->e_shstrndx = 1;
    v->elf = elf_memory(v->base, v->len);
    if (!v->elf)
        goto fail;
    return 0;
fail:
    eh_view_close(v);
    return -ENOENT;
}

bool eh_view_damaged(const struct eh_view *v)
{
    return v->guard >= 0 && mapguard_damaged(v->guard);
}

void eh_view_close(struct eh_view *v)
{
    if (v->elf)
        elf_end(v->elf);
    if (v->guard >= 0)
        mapguard_remove(v->guard);
    if (v->base)
        munmap(v->base, v->len);
    memset(v, 0, sizeof(*v));
    v->guard = -1;
}

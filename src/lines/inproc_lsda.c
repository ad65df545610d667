/* SPDX-License-Identifier: MIT */
/* The copies' exception tables (inproc_priv.h). A function's LSDA (gcc's format, in
 * .gcc_except_table: the Itanium C++ ABI's language-specific data, LSB "Exception Frames"):
 *   LPStart encoding [LPStart], TType encoding [TType offset (uleb128)],
 *   call-site encoding, call-site table length (uleb128),
 *   call sites: (start, length, landing pad, action (uleb128)), start and length from the
 *   FDE's initial location, the landing pad from LPStart (0: none),
 *   action records (filter, next: sleb128 each), then the type table, read backwards from
 *   TType, and the exception specifications' uleb128 lists after it.
 * Each copy gets two: one whose call sites are the copy's ranges (a call made as a call in the
 * copy returns there), one with the original's (a call made through the original's call
 * instruction returns to the original, whose registered FDE is found before the program's
 * own); both with LPStart at the copy's entry and its landing pads. Actions and exception
 * specifications are copied as they are; type entries become pcrel sdata4 (indirect kept) to
 * the same typeinfo, fixed where the hook maps the copies. */
#include <errno.h>
#include <gelf.h>
#include <stdint.h>
#include <string.h>
#include "lines/inproc_priv.h"

#define OMIT 0xff
#define PCREL_S4 0x1b                /* DW_EH_PE_pcrel | DW_EH_PE_sdata4 */
#define INDIRECT 0x80
#define MAX_ACTIONS 100000           /* an action chain longer than this is a loop */

struct call_site {
    uint64_t start, len, lp, action;
};

/* The original's LSDA, parsed. */
struct lsda {
    const uint8_t *base, *end;       /* its section's bytes */
    uint64_t vaddr;                  /* the section's address */
    uint8_t ttype_enc;
    const uint8_t *act, *act_end;    /* the action records the call sites use */
    const uint8_t *ttype, *spec_end; /* TType (NULL: none) and the specifications' end */
    uint64_t ntypes;
    VEC(struct call_site) cs;
};

static bool uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (int sh = 0; *p < end && sh < 64; sh += 7) {
        uint8_t b = *(*p)++;
        *v |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80))
            return true;
    }
    return false;
}

static bool sleb(const uint8_t **p, const uint8_t *end, int64_t *v)
{
    uint64_t u = 0;
    int sh = 0;
    uint8_t b = 0x80;
    while (*p < end && sh < 64 && (b & 0x80)) {
        b = *(*p)++;
        u |= (uint64_t)(b & 0x7f) << sh;
        sh += 7;
    }
    if (b & 0x80)
        return false;
    if (sh < 64 && (b & 0x40))
        u |= ~0ULL << sh;
    *v = (int64_t)u;
    return true;
}

/* Bytes of a fixed-size DW_EH_PE_* format; 0: (s|u)leb128 or unknown. */
static size_t fixed_size(uint8_t enc)
{
    switch (enc & 0x0f) {
    case 0x00: case 0x04: case 0x0c: return 8;
    case 0x03: case 0x0b: return 4;
    case 0x02: case 0x0a: return 2;
    default: return 0;
    }
}

/* A value of format enc at *p, its application (pcrel: from its own address) not applied. */
static bool get(uint8_t enc, const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    size_t s = fixed_size(enc);
    uint64_t u = 0;
    if ((enc & 0x0f) == 0x01)
        return uleb(p, end, v);
    if ((enc & 0x0f) == 0x09)
        return sleb(p, end, (int64_t *)v);
    if (!s || (size_t)(end - *p) < s)
        return false;
    for (size_t i = s; i-- > 0; )
        u = u << 8 | (*p)[i];
    if ((enc & 0x08) && s < 8 && (u >> (8 * s - 1) & 1))
        u |= ~0ULL << (8 * s);
    *p += s;
    *v = u;
    return true;
}

/* The bytes of the allocated section holding vaddr. */
static bool section_at(Elf *elf, uint64_t vaddr, struct lsda *l)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        Elf_Data *d;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !(sh.sh_flags & SHF_ALLOC) ||
            vaddr < sh.sh_addr || vaddr >= sh.sh_addr + sh.sh_size)
            continue;
        if (!(d = elf_getdata(scn, NULL)) || !d->d_buf || d->d_size != sh.sh_size)
            return false;
        l->base = d->d_buf;
        l->end = l->base + d->d_size;
        l->vaddr = sh.sh_addr;
        return true;
    }
    return false;
}

/* The exception specification list at TType + off - 1: its types, its end. */
static bool read_spec(struct lsda *l, uint64_t off)
{
    const uint8_t *p;
    uint64_t t = 1;
    if (off - 1 >= (uint64_t)(l->end - l->ttype))
        return false;
    p = l->ttype + off - 1;
    while (t && uleb(&p, l->end, &t))
        l->ntypes = t > l->ntypes ? t : l->ntypes;
    l->spec_end = p > l->spec_end ? p : l->spec_end;
    return !t;
}

/* Follows the action chain from record `action` (1 + its offset): the types and
 * specifications it names, the records' end. Offsets from the table's start, checked before
 * they become pointers. */
static const char *walk_actions(struct lsda *l, uint64_t action)
{
    uint64_t at = action - 1, room = (uint64_t)(l->end - l->act);
    for (int n = 0; n < MAX_ACTIONS; n++) {
        const uint8_t *p, *next;
        int64_t filter, disp;
        if (at >= room)
            return "an action record out of its table";
        p = l->act + at;
        if (!sleb(&p, l->end, &filter))
            return "an action record out of its table";
        next = p;
        if (!sleb(&p, l->end, &disp))
            return "an action record out of its table";
        l->act_end = p > l->act_end ? p : l->act_end;
        if (filter && !l->ttype)
            return "a type filter without a type table";
        if (filter > 0)
            l->ntypes = (uint64_t)filter > l->ntypes ? (uint64_t)filter : l->ntypes;
        if (filter < 0 && (filter == INT64_MIN || !read_spec(l, (uint64_t)-filter)))
            return "an exception specification out of its table";
        if (!disp)
            return NULL;
        at = (uint64_t)(next - l->act) + (uint64_t)disp;    /* wraps below 0: >= room */
    }
    return "an action chain that loops";
}

/* The header and call sites of the LSDA at vaddr, the actions and types they use. */
static const char *parse(struct lsda *l, uint64_t vaddr)
{
    const uint8_t *p = l->base + (vaddr - l->vaddr), *cs_end;
    uint64_t off, n;
    uint8_t cs_enc;

    if (p + 2 > l->end || *p++ != OMIT)
        return "an exception table with its own landing pad base";
    l->ttype_enc = *p++;
    if (l->ttype_enc != OMIT) {
        if (!uleb(&p, l->end, &off) || off > (uint64_t)(l->end - p))
            return "a type table out of its section";
        l->ttype = l->spec_end = p + off;
        if ((l->ttype_enc & 0x70) > 0x10 || fixed_size(l->ttype_enc) < 4)
            return "a type table encoding not carried over";
    }
    if (p >= l->end || ((cs_enc = *p++) & 0x70) || cs_enc == OMIT ||
        !uleb(&p, l->end, &n) || n > (uint64_t)(l->end - p))
        return "an unreadable call-site table";
    l->act = l->act_end = cs_end = p + n;
    while (p < cs_end) {
        struct call_site c;
        if (!get(cs_enc, &p, cs_end, &c.start) || !get(cs_enc, &p, cs_end, &c.len) ||
            !get(cs_enc, &p, cs_end, &c.lp) || !uleb(&p, cs_end, &c.action))
            return "an unreadable call-site table";
        if (vec_push(&l->cs, c))
            return "";
    }
    for (size_t i = 0; i < l->cs.n; i++) {
        const char *why = l->cs.v[i].action ? walk_actions(l, l->cs.v[i].action) : NULL;
        if (why)
            return why;
    }
    if (l->ttype && l->ntypes > (uint64_t)(l->ttype - l->base) / fixed_size(l->ttype_enc))
        return "a type table out of its section";
    return NULL;
}

/* Where the copy of the original's instruction at addr, or of the first one after it,
 * starts (its counter first); copy_end past the last. */
struct copy_map {
    const struct reloc_place *pl;
    size_t n;
    uint32_t end;
};

static size_t first_at(const struct copy_map *m, uint64_t addr)
{
    size_t l = 0, r = m->n;
    while (l < r) {
        size_t mid = l + (r - l) / 2;
        if (m->pl[mid].addr < addr)
            l = mid + 1;
        else
            r = mid;
    }
    return l;
}

static uint32_t copy_of(const struct copy_map *m, uint64_t addr)
{
    size_t i = first_at(m, addr);
    return i < m->n ? m->pl[i].copy : m->end;
}

static int put(struct inproc_cfi *c, const void *p, size_t n)
{
    int e = vec_reserve(&c->lsdas, n);
    if (!e) {
        memcpy(c->lsdas.v + c->lsdas.n, p, n);
        c->lsdas.n += n;
    }
    return e;
}

/* v as a uleb128 of 5 bytes (the sizes it measures are then known before it is written). */
static int put_uleb5(struct inproc_cfi *c, uint64_t v)
{
    uint8_t b[5];
    for (int i = 0; i < 5; i++)
        b[i] = (uint8_t)((v >> (7 * i) & 0x7f) | (i < 4 ? 0x80 : 0));
    return put(c, b, 5);
}

static int put_uleb(struct inproc_cfi *c, uint64_t v)
{
    int e = 0;
    do {
        uint8_t b = (uint8_t)(v & 0x7f);
        v >>= 7;
        b |= v ? 0x80 : 0;
        e = put(c, &b, 1);
    } while (v && !e);
    return e;
}

static int put_u32(struct inproc_cfi *c, uint64_t v)
{
    uint32_t u = (uint32_t)v;
    return put(c, &u, 4);
}

static int lrel(struct inproc_cfi *c, bool copy, uint64_t target)
{
    if (vec_push(&c->lrels, ((struct inproc_lrel){ (uint32_t)c->lsdas.n, copy, target })))
        return -ENOMEM;
    return put_u32(c, 0);
}

/* The call-site table: the copy's ranges (in_copy) or the original's, the copy's landing
 * pads from its entry. *len: its bytes. */
static int put_call_sites(struct inproc_cfi *c, const struct lsda *l, const struct copy_map *m,
                          uint64_t lo, bool in_copy, size_t *len, const char **why)
{
    size_t at = c->lsdas.n;
    int e = 0;
    for (size_t i = 0; i < l->cs.n && !e; i++) {
        const struct call_site *s = &l->cs.v[i];
        uint64_t a = lo + s->start, b = a + s->len, lp = 0;
        if (s->lp) {
            size_t k = first_at(m, lo + s->lp);
            if (k >= m->n || m->pl[k].addr != lo + s->lp || m->pl[k].copy <= m->pl[0].copy) {
                *why = "a landing pad outside its copy";
                return -ENOTSUP;
            }
            lp = m->pl[k].copy - m->pl[0].copy;
        }
        if (in_copy) {
            a = copy_of(m, a) - m->pl[0].copy;
            b = copy_of(m, b) - m->pl[0].copy;
        } else {
            a -= lo;
            b -= lo;
        }
        if ((e = put_u32(c, a)) || (e = put_u32(c, b - a)) || (e = put_u32(c, lp)))
            break;
        e = put_uleb(c, s->action);
    }
    *len = c->lsdas.n - at;
    return e;
}

/* The type table: entry i at TType - 4 i, pcrel to what the original's names. */
static int put_types(struct inproc_cfi *c, const struct lsda *l, const char **why)
{
    size_t size = fixed_size(l->ttype_enc);
    int e = 0;
    for (uint64_t i = l->ntypes; i >= 1 && !e; i--) {
        const uint8_t *p = l->ttype - i * size;
        uint64_t v;
        get(l->ttype_enc, &p, l->end, &v);
        if ((l->ttype_enc & 0x70) == 0x10 && v)
            v += l->vaddr + (uint64_t)(l->ttype - i * size - l->base);
        if (!v)
            e = put_u32(c, 0);           /* catch (...) */
        else if ((l->ttype_enc & 0x70) == 0x10 || (l->ttype_enc & 0x0f) != 0x00)
            e = lrel(c, false, v);
        else {
            *why = "absolute type pointers";
            return -ENOTSUP;
        }
    }
    return e;
}

/* One LSDA for the copy, appended to c->lsdas. */
static int put_lsda(struct inproc_cfi *c, const struct lsda *l, const struct copy_map *m,
                    uint64_t lo, bool in_copy, const char **why)
{
    size_t cs_len, cs_at, act_len = (size_t)(l->act_end - l->act);
    uint8_t b[2] = { PCREL_S4, (uint8_t)(l->ttype ? PCREL_S4 | (l->ttype_enc & INDIRECT)
                                                  : OMIT) };
    size_t ttype_off_at = 0;
    uint8_t cs_enc = 0x03;                /* udata4 */
    int e;

    if ((e = put(c, b, 1)) || (e = lrel(c, true, m->pl[0].copy)) || (e = put(c, b + 1, 1)))
        return e;
    if (l->ttype) {
        ttype_off_at = c->lsdas.n;
        if ((e = put_uleb5(c, 0)))
            return e;
    }
    if ((e = put(c, &cs_enc, 1)) || (e = put_uleb5(c, 0)))
        return e;
    cs_at = c->lsdas.n;
    if ((e = put_call_sites(c, l, m, lo, in_copy, &cs_len, why)))
        return e;
    c->lsdas.n = cs_at - 5;               /* the table's length, now known */
    if ((e = put_uleb5(c, cs_len)))
        return e;
    c->lsdas.n += cs_len;
    if ((e = put(c, l->act, act_len)) || (l->ttype && (e = put_types(c, l, why))))
        return e;
    if (l->ttype) {
        size_t ttype = c->lsdas.n, end = ttype_off_at + 5;
        c->lsdas.n = ttype_off_at;
        if ((e = put_uleb5(c, ttype - end)))
            return e;
        c->lsdas.n = ttype;
        e = put(c, l->ttype, (size_t)(l->spec_end - l->ttype));
    }
    return e;
}

int inproc_lsda_add(struct inproc_cfi *c, const struct elf_fde *eh,
                    const struct reloc_code *rc, size_t first, uint32_t copy_end,
                    const char **why)
{
    struct inproc_cfi_mark mark = inproc_cfi_mark(c);
    struct copy_map m = { rc->places.v + first, rc->places.n - first, copy_end };
    struct lsda l = { 0 };
    size_t copy_fde = c->fdes.n - 1;
    long in_copy, in_orig;
    int e = -ENOTSUP;

    *why = NULL;
    if (!m.n || !c->fdes.n || !eh->lsda || !eh->pers)
        *why = "an exception table not read (no personality routine or LSDA pointer)";
    else if (eh->lo != m.pl[0].addr || eh->hi <= m.pl[m.n - 1].addr)
        *why = "an exception table covering other code than the function";
    else if (!section_at(c->elf, eh->lsda, &l))
        *why = "an LSDA outside the program's sections";
    else if ((*why = parse(&l, eh->lsda)) && !**why)
        e = -ENOMEM;
    if (*why) {
        vec_free(&l.cs);
        return e;
    }
    in_copy = (long)c->lsdas.n;
    if (!(e = put_lsda(c, &l, &m, eh->lo, true, why))) {
        in_orig = (long)c->lsdas.n;
        if (!(e = put_lsda(c, &l, &m, eh->lo, false, why)) &&
            !(e = inproc_cfi_add_orig(c, rc, first, eh->lo, eh->hi))) {
            struct inproc_fde *f = &c->fdes.v[copy_fde], *o = &c->fdes.v[c->fdes.n - 1];
            f->lsda = in_copy;
            o->lsda = in_orig;
            f->pers = o->pers = eh->pers;
            f->pers_ind = o->pers_ind = eh->pers_ind;
        }
    }
    if (e == -ENOENT || (e == -ENOTSUP && !*why))
        *why = "no unwind rules for the original where its calls return";
    if (e == -ENOENT)
        e = -ENOTSUP;
    if (e)
        inproc_cfi_truncate(c, mark);
    vec_free(&l.cs);
    return e;
}

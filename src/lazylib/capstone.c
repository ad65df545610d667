/* capstone, loaded with dlopen when the first disassembler is opened (annotate, lines, the
 * unwinder's call-site check) rather than at every startup: its tables are ~77k relocations
 * (3.3 MB of RSS, 1.4 MB of it private) that `prospect version` or a flat report paid for.
 * These definitions stand in for the library's own (same names and prototypes, from its
 * header), so the callers are unchanged; every other entry point needs a handle from cs_open. */
#define LOG_PREFIX "capstone"
#include <capstone/capstone.h>
#include "lazylib/lazylib.h"
#include "util/dlib.h"
#include "util/log.h"

#define STR2(x) #x
#define STR(x) STR2(x)

static const char *const names[] = {
    "cs_open", "cs_close", "cs_option", "cs_disasm", "cs_disasm_iter", "cs_free", "cs_malloc",
    "cs_insn_group", "cs_regs_access",
};
static struct {
    __typeof__(cs_open) *open;
    __typeof__(cs_close) *close;
    __typeof__(cs_option) *option;
    __typeof__(cs_disasm) *disasm;
    __typeof__(cs_disasm_iter) *disasm_iter;
    __typeof__(cs_free) *free;
    __typeof__(cs_malloc) *malloc;
    __typeof__(cs_insn_group) *insn_group;
    __typeof__(cs_regs_access) *regs_access;
} fn;
static struct dlib lib = DLIB_INIT("libcapstone.so." STR(CS_API_MAJOR), names, &fn);
static int handles;                   /* open cs_open handles */

cs_err cs_open(cs_arch arch, cs_mode mode, csh *handle)
{
    if (dlib_open(&lib)) {
        pr_debug("%s", lib.why);
        return CS_ERR_MEMSETUP;       /* the one code that means "no library" to callers */
    }
    cs_err e = fn.open(arch, mode, handle);
    if (e == CS_ERR_OK)
        __atomic_add_fetch(&handles, 1, __ATOMIC_ACQ_REL);
    return e;
}

cs_err cs_close(csh *handle)
{
    if (!fn.close)
        return CS_ERR_CSH;
    cs_err e = fn.close(handle);
    if (e == CS_ERR_OK)
        __atomic_sub_fetch(&handles, 1, __ATOMIC_ACQ_REL);
    return e;
}

void lazylib_capstone_release(void)
{
    if (!__atomic_load_n(&handles, __ATOMIC_ACQUIRE))
        dlib_close(&lib);
}

cs_err cs_option(csh handle, cs_opt_type type, size_t value)
{
    return fn.option(handle, type, value);
}

size_t cs_disasm(csh handle, const uint8_t *code, size_t code_size, uint64_t address,
                 size_t count, cs_insn **insn)
{
    return fn.disasm(handle, code, code_size, address, count, insn);
}

bool cs_disasm_iter(csh handle, const uint8_t **code, size_t *size, uint64_t *address,
                    cs_insn *insn)
{
    return fn.disasm_iter(handle, code, size, address, insn);
}

void cs_free(cs_insn *insn, size_t count)
{
    if (fn.free)
        fn.free(insn, count);
}

cs_insn *cs_malloc(csh handle)
{
    return fn.malloc(handle);
}

bool cs_insn_group(csh handle, const cs_insn *insn, unsigned int group_id)
{
    return fn.insn_group(handle, insn, group_id);
}

cs_err cs_regs_access(csh handle, const cs_insn *insn, cs_regs regs_read,
                      uint8_t *regs_read_count, cs_regs regs_write, uint8_t *regs_write_count)
{
    return fn.regs_access(handle, insn, regs_read, regs_read_count, regs_write,
                          regs_write_count);
}

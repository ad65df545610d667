/* SPDX-License-Identifier: MIT */
/* Zydis (the x86 decoder of annotate, lines, the unwinder's call-site check and jump-entry
 * relocation), loaded with dlopen when the first decoder or formatter is initialized rather
 * than at every startup, like the other optional libraries (util/dlib.c). These definitions
 * stand in for the library's own (same names and prototypes, from its headers): callers use
 * the Zydis API unchanged, and every other entry point needs an initialized decoder or
 * formatter first. Without the library, initializing fails with ZYAN_STATUS_MISSING_DEPENDENCY. */
#define LOG_PREFIX "zydis"
#include <stdbool.h>
#include <Zydis/Zydis.h>
#include "util/dlib.h"
#include "util/log.h"

static const char *const names[] = {
    "ZydisDecoderInit", "ZydisDecoderDecodeFull", "ZydisFormatterInit",
    "ZydisFormatterSetProperty", "ZydisFormatterFormatInstruction", "ZydisCalcAbsoluteAddress",
    "ZydisMnemonicGetString",
};
static struct {
    __typeof__(ZydisDecoderInit) *decoder_init;
    __typeof__(ZydisDecoderDecodeFull) *decode_full;
    __typeof__(ZydisFormatterInit) *formatter_init;
    __typeof__(ZydisFormatterSetProperty) *formatter_set;
    __typeof__(ZydisFormatterFormatInstruction) *format;
    __typeof__(ZydisCalcAbsoluteAddress) *abs_address;
    __typeof__(ZydisMnemonicGetString) *mnemonic_string;
} fn;
static struct dlib lib = DLIB_INIT("libZydis.so.4.0", names, &fn);

static bool loaded(void)
{
    if (dlib_open(&lib)) {
        pr_debug("%s", lib.why);
        return false;
    }
    return true;
}

ZyanStatus ZydisDecoderInit(ZydisDecoder *decoder, ZydisMachineMode machine_mode,
                            ZydisStackWidth stack_width)
{
    if (!loaded())
        return ZYAN_STATUS_MISSING_DEPENDENCY;
    return fn.decoder_init(decoder, machine_mode, stack_width);
}

ZyanStatus ZydisDecoderDecodeFull(const ZydisDecoder *decoder, const void *buffer,
                                  ZyanUSize length, ZydisDecodedInstruction *instruction,
                                  ZydisDecodedOperand operands[ZYDIS_MAX_OPERAND_COUNT])
{
    return fn.decode_full(decoder, buffer, length, instruction, operands);
}

ZyanStatus ZydisFormatterInit(ZydisFormatter *formatter, ZydisFormatterStyle style)
{
    if (!loaded())
        return ZYAN_STATUS_MISSING_DEPENDENCY;
    return fn.formatter_init(formatter, style);
}

ZyanStatus ZydisFormatterSetProperty(ZydisFormatter *formatter, ZydisFormatterProperty property,
                                     ZyanUPointer value)
{
    return fn.formatter_set(formatter, property, value);
}

ZyanStatus ZydisFormatterFormatInstruction(const ZydisFormatter *formatter,
                                           const ZydisDecodedInstruction *instruction,
                                           const ZydisDecodedOperand *operands,
                                           ZyanU8 operand_count, char *buffer, ZyanUSize length,
                                           ZyanU64 runtime_address, void *user_data)
{
    return fn.format(formatter, instruction, operands, operand_count, buffer, length,
                     runtime_address, user_data);
}

ZyanStatus ZydisCalcAbsoluteAddress(const ZydisDecodedInstruction *instruction,
                                    const ZydisDecodedOperand *operand, ZyanU64 runtime_address,
                                    ZyanU64 *result_address)
{
    return fn.abs_address(instruction, operand, runtime_address, result_address);
}

const char *ZydisMnemonicGetString(ZydisMnemonic mnemonic)
{
    return fn.mnemonic_string ? fn.mnemonic_string(mnemonic) : "";
}

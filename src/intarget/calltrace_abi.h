/* SPDX-License-Identifier: MIT */
/* What the call-trace interposer (src/intarget/calltrace_preload.c, inside the traced program)
 * and Prospect (src/calltrace/) share: the built-in prototypes, the per-thread ring in shared
 * memory, and the registration message. Header only, plain C: the interposer links nothing of
 * Prospect's.
 *
 * Transport: Prospect makes a SOCK_SEQPACKET socketpair and leaves one end open (not
 * close-on-exec) in the command; its number, inode and the options are in PROSPECT_CALLTRACE.
 * Each traced thread creates a memfd ring on its first traced call, sends the descriptor over
 * the socket (SCM_RIGHTS) and closes it; Prospect maps it and drains it while the program runs.
 * No file anyone else could write; a process that exits leaves its data in the memfd. */
#ifndef PROSPECT_INTARGET_CALLTRACE_ABI_H
#define PROSPECT_INTARGET_CALLTRACE_ABI_H
#include <stdint.h>

#define CT_ENV "PROSPECT_CALLTRACE"
#define CT_MAGIC 0x43545231u            /* "CTR1" */
#define CT_HDR_SIZE 4096u               /* header page, then the slots */
#define CT_SLOT_SIZE 64u
#define CT_SLOTS_DEFAULT (1u << 17)     /* 8 MiB of slots per thread, touched as used */
#define CT_STR_MAX 32u                  /* bytes of a string argument kept (then "..."), as
                                         * ltrace's default -s 32 */

/* Argument and return types, as ltrace prints them. */
enum ct_type {
    CT_T_NONE = 0, CT_T_VOID, CT_T_INT, CT_T_LONG, CT_T_ULONG, CT_T_ADDR, CT_T_STR, CT_T_CHAR,
    CT_T_OCTAL, CT_T_STRN     /* string bounded by the third argument */
};

struct ct_proto {
    const char *name;
    uint8_t ret;
    uint8_t nargs;
    uint8_t arg[3];
};

/* The built-in list: the interposer exports exactly these functions. The index is the
 * function id in a slot; append only (ids are in the rings). */
#define CT_PROTOS(X) \
    X(malloc,               CT_T_ADDR,  1, CT_T_ULONG, 0, 0) \
    X(free,                 CT_T_VOID,  1, CT_T_ADDR, 0, 0) \
    X(calloc,               CT_T_ADDR,  2, CT_T_ULONG, CT_T_ULONG, 0) \
    X(realloc,              CT_T_ADDR,  2, CT_T_ADDR, CT_T_ULONG, 0) \
    X(posix_memalign,       CT_T_INT,   3, CT_T_ADDR, CT_T_ULONG, CT_T_ULONG) \
    X(aligned_alloc,        CT_T_ADDR,  2, CT_T_ULONG, CT_T_ULONG, 0) \
    X(memalign,             CT_T_ADDR,  2, CT_T_ULONG, CT_T_ULONG, 0) \
    X(valloc,               CT_T_ADDR,  1, CT_T_ULONG, 0, 0) \
    X(memcpy,               CT_T_ADDR,  3, CT_T_ADDR, CT_T_ADDR, CT_T_ULONG) \
    X(memmove,              CT_T_ADDR,  3, CT_T_ADDR, CT_T_ADDR, CT_T_ULONG) \
    X(memset,               CT_T_ADDR,  3, CT_T_ADDR, CT_T_CHAR, CT_T_LONG) \
    X(memcmp,               CT_T_INT,   3, CT_T_ADDR, CT_T_ADDR, CT_T_ULONG) \
    X(strlen,               CT_T_ULONG, 1, CT_T_STR, 0, 0) \
    X(strcmp,               CT_T_INT,   2, CT_T_STR, CT_T_STR, 0) \
    X(strncmp,              CT_T_INT,   3, CT_T_STRN, CT_T_STRN, CT_T_ULONG) \
    X(strcpy,               CT_T_ADDR,  2, CT_T_ADDR, CT_T_STR, 0) \
    X(strncpy,              CT_T_ADDR,  3, CT_T_ADDR, CT_T_STRN, CT_T_ULONG) \
    X(strdup,               CT_T_STR,   1, CT_T_STR, 0, 0) \
    X(strchr,               CT_T_STR,   2, CT_T_STR, CT_T_CHAR, 0) \
    X(open,                 CT_T_INT,   3, CT_T_STR, CT_T_INT, CT_T_OCTAL) \
    X(read,                 CT_T_LONG,  3, CT_T_INT, CT_T_ADDR, CT_T_ULONG) \
    X(write,                CT_T_LONG,  3, CT_T_INT, CT_T_ADDR, CT_T_ULONG) \
    X(close,                CT_T_INT,   1, CT_T_INT, 0, 0) \
    X(pthread_mutex_lock,   CT_T_INT,   1, CT_T_ADDR, 0, 0) \
    X(pthread_mutex_trylock, CT_T_INT,  1, CT_T_ADDR, 0, 0) \
    X(pthread_mutex_unlock, CT_T_INT,   1, CT_T_ADDR, 0, 0)

#define CT_ID_(name, r, n, a0, a1, a2) CT_F_##name,
enum ct_func_id { CT_PROTOS(CT_ID_) CT_NFUNCS };
#undef CT_ID_

/* Flags of a slot: CT_SF_NSTR(flags) slots follow it, one per string argument in argument
 * order: byte 0 is the length kept (0..CT_STR_MAX), | 0x80 when the string was cut, or 0xff
 * for a NULL pointer; then the bytes (at most 3 slots). */
#define CT_SF_NSTR(flags) ((flags) & 3u)
/* The last of those slots is the returned string (a function returning `string`: strdup's
 * copy, strchr's match), copied when it returned. */
#define CT_SF_RETSTR 4u

/* One call, written when it returns (64 bytes). t0/t1 are TSC reads at entry and return. */
struct ct_slot {
    uint64_t t0, t1;
    uint32_t func, flags;
    uint64_t args[3];
    uint64_t ret;
    uint64_t caller;        /* return address into the caller */
};

/* The ring's header page. The thread is the only producer: it writes slots, then publishes
 * `head` (release); Prospect reads up to head, then publishes `tail`. Counters only grow. */
struct ct_ring_hdr {
    uint32_t magic, nslots;         /* nslots: a power of two */
    uint32_t pid, tid;
    uint64_t lost;                  /* calls the thread could not record */
    uint32_t closed;                /* the thread ended: nothing more will come */
    uint32_t waiting;               /* the producer waits for space (futex on tail) */
    uint32_t acked;                 /* Prospect mapped the ring and read the process's maps */
    uint8_t pad1[64 - 36];
    uint64_t head;                  /* producer's line */
    uint8_t pad2[56];
    uint64_t tail;                  /* consumer's line */
};

/* The registration message (with the memfd as SCM_RIGHTS). */
struct ct_hello {
    uint32_t magic;
    uint32_t pid, tid;
    uint32_t nslots;
    uint64_t image;                 /* differs per exec'd image of a process (same after fork) */
};

/* A ring half full sends this (no descriptor) so Prospect drains it now, not at its next tick. */
struct ct_wake {
    uint32_t magic;                 /* CT_WAKE_MAGIC */
};
#define CT_WAKE_MAGIC 0x43545257u       /* "CTRW" */
/* trace -p through the GOT: the interposer's answer to a detach request (any message from
 * Prospect): every GOT entry it changed is back. */
#define CT_DETACHED_MAGIC 0x43545244u   /* "CTRD" */
/* A later trace -p calls this exported function of the interposer already loaded (ptrace),
 * with its own private directory: int f(const char *dir), 0 or -errno. */
#define CT_REATTACH_SYM "prospect_ct_reattach"
int prospect_ct_reattach(const char *dir);

/* PROSPECT_CALLTRACE="1,<fd>,<ino>,<root pid>,<follow 0/1>,<function mask hex>,<strings>"
 * (trace -p's attach.conf: "A,<follow>,<mask hex>,<strings>"). <strings>: a hex digit per
 * built-in, in id order: the strings a -F file declares beyond the compiled prototype (bits
 * 0-2 the arguments, bit 3 the return), which the interposer reads with process_vm_readv (a
 * pointer that is not one must not fault the program). */
#define CT_XSTR_RET 8u
/* A string slot's length byte for a pointer that could not be read. */
#define CT_STR_UNREADABLE 0xfeu
#endif

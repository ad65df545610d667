/* SPDX-License-Identifier: MIT */
/* Exact executions per source line of an unmodified program (`prospect lines`, docs/lines.md).
 *
 * The chosen functions are cut into blocks: straight runs of instructions of one source line
 * (the is_stmt rows of the DWARF line table) that are entered only at their first instruction
 * (basic-block leaders from the decoder: branch targets, the instruction after a branch, a
 * function's entry). Each block gets a counting probe at its first instruction, so its count is
 * exact; a line's count is gcov's: the transfers into the line's blocks from another line
 * (or from outside the function), plus the loops run within the line (solve.c), from the arc
 * counts that flow conservation gives (arcs.c). */
#ifndef PROSPECT_LINES_LINES_H
#define PROSPECT_LINES_LINES_H
#include "lazylib/x86insn.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/vec.h"

struct dso;

struct lines_block {
    uint64_t start, end;        /* ELF vaddrs, [start, end) */
    uint64_t probe_at;          /* where its probe goes: its first instruction that is not
                                 * padding nor one the kernel may refuse to probe */
    unsigned file, line;        /* index into plan.files; source line (0: none) */
    size_t func;                /* index into plan.funcs */
    uint64_t succ[2];           /* successor block starts inside the function */
    unsigned nsucc;
    bool cond;                  /* ends with a conditional branch: the way(s) out in succ
                                 * share the count (one of them may leave the function) */
    bool ext;                   /* may be entered from outside the function or from code the
                                 * analysis cannot see (entry, address taken, after an
                                 * indirect jump) */
    bool call;                  /* holds a call: what follows may run more often (fork,
                                 * setjmp return twice) or less (exit) than the block starts */
    bool call_ends;             /* its last instruction is a call (with split_calls, every
                                 * call's): its way out counts the call's returns */
    bool call_unlisted;         /* that call is one gcov lists no line for (a library
                                 * function gcc knows cannot throw, or pure: gcov_arcs.c) */
    uint64_t call_to;           /* that call's direct target (0: indirect) */
    bool latch_threaded;        /* ends with a conditional branch back to a loop's head that
                                 * gcc threaded past the loop's latch (a `jmp` to the same
                                 * head follows): gcov numbers the latch after the branch */
    bool optimized;             /* its unit was compiled with -O1 or more (DW_AT_producer) */
    bool per_line;              /* at -O2, where optlines.c's rule was checked against gcov:
                                 * its lines are marked one by one, other levels wholly */
    bool returns;               /* ends with a return or a tail call (a jump out of the
                                 * function): its function returns from it */
    bool select;                /* holds a cmov or setcc: a branch if-converted away */
    bool packed;                /* holds a packed vector instruction: a vectorized loop */
    bool restarts;              /* a second statement row of its line and column inside it:
                                 * the line's code repeated (an unrolled loop) */
    bool stacked;               /* statement rows of other lines start at its first address:
                                 * whose code it is was lost (optlines.c) */
    bool fall_in;               /* entered only by falling in from the block before it (it
                                 * starts where the line changes, nothing branches there) */
    bool derived;               /* no probe: its count is the sum of its predecessors' (each
                                 * with one way out), known from probes (lines_derive) */
    uint64_t count;             /* executions of the block: probe hits, or derived */
};

struct lines_func {
    char *name;
    uint64_t start, size;
};

struct lines_file {
    char *path;                 /* as DWARF names it (absolute, or joined to the unit's dir) */
};

struct lines_plan {
    char *exe;
    VEC(struct lines_file) files;
    VEC(struct lines_func) funcs;
    VEC(struct lines_block) blocks;   /* sorted by start */
    VEC(unsigned) report_files;       /* files whose lines are reported: --file's, else all
                                       * but system headers inlined (/usr/include...) */
    VEC(char *) notes;                /* functions left out and why (for -v) */
    VEC(size_t) probed;               /* blocks with a probe, in probe order: innermost loops
                                       * first (they get the limited jump entries) */
    VEC(size_t) derive_order;         /* derived blocks, each after those it is summed from */
    bool split_calls;                 /* a block ends after each call, so the instruction after
                                       * it is counted: gcov -b's call lines (one more counter
                                       * per call executed) */
};

struct lines_select {
    const char *const *funcs;   /* -f names */
    size_t nfuncs;
    const char *const *files;   /* --file names (trailing path components match) */
    size_t nfiles;
    bool calls;                 /* end blocks after calls (lines_plan.split_calls) */
};

/* The object to count (written to obj): exe, or the shared library that `-f LIB:FUNC` or
 * `--file LIB:SRC` names (as stat -r finds it: LD_LIBRARY_PATH, the program's directory,
 * the system's); the names are moved past their "LIB:". One object per run. 0, -EINVAL or
 * -ENOENT with a one-line reason in err. */
int lines_target(const char *exe, const char **funcs, size_t nfuncs, const char **files,
                 size_t nfiles, char *obj, size_t objlen, char *err, size_t errlen);

/* Reads the program's DWARF line table and symbols, picks the functions (-f names through
 * region_names: clones, did-you-mean; --file: every function with code of that file; default:
 * every function of the program's own compilation units, not system ones), cuts them into
 * blocks and decides which need a probe (lines_derive). 0, or -errno with a one-line reason
 * in err: -ENODATA (no DWARF line table: rebuild with -g), -ENOENT (unknown function or file;
 * suggestions), -ENOTUNIQ. */
int lines_plan_build(struct lines_plan *p, const char *exe, const struct lines_select *sel,
                     char *err, size_t errlen);
void lines_plan_release(struct lines_plan *p);

/* Cuts one function's code (n bytes at vaddr) into blocks (appended to p->blocks), given a
 * line lookup and (may be NULL) a reader of the program's data at an address (jump tables:
 * returns the bytes read). Code that does not decode ends the function there. 0 or -ENOMEM. */
typedef bool (*lines_line_fn)(void *arg, uint64_t addr, unsigned *file, unsigned *line);
typedef size_t (*lines_data_fn)(void *arg, uint64_t addr, uint8_t *buf, size_t len);
int lines_blocks_cut(struct lines_plan *p, size_t func, const uint8_t *code, size_t n,
                     uint64_t vaddr, lines_line_fn line_of, lines_data_fn data_at, void *arg);

/* The index of the block starting at address a (blocks are sorted by start), or
 * p->blocks.n when no block starts there. */
size_t lines_block_at(const struct lines_plan *p, uint64_t a);

/* Decides which blocks need no probe: a block entered only through in-function transfers
 * from blocks with one way out has their summed count (fewer probe hits: an epilogue after
 * an if/else costs nothing). Fills p->probed and p->derive_order. 0 or -ENOMEM. */
int lines_derive(struct lines_plan *p);
/* Computes the derived blocks' counts once the probed ones are read. 0 or -ENOMEM. */
int lines_fill_derived(struct lines_plan *p);

/* Could the kernel refuse a uprobe on this instruction? */
bool lines_insn_unprobeable(const struct x86_insn *in);

/* A transfer between two blocks of one function: a branch's target or a fall-through. */
struct lines_arc {
    size_t from, to;            /* block indices; to = blocks.n: out of the function */
    uint64_t count;
    bool known;                 /* solved from the block counts (arcs.c) */
    bool assumed;               /* known only by taking a call to return once (no count of
                                 * the code after it settles it): not measured */
};

/* The arcs of every block: out of block b, v[out_first[b] .. out_first[b + 1]) in succ order;
 * into it, v[in_list[i]] for i in [in_first[b], in_first[b + 1]). */
struct lines_arcs {
    struct lines_arc *v;
    size_t n;
    size_t *out_first, *in_first, *in_list;
};

/* Arc counts from the block counts by flow conservation, as gcov solves its arcs; those it
 * cannot reach stay unknown. The way out of a block ending in a call is what the code after
 * the call counts (exit: 0, fork: 2); where nothing settles it, the call is taken to return
 * once (assumed). 0 or -ENOMEM. */
int lines_arcs_solve(const struct lines_plan *p, struct lines_arcs *a);
void lines_arcs_release(struct lines_arcs *a);

/* Per reported line: its count. */
struct lines_count {
    unsigned file, line;
    uint64_t count;
    bool approx;                /* an in-line transfer could not be derived: count is an upper
                                 * bound (docs/lines.md) */
    bool optimized;             /* code of an optimized unit: the machine code's count, which
                                 * need not be the source line's (gcov's) */
};

/* The basic blocks of the plan's blocks (optlines.c): bb[b] is the first block of the run
 * that b is fallen into along, bb_rewritten[bb[b]] whether that run holds a cmov, setcc or
 * packed vector instruction. */
struct lines_shape {
    size_t *bb;
    bool *bb_rewritten;
};
int lines_shape_build(const struct lines_plan *p, struct lines_shape *s);
void lines_shape_release(struct lines_shape *s);
/* Does a line of optimized code (its blocks blk[0..k)) keep a source-level count? The rule
 * is optlines.c's (docs/lines.md, "Optimized code"). */
bool lines_source_level(const struct lines_plan *p, const struct lines_arcs *a,
                        const struct lines_shape *s, const size_t *blk, size_t k);

/* Line counts as gcov computes them from the block counts (p->blocks[i].count): the arcs
 * entering the line's blocks from elsewhere, plus the loops within the line (solve.c).
 * Sorted by (file, line), only lines of reported files. *out is malloc'd. 0 or -ENOMEM. */
int lines_solve(const struct lines_plan *p, struct lines_count **out, size_t *n);

/* A function's totals, as gcov -b's `function NAME called N returned P% blocks executed P%`
 * states them (funcsum.c): entry = its entry block (p->blocks.n: none); calls = the entry
 * block's count less the arcs into it from its own code; returns = the counts of its blocks
 * that return (a call that never returns, as exit, is no return); blocks and run: its
 * machine-code blocks, those that ran. */
struct lines_func_sum {
    size_t entry, blocks, run;
    uint64_t calls, returns;
};
void lines_func_summary(const struct lines_plan *p, const struct lines_arcs *a, size_t fi,
                        struct lines_func_sum *s);

/* gcov -b's lines under a source line (gcov_arcs.c): its calls and the ways of its
 * conditional branches, in gcov's order. count: times taken, or times the call returned;
 * from: executions of the block it leaves. */
struct lines_gcov_arc {
    bool call, fallthrough;
    uint64_t count, from;
};
typedef void (*lines_gcov_arc_fn)(void *arg, const struct lines_gcov_arc *g, unsigned ix);
/* Calls out (with p->split_calls, each call's own block) and branches of the line's blocks,
 * passed to fn with gcov's index; one whose count is not measured is left out. */
void lines_gcov_arcs(const struct lines_plan *p, const struct lines_arcs *a, unsigned file,
                     unsigned line, lines_gcov_arc_fn fn, void *arg);

/* Is the function named (a callee, "@plt" stripped) one whose calls gcov lists no line for?
 * gcc adds a call's arc to the function's exit, which gcov prints, unless the callee is a
 * built-in known not to throw (memcpy, malloc, snprintf) or pure or const (strlen, atoi,
 * __errno_location), and not noreturn nor fork. */
bool lines_gcov_unlisted_callee(const char *name);

/* Does a DWARF source path name the file the user wrote ("fact.c", "src/fact.c")? */
bool lines_file_matches(const char *src, const char *want);
#endif

/* SPDX-License-Identifier: MIT */
/* DSOs: the files (and pseudo-files) that code runs from, with their symbols.
 * One struct dso per file, shared by every process that maps it; symbols are loaded lazily,
 * once, only for DSOs that got hits. Every file is untrusted input. */
#ifndef PROSPECT_SYMBOL_DSO_H
#define PROSPECT_SYMBOL_DSO_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define BUILD_ID_MAX 20

enum dso_kind {
    DSO_FILE,     /* an ELF file on disk */
    DSO_VDSO,     /* [vdso]: symbols from this process's own vdso image (same kernel) */
    DSO_ANON,     /* anonymous executable memory: symbols from /tmp/perf-PID.map if present */
    DSO_KERNEL,   /* [kernel.kallsyms] and modules: see ksyms.h */
};

/* Why a DSO's symbols are what they are, for the report and -v. */
enum dso_status {
    DSO_UNLOADED = 0,
    DSO_OK_SYMTAB,        /* full .symtab (possibly from separate debug info) */
    DSO_OK_DYNSYM,        /* stripped: only .dynsym, hits between symbols become a->b brackets */
    DSO_NO_SYMBOLS,       /* readable but no symbols at all */
    DSO_MISSING,          /* file not found or unreadable */
    DSO_BAD_ELF,          /* not ELF or corrupt */
    DSO_BUILD_ID_MISMATCH,/* the file on disk is not the one that was mapped */
    DSO_REFUSED,          /* not a regular file, or a perf map owned by another user */
};

struct dso;
struct dso_cache;

struct dso_cache *dso_cache_new(void);
void dso_cache_free(struct dso_cache *cache);
/* Where separate debug info lives (default /usr/lib/debug): <dir>/.build-id/xx/rest.debug and
 * <dir>/<file's directory>/<debuglink>. 0 or -ENOMEM. */
int dso_cache_set_debug_root(struct dso_cache *cache, const char *dir);
/* perf's --symfs: every file is read at <dir><its absolute path> (a copy of another system's
 * files), and separate debug info under <dir>/usr/lib/debug unless a debug root was set. Inodes
 * are not compared there; build-ids are. 0 or -ENOMEM. */
int dso_cache_set_symfs(struct dso_cache *cache, const char *dir);
/* A build-id the profile recorded for a file (perf.data's HEADER_BUILD_ID): the file on disk
 * must have it, and when it has not (deleted, rebuilt) perf's build-id cache (~/.debug) is
 * searched for a copy that has. 0, -EINVAL (empty or too long), -ENOMEM. */
int dso_cache_add_build_id(struct dso_cache *cache, const char *path, const uint8_t *bid,
                           size_t len);

/* The DSO for a mapped file, created unloaded on first use. build_id (may be NULL) is what the
 * kernel reported for the mapping; it is checked against the file when symbols load. For
 * kind DSO_ANON, `pid` selects /tmp/perf-PID.map. NULL on -ENOMEM. */
struct dso *dso_cache_get(struct dso_cache *cache, enum dso_kind kind, const char *path,
                          const uint8_t *build_id, size_t build_id_len, pid_t pid);

/* The DSO for a file mapping identified by device and inode (MMAP2's maj:min and ino): when
 * symbols load, a file now at `path` on the same device but with another inode was replaced
 * after it was mapped and is not used (DSO_BUILD_ID_MISMATCH). Mappings of different inodes
 * at one path are different DSOs. ino 0 means unknown (same as dso_cache_get). */
/* A session map now refers to d / no longer does (counted for dso_cache_drop_unmapped). */
void dso_hold(struct dso *d);
void dso_unhold(struct dso *d);
/* Frees the DSOs no map refers to and whose symbols were never read: the files of processes
 * a long run has released (session/release.c). Only for a cache nothing else points into.
 * Returns how many were freed. */
size_t dso_cache_drop_unmapped(struct dso_cache *cache);
size_t dso_cache_size(const struct dso_cache *cache);     /* DSOs held */
struct dso *dso_cache_get_mapped(struct dso_cache *cache, const char *path, uint32_t maj,
                                 uint32_t min, uint64_t ino);

const char *dso_path(const struct dso *dso);       /* as mapped: "/usr/lib/.../libc.so.6" */
/* basename: "libc.so.6"; "[vdso]", "[ext4]" as given; anonymous memory "[anon]" */
const char *dso_short_name(const struct dso *dso);
enum dso_kind dso_kind(const struct dso *dso);
/* Loads symbols if not yet loaded. DSO_KERNEL placeholders report DSO_NO_SYMBOLS (kernel
 * addresses resolve through ksyms.h); DSO_ANON without /tmp/perf-PID.map is DSO_MISSING. */
enum dso_status dso_status(const struct dso *dso);
const char *dso_status_str(enum dso_status st);
/* Build-id of the file on disk (or as reported by the kernel); 0 if known, -ENOENT if not. */
int dso_build_id(struct dso *dso, uint8_t *out, size_t *len);

/* Loads symbols (idempotent). Returns 0 even for stripped/missing files: dso_status says why. */
int dso_load(struct dso *dso);
/* Frees the part of a loaded DSO's symbol names that no resolution result uses (the file's
 * string table: the names already resolved are kept), for a report done resolving; a later
 * resolution or search reads it again from the file. Names from dso_find_symbols and
 * dso_foreach_symbol are invalid after it. */
void dso_drop_names(struct dso *dso);
/* One address to name in a DSO: a file offset (DSO_FILE, [vdso]: converted through the PT_LOAD
 * segments as dso_map_to_vaddr does) or an absolute address (JIT maps). An address with no
 * symbol is tried again one byte later (a return address right after its function's end, as
 * perf names it). */
struct dso_lookup {
    uint64_t addr;
    const char *name;         /* out: as symres.name */
    bool bracket;             /* out: name is an a->b bracket */
    bool demangled;           /* out: as symres.demangled */
};
struct dso_job {
    struct dso *dso;
    struct dso_lookup *v;
    size_t n;
};
/* Loads each job's DSO and names its addresses, the jobs on one thread per usable CPU, each
 * job by one thread, debug messages printed in the order of the jobs; with drop_names, each
 * DSO's unused names are dropped (dso_drop_names) when its job is done. 0 or -ENOMEM. */
int dso_resolve_all(struct dso_job *jobs, size_t n, bool drop_names);
/* Loads the symbols of every DSO of v (distinct, all of one cache) on one thread per usable
 * CPU; the results and debug messages are those of dso_load on each in turn. 0 or -ENOMEM
 * (a DSO left unloaded loads on use). */
int dso_load_all(struct dso **v, size_t n);

/* Converts an address in a mapping (start, pgoff) to the DSO's ELF virtual address, using the
 * PT_LOAD segment that contains the file offset (segments may have p_vaddr != p_offset).
 * [vdso] goes through its own image's segments the same way. DSO_ANON and DSO_KERNEL return ip
 * itself: JIT maps and kallsyms hold absolute addresses. 0 or -ENOENT. */
int dso_map_to_vaddr(struct dso *dso, uint64_t map_start, uint64_t pgoff, uint64_t ip,
                     uint64_t *vaddr);

/* Result of resolving one address. Names are owned by the DSO and live as long as it. */
struct symres {
    const char *name;     /* demangled symbol, or "lo->hi" bracket, or NULL if unresolved */
    uint64_t start;       /* the symbol's start vaddr (for a bracket: lo's start) */
    uint64_t size;        /* 0 if unknown */
    bool bracket;         /* name is a Prospect bracket between two dynamic symbols */
    bool demangled;       /* name (a bracket: either end) is demangled C++: reports show it
                           * made short (symbol/shortname.h) */
    uint64_t gap_start;   /* a bracket's gap [lo's end, hi's start); 0 where unknown (before */
    uint64_t gap_end;     /* the first symbol, after the last) */
};

/* Bracket rule (seed 001): in a DSO with only dynamic symbols, a hit that is not inside any
 * symbol's [start, start+size) is named "lo->hi" after the closest symbols below and above it;
 * before the first symbol "(start)->first", after the last "last->(end)". Every hit in one gap
 * gets the same interned pointer. With a full .symtab (or a JIT map) such a hit has name NULL.
 * Zero-size symbols extend to the next symbol (as in perf), so they leave no gap. Of several
 * names at one address the one perf 6.1 shows is used (non-zero size, non-weak, global, fewer
 * leading underscores, longer name); the others are still found by dso_find_symbols. */

/* Resolves one address. Returns 0 (name may be NULL when nothing covers it). */
int dso_resolve(struct dso *dso, uint64_t vaddr, struct symres *out);
/* Resolves n ascending addresses in one merge walk over the sorted symbols (out[i] for
 * vaddrs[i]). -EINVAL if vaddrs are not ascending. */
int dso_resolve_sorted(struct dso *dso, const uint64_t *vaddrs, size_t n, struct symres *out);

/* Symbols by name, for regions (`prospect stat -r func`): exact match on the raw or demangled
 * name, or the demangled name without its parameter list ("ns::func" matches "ns::func(int)"
 * and "ns::func(double)"). Returns the number of matches written (up to max). */
struct symbol_match {
    const char *name;     /* demangled */
    uint64_t start, size; /* ELF vaddr */
};
size_t dso_find_symbols(struct dso *dso, const char *name, struct symbol_match *out, size_t max);
/* Calls fn for every function symbol (for "did you mean" suggestions). */
void dso_foreach_symbol(struct dso *dso, void (*fn)(void *arg, const struct symbol_match *m),
                        void *arg);
/* The file the DSO's symbols were read from: its path, under --symfs, or the copy in perf's
 * build-id cache of a file deleted or rebuilt since (the one whose code ran); NULL if none.
 * Finding it reads headers, build-id and segments only, never the symbol table (so do
 * dso_map_to_vaddr and dso_build_id): the unwinder's pass over the samples loads no symbols. */
const char *dso_code_path(struct dso *dso);
/* The path of the ELF that carries DWARF for this DSO (itself, or separate debug info found by
 * build-id or .gnu_debuglink), or NULL. */
const char *dso_debug_path(struct dso *dso);

/* When debuginfod ($DEBUGINFOD_URLS) was asked for a file's debug info and its servers could
 * not be reached or did not answer within DEBUGINFOD_TIMEOUT (the bound of one lookup), or
 * libdebuginfod could not be loaded, or a lookup was answered by libdebuginfod's cache of an
 * earlier failure: a one-line note in buf and the -errno; 0 when there was no such problem. */
int symbol_debuginfod_problem(char *buf, size_t len);
/* fn is called (from the looking-up thread) once a lookup has waited over a second, with a
 * line saying for what; the command layer prints it. NULL: nothing said. */
void symbol_debuginfod_on_wait(void (*fn)(const char *msg));
/* A source file (its absolute path as the DWARF names it) of the build with this build-id,
 * from the debuginfod servers (when $DEBUGINFOD_URLS is set): 0 with the malloc'd path of the
 * downloaded copy, -ENOSYS (no servers), -ENOENT, or another -errno (unreachable). */
int symbol_debuginfod_source(const uint8_t *bid, size_t len, const char *src, char **path);

/* C++ (and Rust legacy) demangling via libiberty; returns a malloc'd string or NULL if `name`
 * is not mangled. */
char *symbol_demangle(const char *name);
/* Is this the cold part gcc splits out of a function ("f.cold", "f.cold.1", demangled
 * "f(int) [clone .cold]")? Not a function of its own: it is reached by jumps from f. */
bool symbol_is_cold_part(const char *name);
/* The cold part gcc split off function `name` ("f.cold", "f(int) [clone .cold]") among dso's
 * symbols, if any: true with *out set (symbol/cold_part.c). */
bool symbol_cold_part(struct dso *dso, const char *name, struct symbol_match *out);
#endif

/* SPDX-License-Identifier: MIT */
/* Debug files with compressed sections (Debian's dbgsym packages: SHF_COMPRESSED .debug_*),
 * kept decompressed by build-id. libdw inflates every compressed debug section when it opens a
 * file (34 ms for libc's, more than the rest of a `report --sort srcline`), on every run; a
 * decompressed copy opens in 0.1 ms. The copies live in $XDG_CACHE_HOME/prospect/debug/ (else
 * ~/.cache/prospect/debug/), <build-id hex>.debug: a private directory (0700), files 0600
 * written under a temporary name and renamed, only used when their build-id is the file's. */
#ifndef PROSPECT_SYMBOL_DEBUG_PLAIN_H
#define PROSPECT_SYMBOL_DEBUG_PLAIN_H

/* The decompressed copy of the ELF file at path, made on first use: a malloc'd path, or NULL
 * when path has no compressed section, no build-id, or no copy can be made (then read path
 * itself). PROSPECT_DEBUG_CACHE=0 in the environment turns the copies off. */
char *debug_plain_path(const char *path);

/* The cache directory: 0, -ENOENT (no absolute $XDG_CACHE_HOME or $HOME), -ENAMETOOLONG. */
int debug_plain_dir(char *buf, size_t len);
#endif

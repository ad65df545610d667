/* SPDX-License-Identifier: MIT */
/* Source text for `prospect annotate`: the files DWARF names, found at their recorded path,
 * through --prefix-map OLD=NEW rewrites (a moved tree), under --source-dir directories, or
 * from debuginfod servers for the build being listed; each read once. Source files are untrusted: only regular files are opened (a FIFO never blocks),
 * at most ANN_SOURCE_MAX_BYTES, tabs expanded, control bytes and bad UTF-8 escaped, lines cut
 * at ANN_SOURCE_LINE_MAX bytes. */
#ifndef PROSPECT_ANNOTATE_SOURCE_H
#define PROSPECT_ANNOTATE_SOURCE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ANN_SOURCE_MAX_BYTES (64u << 20)
#define ANN_SOURCE_LINE_MAX 400

struct ann_prefix_map {
    const char *old, *new_prefix;
};

struct ann_source_opts {
    const char *const *dirs;            /* --source-dir, tried in order */
    size_t ndirs;
    const struct ann_prefix_map *maps;  /* --prefix-map, the first match applies */
    size_t nmaps;
};

struct ann_sources;

/* opts' strings must outlive the cache. NULL on -ENOMEM. */
struct ann_sources *ann_sources_new(const struct ann_source_opts *opts);
void ann_sources_free(struct ann_sources *s);

/* The build the next lookups are for (its build-id, len 0 for none): a file found nowhere on
 * this machine is then asked of the debuginfod servers ($DEBUGINFOD_URLS) for that build. */
void ann_sources_set_build(struct ann_sources *s, const uint8_t *bid, size_t len);

/* Parses "OLD=NEW" (OLD not empty) into m, pointing into arg (which it modifies). -EINVAL. */
int ann_prefix_map_parse(char *arg, struct ann_prefix_map *m);

/* Line `line` (from 1) of the source file DWARF calls path: printable text without its
 * newline, or NULL when the file was not found or is shorter. */
const char *ann_source_line(struct ann_sources *s, const char *path, unsigned line);
/* The number of lines of path's file, 0 when it was not found. */
unsigned ann_source_nlines(struct ann_sources *s, const char *path);
/* Where path's text was read from (path itself, rewritten, or under a --source-dir), or NULL
 * when it was not found. */
const char *ann_source_where(struct ann_sources *s, const char *path);
#endif

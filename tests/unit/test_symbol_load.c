/* SPDX-License-Identifier: MIT */
/* How symbols are loaded: locating a DSO's file without reading its symbols (the unwinder's
 * needs), loading many DSOs on threads with the results and debug messages of a serial load,
 * resolving in workers with the unused names dropped and read again on need. Addresses are
 * checked against `nm` on the same fixtures. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "test.h"
#include "symbol/dso.h"
#include "symbol/dso_internal.h"
#include "util/log.h"

/* Address of `name` in path according to nm (0 if absent). */
static uint64_t nm_addr(const char *path, const char *name)
{
    char cmd[1200], line[512];
    uint64_t addr = 0;
    FILE *f;

    snprintf(cmd, sizeof(cmd), "nm '%s'", path);
    f = popen(cmd, "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f)) {
        unsigned long long a;
        char type, sym[400];
        if (sscanf(line, "%llx %c %399s", &a, &type, sym) == 3 && !strcmp(sym, name))
            addr = a;
    }
    pclose(f);
    return addr;
}

static const char *fix(const char *file)
{
    static char path[8][1024];
    static int k;
    k = (k + 1) % 8;
    snprintf(path[k], sizeof(path[k]), "%s/%s", FIXTURE_DIR, file);
    return path[k];
}

TEST(code_path_and_segments_without_symbols)
{
    struct dso_cache *c = dso_cache_new();
    const char *path = fix("prog-pie");
    struct dso *d = dso_cache_get(c, DSO_FILE, path, NULL, 0, 0);
    uint64_t a = nm_addr(path, "prog_beta"), v;
    uint8_t bid[BUILD_ID_MAX];
    size_t blen = 0;
    struct symres r;

    CHECK(d && a);
    CHECK_STR(dso_code_path(d), path);
    CHECK(dso_map_to_vaddr(d, 0x555555555000ULL, 0x1000, 0x555555554000ULL + a, &v) == 0);
    CHECK_EQ_U64(v, a);
    CHECK(dso_build_id(d, bid, &blen) == 0 && blen == 20);
    /* What the unwinder asks read headers only: no symbol table yet. */
    CHECK(!d->loaded && d->tab.n == 0);
    CHECK(dso_resolve(d, a, &r) == 0);
    CHECK_STR(r.name, "prog_beta");
    CHECK(d->loaded && dso_status(d) == DSO_OK_SYMTAB);
    /* A file that is not ELF is known to be so as soon as it is located. */
    d = dso_cache_get(c, DSO_FILE, fix("notelf.so"), NULL, 0, 0);
    CHECK(dso_code_path(d) == NULL && !d->loaded);
    CHECK(dso_status(d) == DSO_BAD_ELF);
    dso_cache_free(c);
}

struct listing {
    char *text;
    size_t len, cap;
};

static void list_fn(void *arg, const struct symbol_match *m)
{
    struct listing *l = arg;
    char *line, *t;
    int n = asprintf(&line, "%llx %llx %s\n", (unsigned long long)m->start,
                     (unsigned long long)m->size, m->name);

    if (n < 0)
        return;
    /* Doubling: ASan's realloc always copies, and libLLVM lists ~10 MB of symbols (a
     * realloc per line took over ten minutes). */
    if (l->len + (size_t)n + 1 > l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 1 << 16;
        while (cap < l->len + (size_t)n + 1)
            cap *= 2;
        if (!(t = realloc(l->text, cap))) {
            free(line);
            return;
        }
        l->text = t;
        l->cap = cap;
    }
    memcpy(l->text + l->len, line, (size_t)n + 1);
    l->len += (size_t)n;
    free(line);
}

/* Every symbol and the status of each file, and what -v printed while loading, in one text. */
static char *load_and_list(const char *const *paths, size_t n, bool parallel, char **log)
{
    struct dso_cache *c = dso_cache_new();
    struct dso *v[16];
    struct listing l = { 0 };
    char tmpl[] = "/tmp/test_symbol_load.XXXXXX";
    int fd = mkstemp(tmpl), saved = dup(2);
    struct stat st;

    unlink(tmpl);
    for (size_t i = 0; i < n; i++)
        v[i] = dso_cache_get(c, DSO_FILE, paths[i], NULL, 0, 0);
    fflush(stderr);
    dup2(fd, 2);
    log_verbosity = LOG_DEBUG;
    if (parallel)
        dso_load_all(v, n);
    else
        for (size_t i = 0; i < n; i++)
            dso_load(v[i]);
    log_verbosity = LOG_WARN;
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    *log = NULL;
    if (!fstat(fd, &st) && (*log = calloc(1, (size_t)st.st_size + 1)))
        if (pread(fd, *log, (size_t)st.st_size, 0) < 0)
            (*log)[0] = '\0';
    close(fd);
    for (size_t i = 0; i < n; i++) {
        char line[64];
        snprintf(line, sizeof(line), "== %d\n", (int)dso_status(v[i]));
        list_fn(&l, &(struct symbol_match){ .name = line });
        dso_foreach_symbol(v[i], list_fn, &l);
    }
    dso_cache_free(c);
    return l.text;
}

TEST(parallel_load_same_as_serial)
{
    /* Full symtab, stripped (brackets), separate debug info, not ELF, missing, and the big
     * system libraries when present (the slowest file shows whether order is kept). */
    const char *paths[] = {
        fix("prog-pie"), fix("libsym-stripped.so"), fix("libsym-dbglink.so"), fix("notelf.so"),
        fix("no-such-file.so"), "/usr/lib/x86_64-linux-gnu/libc.so.6",
        "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1", fix("prog-nopie"), fix("libsym.so"),
    };
    size_t n = sizeof(paths) / sizeof(paths[0]);
    char *log1, *log2, *a = load_and_list(paths, n, false, &log1);
    char *b = load_and_list(paths, n, true, &log2);

    CHECK(a && b && log1 && log2);
    CHECK(strlen(a) > 10000);
    CHECK(strstr(log1, "libsym-stripped.so: stripped (dynamic symbols only)"));
    CHECK(!strcmp(a, b));
    CHECK_STR(log2, log1);
    free(a);
    free(b);
    free(log1);
    free(log2);
}

TEST(resolve_all_drops_unused_names)
{
    struct dso_cache *c = dso_cache_new();
    const char *path = fix("prog-pie");
    struct dso *d = dso_cache_get(c, DSO_FILE, path, NULL, 0, 0);
    struct dso_lookup l[2] = { { .addr = nm_addr(path, "prog_alpha") },
                               { .addr = nm_addr(path, "prog_beta") + 1 } };
    struct dso_job job = { d, l, 2 };
    uint64_t gamma = nm_addr(path, "prog_gamma"), v;
    struct symbol_match m[2];
    struct symres r;

    CHECK(l[0].addr && l[1].addr > 1 && gamma);
    /* prog-pie's text is at file offset == vaddr: lookups take file offsets */
    CHECK(dso_map_to_vaddr(d, 0, 0, l[0].addr, &v) == 0 && v == l[0].addr);
    CHECK(dso_resolve_all(&job, 1, true) == 0);
    CHECK_STR(l[0].name, "prog_alpha");
    CHECK_STR(l[1].name, "prog_beta");
    CHECK(!l[0].bracket);
    /* the string table is gone, the names resolved stay */
    CHECK(d->tab.strtab == NULL && d->tab.strtab_len > 0);
    /* another name is read again from the file; searches too */
    CHECK(dso_resolve(d, gamma, &r) == 0);
    CHECK_STR(r.name, "prog_gamma");
    CHECK_EQ_U64(dso_find_symbols(d, "prog_static_helper", m, 2), 1);
    CHECK_STR(l[0].name, "prog_alpha");
    dso_cache_free(c);
}

TEST(changed_file_names_are_not_read_again)
{
    char dir[] = "/tmp/test_symbol_load.XXXXXX", path[256], cmd[600];
    struct dso_cache *c;
    struct dso *d;
    struct symres r;
    uint64_t alpha, gamma;
    FILE *f;

    CHECK(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/prog", dir);
    snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", fix("prog-pie"), path);
    CHECK(system(cmd) == 0);
    alpha = nm_addr(path, "prog_alpha");
    gamma = nm_addr(path, "prog_gamma");
    c = dso_cache_new();
    d = dso_cache_get(c, DSO_FILE, path, NULL, 0, 0);
    CHECK(dso_resolve(d, alpha, &r) == 0);
    CHECK_STR(r.name, "prog_alpha");
    dso_drop_names(d);
    /* rewritten in place after loading: its names are no longer this table's */
    f = fopen(path, "ab");
    CHECK(f);
    fputc(0, f);
    fclose(f);
    CHECK(dso_resolve(d, gamma, &r) == 0);
    CHECK(r.name == NULL);
    CHECK(dso_resolve(d, alpha, &r) == 0);
    CHECK_STR(r.name, "prog_alpha");
    dso_cache_free(c);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

TEST(captured_messages_are_what_stderr_gets)
{
    struct log_buf b = { 0 };
    char big[3000];
    bool ok;

    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    log_verbosity = LOG_DEBUG;
    log_capture(&b);
    log_msg(LOG_DEBUG, "symbol", "%s: %d", "/lib/x.so", 42);
    log_msg(LOG_DEBUG2, "symbol", "not shown at -v");
    log_msg(LOG_DEBUG, "symbol", "%s", big);
    log_capture(NULL);
    log_verbosity = LOG_WARN;
    /* the whole of a long one: "prospect: symbol: " + 2999 x + "\n" */
    ok = b.len == strlen("prospect: symbol: /lib/x.so: 42\n") + 18 + sizeof(big) &&
         !memcmp(b.s, "prospect: symbol: /lib/x.so: 42\nprospect: symbol: xxx", 53) &&
         b.s[b.len - 1] == '\n' && b.s[b.len - 2] == 'x';
    free(b.s);
    CHECK(ok);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);   /* results survive a sanitizer exit */
    RUN(code_path_and_segments_without_symbols);
    RUN(parallel_load_same_as_serial);
    RUN(resolve_all_drops_unused_names);
    RUN(changed_file_names_are_not_read_again);
    RUN(captured_messages_are_what_stderr_gets);
    return 0;
}

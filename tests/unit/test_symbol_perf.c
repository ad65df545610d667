/* SPDX-License-Identifier: MIT */
/* perf 6.1 as the oracle: record a fixture with `perf record`, and check that every sample
 * `perf script` names gets the same name from Prospect's symbol code (user space through
 * dso_map_to_vaddr + dso_resolve, kernel through ksyms). Stripped gaps that perf leaves
 * "[unknown]" are brackets here by design; C++ names carry parameters here (perf drops them
 * without -v), so only the part before '(' is compared. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test.h"
#include "symbol/dso.h"
#include "symbol/ksyms.h"

struct map {
    int pid;
    uint64_t start, len, pgoff;
    char path[512];
};

struct tally {
    int same, diff, brackets, kernel_same, kernel_diff;
};

static const char *tmpdir(void)
{
    const char *t = getenv("TEST_TMP");
    return t ? t : "/tmp";
}

static bool names_agree(const char *ours, const char *perf)
{
    size_t n = strlen(perf);
    return !strcmp(ours, perf) || (!strncmp(ours, perf, n) && ours[n] == '(');
}

/* " PID/TID: [START(LEN) @ PGOFF ...]: prot PATH" */
static int parse_mmap2(const char *line, struct map *m)
{
    const char *p = strstr(line, "PERF_RECORD_MMAP2"), *q;
    if (!p)
        return -1;
    m->pid = atoi(p + 18);
    p = strchr(p, '[');
    q = p ? strstr(p, "]: ") : NULL;
    if (!q || sscanf(p, "[%" SCNx64 "(%" SCNx64 ") @ %" SCNx64, &m->start, &m->len,
                     &m->pgoff) != 3)
        return -1;
    q = strchr(q + 3, ' ');
    if (!q)
        return -1;
    snprintf(m->path, sizeof(m->path), "%s", q + 1);
    m->path[strcspn(m->path, "\n")] = '\0';
    return 0;
}

/* "  PID  IP SYM (DSO)": returns 0 and fills pid, ip, sym. */
static int parse_sample(char *line, int *pid, uint64_t *ip, char *sym, size_t cap)
{
    char *p, *dso;
    if (sscanf(line, " %d %" SCNx64, pid, ip) != 2)
        return -1;
    p = line + strspn(line, " ");
    p = strchr(p, ' ');
    p = p ? p + strspn(p, " ") : NULL;
    p = p ? strchr(p, ' ') : NULL;
    dso = p ? strrchr(p, '(') : NULL;
    if (!dso || dso == p + 1)
        return -1;
    dso[-1] = '\0';
    snprintf(sym, cap, "%s", p + 1);
    return 0;
}

static void compare(FILE *f, struct dso_cache *c, const struct ksyms *ks, struct tally *t)
{
    static struct map maps[4096];
    int nmaps = 0;
    char line[4096], sym[2048];

    while (fgets(line, sizeof(line), f)) {
        int pid;
        uint64_t ip;
        if (strstr(line, "PERF_RECORD_MMAP2")) {
            if (nmaps < 4096 && !parse_mmap2(line, &maps[nmaps]))
                nmaps++;
            continue;
        }
        if (parse_sample(line, &pid, &ip, sym, sizeof(sym)))
            continue;
        if (ip >= 0xffff800000000000ULL) {
            struct ksym_res kr;
            if (!ks)
                continue;
            ksyms_resolve(ks, ip, &kr);
            if (kr.name && !strcmp(kr.name, sym))
                t->kernel_same++;
            else if (t->kernel_diff++ < 5)
                printf("# kernel %" PRIx64 ": perf %s, prospect %s\n", ip, sym,
                       kr.name ? kr.name : "(none)");
            continue;
        }
        for (int i = nmaps - 1; i >= 0; i--) {
            struct map *m = &maps[i];
            struct dso *d;
            struct symres r = {0};
            uint64_t v;
            const char *ours;
            if (m->pid != pid || ip < m->start || ip - m->start >= m->len)
                continue;
            d = dso_cache_get(c, strcmp(m->path, "[vdso]") ? DSO_FILE : DSO_VDSO, m->path,
                              NULL, 0, 0);
            if (d && !dso_map_to_vaddr(d, m->start, m->pgoff, ip, &v))
                dso_resolve(d, v, &r);
            ours = r.name ? r.name : "[unknown]";
            if (names_agree(ours, sym))
                t->same++;
            else if (r.bracket && !strcmp(sym, "[unknown]"))
                t->brackets++;
            else if (t->diff++ < 5)
                printf("# %s %" PRIx64 ": perf %s, prospect %s\n", m->path, ip, sym, ours);
            break;
        }
    }
}

TEST(names_agree_with_perf_script)
{
    char data[600], cmd[1600];
    struct dso_cache *c;
    struct ksyms *ks = NULL;
    struct tally t = {0};
    FILE *f;

    if (system("perf --version >/dev/null 2>&1"))
        SKIP("perf is not installed");
    snprintf(data, sizeof(data), "%s/symbols-oracle.data", tmpdir());
    snprintf(cmd, sizeof(cmd), "perf record -q -N -F 4000 -e cpu-clock -o '%s' '%s/hot-prog' "
             ">/dev/null 2>&1", data, FIXTURE_DIR);
    if (system(cmd))
        SKIP("perf record failed here (perf_event_paranoid or no perf_event_open)");
    snprintf(cmd, sizeof(cmd), "perf script -i '%s' -F pid,ip,sym,dso --show-mmap-events "
             "2>/dev/null", data);
    f = popen(cmd, "r");
    CHECK(f);
    c = dso_cache_new();
    if (ksyms_load("/proc/kallsyms", &ks))
        ks = NULL;
    compare(f, c, ks, &t);
    pclose(f);
    ksyms_free(ks);
    dso_cache_free(c);
    remove(data);
    printf("# %d same, %d brackets, %d kernel\n", t.same, t.brackets, t.kernel_same);
    CHECK(t.same >= 50);   /* the fixture runs ~0.25 s: hundreds of samples at 4 kHz */
    CHECK_EQ_U64(t.diff, 0);
    CHECK_EQ_U64(t.kernel_diff, 0);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);   /* results survive a sanitizer exit */
    RUN(names_agree_with_perf_script);
    return 0;
}

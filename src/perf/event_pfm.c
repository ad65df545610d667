/* SPDX-License-Identifier: MIT */
#define LOG_PREFIX "event_pfm"
#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>   /* before libpfm4, whose copy is guarded by it */
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "perf/event_pfm.h"
#include "util/editdist.h"
#include "util/file.h"
#include "util/log.h"
#include "util/strutil.h"

static int pfm_state;            /* 0 untried, 1 ok, -1 failed */
static int core_pmu = -1;        /* pfm_pmu_t of the core model, -1 none */
static char model_note[200];

/* Newest model per vendor in libpfm4 4.13, for CPUs newer than the library (this VM's AMD
 * family 0x1a is unknown to it): their core events keep the same codes. */
static const char *newest_model(const char *vendor, long family)
{
    if (!strcmp(vendor, "AuthenticAMD") && family > 0x19)
        return "amd64_fam19h_zen4";
    return NULL;
}

static void cpu_vendor_family(char *vendor, size_t vlen, long *family)
{
    char *buf, *p;

    vendor[0] = '\0';
    *family = -1;
    if (file_read_all("/proc/cpuinfo", &buf, NULL, 1 << 20))
        return;
    if ((p = strstr(buf, "vendor_id")) && (p = strchr(p, ':')))
        sscanf(p + 1, " %31s", vendor);
    if ((p = strstr(buf, "cpu family")) && (p = strchr(p, ':')))
        *family = strtol(p + 1, NULL, 10);
    free(buf);
    (void)vlen;
}

static int find_core_pmu(void)
{
    pfm_pmu_info_t pi;
    for (int p = 0; p < PFM_PMU_MAX; p++) {
        memset(&pi, 0, sizeof(pi));
        pi.size = sizeof(pi);
        if (pfm_get_pmu_info(p, &pi) == PFM_SUCCESS && pi.is_present &&
            pi.type == PFM_PMU_TYPE_CORE)
            return p;
    }
    return -1;
}

static int pfm_ready(void)
{
    char vendor[32];
    long family;
    const char *model;

    if (pfm_state)
        return pfm_state > 0;
    pfm_state = pfm_initialize() == PFM_SUCCESS ? 1 : -1;
    if (pfm_state < 0)
        return 0;
    core_pmu = find_core_pmu();
    if (core_pmu >= 0 || getenv("LIBPFM_FORCE_PMU"))
        return 1;
    cpu_vendor_family(vendor, sizeof(vendor), &family);
    if (!(model = newest_model(vendor, family)))
        return 1;
    /* libpfm4 reads its override from the environment at initialization only; it is removed
     * again so the commands Prospect launches do not inherit it. */
    pfm_terminate();
    setenv("LIBPFM_FORCE_PMU", model, 1);
    pfm_state = pfm_initialize() == PFM_SUCCESS ? 1 : -1;
    unsetenv("LIBPFM_FORCE_PMU");
    if (pfm_state < 0)
        return 0;
    core_pmu = find_core_pmu();
    if (core_pmu >= 0) {
        snprintf(model_note, sizeof(model_note), "assumed: libpfm4 does not know %.16s "
                 "family 0x%lx; its newest model for the vendor", vendor, family);
        pr_debug("%s", model_note);
    }
    return 1;
}

const char *event_pfm_model(void)
{
    static pfm_pmu_info_t pi;
    if (!pfm_ready() || core_pmu < 0)
        return NULL;
    if (!pi.name) {
        pi.size = sizeof(pi);
        if (pfm_get_pmu_info(core_pmu, &pi) != PFM_SUCCESS)
            return NULL;
    }
    return pi.name;
}

const char *event_pfm_model_note(void)
{
    pfm_ready();
    return model_note;
}

bool event_pmu_exposed(void)
{
    return access("/sys/bus/event_source/devices/cpu/type", R_OK) == 0;
}

int event_pfm_encode(const char *name, struct perf_event_attr *a, char *canon, size_t canonlen,
                     char *err, size_t errlen)
{
    pfm_perf_encode_arg_t arg;
    struct perf_event_attr pa;
    char *fstr = NULL;
    int ret;

    if (!pfm_ready())
        return -ENOENT;
    memset(&arg, 0, sizeof(arg));
    memset(&pa, 0, sizeof(pa));
    arg.attr = &pa;
    arg.size = sizeof(arg);
    arg.fstr = &fstr;
    ret = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
    if (ret != PFM_SUCCESS) {
        free(fstr);
        if (ret == PFM_ERR_NOTFOUND)
            return -ENOENT;
        snprintf(err, errlen, "event '%s': %s", name, pfm_strerror(ret));
        return -EINVAL;
    }
    memset(a, 0, sizeof(*a));
    a->size = sizeof(*a);
    a->type = pa.type;
    a->config = pa.config;
    a->config1 = pa.config1;
    a->config2 = pa.config2;
    a->exclude_user = pa.exclude_user;
    a->exclude_kernel = pa.exclude_kernel;
    a->precise_ip = pa.precise_ip;
    if (canon && canonlen) {
        /* "amd64_fam19h_zen4::RETIRED_INSTRUCTIONS:e=0:i=0:...": keep pmu::EVENT[:UMASK...]
         * without libpfm4's explicit defaults (the k=v modifiers). */
        size_t n = 0;
        canon[0] = '\0';
        for (const char *tok = fstr; tok && *tok;) {
            size_t l = strcspn(tok, ":");
            if (l && !memchr(tok, '=', l)) {
                n += (size_t)snprintf(canon + n, n < canonlen ? canonlen - n : 0, "%s%.*s",
                                      !n ? "" : strstr(canon, "::") ? ":" : "::", (int)l, tok);
                if (n >= canonlen)
                    break;
            }
            tok += l;
            tok += strspn(tok, ":");
        }
    }
    free(fstr);
    return 0;
}

struct oprofile_name {
    const char *name;
    const char *models[3];      /* the same event under other PMU models' names */
    const char *perf;           /* perf's generic name, the kernel's own mapping */
};

/* oprofile's generic names (its "architected" events) and their equivalents. */
static const struct oprofile_name oprofile_names[] = {
    { "CPU_CLK_UNHALTED", { "CYCLES_NOT_IN_HALT", "UNHALTED_CORE_CYCLES" }, "cycles" },
    { "INST_RETIRED", { "RETIRED_INSTRUCTIONS", "INSTRUCTION_RETIRED" }, "instructions" },
    { "LLC_MISSES", { "LLC_MISSES" }, "cache-misses" },
    { "LLC_REFS", { "LLC_REFERENCES" }, "cache-references" },
    { "BR_INST_RETIRED", { "RETIRED_BRANCH_INSTRUCTIONS", "BRANCH_INSTRUCTIONS_RETIRED" },
      "branches" },
    { "BR_MISS_PRED_RETIRED", { "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED",
      "MISPREDICTED_BRANCH_RETIRED" }, "branch-misses" },
};

int event_oprofile_equivalent(const char *name, char *out, size_t len, bool *is_pfm)
{
    for (size_t i = 0; i < sizeof(oprofile_names) / sizeof(*oprofile_names); i++) {
        const struct oprofile_name *o = &oprofile_names[i];
        if (strcmp(name, o->name))
            continue;
        for (size_t m = 0; m < 3 && o->models[m]; m++) {
            struct perf_event_attr a;
            char e[8];
            if (event_pfm_encode(o->models[m], &a, out, len, e, sizeof(e)) == 0) {
                *is_pfm = true;
                return 0;
            }
        }
        str_copy(out, len, o->perf);
        *is_pfm = false;
        return 0;
    }
    return -ENOENT;
}

static bool has_word(const char *s, const char *w, size_t wl)
{
    for (const char *p = s; *p;) {
        size_t l = strcspn(p, "_");
        if (l == wl && !strncasecmp(p, w, wl))
            return true;
        p += l + (p[l] == '_');
    }
    return false;
}

/* Words (split at '_') of a that are words of b, so L2_LINES_IN finds L2_... names. */
static size_t shared_words(const char *a, const char *b)
{
    size_t n = 0;
    for (const char *p = a; *p;) {
        size_t l = strcspn(p, "_");
        /* Connecting words say nothing about what an event counts. */
        bool filler = (l == 2 && (!strncasecmp(p, "IN", 2) || !strncasecmp(p, "OF", 2) ||
                                  !strncasecmp(p, "TO", 2) || !strncasecmp(p, "ON", 2))) ||
                      (l == 4 && !strncasecmp(p, "FROM", 4));
        n += l >= 2 && !filler && has_word(b, p, l);
        p += l + (p[l] == '_');
    }
    return n;
}

void event_pfm_suggest(const char *name, char *buf, size_t len)
{
    struct { const char *name; size_t score; } best[3] = { { NULL, 0 } };
    pfm_pmu_info_t pi;
    char base[80];
    size_t bl = strcspn(name, ":");

    buf[0] = '\0';
    if (!bl || bl >= sizeof(base) || !event_pfm_model())   /* ":x" suggests nothing */
        return;
    memcpy(base, name, bl);
    base[bl] = '\0';
    memset(&pi, 0, sizeof(pi));
    pi.size = sizeof(pi);
    if (pfm_get_pmu_info(core_pmu, &pi) != PFM_SUCCESS)
        return;
    for (int idx = pi.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
        pfm_event_info_t ei;
        size_t d, score;
        memset(&ei, 0, sizeof(ei));
        ei.size = sizeof(ei);
        if (pfm_get_event_info(idx, PFM_OS_NONE, &ei) != PFM_SUCCESS)
            continue;
        /* Lower is better: close spellings first, then names containing the word, then
         * names sharing words. */
        d = edit_distance_nocase(base, ei.name, (size_t)-1);
        if (d <= 2 + bl / 6)
            score = d;
        else if (strcasestr(ei.name, base) || strcasestr(base, ei.name))
            score = 20;
        else if (shared_words(base, ei.name))
            score = 40 - shared_words(base, ei.name);
        else
            continue;
        for (size_t k = 0; k < 3; k++)
            if (!best[k].name || score < best[k].score) {
                memmove(&best[k + 1], &best[k], (2 - k) * sizeof(best[0]));
                best[k].name = ei.name;
                best[k].score = score;
                break;
            }
    }
    for (size_t k = 0, n = 0; k < 3 && best[k].name; k++)
        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s",
                              k == 0 ? "" : (k + 1 < 3 && best[k + 1].name) ? ", " : " or ",
                              best[k].name);
}

bool event_pfm_other_model(const char *pmu)
{
    pfm_pmu_info_t pi;

    if (!pfm_ready())
        return false;
    for (int p = 0; p < PFM_PMU_MAX; p++) {
        memset(&pi, 0, sizeof(pi));
        pi.size = sizeof(pi);
        if (pfm_get_pmu_info(p, &pi) == PFM_SUCCESS && pi.name && !strcmp(pi.name, pmu))
            return !pi.is_present;
    }
    return false;
}

int event_pfm_foreach_pmu(int (*fn)(void *arg, const char *pmu, const char *desc, int nevents),
                          void *arg)
{
    pfm_pmu_info_t pi;

    if (!pfm_ready())
        return -ENOENT;
    for (int p = 0; p < PFM_PMU_MAX; p++) {
        memset(&pi, 0, sizeof(pi));
        pi.size = sizeof(pi);
        if (pfm_get_pmu_info(p, &pi) != PFM_SUCCESS || !pi.is_present || !pi.nevents ||
            pi.type == PFM_PMU_TYPE_OS_GENERIC)
            continue;
        if (fn(arg, pi.name, pi.desc, pi.nevents))
            return 1;
    }
    return 0;
}

int event_pfm_foreach_event(const char *pmu,
                            int (*fn)(void *arg, const struct pfm_event_listing *ev), void *arg)
{
    struct pfm_umask_info um[64];
    pfm_pmu_info_t pi;

    if (!pfm_ready())
        return -ENOENT;
    for (int p = 0; p < PFM_PMU_MAX; p++) {
        memset(&pi, 0, sizeof(pi));
        pi.size = sizeof(pi);
        if (pfm_get_pmu_info(p, &pi) != PFM_SUCCESS || !pi.is_present || strcmp(pi.name, pmu))
            continue;
        for (int idx = pi.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
            pfm_event_info_t ei;
            struct pfm_event_listing ev = { .pmu = pi.name, .pmu_desc = pi.desc, .umasks = um };
            memset(&ei, 0, sizeof(ei));
            ei.size = sizeof(ei);
            if (pfm_get_event_info(idx, PFM_OS_NONE, &ei) != PFM_SUCCESS)
                continue;
            ev.name = ei.name;
            ev.desc = ei.desc ? ei.desc : "";
            ev.code = ei.code;
            for (int k = 0; k < ei.nattrs && ev.nr_umasks < 64; k++) {
                pfm_event_attr_info_t ai;
                memset(&ai, 0, sizeof(ai));
                ai.size = sizeof(ai);
                if (pfm_get_event_attr_info(idx, k, PFM_OS_NONE, &ai) != PFM_SUCCESS ||
                    ai.type != PFM_ATTR_UMASK)
                    continue;
                um[ev.nr_umasks++] = (struct pfm_umask_info){ ai.name, ai.desc ? ai.desc : "",
                                                              ai.code, ai.is_dfl };
            }
            if (fn(arg, &ev))
                return 1;
        }
        return 0;
    }
    return -ENOENT;
}

/* SPDX-License-Identifier: MIT */
/* Event specs for a CPU's PMU, checked against libpfm4's own encoding. No PMU is needed: the
 * model is forced with LIBPFM_FORCE_PMU (libpfm4's override), Intel Core 2 first (seed 003's
 * T400, where oprofile's names are the PMU's own), then, in a re-executed copy of this test,
 * AMD Zen 3 (where oprofile's generic names must be mapped). */
#include <errno.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "test.h"
#include "perf/event.h"
#include "perf/event_pfm.h"
#include "perf/event_terms.h"

/* libpfm4's encoding of a name, the reference every form is checked against. */
static int pfm_ref(const char *name, struct perf_event_attr *a)
{
    pfm_perf_encode_arg_t arg;
    memset(&arg, 0, sizeof(arg));
    memset(a, 0, sizeof(*a));
    arg.attr = a;
    arg.size = sizeof(arg);
    return pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
}

#define SAME_ATTR(e, r) do { \
        CHECK_EQ_U64((e).attr.type, (r).type); CHECK_EQ_U64((e).attr.config, (r).config); \
        CHECK_EQ_U64((e).attr.config1, (r).config1); \
        CHECK_EQ_U64((e).attr.exclude_user, (r).exclude_user); \
        CHECK_EQ_U64((e).attr.exclude_kernel, (r).exclude_kernel); } while (0)

TEST(core2_model_is_libpfm4s)
{
    CHECK_STR(event_pfm_model(), "core");
    CHECK_STR(event_pfm_model_note(), "");
}

TEST(oprofile_spec_period_and_unit_mask)
{
    struct event_spec e;
    struct perf_event_attr r;
    char err[512];

    CHECK(event_parse("CPU_CLK_UNHALTED:100000", &e, err, sizeof(err)) == 0);
    CHECK(pfm_ref("CPU_CLK_UNHALTED", &r) == PFM_SUCCESS);
    SAME_ATTR(e, r);
    CHECK_EQ_U64(e.period, 100000);
    CHECK_STR(e.name, "CPU_CLK_UNHALTED");
    CHECK_STR(e.note, "");                   /* the PMU's own name: no mapping */
    CHECK(event_parse("L2_LINES_IN:100000:0xf0", &e, err, sizeof(err)) == 0);
    CHECK(pfm_ref("L2_LINES_IN:0xf0", &r) == PFM_SUCCESS);
    SAME_ATTR(e, r);
    CHECK_EQ_U64(e.attr.config & 0xffff, 0xf024);   /* event 0x24, unit mask 0xf0 */
    CHECK_EQ_U64(e.period, 100000);
    CHECK_STR(e.name, "L2_LINES_IN:0xf0");
    /* KERNEL and USER fields: 0 leaves that level out. */
    CHECK(event_parse("L2_LINES_IN:5000:0xf0:0:1", &e, err, sizeof(err)) == 0);
    CHECK(e.attr.exclude_kernel && !e.attr.exclude_user);
    CHECK(event_parse("L2_LINES_IN:5000:0xf0:1:0", &e, err, sizeof(err)) == 0);
    CHECK(!e.attr.exclude_kernel && e.attr.exclude_user);
    /* A named unit mask. */
    CHECK(event_parse("L2_LINES_IN:5000:ANY", &e, err, sizeof(err)) == 0);
    CHECK(pfm_ref("L2_LINES_IN:ANY", &r) == PFM_SUCCESS);
    SAME_ATTR(e, r);
}

TEST(libpfm4_names_with_modifiers)
{
    struct event_spec e;
    struct perf_event_attr r;
    char err[512];

    CHECK(event_parse("INST_RETIRED:ANY_P:u", &e, err, sizeof(err)) == 0);
    CHECK(pfm_ref("INST_RETIRED:ANY_P:u", &r) == PFM_SUCCESS);
    SAME_ATTR(e, r);
    CHECK(e.attr.exclude_kernel && !e.attr.exclude_user);
    CHECK(event_parse("core::L2_LINES_IN:SELF:ANY:k", &e, err, sizeof(err)) == 0);
    CHECK(pfm_ref("core::L2_LINES_IN:SELF:ANY:k", &r) == PFM_SUCCESS);
    SAME_ATTR(e, r);
    CHECK(event_parse("LLC_MISSES", &e, err, sizeof(err)) == 0);
    CHECK(pfm_ref("LLC_MISSES", &r) == PFM_SUCCESS);
    SAME_ATTR(e, r);
    /* libpfm4's own modifier syntax passes through (a counter mask). */
    CHECK(event_parse("INST_RETIRED:ANY_P:c=2", &e, err, sizeof(err)) == 0);
    CHECK(pfm_ref("INST_RETIRED:ANY_P:c=2", &r) == PFM_SUCCESS);
    SAME_ATTR(e, r);
}

TEST(raw_and_pmu_terms_match_libpfm4)
{
    struct event_spec e, raw;
    struct perf_event_attr r;
    char err[512], dir[] = "/tmp/prospect-pmu-XXXXXX", path[600];
    static const char *const fmt[][2] = {
        { "event", "config:0-7" }, { "umask", "config:8-15" }, { "edge", "config:18" },
        { "inv", "config:23" }, { "cmask", "config:24-31" },
    };
    FILE *f;

    /* A sysfs tree as an Intel machine has it (/sys/bus/event_source/devices/cpu). */
    CHECK(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/cpu", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof(path), "%s/cpu/format", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof(path), "%s/cpu/events", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof(path), "%s/cpu/type", dir);
    CHECK((f = fopen(path, "w")) && fputs("4\n", f) >= 0 && !fclose(f));
    snprintf(path, sizeof(path), "%s/cpu/events/cpu-cycles", dir);
    CHECK((f = fopen(path, "w")) && fputs("event=0x3c\n", f) >= 0 && !fclose(f));
    for (size_t i = 0; i < 5; i++) {
        snprintf(path, sizeof(path), "%s/cpu/format/%s", dir, fmt[i][0]);
        CHECK((f = fopen(path, "w")) && fprintf(f, "%s\n", fmt[i][1]) > 0 && !fclose(f));
    }
    event_terms_set_root(dir);
    CHECK(pfm_ref("L2_LINES_IN:0xf0", &r) == PFM_SUCCESS);
    CHECK(event_parse("cpu/event=0x24,umask=0xf0/", &e, err, sizeof(err)) == 0);
    SAME_ATTR(e, r);
    CHECK(event_parse("r00f024", &raw, err, sizeof(err)) == 0);
    CHECK_EQ_U64(raw.attr.type, r.type);
    CHECK_EQ_U64(raw.attr.config, r.config);
    CHECK(pfm_ref("INST_RETIRED:ANY_P:c=2:u", &r) == PFM_SUCCESS);
    CHECK(event_parse("cpu/event=0xc0,umask=0,cmask=2/u", &e, err, sizeof(err)) == 0);
    SAME_ATTR(e, r);
    CHECK(event_parse("cpu/cpu-cycles,period=5000/", &e, err, sizeof(err)) == 0);
    CHECK_EQ_U64(e.attr.config, 0x3c);
    CHECK_EQ_U64(e.period, 5000);
    CHECK(event_parse("cpu/config=0x1234,config1=7/", &e, err, sizeof(err)) == 0);
    CHECK(e.attr.config == 0x1234 && e.attr.config1 == 7);
    /* Errors: a value wider than its field, an unknown term, a missing PMU. */
    CHECK(event_parse("cpu/umask=0x100/", &e, err, sizeof(err)) == -EINVAL);
    CHECK(strstr(err, "does not fit"));
    CHECK(event_parse("cpu/nosuch=1/", &e, err, sizeof(err)) == -EINVAL);
    CHECK(strstr(err, "no term or event 'nosuch'"));
    CHECK(event_parse("nopmu/event=1/", &e, err, sizeof(err)) == -ENOENT);
    CHECK(strstr(err, "PMUs here: cpu"));
    event_terms_set_root(NULL);
    snprintf(path, sizeof(path), "rm -rf '%s'", dir);
    CHECK(system(path) == 0);
}

TEST(software_pmu_terms_on_this_machine)
{
    struct event_spec e;
    char err[512];
    if (access("/sys/bus/event_source/devices/software/type", R_OK))
        SKIP("no software PMU in /sys/bus/event_source/devices");
    CHECK(event_parse("software/config=1/", &e, err, sizeof(err)) == 0);
    CHECK_EQ_U64(e.attr.type, PERF_TYPE_SOFTWARE);
    CHECK_EQ_U64(e.attr.config, PERF_COUNT_SW_TASK_CLOCK);
}

TEST(spec_errors)
{
    struct event_spec e;
    char err[512];
    CHECK(event_parse("L2_LINES_IN:0", &e, err, sizeof(err)) == -EINVAL);
    CHECK(event_parse("L2_LINES_IN:1000:0xf0:2", &e, err, sizeof(err)) == -EINVAL);
    CHECK(strstr(err, "KERNEL and USER 0 or 1"));
    CHECK(event_parse("L2_LINES_IN:1000:NOSUCHMASK", &e, err, sizeof(err)) == -EINVAL);
    CHECK(strstr(err, "L2_LINES_IN"));
    CHECK(event_parse("cpu-clock:1000:0xf0", &e, err, sizeof(err)) == -EINVAL);
    CHECK(strstr(err, "unit mask applies to the CPU's PMU events only"));
    CHECK(event_parse("L2_LINES_INN", &e, err, sizeof(err)) == -ENOENT);
    CHECK(strstr(err, "(core)") && strstr(err, "did you mean L2_LINES_IN"));
}

/* ---- AMD Zen 3, re-executed with its own LIBPFM_FORCE_PMU ---- */

TEST(zen3_maps_oprofile_names)
{
    struct event_spec e;
    struct perf_event_attr r;
    char err[512];

    CHECK_STR(event_pfm_model(), "amd64_fam19h_zen3");
    CHECK(event_parse("CPU_CLK_UNHALTED:100000", &e, err, sizeof(err)) == 0);
    CHECK(pfm_ref("CYCLES_NOT_IN_HALT", &r) == PFM_SUCCESS);
    SAME_ATTR(e, r);
    CHECK_EQ_U64(e.period, 100000);
    CHECK(strstr(e.note, "CPU_CLK_UNHALTED is oprofile's name") &&
          strstr(e.note, "amd64_fam19h_zen3::CYCLES_NOT_IN_HALT"));
    CHECK(event_parse("INST_RETIRED:5000:0:0:1", &e, err, sizeof(err)) == 0);
    CHECK(pfm_ref("RETIRED_INSTRUCTIONS:u", &r) == PFM_SUCCESS);
    SAME_ATTR(e, r);
    /* No LLC event in the core model: perf's generic one, the kernel's mapping. */
    CHECK(event_parse("LLC_MISSES", &e, err, sizeof(err)) == 0);
    CHECK(e.attr.type == PERF_TYPE_HARDWARE && e.attr.config == PERF_COUNT_HW_CACHE_MISSES);
    CHECK(strstr(e.note, "perf's generic 'cache-misses'"));
    /* Intel's unit mask does not carry over. */
    CHECK(event_parse("CPU_CLK_UNHALTED:100000:0x40", &e, err, sizeof(err)) == -EINVAL);
    CHECK(event_parse("amd64_fam19h_zen3::RETIRED_INSTRUCTIONS:u", &e, err, sizeof(err)) == 0);
    CHECK(pfm_ref("amd64_fam19h_zen3::RETIRED_INSTRUCTIONS:u", &r) == PFM_SUCCESS);
    SAME_ATTR(e, r);
}

TEST(zen3_lacks_l2_lines_in_and_suggests)
{
    struct event_spec e;
    char err[512];
    CHECK(event_parse("L2_LINES_IN:100000:0xf0", &e, err, sizeof(err)) == -ENOENT);
    CHECK(strstr(err, "amd64_fam19h_zen3") && strstr(err, "did you mean") && strstr(err, "L2"));
    CHECK(event_parse("RETIRED_INSTRUCTON", &e, err, sizeof(err)) == -ENOENT);
    CHECK(strstr(err, "did you mean RETIRED_INSTRUCTIONS"));
}

TEST(open_error_names_the_model)
{
    struct event_spec e;
    char err[512], buf[512];
    CHECK(event_parse("RETIRED_INSTRUCTIONS", &e, err, sizeof(err)) == 0);
    event_open_advice(ENOENT, &e.attr, e.name, buf, sizeof(buf));
    if (event_pmu_exposed())
        CHECK(strstr(buf, "not supported by this CPU's PMU (amd64_fam19h_zen3)"));
    else
        CHECK(strstr(buf, "valid for this CPU's PMU model (amd64_fam19h_zen3)") &&
              strstr(buf, "not available to this machine") && strstr(buf, "cpu-clock") &&
              strstr(buf, "enable the PMU") && !strstr(buf, "unknown"));
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "zen3")) {
        RUN(zen3_maps_oprofile_names);
        RUN(zen3_lacks_l2_lines_in_and_suggests);
        RUN(open_error_names_the_model);
        return 0;
    }
    setenv("LIBPFM_FORCE_PMU", "core", 1);
    RUN(core2_model_is_libpfm4s);
    RUN(oprofile_spec_period_and_unit_mask);
    RUN(libpfm4_names_with_modifiers);
    RUN(raw_and_pmu_terms_match_libpfm4);
    RUN(software_pmu_terms_on_this_machine);
    RUN(spec_errors);
    fflush(stdout);
    setenv("LIBPFM_FORCE_PMU", "amd64_fam19h_zen3", 1);
    execl("/proc/self/exe", argv[0], "zen3", (char *)NULL);
    printf("FAIL zen3_maps_oprofile_names: cannot re-execute the test\n");
    return 1;
}

/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "test.h"
#include "perf/event.h"

TEST(generic_names)
{
    struct event_spec e;
    char err[128];
    CHECK(event_parse("cpu-clock", &e, err, sizeof(err)) == 0);
    CHECK(e.attr.type == PERF_TYPE_SOFTWARE && e.attr.config == PERF_COUNT_SW_CPU_CLOCK);
    CHECK(event_parse("cycles", &e, err, sizeof(err)) == 0);
    CHECK(e.attr.type == PERF_TYPE_HARDWARE && e.attr.config == PERF_COUNT_HW_CPU_CYCLES);
    CHECK(event_parse("L1-dcache-load-misses", &e, err, sizeof(err)) == 0);
    CHECK(e.attr.type == PERF_TYPE_HW_CACHE && e.attr.config == (0 | (0 << 8) | (1 << 16)));
    CHECK(event_parse("r01c2", &e, err, sizeof(err)) == 0);
    CHECK(e.attr.type == PERF_TYPE_RAW && e.attr.config == 0x1c2);
}

TEST(modifiers_and_period)
{
    struct event_spec e;
    char err[200];
    CHECK(event_parse("cycles:u", &e, err, sizeof(err)) == 0);
    CHECK(e.attr.exclude_kernel && !e.attr.exclude_user);
    CHECK_STR(e.name, "cycles:u");
    CHECK(event_parse("cpu-clock:250000", &e, err, sizeof(err)) == 0);
    CHECK_EQ_U64(e.period, 250000);
    CHECK_STR(e.name, "cpu-clock");
    CHECK(event_parse("task-clock:k:100000", &e, err, sizeof(err)) == 0);
    CHECK(e.attr.exclude_user && e.period == 100000);
    /* Two modifier groups: refused (perf's syntax error), never one silently dropped. */
    CHECK(event_parse("task-clock:u:k", &e, err, sizeof(err)) == -EINVAL);
    CHECK(strstr(err, "two modifier groups"));
    CHECK(event_parse("cpu-clock:k:1000:u", &e, err, sizeof(err)) == -EINVAL);
    CHECK(event_parse("task-clock:uk", &e, err, sizeof(err)) == 0);
    CHECK(!e.attr.exclude_user && !e.attr.exclude_kernel);
}

TEST(bad_names_explain_themselves)
{
    struct event_spec e;
    char err[128];
    CHECK(event_parse("nosuchevent", &e, err, sizeof(err)) == -ENOENT);
    CHECK(strstr(err, "unknown event 'nosuchevent'"));
    CHECK(event_parse("cpu-clock:0", &e, err, sizeof(err)) == -EINVAL);
    CHECK(event_parse("", &e, err, sizeof(err)) == -EINVAL);
}

TEST(tracepoints_when_tracefs_is_there)
{
    struct event_spec e;
    char err[128];
    /* Root mounts tracefs when it is not mounted (a fresh machine): no skip then. */
    if (geteuid() != 0 && !event_tracefs_dir())
        SKIP("not root and tracefs is not usable by this user");
    CHECK(event_tracefs_dir() != NULL);
    CHECK(event_parse("sched:sched_switch", &e, err, sizeof(err)) == 0);
    CHECK(e.attr.type == PERF_TYPE_TRACEPOINT && e.attr.config > 0);
    /* The name as given: nothing appended (an unset unit mask once was). */
    CHECK_STR(e.name, "sched:sched_switch");
}

TEST(advice_names_the_fix)
{
    struct perf_event_attr a;
    char buf[512];
    memset(&a, 0, sizeof(a));
    a.type = PERF_TYPE_HARDWARE;
    event_open_advice(ENOENT, &a, "cycles", buf, sizeof(buf));
    if (access("/sys/bus/event_source/devices/cpu/type", R_OK))   /* no PMU exposed */
        CHECK(strstr(buf, "hardware counters are not available to this machine") &&
              strstr(buf, "-e cpu-clock"));
    else
        CHECK(strstr(buf, "not supported by this CPU's PMU"));
    event_open_advice(EACCES, &a, "cycles", buf, sizeof(buf));
    CHECK(strstr(buf, "perf_event_paranoid") && strstr(buf, "CAP_PERFMON"));
    a.freq = 1;
    a.sample_freq = 500000;
    event_open_advice(EINVAL, &a, "cycles", buf, sizeof(buf));
    CHECK(strstr(buf, "perf_event_max_sample_rate"));
}

int main(void)
{
    RUN(generic_names);
    RUN(modifiers_and_period);
    RUN(bad_names_explain_themselves);
    RUN(tracepoints_when_tracefs_is_there);
    RUN(advice_names_the_fix);
    return 0;
}

/* SPDX-License-Identifier: MIT */
/* syscheck against fixture trees in tests/fixtures/syscheck/<state>/ (run from the repo root). */
#include <errno.h>
#include <string.h>
#include "test.h"
#include "system/syscheck.h"
#include "util/strutil.h"
#define str_starts_(s, p) str_starts(s, p)

#define FIX "tests/fixtures/syscheck/"

static const struct check_item *item(const struct syscheck *sc, const char *name)
{
    for (size_t i = 0; i < sc->n; i++)
        if (!strcmp(sc->items[i].name, name))
            return &sc->items[i];
    return NULL;
}

/* Status of item `name`, or -1 when missing. */
static int st(const struct syscheck *sc, const char *name)
{
    const struct check_item *it = item(sc, name);
    return it ? (int)it->status : -1;
}

static const char *val(const struct syscheck *sc, const char *name)
{
    const struct check_item *it = item(sc, name);
    return it ? it->value : "";
}

static const char *adv(const struct syscheck *sc, const char *name)
{
    const struct check_item *it = item(sc, name);
    return it ? it->advice : "";
}

static const char *const all_items[] = {
    "isolcpus", "nohz_full", "rcu_nocbs", "irq_affinity", "governor", "frequency", "boost",
    "smt", "aslr", "perf_event_paranoid", "kptr_restrict", "pmu", "tsc", "clocksource",
    "hypervisor", "load", "runnable",
};

TEST(quiet_machine_is_all_ok)
{
    struct syscheck_opts o = { FIX "quiet", -1, false };
    struct syscheck sc;
    CHECK(syscheck_run(&o, &sc) == 0);
    CHECK(sc.cpu == 2 && sc.cpu_chosen);     /* the first isolated CPU */
    CHECK_EQ_U64(sc.n, sizeof(all_items) / sizeof(all_items[0]));
    for (size_t i = 0; i < sc.n; i++)
        CHECK_STR(sc.items[i].name, all_items[i]);
    CHECK_EQ_U64(syscheck_count(&sc, CHECK_OK), sc.n);
    CHECK(strstr(val(&sc, "isolcpus"), "CPU 2 is listed"));
    CHECK(strstr(val(&sc, "rcu_nocbs"), "rcu_nocbs=2-3"));
    CHECK_STR(val(&sc, "irq_affinity"), "none of 4 IRQs may be delivered to CPU 2");
    CHECK_STR(val(&sc, "governor"), "performance");
    CHECK_STR(val(&sc, "frequency"), "fixed at 3000 MHz");
    CHECK(strstr(val(&sc, "smt"), "SMT off"));
    CHECK_STR(val(&sc, "tsc"), "invariant (constant_tsc nonstop_tsc rdtscp tsc_known_freq)");
    CHECK_STR(val(&sc, "runnable"), "0 other tasks runnable on CPU 2");
    syscheck_release(&sc);
}

TEST(noisy_machine_warns_with_advice)
{
    struct syscheck_opts o = { FIX "noisy/", -1, false };
    struct syscheck sc;
    CHECK(syscheck_run(&o, &sc) == 0);
    CHECK(sc.cpu == 3);                      /* no isolated CPU: the highest online */
    CHECK(st(&sc, "isolcpus") == CHECK_WARN);
    CHECK(strstr(adv(&sc, "isolcpus"), "isolcpus=3"));
    CHECK(st(&sc, "nohz_full") == CHECK_WARN && st(&sc, "rcu_nocbs") == CHECK_WARN);
    CHECK(st(&sc, "irq_affinity") == CHECK_WARN);
    CHECK(strstr(val(&sc, "irq_affinity"), "3 of 4 IRQs may be delivered to CPU 3 (24-25 27)"));
    CHECK(strstr(adv(&sc, "irq_affinity"), "move them to CPU 0-2: prospect check --cpu 3 "
                 "--move-irqs"));
    CHECK_EQ_U64(sc.nirqs, 3);
    CHECK_STR(sc.irq_target, "0-2");
    CHECK(st(&sc, "governor") == CHECK_WARN);
    CHECK(str_starts_(val(&sc, "governor"), "powersave"));
    CHECK(strstr(adv(&sc, "governor"), "frequency-set -g performance"));
    CHECK(st(&sc, "frequency") == CHECK_WARN);
    CHECK(strstr(val(&sc, "frequency"), "800 to 4200 MHz"));
    CHECK(st(&sc, "boost") == CHECK_WARN);
    CHECK(strstr(adv(&sc, "boost"), "no_turbo"));
    CHECK(st(&sc, "smt") == CHECK_WARN);
    CHECK(strstr(val(&sc, "smt"), "shares its core with CPU 1"));
    CHECK(st(&sc, "aslr") == CHECK_WARN);
    /* Unprivileged: paranoid 2 and kptr_restrict 1 limit the user. */
    CHECK(st(&sc, "perf_event_paranoid") == CHECK_WARN);
    CHECK(st(&sc, "kptr_restrict") == CHECK_WARN);
    CHECK(st(&sc, "pmu") == CHECK_OK && st(&sc, "tsc") == CHECK_OK);
    CHECK(strstr(val(&sc, "tsc"), "; note: no rdtscp"));   /* a note: cycles.h falls back */
    CHECK(st(&sc, "hypervisor") == CHECK_OK);
    CHECK(st(&sc, "load") == CHECK_WARN);
    CHECK(st(&sc, "runnable") == CHECK_WARN);
    CHECK(strstr(val(&sc, "runnable"), "6 other tasks runnable system-wide"));
    syscheck_release(&sc);
    /* As root those two limits do not apply. */
    o.privileged = true;
    CHECK(syscheck_run(&o, &sc) == 0);
    CHECK(st(&sc, "perf_event_paranoid") == CHECK_OK);
    CHECK(st(&sc, "kptr_restrict") == CHECK_OK);
    syscheck_release(&sc);
}

TEST(chosen_cpu_changes_the_answers)
{
    struct syscheck_opts o = { FIX "quiet", 0, false };
    struct syscheck sc;
    CHECK(syscheck_run(&o, &sc) == 0);
    CHECK(sc.cpu == 0 && !sc.cpu_chosen);
    CHECK(st(&sc, "isolcpus") == CHECK_WARN);
    CHECK(strstr(val(&sc, "irq_affinity"), "3 of 4 IRQs"));
    CHECK(st(&sc, "governor") == CHECK_NA);  /* the fixture has cpufreq for CPUs 2-3 only */
    CHECK(st(&sc, "runnable") == CHECK_WARN);
    syscheck_release(&sc);
    o.cpu = 9;
    CHECK(syscheck_run(&o, &sc) == -ENODEV);
    CHECK_STR(sc.online, "0-3");
    syscheck_release(&sc);
}

TEST(vm_without_pmu_under_hypervisor)
{
    struct syscheck_opts o = { FIX "vm", -1, true };
    struct syscheck sc;
    CHECK(syscheck_run(&o, &sc) == 0);
    CHECK(sc.cpu == 1);
    CHECK(st(&sc, "isolcpus") == CHECK_OK);  /* from the command line: no sysfs file */
    CHECK_STR(val(&sc, "isolcpus"), "CPU 1 is listed (isolcpus=1)");
    CHECK(st(&sc, "rcu_nocbs") == CHECK_OK); /* bare rcu_nocbs: all CPUs */
    CHECK(st(&sc, "irq_affinity") == CHECK_NA);
    CHECK(st(&sc, "governor") == CHECK_NA && st(&sc, "frequency") == CHECK_NA);
    CHECK(st(&sc, "boost") == CHECK_NA && st(&sc, "smt") == CHECK_NA);
    CHECK(st(&sc, "pmu") == CHECK_WARN);
    CHECK(strstr(val(&sc, "pmu"), "no hardware PMU"));
    CHECK(st(&sc, "tsc") == CHECK_WARN);
    CHECK(strstr(val(&sc, "tsc"), "missing nonstop_tsc"));
    CHECK(st(&sc, "clocksource") == CHECK_WARN);
    CHECK(str_starts_(val(&sc, "clocksource"), "kvm-clock"));
    CHECK(st(&sc, "hypervisor") == CHECK_WARN);
    CHECK_STR(val(&sc, "hypervisor"), "running under a hypervisor (xen)");
    CHECK(st(&sc, "load") == CHECK_OK);
    CHECK_STR(val(&sc, "runnable"), "2 other tasks runnable on CPU 1");   /* debugfs dump */
    syscheck_release(&sc);
}

TEST(garbage_files_are_reported_not_trusted)
{
    struct syscheck_opts o = { FIX "garbage", -1, false };
    struct syscheck sc;
    CHECK(syscheck_run(&o, &sc) == 0);
    CHECK_EQ_U64(sc.n, sizeof(all_items) / sizeof(all_items[0]));
    CHECK(st(&sc, "isolcpus") == CHECK_WARN);
    CHECK(strstr(val(&sc, "isolcpus"), "cannot parse"));
    CHECK(st(&sc, "aslr") == CHECK_NA && st(&sc, "kptr_restrict") == CHECK_NA);
    CHECK(st(&sc, "load") == CHECK_NA && st(&sc, "runnable") == CHECK_NA);
    CHECK(st(&sc, "clocksource") == CHECK_NA);
    CHECK(!strchr(val(&sc, "governor"), '\x01'));   /* control characters replaced */
    syscheck_release(&sc);
}

TEST(missing_root_is_an_error)
{
    struct syscheck_opts o = { FIX "does-not-exist", -1, false };
    struct syscheck sc;
    CHECK(syscheck_run(&o, &sc) == -ENOENT);
    syscheck_release(&sc);
}

TEST(live_system_answers_every_item)
{
    struct syscheck_opts o = { NULL, -1, true };
    struct syscheck sc;
    CHECK(syscheck_run(&o, &sc) == 0);
    CHECK_EQ_U64(sc.n, sizeof(all_items) / sizeof(all_items[0]));
    syscheck_release(&sc);
}

TEST(irq_ranges_list_every_irq)
{
    struct syscheck_irq v[40];
    char buf[64];
    size_t n = 0;

    for (unsigned i = 24; i <= 26; i++)
        v[n++].irq = i;
    for (unsigned i = 28; i <= 43; i++)
        v[n++].irq = i;
    v[n++].irq = 50;
    syscheck_irq_ranges(v, n, buf, sizeof(buf));
    CHECK_STR(buf, "24-26 28-43 50");
    /* Too many for the buffer: what is left out is counted, never silently dropped. */
    n = 0;
    for (unsigned i = 0; i < 40; i++)
        v[n++].irq = 100 + 2 * i;
    syscheck_irq_ranges(v, n, buf, 32);
    CHECK_STR(buf, "100 102 104 106 108 (+35 more)");
    CHECK(strstr(syscheck_irq_refusal(-EIO), "per-CPU"));
    CHECK(syscheck_irq_refusal(-E2BIG) == NULL);
}

int main(void)
{
    RUN(quiet_machine_is_all_ok);
    RUN(noisy_machine_warns_with_advice);
    RUN(chosen_cpu_changes_the_answers);
    RUN(vm_without_pmu_under_hypervisor);
    RUN(garbage_files_are_reported_not_trusted);
    RUN(missing_root_is_an_error);
    RUN(live_system_answers_every_item);
    RUN(irq_ranges_list_every_irq);
    return 0;
}

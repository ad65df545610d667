/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "test.h"
#include "util/cpu_pin.h"
#include "util/cpulist.h"

TEST(cpulist_round_trip)
{
    cpu_set_t s;
    char buf[64];
    CHECK(cpulist_parse("0-3,8,10-11\n", &s) == 0);
    CHECK(CPU_COUNT(&s) == 7);
    CHECK(CPU_ISSET(8, &s) && !CPU_ISSET(9, &s));
    CHECK(cpulist_format(&s, buf, sizeof(buf)) == 11);
    CHECK_STR(buf, "0-3,8,10-11");
    CHECK(cpulist_first(&s) == 0 && cpulist_last(&s) == 11);
    CHECK(cpulist_parse("  \n", &s) == 0);
    CHECK(CPU_COUNT(&s) == 0);
    CHECK(cpulist_first(&s) == -1);
    CHECK(cpulist_format(&s, buf, sizeof(buf)) == 0);
    CHECK_STR(buf, "");
}

TEST(cpulist_rejects_garbage)
{
    cpu_set_t s;
    char small[4];
    CHECK(cpulist_parse("3-1", &s) == -EINVAL);
    CHECK(cpulist_parse("1,,2", &s) == -EINVAL);
    CHECK(cpulist_parse("a", &s) == -EINVAL);
    CHECK(cpulist_parse("1-", &s) == -EINVAL);
    CHECK(cpulist_parse("1 2", &s) == -EINVAL);
    CHECK(cpulist_parse("99999", &s) == -ERANGE);
    CHECK(cpulist_parse("0-99999999999999999999", &s) == -ERANGE);
    CHECK(cpulist_parse("0-3,8", &s) == 0);
    CHECK(cpulist_format(&s, small, sizeof(small)) == -ENOSPC);
}

TEST(cpu_parse_numbers_only)
{
    int c;
    CHECK(cpu_parse("3", &c) == 0 && c == 3);
    CHECK(cpu_parse("", &c) == -EINVAL);
    CHECK(cpu_parse("-1", &c) == -EINVAL);
    CHECK(cpu_parse("1x", &c) == -EINVAL);
    CHECK(cpu_parse("0x1", &c) == -EINVAL);
    CHECK(cpu_parse("100000", &c) == -ERANGE);
}

TEST(pin_to_allowed_cpu_and_back)
{
    cpu_set_t old, now;
    char err[256] = "";
    int cpu;
    CHECK(sched_getaffinity(0, sizeof(old), &old) == 0);
    cpu = cpulist_last(&old);
    CHECK(cpu_pin(0, cpu, "/sys/devices/system/cpu/online", err, sizeof(err)) == 0);
    CHECK(sched_getaffinity(0, sizeof(now), &now) == 0);
    CHECK(CPU_COUNT(&now) == 1 && CPU_ISSET(cpu, &now));
    CHECK(sched_getcpu() == cpu);
    CHECK(sched_setaffinity(0, sizeof(old), &old) == 0);
}

TEST(pin_to_offline_cpu_explains)
{
    char path[] = "/tmp/prospect-online-XXXXXX", err[256] = "";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(write(fd, "0-1\n", 4) == 4);
    close(fd);
    CHECK(cpu_pin(0, 5, path, err, sizeof(err)) == -EINVAL);
    unlink(path);
    CHECK_STR(err, "CPU 5 does not exist or is offline (online CPUs: 0-1)");
    /* Without the online list, the kernel's EINVAL is explained from the allowed set. */
    CHECK(cpu_pin(0, CPU_SETSIZE - 1, NULL, err, sizeof(err)) == -EINVAL);
    CHECK(strstr(err, "not in the CPUs this process may use"));
    CHECK(cpu_pin(0, -1, NULL, err, sizeof(err)) == -EINVAL);
}

int main(void)
{
    RUN(cpulist_round_trip);
    RUN(cpulist_rejects_garbage);
    RUN(cpu_parse_numbers_only);
    RUN(pin_to_allowed_cpu_and_back);
    RUN(pin_to_offline_cpu_explains);
    return 0;
}

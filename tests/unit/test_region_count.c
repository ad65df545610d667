/* SPDX-License-Identifier: MIT */
/* Region crossing aggregation: recursion, migration between cpus, scaling, inlined fragments,
 * the uretprobe nesting limit, exec, percentiles; and the region helpers. */
#include <stdlib.h>
#include "test.h"
#include "probe/region.h"
#include "probe/region_count.h"

/* Feeds one sample of group 0 with a single value (task-clock). */
static int feed(struct region_counter *rc, enum rc_role role, uint32_t tid, uint32_t cpu,
                uint64_t time, uint64_t value, uint64_t en, uint64_t run, bool ret)
{
    struct rc_sample s = { .group = 0, .region = 0, .role = role, .retprobe = ret, .function = ret, .pid = 1,
                           .tid = tid, .cpu = cpu, .time = time, .enabled = en, .running = run,
                           .values = &value, .nr_values = 1 };
    return region_counter_feed(rc, &s);
}

static struct region_counter *one_value_counter(void)
{
    size_t nv = 1;
    struct region_counter *rc = region_counter_new(1, 1, &nv, 2);
    if (rc)
        region_counter_keep_values(rc, true);
    return rc;
}

TEST(recursion_counts_outermost_once)
{
    struct region_counter *rc = one_value_counter();
    const struct rc_result *r;
    CHECK(rc);
    CHECK(feed(rc, RC_ENTER, 7, 0, 100, 10, 10, 10, true) == 0);
    CHECK(feed(rc, RC_ENTER, 7, 0, 110, 12, 12, 12, true) == 0);
    CHECK(feed(rc, RC_EXIT, 7, 0, 120, 14, 14, 14, true) == 0);
    CHECK(feed(rc, RC_EXIT, 7, 0, 130, 20, 20, 20, true) == 0);
    r = region_counter_total(rc, 0);
    CHECK(r);
    CHECK_EQ_U64(r->calls, 2);
    CHECK_EQ_U64(r->crossings, 1);
    CHECK_EQ_U64((uint64_t)r->vals[0].total, 10);
    CHECK_EQ_U64((uint64_t)r->wall.total, 30);
    CHECK_EQ_U64(r->scaled, 0);
    region_counter_free(rc);
}

/* A function sample with a user stack pointer (group 0, one value). */
static int feed_sp(struct region_counter *rc, enum rc_role role, uint64_t time, uint64_t value,
                   uint64_t sp)
{
    struct rc_sample s = { .group = 0, .region = 0, .role = role, .retprobe = true, .function = true, .pid = 1,
                           .tid = 7, .cpu = 0, .time = time, .enabled = time, .running = time,
                           .values = &value, .nr_values = 1, .sp = sp };
    return region_counter_feed(rc, &s);
}

TEST(lost_outermost_exit_resynced_by_next_entry)
{
    struct region_counter *rc = one_value_counter();
    const struct rc_result *r;
    CHECK(feed_sp(rc, RC_ENTER, 100, 10, 0x7000) == 0);
    /* its exit (sp 0x7008) was lost; the next call at the same depth: */
    CHECK(feed_sp(rc, RC_ENTER, 200, 20, 0x7000) == 0);
    CHECK(feed_sp(rc, RC_EXIT, 210, 25, 0x7008) == 0);
    CHECK(feed_sp(rc, RC_ENTER, 300, 30, 0x7000) == 0);
    CHECK(feed_sp(rc, RC_EXIT, 320, 33, 0x7008) == 0);
    r = region_counter_total(rc, 0);
    CHECK_EQ_U64(r->calls, 3);
    CHECK_EQ_U64(r->crossings, 2);                 /* not 0 (everything nested in the first) */
    CHECK_EQ_U64((uint64_t)r->vals[0].total, 8);   /* 5 + 3 */
    CHECK_EQ_U64(r->resynced, 1);
    CHECK_EQ_U64(r->open, 0);
    region_counter_free(rc);
}

TEST(lost_inner_exit_outermost_still_closes)
{
    struct region_counter *rc = one_value_counter();
    const struct rc_result *r;
    CHECK(feed_sp(rc, RC_ENTER, 100, 10, 0x7000) == 0);
    CHECK(feed_sp(rc, RC_ENTER, 110, 11, 0x6f00) == 0);   /* recursive call, exit lost */
    CHECK(feed_sp(rc, RC_EXIT, 150, 15, 0x7008) == 0);    /* the outermost returns */
    r = region_counter_total(rc, 0);
    CHECK_EQ_U64(r->calls, 2);
    CHECK_EQ_U64(r->crossings, 1);
    CHECK_EQ_U64((uint64_t)r->vals[0].total, 5);
    CHECK_EQ_U64(r->resynced, 0);
    CHECK_EQ_U64(r->unreturned, 1);
    CHECK_EQ_U64(r->open, 0);
    region_counter_free(rc);
}

TEST(recursion_with_stack_pointers_needs_no_resync)
{
    struct region_counter *rc = one_value_counter();
    const struct rc_result *r;
    CHECK(feed_sp(rc, RC_ENTER, 100, 10, 0x7000) == 0);
    CHECK(feed_sp(rc, RC_ENTER, 110, 11, 0x6f00) == 0);
    CHECK(feed_sp(rc, RC_EXIT, 120, 12, 0x6f08) == 0);
    CHECK(feed_sp(rc, RC_ENTER, 130, 13, 0x6f00) == 0);
    CHECK(feed_sp(rc, RC_EXIT, 140, 14, 0x6f08) == 0);
    CHECK(feed_sp(rc, RC_EXIT, 150, 15, 0x7008) == 0);
    r = region_counter_total(rc, 0);
    CHECK_EQ_U64(r->calls, 3);
    CHECK_EQ_U64(r->crossings, 1);
    CHECK_EQ_U64((uint64_t)r->vals[0].total, 5);
    CHECK_EQ_U64(r->resynced, 0);
    region_counter_free(rc);
}

TEST(migration_sums_per_cpu_values)
{
    struct region_counter *rc = one_value_counter();
    const struct rc_result *r;
    /* Enter on cpu 0 at 10; leave cpu 0 at 15 (switch-out sample); exit on cpu 1 at 7. */
    CHECK(feed(rc, RC_ENTER, 7, 0, 100, 10, 10, 10, true) == 0);
    CHECK(feed(rc, RC_SWITCH, 7, 0, 105, 15, 15, 15, false) == 0);
    CHECK(feed(rc, RC_EXIT, 7, 1, 120, 7, 22, 7, true) == 0);
    r = region_counter_total(rc, 0);
    CHECK_EQ_U64(r->crossings, 1);
    CHECK_EQ_U64((uint64_t)r->vals[0].total, 12);   /* (15 - 10) + 7 */
    CHECK_EQ_U64(r->scaled, 0);
    region_counter_free(rc);
}

TEST(multiplexed_crossing_is_scaled_by_its_own_ratio)
{
    struct region_counter *rc = one_value_counter();
    const struct rc_result *r;
    CHECK(feed(rc, RC_ENTER, 7, 0, 0, 100, 1000000, 1000000, true) == 0);
    /* 2 ms enabled, 1 ms running in this crossing: value 50 counted -> 100. */
    CHECK(feed(rc, RC_EXIT, 7, 0, 0, 150, 3000000, 2000000, true) == 0);
    r = region_counter_total(rc, 0);
    CHECK_EQ_U64((uint64_t)r->vals[0].total, 100);
    CHECK_EQ_U64(r->scaled, 1);
    region_counter_free(rc);
}

TEST(exit_without_entry_is_ignored)
{
    struct region_counter *rc = one_value_counter();
    CHECK(feed(rc, RC_EXIT, 7, 0, 10, 5, 5, 5, false) == 0);
    CHECK_EQ_U64(region_counter_total(rc, 0)->crossings, 0);
    CHECK_EQ_U64(region_counter_total(rc, 0)->calls, 0);
    region_counter_free(rc);
}

TEST(threads_are_separate)
{
    struct region_counter *rc = one_value_counter();
    const struct rc_result *t;
    CHECK(feed(rc, RC_ENTER, 7, 0, 1, 0, 0, 0, true) == 0);
    CHECK(feed(rc, RC_ENTER, 8, 1, 2, 0, 0, 0, true) == 0);
    CHECK(feed(rc, RC_EXIT, 7, 0, 3, 4, 4, 4, true) == 0);
    CHECK(feed(rc, RC_EXIT, 8, 1, 4, 9, 9, 9, true) == 0);
    CHECK_EQ_U64(region_counter_total(rc, 0)->crossings, 2);
    CHECK_EQ_U64((uint64_t)region_counter_total(rc, 0)->vals[0].total, 13);
    CHECK_EQ_U64(region_counter_threads(rc, 0, &t), 2);
    CHECK_EQ_U64(t[0].tid, 7);
    CHECK_EQ_U64((uint64_t)t[1].vals[0].total, 9);
    region_counter_free(rc);
}

TEST(idempotent_entry_inside_is_not_a_call)
{
    struct region_counter *rc = one_value_counter();
    struct rc_sample s = { .role = RC_ENTER, .idempotent = true, .tid = 3, .nr_values = 1 };
    uint64_t v = 0;
    s.values = &v;
    CHECK(region_counter_feed(rc, &s) == 0);
    CHECK(region_counter_feed(rc, &s) == 0);       /* a cold fragment entered from inside */
    s.role = RC_EXIT;
    v = 5;
    CHECK(region_counter_feed(rc, &s) == 0);
    CHECK_EQ_U64(region_counter_total(rc, 0)->calls, 1);
    CHECK_EQ_U64(region_counter_total(rc, 0)->crossings, 1);
    region_counter_free(rc);
}

TEST(uretprobe_nesting_limit)
{
    struct region_counter *rc = one_value_counter();
    for (int i = 0; i < 70; i++)
        CHECK(feed(rc, RC_ENTER, 7, 0, (uint64_t)i, 0, 0, 0, true) == 0);
    /* The kernel delivers only 64 returns. */
    for (int i = 0; i < 64; i++)
        CHECK(feed(rc, RC_EXIT, 7, 0, 100 + (uint64_t)i, 1, 1, 1, true) == 0);
    CHECK_EQ_U64(region_counter_total(rc, 0)->calls, 70);
    CHECK_EQ_U64(region_counter_total(rc, 0)->deep, 6);
    CHECK_EQ_U64(region_counter_total(rc, 0)->crossings, 1);
    region_counter_free(rc);
}

TEST(exec_drops_open_crossings)
{
    struct region_counter *rc = one_value_counter();
    CHECK(feed(rc, RC_ENTER, 7, 0, 1, 0, 0, 0, true) == 0);
    region_counter_exec(rc, 7);
    CHECK(feed(rc, RC_EXIT, 7, 0, 2, 1, 1, 1, true) == 0);
    CHECK_EQ_U64(region_counter_total(rc, 0)->crossings, 0);
    region_counter_free(rc);
}

TEST(bad_samples_rejected)
{
    struct region_counter *rc = one_value_counter();
    uint64_t v[2] = { 0, 0 };
    struct rc_sample s = { .role = RC_ENTER, .values = v, .nr_values = 2 };
    CHECK(region_counter_feed(rc, &s) == -EINVAL);     /* wrong value count */
    s.nr_values = 1;
    s.cpu = 99;
    CHECK(region_counter_feed(rc, &s) == -EINVAL);     /* cpu out of range */
    s.cpu = 0;
    s.region = 5;
    CHECK(region_counter_feed(rc, &s) == -EINVAL);     /* no such region */
    region_counter_free(rc);
}

TEST(percentiles_nearest_rank)
{
    struct rc_stat st = { 0 };
    double vals[] = { 5, 1, 4, 2, 3 };
    st.all = vals;
    st.n = 5;
    CHECK_EQ_U64((uint64_t)rc_stat_percentile(&st, 50), 3);
    CHECK_EQ_U64((uint64_t)rc_stat_percentile(&st, 99), 5);
    CHECK_EQ_U64((uint64_t)rc_stat_percentile(&st, 0), 1);
}

TEST(without_kept_values_totals_still_aggregate)
{
    size_t nv = 1;
    struct region_counter *rc = region_counter_new(1, 1, &nv, 2);
    const struct rc_result *r;
    CHECK(feed(rc, RC_ENTER, 7, 0, 0, 0, 0, 0, false) == 0);
    CHECK(feed(rc, RC_EXIT, 7, 0, 10, 4, 4, 4, false) == 0);
    CHECK(feed(rc, RC_ENTER, 8, 0, 20, 0, 0, 0, false) == 0);
    CHECK(feed(rc, RC_EXIT, 8, 0, 30, 6, 6, 6, false) == 0);
    r = region_counter_total(rc, 0);
    CHECK_EQ_U64(r->vals[0].n, 2);
    CHECK_EQ_U64((uint64_t)r->vals[0].total, 10);
    CHECK_EQ_U64((uint64_t)r->vals[0].min, 4);
    CHECK_EQ_U64((uint64_t)r->vals[0].max, 6);
    CHECK(r->vals[0].all == NULL);
    CHECK_EQ_U64((uint64_t)rc_stat_percentile(&r->vals[0], 50), 0);
    region_counter_free(rc);
}

TEST(edit_distance_basics)
{
    CHECK_EQ_U64(edit_distance("fib", "fibb", 10), 1);
    CHECK_EQ_U64(edit_distance("main", "mian", 10), 2);
    CHECK_EQ_U64(edit_distance("", "abc", 10), 3);
    CHECK_EQ_U64(edit_distance("abcdef", "uvwxyz", 3), 3);    /* capped */
}

TEST(malformed_regions_rejected)
{
    struct region_list rl;
    char err[256];
    region_list_init(&rl);
    CHECK(region_add(&rl, "0x20-0x10", "/proc/self/exe", false, err, sizeof(err)) == -EINVAL);
    CHECK(region_add(&rl, "file.c:12", "/proc/self/exe", false, err, sizeof(err)) == -EINVAL);
    CHECK(region_add(&rl, "", "/proc/self/exe", false, err, sizeof(err)) == -EINVAL);
    region_list_release(&rl);
}

/* Exits probed at the function's returns (no uretprobe): sp as the tracer normalizes it (the
 * entry's + 8), no nesting limit. */
static int feed_ret(struct region_counter *rc, enum rc_role role, uint64_t time, uint64_t sp)
{
    uint64_t value = time;
    struct rc_sample s = { .group = 0, .region = 0, .role = role, .function = true, .pid = 1,
                           .tid = 7, .cpu = 0, .time = time, .enabled = time, .running = time,
                           .values = &value, .nr_values = 1, .sp = sp };
    return region_counter_feed(rc, &s);
}

TEST(exception_through_function_is_unreturned_not_lost)
{
    struct region_counter *rc = one_value_counter();
    const struct rc_result *r;
    CHECK(feed_ret(rc, RC_ENTER, 100, 0x7000) == 0);     /* thrown through: no exit */
    CHECK(feed_ret(rc, RC_ENTER, 200, 0x7000) == 0);     /* the next call, same depth */
    CHECK(feed_ret(rc, RC_EXIT, 210, 0x7008) == 0);
    r = region_counter_total(rc, 0);
    CHECK_EQ_U64(r->calls, 2);
    CHECK_EQ_U64(r->crossings, 1);
    CHECK_EQ_U64((uint64_t)r->vals[0].total, 10);
    CHECK_EQ_U64(r->unreturned, 1);
    CHECK_EQ_U64(r->resynced, 1);
    CHECK_EQ_U64(r->open, 0);
    region_counter_free(rc);
}

TEST(longjmp_out_of_recursion_counts_every_frame_left)
{
    struct region_counter *rc = one_value_counter();
    const struct rc_result *r;
    CHECK(feed_ret(rc, RC_ENTER, 100, 0x7000) == 0);
    CHECK(feed_ret(rc, RC_ENTER, 110, 0x6f00) == 0);
    CHECK(feed_ret(rc, RC_ENTER, 120, 0x6e00) == 0);
    /* siglongjmp to main; main calls again from a shallower frame */
    CHECK(feed_ret(rc, RC_ENTER, 200, 0x7100) == 0);
    CHECK(feed_ret(rc, RC_EXIT, 230, 0x7108) == 0);
    r = region_counter_total(rc, 0);
    CHECK_EQ_U64(r->calls, 4);
    CHECK_EQ_U64(r->crossings, 1);
    CHECK_EQ_U64((uint64_t)r->vals[0].total, 30);
    CHECK_EQ_U64(r->unreturned, 3);
    CHECK_EQ_U64(r->resynced, 1);
    region_counter_free(rc);
}

TEST(exception_caught_by_outer_recursion_closes_it)
{
    struct region_counter *rc = one_value_counter();
    const struct rc_result *r;
    CHECK(feed_ret(rc, RC_ENTER, 100, 0x7000) == 0);
    CHECK(feed_ret(rc, RC_ENTER, 110, 0x6f00) == 0);
    CHECK(feed_ret(rc, RC_ENTER, 120, 0x6e00) == 0);     /* throws, caught in the outermost */
    CHECK(feed_ret(rc, RC_EXIT, 150, 0x7008) == 0);
    r = region_counter_total(rc, 0);
    CHECK_EQ_U64(r->calls, 3);
    CHECK_EQ_U64(r->crossings, 1);
    CHECK_EQ_U64((uint64_t)r->vals[0].total, 50);
    CHECK_EQ_U64(r->unreturned, 2);
    CHECK_EQ_U64(r->resynced, 0);
    region_counter_free(rc);
}

TEST(return_probes_on_rets_have_no_nesting_limit)
{
    struct region_counter *rc = one_value_counter();
    const struct rc_result *r;
    for (uint64_t i = 0; i < 100; i++)
        CHECK(feed_ret(rc, RC_ENTER, 100 + i, 0x8000 - 0x40 * i) == 0);
    for (uint64_t i = 100; i-- > 0;)
        CHECK(feed_ret(rc, RC_EXIT, 300 - i, 0x8000 - 0x40 * i + 8) == 0);
    r = region_counter_total(rc, 0);
    CHECK_EQ_U64(r->calls, 100);
    CHECK_EQ_U64(r->crossings, 1);
    CHECK_EQ_U64(r->deep, 0);
    CHECK_EQ_U64(r->unreturned, 0);
    CHECK_EQ_U64(r->open, 0);
    region_counter_free(rc);
}

int main(void)
{
    RUN(recursion_counts_outermost_once);
    RUN(migration_sums_per_cpu_values);
    RUN(lost_outermost_exit_resynced_by_next_entry);
    RUN(lost_inner_exit_outermost_still_closes);
    RUN(recursion_with_stack_pointers_needs_no_resync);
    RUN(multiplexed_crossing_is_scaled_by_its_own_ratio);
    RUN(exit_without_entry_is_ignored);
    RUN(threads_are_separate);
    RUN(idempotent_entry_inside_is_not_a_call);
    RUN(uretprobe_nesting_limit);
    RUN(exception_through_function_is_unreturned_not_lost);
    RUN(longjmp_out_of_recursion_counts_every_frame_left);
    RUN(exception_caught_by_outer_recursion_closes_it);
    RUN(return_probes_on_rets_have_no_nesting_limit);
    RUN(exec_drops_open_crossings);
    RUN(bad_samples_rejected);
    RUN(percentiles_nearest_rank);
    RUN(without_kept_values_totals_still_aggregate);
    RUN(edit_distance_basics);
    RUN(malformed_regions_rejected);
    return 0;
}

/* SPDX-License-Identifier: MIT */
/* stat -r's probe-cost note: the decision on synthetic crossings (no timing involved), and
 * the entry kind read from the probed instruction. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "test.h"
#include "probe/region_cost.h"

TEST(tiny_region_gets_the_note)
{
    struct region_cost c;
    /* A 10-int sum through a jump entry: 1.4 us mean, 1.3 us shortest crossing. */
    CHECK(region_cost_estimate(REGION_ENTRY_JUMP, 1400, 1300, &c));
    CHECK(c.inside_ns == 900 && c.per_crossing_ns == 2200);
    CHECK(c.share > 0.6 && c.share < 0.7);
    /* Single-stepped: the reference (12.5 us) is capped by the shortest crossing (9.9 us). */
    CHECK(region_cost_estimate(REGION_ENTRY_STEPPED, 10300, 9900, &c));
    CHECK(c.inside_ns == 9900 && c.per_crossing_ns == 13500 - (12500 - 9900));
}

TEST(big_region_does_not)
{
    struct region_cost c;
    /* A 50 ms loop: the probe handling is 0.002% of it, whatever the entry. */
    CHECK(!region_cost_estimate(REGION_ENTRY_JUMP, 50e6, 49e6, &c));
    CHECK(!region_cost_estimate(REGION_ENTRY_STEPPED, 50e6, 49e6, &c));
    CHECK(c.share < 0.001);
    /* Just under and at the threshold. */
    CHECK(!region_cost_estimate(REGION_ENTRY_EMULATED, 750 / REGION_COST_NOTE_SHARE + 1, 1e6, &c));
    CHECK(region_cost_estimate(REGION_ENTRY_EMULATED, 750 / REGION_COST_NOTE_SHARE, 1e6, &c));
    /* No crossing: no note. */
    CHECK(!region_cost_estimate(REGION_ENTRY_JUMP, 0, 0, &c));
}

/* A probe file holding `code` at offset 0. */
static enum region_entry_kind kind_of(const unsigned char *code, size_t n, bool jump)
{
    char path[] = "/tmp/prospect-test-cost-XXXXXX";
    int fd = mkstemp(path);
    struct region_list rl;
    struct probe_point p = { .path = path, .offset = 0, .role = RC_ENTER, .jump = jump };
    enum region_entry_kind k;

    if (fd < 0 || write(fd, code, n) != (ssize_t)n)
        return (enum region_entry_kind)-1;
    close(fd);
    region_list_init(&rl);
    if (vec_push(&rl.probes, p))
        return (enum region_entry_kind)-1;
    k = region_entry_kind(&rl, 0);
    vec_free(&rl.probes);
    unlink(path);
    return k;
}

TEST(entry_kind_from_the_first_instruction)
{
    static const unsigned char push[] = { 0x55, 0x48, 0x89, 0xe5 };
    static const unsigned char push_r12[] = { 0x41, 0x54 };
    static const unsigned char call[] = { 0xe8, 0, 0, 0, 0 };
    static const unsigned char mov[] = { 0x48, 0x8b, 0x05, 0, 0, 0, 0 };
    static const unsigned char endbr[] = { 0xf3, 0x0f, 0x1e, 0xfa };
    CHECK(kind_of(push, sizeof(push), false) == REGION_ENTRY_EMULATED);
    CHECK(kind_of(push_r12, sizeof(push_r12), false) == REGION_ENTRY_EMULATED);
    CHECK(kind_of(call, sizeof(call), false) == REGION_ENTRY_EMULATED);
    CHECK(kind_of(mov, sizeof(mov), false) == REGION_ENTRY_STEPPED);
    CHECK(kind_of(endbr, sizeof(endbr), false) == REGION_ENTRY_STEPPED);
    CHECK(kind_of(mov, sizeof(mov), true) == REGION_ENTRY_JUMP);
}

int main(void)
{
    RUN(tiny_region_gets_the_note);
    RUN(big_region_does_not);
    RUN(entry_kind_from_the_first_instruction);
    return 0;
}

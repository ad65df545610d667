/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include "model/hitstore.h"
#include "test.h"
#include "util/hash.h"

TEST(counts_samples_and_periods_per_address)
{
    struct hitstore hs;
    struct hit *h;
    hitstore_init(&hs);
    CHECK(hitstore_add(&hs, 0x1000, 5) == 0);
    CHECK(hitstore_add(&hs, 0x1000, 7) == 0);
    CHECK(hitstore_add(&hs, 0x0fff, 1) == 0);
    CHECK_EQ_U64(hitstore_count(&hs), 2);
    CHECK(hitstore_sorted(&hs, &h) == 2);
    CHECK_EQ_U64(h[0].addr, 0x0fff);
    CHECK_EQ_U64(h[1].addr, 0x1000);
    CHECK_EQ_U64(h[1].samples, 2);
    CHECK_EQ_U64(h[1].period, 12);
    free(h);
    hitstore_release(&hs);
}

TEST(address_zero_and_max_are_ordinary_keys)
{
    struct hitstore hs;
    struct hit *h;
    hitstore_init(&hs);
    CHECK(hitstore_add(&hs, 0, 1) == 0);
    CHECK(hitstore_add(&hs, UINT64_MAX, 1) == 0);
    CHECK(hitstore_sorted(&hs, &h) == 2);
    CHECK_EQ_U64(h[0].addr, 0);
    CHECK_EQ_U64(h[1].addr, UINT64_MAX);
    free(h);
    hitstore_release(&hs);
}

/* Large enough for the radix path (>= 4096 distinct), with kernel and user addresses mixed. */
TEST(radix_sort_orders_many_addresses)
{
    struct hitstore hs;
    struct hit *h;
    long n;
    uint64_t total = 0;
    hitstore_init(&hs);
    for (uint64_t i = 0; i < 50000; i++) {
        uint64_t a = hash_u64(i) & 0xffffffffffULL;
        if (i % 3 == 0)
            a |= 0xffffffff80000000ULL;
        CHECK(hitstore_add(&hs, a, 1) == 0);
        CHECK(hitstore_add(&hs, a, 1) == 0);
    }
    n = hitstore_sorted(&hs, &h);
    CHECK(n > 49000);
    for (long i = 0; i < n; i++) {
        if (i)
            CHECK(h[i - 1].addr < h[i].addr);
        total += h[i].samples;
    }
    CHECK_EQ_U64(total, 100000);
    free(h);
    hitstore_release(&hs);
}

int main(void)
{
    RUN(counts_samples_and_periods_per_address);
    RUN(address_zero_and_max_are_ordinary_keys);
    RUN(radix_sort_orders_many_addresses);
    return 0;
}

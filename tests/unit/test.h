/* SPDX-License-Identifier: MIT */
/* Minimal unit-test harness: each TEST prints "PASS name" or "FAIL name: file:line: expr". */
#ifndef PROSPECT_TEST_H
#define PROSPECT_TEST_H
#include <stdio.h>
#include <string.h>

static int test_failed_;
static const char *test_skip_;

#define CHECK(cond) do { if (!(cond)) { \
        printf("FAIL %s: %s:%d: %s\n", test_name_, __FILE__, __LINE__, #cond); \
        test_failed_ = 1; return; } } while (0)
#define CHECK_EQ_U64(a, b) do { unsigned long long a_ = (a), b_ = (b); if (a_ != b_) { \
        printf("FAIL %s: %s:%d: %s == %llu, expected %llu\n", test_name_, __FILE__, __LINE__, \
               #a, a_, b_); test_failed_ = 1; return; } } while (0)
#define CHECK_STR(a, b) do { const char *a_ = (a), *b_ = (b); \
        if (!a_ || !b_ || strcmp(a_, b_)) { \
        printf("FAIL %s: %s:%d: %s is \"%s\", expected \"%s\"\n", test_name_, __FILE__, __LINE__, \
               #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); test_failed_ = 1; return; } } while (0)
#define SKIP(reason) do { test_skip_ = (reason); return; } while (0)

#define TEST(name) static void name(const char *test_name_)
#define RUN(name) do { test_failed_ = 0; test_skip_ = NULL; name(#name); \
        if (test_skip_) printf("SKIP %s: %s\n", #name, test_skip_); \
        else if (!test_failed_) printf("PASS %s\n", #name); } while (0)
#endif

/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include "test.h"
#include <stdlib.h>
#include "util/obuf.h"
#include "util/seqsort.h"
#include "util/strutil.h"
#include "util/vec.h"

TEST(parse_u64_accepts_decimal_and_hex)
{
    uint64_t v;
    CHECK(parse_u64("4000", &v) == 0);
    CHECK_EQ_U64(v, 4000);
    CHECK(parse_u64("0x1139", &v) == 0);
    CHECK_EQ_U64(v, 0x1139);
}

TEST(parse_u64_rejects_garbage)
{
    uint64_t v;
    CHECK(parse_u64("", &v) == -EINVAL);
    CHECK(parse_u64("12x", &v) == -EINVAL);
    CHECK(parse_u64("-1", &v) == -EINVAL);
    CHECK(parse_u64("99999999999999999999999", &v) == -ERANGE);
}

TEST(vec_grows)
{
    VEC(int) v = {0};
    for (int i = 0; i < 1000; i++)
        CHECK(vec_push(&v, i) == 0);
    CHECK_EQ_U64(v.n, 1000);
    CHECK(v.v[999] == 999);
    vec_free(&v);
}

TEST(printable_passes_clean_text_through)
{
    char buf[64];
    const char *s = "std::vector<int>::push_back(int const&)";
    CHECK(str_printable(s, buf, sizeof(buf)) == s);
    CHECK_STR(str_printable("caf\xc3\xa9", buf, sizeof(buf)), "caf\xc3\xa9");  /* UTF-8 */
}

TEST(printable_escapes_and_cuts)
{
    char buf[16], big[64];
    CHECK_STR(str_printable("\x1b[2J", buf, sizeof(buf)), "\\x1b[2J");
    CHECK_STR(str_printable("a\xff" "b", buf, sizeof(buf)), "a\\xffb");
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    CHECK_STR(str_printable(big, buf, sizeof(buf)), "xxxxxxxxxxxx...");
    CHECK(strlen(str_printable("\x01\x02\x03\x04\x05", buf, sizeof(buf))) < sizeof(buf));
}

static int cmp_seq(const void *a, const void *b)
{
    const struct seqsort_item *x = a, *y = b;
    for (uint32_t i = 0; i < x->n && i < y->n; i++)
        if (x->seq[i] != y->seq[i])
            return x->seq[i] < y->seq[i] ? -1 : 1;
    return x->n < y->n ? -1 : x->n > y->n;
}

TEST(seqsort_orders_as_lexicographic_comparison)
{
    enum { N = 3000 };
    static uint32_t pool[N * 12];
    static struct seqsort_item v[N], w[N];
    unsigned seed = 12345;

    /* Long shared prefixes, short alphabets, prefixes of each other and duplicates. */
    for (int i = 0; i < N; i++) {
        uint32_t n = 1 + (seed = seed * 1103515245 + 12345) % 12;
        for (uint32_t k = 0; k < n; k++)
            pool[i * 12 + k] = k < 4 ? 1 : 1 + (seed = seed * 1103515245 + 12345) % 3;
        v[i] = (struct seqsort_item){ pool + i * 12, n, (uint64_t)i };
    }
    memcpy(w, v, sizeof(v));
    seqsort(v, N);
    qsort(w, N, sizeof(*w), cmp_seq);
    for (int i = 0; i < N; i++) {
        CHECK_EQ_U64(v[i].n, w[i].n);
        CHECK(!memcmp(v[i].seq, w[i].seq, v[i].n * sizeof(uint32_t)));
    }
    seqsort(v, 0);
    seqsort(v, 1);
}

TEST(obuf_writes_everything_in_order)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    static char big[70000];
    struct obuf *o;

    CHECK(f);
    o = obuf_new(f);
    CHECK(o);
    memset(big, 'x', sizeof(big));
    for (int i = 0; i < 20000; i++) {         /* more than one buffer's worth */
        obuf_u64(o, (uint64_t)i * 1000003);
        obuf_char(o, ';');
    }
    obuf_put(o, big, sizeof(big));            /* larger than the buffer */
    obuf_u64(o, 0);
    obuf_u64(o, UINT64_MAX);
    CHECK(obuf_close(o));
    fclose(f);
    CHECK(buf);
    CHECK(!strncmp(buf, "0;1000003;2000006;", 18));
    CHECK(strstr(buf, ";19999059997;xxx"));
    CHECK(len > 20);
    CHECK_STR(buf + len - 21, "018446744073709551615");
    free(buf);
}

int main(void)
{
    RUN(printable_passes_clean_text_through);
    RUN(printable_escapes_and_cuts);
    RUN(seqsort_orders_as_lexicographic_comparison);
    RUN(obuf_writes_everything_in_order);
    RUN(parse_u64_accepts_decimal_and_hex);
    RUN(parse_u64_rejects_garbage);
    RUN(vec_grows);
    return 0;
}

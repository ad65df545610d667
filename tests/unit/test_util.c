#include <errno.h>
#include <string.h>
#include "test.h"
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

int main(void)
{
    RUN(printable_passes_clean_text_through);
    RUN(printable_escapes_and_cuts);
    RUN(parse_u64_accepts_decimal_and_hex);
    RUN(parse_u64_rejects_garbage);
    RUN(vec_grows);
    return 0;
}

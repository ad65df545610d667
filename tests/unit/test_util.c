#include <errno.h>
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

int main(void)
{
    RUN(parse_u64_accepts_decimal_and_hex);
    RUN(parse_u64_rejects_garbage);
    RUN(vec_grows);
    return 0;
}

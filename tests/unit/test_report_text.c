/* SPDX-License-Identifier: MIT */
/* The report formats' text rules: one escaping rule (str_char_escape) for text, CSV and JSON;
 * middle elision to a width; the flat table's sort keys. */
#include <stdlib.h>
#include "test.h"
#include "report/csv.h"
#include "report/flat.h"
#include "report/json.h"
#include "util/strutil.h"

/* What fn wrote into a memory stream, malloc'd. */
#define CAPTURE(out, stmt) do { size_t len_; FILE *f = open_memstream(&(out), &len_); \
        stmt; fclose(f); } while (0)

TEST(escape_rule)
{
    char esc[5];

    CHECK_EQ_U64(str_char_escape("a", esc), 1);
    CHECK_STR(esc, "");
    CHECK_EQ_U64(str_char_escape("\x1b[", esc), 1);
    CHECK_STR(esc, "\\x1b");
    CHECK_EQ_U64(str_char_escape("\x7f", esc), 1);
    CHECK_STR(esc, "\\x7f");
    CHECK_EQ_U64(str_char_escape("\xc3\xa9", esc), 2);          /* é */
    CHECK_STR(esc, "");
    CHECK_EQ_U64(str_char_escape("\xff", esc), 1);
    CHECK_STR(esc, "\\xff");
    CHECK_EQ_U64(str_char_escape("\xe2\x82", esc), 1);          /* cut sequence */
    CHECK_STR(esc, "\\xe2");
}

TEST(printable_uses_the_rule)
{
    char buf[64];
    CHECK_STR(str_printable("evil\x1b[31mred\xff", buf, sizeof(buf)), "evil\\x1b[31mred\\xff");
    CHECK_STR(str_printable("caf\xc3\xa9", buf, sizeof(buf)), "caf\xc3\xa9");
}

TEST(elide_in_the_middle)
{
    char buf[256];
    const char *s = "namespace::Template<int>::function(long)";

    CHECK(str_elide(s, 100, buf, sizeof(buf)) == s);
    CHECK_STR(str_elide(s, 11, buf, sizeof(buf)), "name...ong)");
    CHECK_EQ_U64(str_width(str_elide(s, 20, buf, sizeof(buf))), 20);
    /* UTF-8 characters are kept whole and count one column */
    CHECK_STR(str_elide("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 5, buf, sizeof(buf)),
              "\xc3\xa9...\xc3\xa9");
    /* a small buffer caps the width instead of overflowing */
    char small[16];
    CHECK(str_width(str_elide(s, 30, small, sizeof(small))) <= 4);
}

TEST(csv_escapes_controls_and_quotes)
{
    char *out = NULL;
    CAPTURE(out, (csv_field(f, "a,b", false), csv_field(f, "evil\x1b[1m\n\xfe", false),
                  csv_field(f, "say \"hi\"", false), csv_field(f, "plain", true)));
    CHECK_STR(out, "\"a,b\",\"evil\\x1b[1m\\x0a\\xfe\",\"say \"\"hi\"\"\",plain\n");
    free(out);
}

TEST(json_escapes_controls_and_bad_utf8)
{
    char *out = NULL;
    struct json j;
    CAPTURE(out, (json_init(&j, f), json_str(&j, NULL, "e\x1b\x01\xff\xc3\xa9\"\\")));
    CHECK_STR(out, "\"e\\u001b\\u0001\\ufffd\xc3\xa9\\\"\\\\\"");
    free(out);
}

TEST(sort_keys)
{
    struct flat_opts o = { 0 };
    char err[200];

    CHECK(flat_parse_sort("tid", &o, err, sizeof(err)) == 0);
    CHECK(o.nkeys == 1 && o.keys[0] == FLAT_TID);
    CHECK(flat_parse_sort("tid,sym", &o, err, sizeof(err)) != 0);
    CHECK(strstr(err, "stands alone") != NULL);
    CHECK(flat_parse_sort("pid,comm,dso,sym", &o, err, sizeof(err)) == 0);
    CHECK(o.nkeys == 4);
    CHECK(flat_parse_sort("nope", &o, err, sizeof(err)) != 0);
}

int main(void)
{
    RUN(escape_rule);
    RUN(printable_uses_the_rule);
    RUN(elide_in_the_middle);
    RUN(csv_escapes_controls_and_quotes);
    RUN(json_escapes_controls_and_bad_utf8);
    RUN(sort_keys);
    return 0;
}

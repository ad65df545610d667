/* SPDX-License-Identifier: MIT */
/* Tracepoint formats (perf/tp_format.c) and HEADER_TRACING_DATA's reader
 * (perf/perfdata_tracing_read.c): where a raw field is, from untrusted text. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "perf/perfdata_tracing.h"
#include "perf/tp_format.h"
#include "test.h"

static const char SWITCH[] =
    "name: sched_switch\n"
    "ID: 372\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
    "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
    "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
    "\n"
    "print fmt: \"prev_state=%s next_pid=%d\", REC->prev_state, REC->next_pid\n";

TEST(fields_are_found_by_their_last_identifier)
{
    struct tp_field f;
    CHECK(tp_format_field(SWITCH, strlen(SWITCH), "prev_state", &f) == 0);
    CHECK(f.offset == 32 && f.size == 8 && f.is_signed);
    CHECK(tp_format_field(SWITCH, strlen(SWITCH), "next_pid", &f) == 0);
    CHECK(f.offset == 56 && f.size == 4 && f.is_signed);
    CHECK(tp_format_field(SWITCH, strlen(SWITCH), "prev_comm", &f) == 0);   /* an array */
    CHECK(f.offset == 8 && f.size == 16 && !f.is_signed);
    CHECK(tp_format_field(SWITCH, strlen(SWITCH), "common_type", &f) == 0);
    CHECK(f.offset == 0 && f.size == 2);
    /* Not a suffix or a prefix of another field's name, nor words of the print format. */
    CHECK(tp_format_field(SWITCH, strlen(SWITCH), "pid", &f) == -ENOENT);
    CHECK(tp_format_field(SWITCH, strlen(SWITCH), "next_pi", &f) == -ENOENT);
    CHECK(tp_format_field(SWITCH, strlen(SWITCH), "REC", &f) == -ENOENT);
    CHECK(tp_format_is(SWITCH, strlen(SWITCH), "sched_switch"));
    CHECK(!tp_format_is(SWITCH, strlen(SWITCH), "sched_switc"));
    CHECK(!tp_format_is(SWITCH, strlen(SWITCH), "sched_wakeup"));
}

TEST(a_malformed_line_is_an_error_not_a_guess)
{
    static const char *bad[] = {
        "\tfield:long prev_state;\toffset:;\tsize:8;\tsigned:1;\n",
        "\tfield:long prev_state;\toffset:32;\n",
        "\tfield:long prev_state;\toffset:32;\tsize:0;\tsigned:1;\n",
        "\tfield:long prev_state;\toffset:99999999999999999999;\tsize:8;\n",
        "\tfield:long prev_state;\toffset:65535;\tsize:8;\tsigned:1;\n",   /* past 64 KiB */
        "\tfield:long prev_state;\toffset:32",
    };
    struct tp_field f;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK(tp_format_field(bad[i], strlen(bad[i]), "prev_state", &f) == -EINVAL);
    /* Every prefix of a good text: found, absent or malformed, never read past its end. */
    for (size_t n = 0; n <= strlen(SWITCH); n++) {
        char *copy = malloc(n ? n : 1);
        int r;
        CHECK(copy);
        memcpy(copy, SWITCH, n);
        r = tp_format_field(copy, n, "next_pid", &f);
        free(copy);
        CHECK(r == 0 || r == -ENOENT || r == -EINVAL);
        if (r == 0)
            CHECK(f.offset == 56 && f.size == 4);
    }
}

TEST(raw_fields_are_read_inside_the_record_only)
{
    unsigned char raw[64] = { 0 };
    struct tp_field state = { 32, 8, true }, pid = { 56, 4, true }, flag = { 2, 1, false };
    int64_t v;
    long s = -1;
    int p = 4242;
    memcpy(raw + 32, &s, 8);
    memcpy(raw + 56, &p, 4);
    raw[2] = 0xff;
    CHECK(tp_field_read(&state, raw, 64, &v) == 0 && v == -1);
    CHECK(tp_field_read(&pid, raw, 64, &v) == 0 && v == 4242);
    CHECK(tp_field_read(&flag, raw, 64, &v) == 0 && v == 255);
    CHECK(tp_field_read(&pid, raw, 59, &v) == -ERANGE);     /* a short record */
    CHECK(tp_field_read(&state, NULL, 0, &v) == -ERANGE);
    struct tp_field odd = { 0, 3, false };
    CHECK(tp_field_read(&odd, raw, 64, &v) == -ERANGE);
}

/* A HEADER_TRACING_DATA body as perf lays it out: two systems, the wanted event second. */
static size_t tracing_data(unsigned char *b, const char *fmt)
{
    static const unsigned char magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
    static const char other[] = "name: sched_wakeup\nformat:\n\tfield:pid_t pid;\toffset:8;"
                                "\tsize:4;\tsigned:1;\n";
    size_t n = 0;
    uint64_t len;
    uint32_t u;
#define PUT(p, l) (memcpy(b + n, (p), (l)), n += (l))
    PUT(magic, sizeof(magic));
    PUT("0.6", 4);
    PUT("\0\10", 2);
    u = 4096; PUT(&u, 4);
    PUT("header_page", 12); len = 3; PUT(&len, 8); PUT("abc", 3);
    PUT("header_event", 13); len = 0; PUT(&len, 8);
    u = 1; PUT(&u, 4); len = 5; PUT(&len, 8); PUT("ftrac", 5);
    u = 2; PUT(&u, 4);
    PUT("irq", 4); u = 1; PUT(&u, 4); len = strlen(other); PUT(&len, 8); PUT(other, len);
    PUT("sched", 6); u = 2; PUT(&u, 4);
    len = strlen(other); PUT(&len, 8); PUT(other, len);
    len = strlen(fmt); PUT(&len, 8); PUT(fmt, len);
    u = 0; PUT(&u, 4); PUT(&u, 4); len = 0; PUT(&len, 8);
#undef PUT
    return n;
}

TEST(the_file_s_format_of_an_event_is_found)
{
    unsigned char b[4096];
    size_t n = tracing_data(b, SWITCH);
    char *out;
    CHECK(perfdata_tracing_format(b, n, "sched", "sched_switch", &out) == 0);
    CHECK_STR(out, SWITCH);
    free(out);
    CHECK(perfdata_tracing_format(b, n, "sched", "sched_wakeup", &out) == 0);
    CHECK(strstr(out, "name: sched_wakeup"));
    free(out);
    CHECK(perfdata_tracing_format(b, n, "irq", "sched_switch", &out) == -ENOENT && !out);
    CHECK(perfdata_tracing_format(b, n, "sched", "sched_stat", &out) == -ENOENT);
    /* Cut anywhere before the wanted text ends (16 bytes of sizes follow it): damaged, and
     * never read past the section (ASan). */
    for (size_t cut = 0; cut < n - 16; cut++) {
        unsigned char *c = malloc(cut ? cut : 1);
        int r;
        CHECK(c);
        memcpy(c, b, cut);
        r = perfdata_tracing_format(c, cut, "sched", "sched_switch", &out);
        free(c);
        CHECK(r == -EINVAL);
    }
    /* A big-endian file's data is not read as ours. */
    b[14] = 1;
    CHECK(perfdata_tracing_format(b, n, "sched", "sched_switch", &out) == -EINVAL);
}

int main(void)
{
    RUN(fields_are_found_by_their_last_identifier);
    RUN(a_malformed_line_is_an_error_not_a_guess);
    RUN(raw_fields_are_read_inside_the_record_only);
    RUN(the_file_s_format_of_an_event_is_found);
    return 0;
}

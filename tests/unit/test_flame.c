/* SPDX-License-Identifier: MIT */
/* The call-stack outputs: the protobuf encoder behind pprof, escaping of hostile names, the
 * flame tree (merge, inversion, order), the SVG's frames, speedscope's stacks, pprof's
 * gzipped message, prospect diff's rows and the HTML page's paths and data. The clients themselves (go tool pprof, Chromium,
 * speedscope, perf diff) read the real files in tests/e2e/callgraph_outputs.sh and diff.sh. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "callgraph/resolve.h"
#include "callgraph/stacks.h"
#include "flame/escape.h"
#include "flame/flametree.h"
#include "flame/svg.h"
#include "html/html.h"
#include "html/paths.h"
#include "model/process.h"
#include "report/diff.h"
#include "report/pbwire.h"
#include "report/pprof.h"
#include "report/speedscope.h"
#include "test.h"

static int bytes_are(const struct pbuf *b, const char *hex)
{
    char got[256] = "";
    for (size_t i = 0; i < b->n && 2 * i + 2 < sizeof(got); i++)
        sprintf(got + 2 * i, "%02x", b->p[i]);
    if (strcmp(got, hex))
        printf("  bytes %s, expected %s\n", got, hex);
    return !strcmp(got, hex);
}

TEST(protobuf_wire_bytes)
{
    struct pbuf b = { 0 }, m = { 0 };

    pb_varint(&b, 1);
    pb_varint(&b, 300);
    CHECK(bytes_are(&b, "01ac02"));
    pb_reset(&b);
    pb_varint(&b, UINT64_MAX);
    CHECK(bytes_are(&b, "ffffffffffffffffff01"));
    pb_reset(&b);
    pb_uint(&b, 1, 150);                 /* the encoding guide's example: 08 96 01 */
    pb_uint(&b, 3, 0);                   /* proto3 default: not written */
    pb_string(&b, 2, "testing");
    CHECK(bytes_are(&b, "089601120774657374696e67"));
    pb_reset(&b);
    pb_uint(&m, 1, 150);
    pb_message(&b, 3, &m);               /* nested: tag, length, the message */
    pb_bytes(&b, 6, "", 0);              /* an empty string is still there */
    CHECK(bytes_are(&b, "1a030896013200"));
    pb_release(&b);
    pb_release(&m);
}

static char *render(void (*fn)(FILE *, const void *), const void *arg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fn(f, arg);
    fclose(f);
    return buf;
}

static void xml_all(FILE *f, const void *s) { xml_put(f, s, SIZE_MAX); }
static void xml_3(FILE *f, const void *s) { xml_put(f, s, 3); }
static void json_all(FILE *f, const void *s) { json_put(f, s); }

TEST(hostile_names_escaped_for_xml_and_json)
{
    char *s;

    s = render(xml_all, "a<b&\"c\x01\xff\xc3\xa9>");
    CHECK_STR(s, "a&lt;b&amp;&quot;c??\xc3\xa9&gt;");
    free(s);
    s = render(xml_3, "\xc3\xa9\xc3\xa9");      /* cut at a character, never inside one */
    CHECK_STR(s, "\xc3\xa9");
    free(s);
    s = render(json_all, "a\"\\\n\xff\xe2\x82\xac");
    CHECK_STR(s, "\"a\\\"\\\\\\u000a\\ufffd\xe2\x82\xac\"");
    free(s);
    CHECK(utf8_seq_len((const unsigned char *)"\xc0\x80") == 0);       /* overlong */
    CHECK(utf8_seq_len((const unsigned char *)"\xed\xa0\x80") == 0);   /* surrogate */
    CHECK(utf8_seq_len((const unsigned char *)"\xf4\x90\x80\x80") == 0);   /* past U+10FFFF */
    CHECK(utf8_seq_len((const unsigned char *)"\xf0\x9f\x94\xa5") == 4);
}

/* Stacks over hand-made symbols (frame i of the store gets symbol frame_sym[i]). */
enum { S_MAIN, S_REC, S_LEAF, S_KFUNC, S_GAP, NSYMS };

struct fixture {
    struct cg_store cs;
    struct cg_syms cy;
    struct cg_sym table[NSYMS];
    uint32_t frame_sym[256];
};

static void fixture_init(struct fixture *fx)
{
    memset(fx, 0, sizeof(*fx));
    cg_store_init(&fx->cs);
    fx->table[S_MAIN] = (struct cg_sym){ .name = "main" };
    fx->table[S_REC] = (struct cg_sym){ .name = "rec" };
    fx->table[S_LEAF] = (struct cg_sym){ .name = "leaf<int>" };
    fx->table[S_KFUNC] = (struct cg_sym){ .name = "do_syscall_64", .kernel = true };
    fx->table[S_GAP] = (struct cg_sym){ .name = "a->b", .bracket = true };
    fx->cy.syms = fx->table;
    fx->cy.nsyms = NSYMS;
    fx->cy.frame_sym = fx->frame_sym;
}

/* Adds n frames (leaf first) as `times` samples of period 10 each. */
static int add(struct fixture *fx, const struct process *p, const uint32_t *syms, uint32_t n,
               int times, uint64_t base)
{
    struct frame f[16];
    for (uint32_t i = 0; i < n; i++)
        f[i] = (struct frame){ .addr = base + i, .map = syms[i] == S_KFUNC ? &kernel_map
                                                                              : NULL };
    for (int t = 0; t < times; t++) {
        size_t before = fx->cs.nframes;
        if (cg_store_add_frames(&fx->cs, p, f, n, 10))
            return -1;
        for (size_t i = before; i < fx->cs.nframes; i++)
            fx->frame_sym[i] = syms[i - before];
    }
    return 0;
}

static const struct flame_node *child(const struct flame_tree *t, uint32_t parent, const char *name)
{
    for (uint32_t c = t->nodes[parent].child; c; c = t->nodes[c].next)
        if (!strcmp(strtab_get(&t->names, t->nodes[c].name), name))
            return &t->nodes[c];
    return NULL;
}

static uint32_t idx(const struct flame_tree *t, const struct flame_node *n)
{
    return (uint32_t)(n - t->nodes);
}

TEST(flame_tree_merges_paths_sorts_by_name_and_inverts)
{
    struct process *p = process_new(7, "prog");
    struct fixture fx;
    struct flame_tree t;
    const uint32_t via_rec[] = { S_LEAF, S_REC, S_MAIN }, direct[] = { S_LEAF, S_MAIN },
                   kern[] = { S_KFUNC, S_GAP, S_MAIN };
    const struct flame_node *n, *m;

    CHECK(p);
    fixture_init(&fx);
    CHECK(add(&fx, p, via_rec, 3, 3, 0x100) == 0 && add(&fx, p, direct, 2, 2, 0x200) == 0 &&
          add(&fx, p, kern, 3, 1, 0x300) == 0);
    CHECK(flame_tree_init(&t) == 0);
    CHECK(flame_tree_add_store(&t, &fx.cs, &fx.cy, false, 0) == 0 && flame_tree_sort(&t) == 0);
    CHECK_EQ_U64(t.nodes[0].value[0], 6);
    CHECK((n = child(&t, 0, "prog")) && n->value[0] == 6 && n->kind == FLAME_COMM);
    CHECK((m = child(&t, idx(&t, n), "main")) && m->value[0] == 6);
    /* Children by name: "a->b" < "leaf<int>" < "rec". */
    CHECK_STR(strtab_get(&t.names, t.nodes[m->child].name), "a->b");
    CHECK(t.nodes[m->child].kind == FLAME_BRACKET);
    CHECK_STR(strtab_get(&t.names, t.nodes[t.nodes[m->child].next].name), "leaf<int>");
    CHECK((n = child(&t, idx(&t, m), "rec")) && n->value[0] == 3);
    CHECK((n = child(&t, idx(&t, n), "leaf<int>")) && n->value[0] == 3 && !n->child);
    CHECK((n = child(&t, idx(&t, m), "a->b")) && (n = child(&t, idx(&t, n), "do_syscall_64")) &&
          n->kind == FLAME_KERNEL);
    CHECK_EQ_U64(t.depth, 4);            /* all, prog, main, rec, leaf */
    flame_tree_release(&t);

    /* Inverted: the leaf first, the command last. */
    CHECK(flame_tree_init(&t) == 0);
    CHECK(flame_tree_add_store(&t, &fx.cs, &fx.cy, true, 0) == 0 && flame_tree_sort(&t) == 0);
    CHECK((n = child(&t, 0, "leaf<int>")) && n->value[0] == 5);
    CHECK((m = child(&t, idx(&t, n), "main")) && m->value[0] == 2);
    CHECK((m = child(&t, idx(&t, m), "prog")) && m->value[0] == 2 && m->kind == FLAME_COMM);
    CHECK((m = child(&t, idx(&t, n), "rec")) && m->value[0] == 3);
    flame_tree_release(&t);
    cg_store_release(&fx.cs);
    process_free(p);
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *q = s; (q = strstr(q, what)); q++)
        n++;
    return n;
}

struct svg_arg {
    const struct flame_tree *t;
    struct flame_svg_opts o;
};

static void svg_fn(FILE *f, const void *a)
{
    const struct svg_arg *s = a;
    flame_svg_write(f, s->t, &s->o);
}

TEST(svg_frames_with_widths_and_tiny_ones_left_out)
{
    struct process *p = process_new(7, "a<b");
    struct fixture fx;
    struct flame_tree t;
    const uint32_t big[] = { S_LEAF, S_MAIN }, tiny[] = { S_REC, S_MAIN };
    char *s;

    CHECK(p);
    fixture_init(&fx);
    /* 20000 samples on 1180 px: a one-sample frame is 0.06 px, under the 0.1 px cut. */
    CHECK(add(&fx, p, big, 2, 19999, 0x100) == 0 && add(&fx, p, tiny, 2, 1, 0x200) == 0);
    CHECK(flame_tree_init(&t) == 0);
    CHECK(flame_tree_add_store(&t, &fx.cs, &fx.cy, false, 0) == 0 && flame_tree_sort(&t) == 0);
    struct svg_arg a = { &t, { .title = "T&T" } };
    s = render(svg_fn, &a);
    CHECK(s);
    CHECK(count(s, "<g class=\"f\"") == 4);          /* all, the command, main, leaf */
    CHECK(strstr(s, "<title>a&lt;b (20000 samples, 100.00%)</title>"));
    CHECK(strstr(s, "data-x=\"0\" data-v=\"19999\" data-d=\"3\"><title>leaf&lt;int&gt; "
                    "(19999 samples, 100.00%)</title><rect x=\"10.00\" y=\"54\" width=\"1179.94\""));
    CHECK(!strstr(s, "<title>rec"));
    CHECK(strstr(s, ">T&amp;T</text>"));
    CHECK(strstr(s, "<script type=\"text/ecmascript\"><![CDATA[") && !strstr(s, "data-inverted"));
    free(s);
    a.o.inverted = true;                 /* the icicle: depth 1 at the top */
    s = render(svg_fn, &a);
    CHECK(s && strstr(s, "data-inverted=\"1\"") && strstr(s, "data-d=\"0\"><title>all "
          "(20000 samples, 100.00%)</title><rect x=\"10.00\" y=\"54\""));
    free(s);
    flame_tree_release(&t);
    cg_store_release(&fx.cs);
    process_free(p);
}

struct out_arg {
    struct fixture *fx;
    struct fixture *other;
};

static void speedscope_fn(FILE *f, const void *a)
{
    const struct out_arg *o = a;
    struct speedscope_opts so = { .name = "x.data", .time_event = true };
    report_speedscope(f, &o->fx->cs, &o->fx->cy, &so);
}

TEST(speedscope_stacks_outermost_first_per_process)
{
    struct process *p = process_new(7, "prog"), *q = process_new(8, "other");
    struct fixture fx;
    const uint32_t via_rec[] = { S_LEAF, S_REC, S_MAIN }, direct[] = { S_LEAF, S_MAIN };
    char *s;

    CHECK(p && q);
    fixture_init(&fx);
    CHECK(add(&fx, p, via_rec, 3, 3, 0x100) == 0 && add(&fx, q, direct, 2, 5, 0x200) == 0);
    struct out_arg a = { &fx, NULL };
    s = render(speedscope_fn, &a);
    CHECK(s);
    /* The heavier process (other, 50 ns) first; frames are symbol indices, main = 0. */
    CHECK(strstr(s, "{\"type\":\"sampled\",\"name\":\"other (8)\",\"unit\":\"nanoseconds\","
                    "\"startValue\":0,\"endValue\":50,\n\"samples\":[[0,2]],\n\"weights\":[50]}"));
    CHECK(strstr(s, "\"name\":\"prog (7)\"") && strstr(s, "\"samples\":[[0,1,2]]"));
    CHECK(strstr(s, "{\"name\":\"leaf<int>\",\"file\":\"[unknown]\"}"));
    CHECK(strstr(s, "\"file\":\"[kernel.kallsyms]\""));
    free(s);
    cg_store_release(&fx.cs);
    process_free(p);
    process_free(q);
}

/* Reads a varint at *p; 0 at the end or on damage. */
static int varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; *p < end && shift < 64; shift += 7) {
        uint8_t b = *(*p)++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return 1;
    }
    return 0;
}

static void pprof_fn(FILE *f, const void *a)
{
    const struct out_arg *o = a;
    struct pprof_opts po = { .event = "cpu-clock", .time_event = true, .period = 1000 };
    report_pprof(f, &o->fx->cs, &o->fx->cy, &po);
}

TEST(pprof_gzipped_profile_fields)
{
    struct process *p = process_new(7, "prog");
    struct fixture fx;
    const uint32_t via_rec[] = { S_LEAF, S_REC, S_MAIN }, kern[] = { S_KFUNC, S_MAIN };
    uint8_t raw[8192];
    uLongf rawlen = sizeof(raw);
    size_t len;
    int counts[16] = { 0 }, has_cpu = 0, has_main = 0;
    char *s;

    CHECK(p);
    fixture_init(&fx);
    CHECK(add(&fx, p, via_rec, 3, 3, 0x100) == 0 && add(&fx, p, kern, 2, 1, 0x200) == 0);
    struct out_arg a = { &fx, NULL };
    FILE *f;
    s = NULL;
    f = open_memstream(&s, &len);
    pprof_fn(f, &a);
    fclose(f);
    CHECK(len > 18 && (uint8_t)s[0] == 0x1f && (uint8_t)s[1] == 0x8b);   /* gzip */
    z_stream z = { .next_in = (Bytef *)s, .avail_in = (uInt)len, .next_out = raw,
                   .avail_out = (uInt)rawlen };
    CHECK(inflateInit2(&z, 15 + 16) == Z_OK);
    int zr = inflate(&z, Z_FINISH);
    inflateEnd(&z);
    CHECK(zr == Z_STREAM_END);
    rawlen = z.total_out;
    /* Walk the top-level fields: tag, then a varint or a length and bytes. */
    for (const uint8_t *q = raw, *end = raw + rawlen; q < end;) {
        uint64_t tag, v;
        CHECK(varint(&q, end, &tag));
        CHECK((tag & 7) == 0 || (tag & 7) == 2);
        CHECK(varint(&q, end, &v));
        if ((tag & 7) == 2) {
            CHECK(v <= (uint64_t)(end - q));
            if (tag >> 3 == 6) {
                has_cpu |= v == 3 && !memcmp(q, "cpu", 3);
                has_main |= v == 4 && !memcmp(q, "main", 4);
            }
            q += v;
        }
        if (tag >> 3 < 16)
            counts[tag >> 3]++;
    }
    CHECK_EQ_U64(counts[1], 2);          /* sample types: samples/count, cpu/nanoseconds */
    CHECK_EQ_U64(counts[2], 2);          /* a sample per distinct stack */
    CHECK_EQ_U64(counts[3], 1);          /* the kernel's mapping (user frames have none here) */
    CHECK_EQ_U64(counts[4], 5);          /* a location per distinct (map, address) */
    CHECK_EQ_U64(counts[5], NSYMS);      /* a function per symbol */
    CHECK(counts[11] == 1 && counts[12] == 1);   /* period type and period */
    CHECK(has_cpu && has_main);
    free(s);
    cg_store_release(&fx.cs);
    process_free(p);
}

static void diff_fn(FILE *f, const void *a)
{
    const struct out_arg *o = a;
    struct diff_side old = { &o->other->cs, &o->other->cy, "old" };
    struct diff_side nw = { &o->fx->cs, &o->fx->cy, "new" };
    struct diff_opts d = { .csv = true };
    report_diff(f, &old, &nw, &d);
}

TEST(diff_rows_sorted_by_absolute_delta)
{
    struct process *p = process_new(7, "prog");
    struct fixture old, nw;
    const uint32_t leaf[] = { S_LEAF, S_MAIN }, rec[] = { S_REC, S_MAIN },
                   kern[] = { S_KFUNC, S_MAIN };
    char *s;

    CHECK(p);
    fixture_init(&old);
    fixture_init(&nw);
    /* old: leaf 80%, rec 20%; new: leaf 50%, rec 20%, kernel 30%. */
    CHECK(add(&old, p, leaf, 2, 8, 0x100) == 0 && add(&old, p, rec, 2, 2, 0x200) == 0);
    CHECK(add(&nw, p, leaf, 2, 5, 0x100) == 0 && add(&nw, p, rec, 2, 2, 0x200) == 0 &&
          add(&nw, p, kern, 2, 3, 0x300) == 0);
    struct out_arg a = { &nw, &old };
    s = render(diff_fn, &a);
    CHECK_STR(s, "old_percent,new_percent,delta,shared_object,symbol\n"
                 "80.0000,50.0000,-30.0000,[unknown],leaf<int>\n"
                 "0.0000,30.0000,30.0000,[kernel.kallsyms],do_syscall_64\n"
                 "20.0000,20.0000,0.0000,[unknown],rec\n");
    free(s);
    cg_store_release(&old.cs);
    cg_store_release(&nw.cs);
    process_free(p);
}

static void html_fn(FILE *f, const void *a)
{
    const struct fixture *fx = a;
    const char *notes[] = { "note </script><b>" };
    struct html_opts o = { .title = "t</script>", .input = "x.data", .notes = notes,
                           .nnotes = 1 };
    html_write(f, &fx->cs, &fx->cy, &o);
}

TEST(html_paths_merged_by_name_and_data_script_safe)
{
    struct process *p = process_new(7, "a</script>"), *q = process_new(8, "a</script>");
    struct fixture fx;
    struct html_paths hp;
    const uint32_t one[] = { S_LEAF, S_MAIN }, two[] = { S_KFUNC, S_LEAF, S_MAIN };
    char *s;

    CHECK(p && q);
    fixture_init(&fx);
    fx.table[S_REC].name = "leaf<int>";   /* another symbol of the same name: one path */
    const uint32_t same[] = { S_REC, S_MAIN };
    CHECK(add(&fx, p, one, 2, 3, 0x100) == 0 && add(&fx, p, same, 2, 2, 0x200) == 0 &&
          add(&fx, q, two, 3, 1, 0x300) == 0);
    CHECK(html_paths_build(&hp, &fx.cs, &fx.cy, false) == 0);
    /* root, the command (both processes), main, leaf<int>, do_syscall_64 */
    CHECK_EQ_U64(hp.n, 5);
    CHECK_EQ_U64(hp.nprocs, 2);
    CHECK_EQ_U64(hp.nstacks, 2);          /* (p, leaf) 3 + 2 samples, (q, do_syscall_64) 1 */
    CHECK_EQ_U64(hp.stacks[0].weight + hp.stacks[1].weight, 6);
    CHECK(hp.stacks[0].weight == 5 || hp.stacks[1].weight == 5);
    html_paths_release(&hp);
    s = render(html_fn, &fx);
    CHECK(s);
    CHECK(count(s, "</script>") == 5);    /* the data, flame.js, source.js, timeline.js, html.js */
    CHECK(strstr(s, "\"a\\u003c/script\\u003e\""));
    CHECK(strstr(s, "\"title\":\"t\\u003c/script\\u003e\""));
    CHECK(strstr(s, "\"notes\":[\"note \\u003c/script\\u003e\\u003cb\\u003e\"]"));
    CHECK(strstr(s, "default-src 'none'"));
    free(s);
    cg_store_release(&fx.cs);
    process_free(p);
    process_free(q);
}

int main(void)
{
    RUN(protobuf_wire_bytes);
    RUN(hostile_names_escaped_for_xml_and_json);
    RUN(flame_tree_merges_paths_sorts_by_name_and_inverts);
    RUN(svg_frames_with_widths_and_tiny_ones_left_out);
    RUN(speedscope_stacks_outermost_first_per_process);
    RUN(pprof_gzipped_profile_fields);
    RUN(diff_rows_sorted_by_absolute_delta);
    RUN(html_paths_merged_by_name_and_data_script_safe);
    return 0;
}
